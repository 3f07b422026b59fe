/**
 * clia verbs about the shelf's health (Pigeon Point `showunhealthy`, `alarm`, `version`):
 *
 * - `showunhealthy`: FRUs in M7, with an injected fault, or whose last hot-swap change was a
 *   communication loss, a surprise extraction or an unexpected deactivation (OEM Get FRU Info);
 *   "There are no unhealthy components in the shelf" when none. Exit 0 either way (it is a query).
 * - `alarm [minor|major|critical|clear [SEVERITY]]`: the TELCO alarm outputs and the alarms behind
 *   them (HA alarms, sensor thresholds, faults: OEM Get Alarms); with a severity the operator sets
 *   that output (cumulative, as on Pigeon Point), `clear` clears operator-set outputs (OEM Set
 *   Alarm Outputs, OPERATOR privilege).
 * - `version`: the shelf manager's firmware (Get Device ID at 20h, Get PICMG Properties) and this
 *   client's version.
 */
import { ALARM_SEVERITIES, type AlarmSeverity, type OemFruInfo } from '../ipmi/shelf-manager/oem-protocol.ts';
import { BMC_ADDRESS } from './client.ts';
import type { ShelfApi } from './shelf-api.ts';
import { CAUSE_BY_CODE, UsageError, fruJson, fruText, hex2, noArgs, type Verb, type VerbResult } from './verb-kit.ts';

/** Version of the clia client (package.json). */
export const CLIA_VERSION = '0.1.0';

/** Hot-swap causes that mark a FRU unhealthy while they are its last change. */
const UNHEALTHY_CAUSES = new Set(['communication', 'communicationLocal', 'surpriseExtraction', 'unexpectedDeactivation']);

/** Why a FRU is unhealthy (empty: it is healthy). */
export function unhealthyReasons(f: OemFruInfo): string[] {
  const j = fruJson(f);
  const out: string[] = [];
  if (f.state === 7) out.push('communication lost (M7)');
  for (const k of j.faults) out.push(`${k} fault`);
  const cause = CAUSE_BY_CODE.get(f.cause);
  if (f.state !== 0 && cause && UNHEALTHY_CAUSES.has(cause) && f.state !== 7) out.push(`last change: ${cause === 'unexpectedDeactivation' ? 'unexpected deactivation' : cause === 'surpriseExtraction' ? 'surprise extraction' : 'communication lost or regained'}`);
  return out;
}

const bits = (m: number) => ALARM_SEVERITIES.filter((_, i) => m & (1 << i));
const onOff = (m: number) => ALARM_SEVERITIES.map((s, i) => `${s[0]!.toUpperCase()}${s.slice(1)}: ${m & (1 << i) ? 'on' : 'off'}`).join(', ');

async function alarmView(api: ShelfApi): Promise<VerbResult> {
  const a = await api.alarms();
  let text = `TELCO alarms: ${onOff(a.outputs)}\n`;
  if (a.operator) text += `Set by the operator: ${bits(a.operator).join(', ')}\n`;
  text += a.alarms.length ? a.alarms.map((x) => `    ${x.severity.padEnd(8)} ${x.source}: ${x.alarm}\n`).join('') : 'No active alarms\n';
  return { text, json: { outputs: bits(a.outputs), operator: bits(a.operator), alarms: a.alarms } };
}

/** The verbs of this file. */
export const HEALTH_VERBS: Readonly<Record<string, Verb>> = {
  showunhealthy: {
    usage: 'showunhealthy',
    summary: 'FRUs in M7, with a fault, or last changed by a communication loss, surprise extraction or unexpected deactivation',
    run: async (api, args) => {
      noArgs(args, 'showunhealthy');
      const frus = await api.frus();
      const status = await api.shmStatus();
      const bad = frus.map((f) => ({ f, reasons: unhealthyReasons(f) })).filter((x) => x.reasons.length);
      if (!bad.length) return { text: 'There are no unhealthy components in the shelf\n', json: [] };
      const text = 'Unhealthy components in the shelf:\n' + bad.map(({ f, reasons }) => `${fruText(f, status.self)}    Unhealthy: ${reasons.join('; ')}\n`).join('');
      return { text, json: bad.map(({ f, reasons }) => ({ ...fruJson(f), reasons })) };
    },
  },
  alarm: {
    usage: 'alarm [minor|major|critical|clear [minor|major|critical]]',
    summary: 'TELCO alarm outputs and the alarms behind them; set an output (cumulative) or clear the operator\'s',
    run: async (api, args) => {
      if (!args.length) return alarmView(api);
      const clear = args[0] === 'clear';
      const names = clear ? args.slice(1) : args;
      const unknown = names.find((n) => !(ALARM_SEVERITIES as readonly string[]).includes(n));
      if (unknown !== undefined) throw new UsageError(`alarm: "${unknown}" is not minor, major, critical or clear`);
      if (!clear && !names.length) throw new UsageError('alarm: give a severity');
      const mask = names.length ? names.reduce((m, n) => m | (1 << ALARM_SEVERITIES.indexOf(n as AlarmSeverity)), 0) : 0x07;
      await api.setAlarms(!clear, mask);
      const v = await alarmView(api);
      return { text: `alarm ${args.join(' ')}: command executed successfully\n${v.text}`, json: v.json };
    },
  },
  version: {
    usage: 'version',
    summary: 'the shelf manager\'s firmware version (Get Device ID at 20h) and this client\'s',
    run: async (api, args) => {
      noArgs(args, 'version');
      const d = await api.deviceId(BMC_ADDRESS);
      const p = await api.picmgProperties(BMC_ADDRESS);
      const s = await api.shmStatus();
      const text =
        `atcasim Shelf Manager Command Line Interpreter ${CLIA_VERSION}\n` +
        `Shelf manager ${s.self}: firmware ${d.firmware}, IPMI ${d.ipmiVersion}, PICMG ${p.version}\n` +
        `    Device ID: ${hex2(d.deviceId)}, Revision ${d.revision}, Manufacturer ID: ${d.manufacturerId} (${hex2(d.manufacturerId)}), Product ID: ${d.productId}\n`;
      return { text, json: { client: CLIA_VERSION, shelf_manager: s.self, firmware: d.firmware, ipmi_version: d.ipmiVersion, picmg_version: p.version, device_id: d.deviceId, revision: d.revision, manufacturer_id: d.manufacturerId, product_id: d.productId } };
    },
  },
};
