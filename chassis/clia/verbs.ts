/**
 * The verbs of `atcasim clia`, in the style of a PICMG shelf manager's CLI (Pigeon Point `clia`:
 * shmstatus, switchover, fru, board, sensordata, sel, activate, deactivate, ipmc, getfanlevel, …;
 * research/ipmi.md §E.2), each producing a text rendering and a JSON value from what the running
 * shelf answers over IPMI (shelf-api.ts).
 *
 * FRUs are named as everywhere in atcasim: `slot3` or `3` (logical slot), `shmc-a`, `fan1`, `pem2`;
 * Pigeon Point's `board N`, `shm N` and `fan_tray N` forms and an IPMB address (`0x86`) work too.
 * Errors: UsageError (bad arguments, exit 2), RefusedError (the shelf said no, exit 1),
 * ConnectionError (exit 2) — see chassis/cli/clia.ts.
 */
import { isSensorRecord } from '../sensors/sdr.ts';
import { describeSelRecord } from '../sensors/sel-text.ts';
import { rawToValue, representable } from '../sensors/linearization.ts';
import { SHM_FLAG, type OemFruInfo } from '../ipmi/shelf-manager/oem-protocol.ts';
import { BMC_ADDRESS } from './client.ts';
import { OEM_SENSOR_VALUE_MAX, RefusedError, fitsOemSensorValue, type ShelfApi } from './shelf-api.ts';
import { UNIT_BY_CODE, UsageError, causeText, fruJson, fruText, hex2, noArgs, oneFru, resolveFru, sensorValue, stateText, type Verb, type VerbResult } from './verb-kit.ts';

import { HEALTH_VERBS } from './verbs-health.ts';
import { LAN_VERBS } from './verbs-lan.ts';
import { SHELF_VERBS } from './verbs-shelf.ts';
import { THRESHOLD_VERBS } from './verbs-threshold.ts';
import { USER_VERBS } from './verbs-users.ts';

export { UsageError, resolveFru, type Verb, type VerbResult } from './verb-kit.ts';

/** A decimal number as typed (85, -2.5, 1e3); anything else — '', ' ', 0x10, Infinity — is a UsageError. */
function parseReading(text: string): number {
  if (text.trim() === '') throw new UsageError('inject sensor: the value is empty; give a reading in engineering units (e.g. 85 or 11.9)');
  const v = Number(text);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) || !Number.isFinite(v)) {
    throw new UsageError(`inject sensor: "${text}" is not a number; give a reading in engineering units (e.g. 85 or 11.9)`);
  }
  return v;
}

/**
 * Refuses (UsageError) a reading the sensor's SDR conversion cannot represent (IPMI v2.0 §36.3: an
 * 8-bit raw reading 0..255 through y = (M·x + B·10^Bexp)·10^Rexp, half a count of tolerance) or that
 * the OEM command cannot carry. A sensor clia cannot find in the SDR repository is left to the
 * shelf to refuse.
 */
async function checkInjectable(api: ShelfApi, fru: OemFruInfo, sensor: string, value: number, text: string): Promise<void> {
  const owners = fru.kind === 'shmc' ? [BMC_ADDRESS, fru.ipmbAddress] : [fru.ipmbAddress];
  const byNumber = /^\d+$/.test(sensor) ? Number(sensor) : undefined;
  const rec = (await api.sdr()).find(
    (s) => s.type === 'full' && owners.includes(s.ownerId) && (byNumber !== undefined ? s.sensorNumber === byNumber : s.idString === sensor),
  );
  if (rec && rec.type === 'full') {
    const l = rec.linearization;
    if (!representable(value, l)) {
      const ends = [rawToValue(0, l), rawToValue(255, l)].sort((a, b) => a - b);
      const unit = UNIT_BY_CODE.get(rec.unitCode);
      throw new UsageError(`inject sensor: ${text} is outside the range of ${fru.name} "${rec.idString}": ${ends[0]} to ${ends[1]}${unit && unit !== 'unspecified' ? ` ${unit}` : ''} (8-bit reading)`);
    }
  }
  if (!fitsOemSensorValue(value)) throw new UsageError(`inject sensor: ${text} does not fit the OEM Set Sensor Reading command (±${OEM_SENSOR_VALUE_MAX})`);
}

async function activation(api: ShelfApi, args: string[], activate: boolean, verb: string): Promise<VerbResult> {
  const { fru, rest } = await oneFru(api, args);
  noArgs(rest, verb);
  await api.setActivation(fru.hardwareAddress, activate);
  const after = (await api.frus()).find((f) => f.name === fru.name)!;
  return { text: `${verb} ${fru.name}: command executed successfully; now ${stateText(after.state)}\n`, json: { fru: fru.name, command: verb, ...fruJson(after) } };
}

/** The first verbs (shelf managers, FRUs, sensors, SEL, activation, fans, consoles, injection). */
const CORE_VERBS: Readonly<Record<string, Verb>> = {
  shmstatus: {
    usage: 'shmstatus [-v]',
    summary: 'role of the shelf manager that answers and of its peer',
    run: async (api, args, { verbose }) => {
      noArgs(args, 'shmstatus');
      const s = await api.shmStatus();
      const json = {
        shelf_manager: s.self,
        site: s.site,
        role: s.role,
        peer: s.peer || null,
        peer_site: s.peerSite || null,
        peer_role: s.peerRole,
        epoch: s.epoch,
        ready_for_operation: s.role === 'active',
        peer_present: (s.flags & SHM_FLAG.peerPresent) !== 0,
        peer_healthy: (s.flags & SHM_FLAG.peerActive) !== 0,
      };
      let text =
        `Host: ${s.role === 'active' ? 'Active' : 'Backup'}\n` +
        `Shelf manager: ${s.self} (ShMC site ${s.site})\n` +
        `Role: ${s.role}\n` +
        `Peer: ${s.peer ? `${s.peer} (ShMC site ${s.peerSite})` : 'none'}\n` +
        `Peer role: ${s.peerRole}\n` +
        `Ready For Operation: ${s.role === 'active' ? 'Yes' : 'No'}\n`;
      if (verbose) text += `Epoch: ${s.epoch}\nPeer present: ${json.peer_present ? 'Yes' : 'No'}\nBackup Healthy: ${json.peer_healthy ? 'Yes' : 'No'}\nRMCP Up: Yes\n`;
      return { text, json };
    },
  },
  switchover: {
    usage: 'switchover',
    summary: 'hand the active shelf-manager role to the peer',
    run: async (api, args) => {
      noArgs(args, 'switchover');
      const r = await api.switchover();
      return { text: `Switchover: ${r.from} -> ${r.to}; ${r.to} is now the active shelf manager\n`, json: r };
    },
  },
  fru: {
    usage: 'fru [FRU]',
    summary: 'FRUs with their hot-swap state, site and addresses',
    run: async (api, args) => {
      const frus = await api.frus();
      const status = await api.shmStatus();
      const list = args.length ? [resolveFru(frus, args).fru] : frus;
      return { text: list.map((f) => fruText(f, status.self)).join(''), json: list.map(fruJson) };
    },
  },
  board: {
    usage: 'board [N]',
    summary: 'front boards (hubs, processor boards) with their IPM controller',
    run: async (api, args, { verbose }) => {
      const frus = await api.frus();
      const boards = frus.filter((f) => f.kind === 'hub' || f.kind === 'processor');
      const list = args.length ? [resolveFru(frus, args[0] === 'board' ? args : ['board', args[0]!]).fru] : boards;
      let text = '';
      const json = [];
      for (const f of list) {
        let extra: Record<string, unknown> = {};
        text += `Physical Slot # ${f.physicalSlot} (logical slot ${f.slot}): ${f.name} "${f.label}"\n`;
        if (f.state !== 0 && f.state !== 7) {
          const [d, p] = [await api.deviceId(f.ipmbAddress), await api.picmgProperties(f.ipmbAddress)];
          extra = { firmware: d.firmware, product_id: d.productId, picmg_version: p.version, max_fru_id: p.maxFruId };
          text += `    ${f.ipmbAddress.toString(16)}: Entity: (0xa0, 0x60) Maximum FRU device ID: ${hex2(p.maxFruId)}\n    PICMG Version ${p.version}, firmware ${d.firmware}\n`;
        }
        text += `    Hot Swap State: ${stateText(f.state)}, Previous: ${stateText(f.previous)}, Last State Change Cause: ${causeText(f.cause)}\n`;
        if (verbose) text += `    In service: ${fruJson(f).in_service ? 'yes' : 'no'}, power level ${f.powerLevel}\n`;
        text += `    Device ID String: "${f.label}"\n`;
        json.push({ ...fruJson(f), ...extra });
      }
      return { text, json };
    },
  },
  sensordata: {
    usage: 'sensordata [FRU [SENSOR]]',
    summary: 'current sensor values (readings from each sensor\'s controller)',
    run: async (api, args) => {
      const frus = await api.frus();
      const status = await api.shmStatus();
      let owner: number | undefined;
      let rest = args;
      if (args.length) {
        const r = resolveFru(frus, args);
        owner = r.fru.name === status.self ? BMC_ADDRESS : r.fru.ipmbAddress;
        rest = args.slice(r.used);
      }
      const want = rest.join(' ');
      const sensors = (await api.sdr()).filter((s) => (s.type === 'full' || s.type === 'compact') && (owner === undefined || s.ownerId === owner) && (!want || s.idString === want));
      if (want && sensors.length === 0) throw new RefusedError(0xcb, 'no_such_sensor', `no sensor "${want}"${owner !== undefined ? ` at ${owner.toString(16)}h` : ''}`);
      let text = '';
      const json = [];
      for (const s of sensors) {
        if (s.type !== 'full' && s.type !== 'compact') continue;
        const r = await api.sensorReading(s.ownerId, s.sensorNumber);
        const v = r.available ? sensorValue(s, r.raw) : undefined;
        text += `${s.ownerId.toString(16)}: LUN: 0, Sensor # ${s.sensorNumber} ("${s.idString}")\n`;
        if (s.type === 'full') text += `    Type: Threshold (0x01)\n    Raw data: ${r.raw} (${hex2(r.raw)})\n    Processed data: ${v ? `${v.value} ${v.unit}` : 'unavailable'}\n    Status: ${hex2(r.flags)}${r.states ? `, thresholds crossed: ${hex2(r.states & 0x3f)}` : ''}\n`;
        else {
          const m = r.states ? 31 - Math.clz32(r.states & 0xff) : -1;
          text += `    Type: Discrete (${hex2(s.readingType)}), "FRU Hot Swap" (${hex2(s.sensorType)})\n    State: ${r.available && m >= 0 ? stateText(m) : 'unavailable'}\n`;
        }
        json.push({
          owner: s.ownerId,
          number: s.sensorNumber,
          name: s.idString,
          kind: s.type === 'full' ? 'threshold' : 'discrete',
          available: r.available,
          raw: r.raw,
          ...(v ? { value: v.value, unit: v.unit } : {}),
          ...(s.type === 'compact' && r.states ? { state: `M${31 - Math.clz32(r.states & 0xff)}` } : {}),
          status: r.flags,
        });
      }
      return { text, json };
    },
  },
  sel: {
    usage: 'sel [COUNT] | sel clear',
    summary: 'the shelf manager\'s System Event Log (newest COUNT records), or clear it',
    run: async (api, args) => {
      if (args[0] === 'clear') {
        noArgs(args.slice(1), 'sel clear');
        await api.selClear();
        return { text: 'SEL cleared\n', json: { cleared: true } };
      }
      const count = args.length ? Number(args[0]) : undefined;
      if (args.length > 1 || (count !== undefined && (!Number.isInteger(count) || count < 1))) throw new UsageError('sel: COUNT must be a positive integer, or "clear"');
      const sdr = await api.sdr();
      const name = (addr: number, num: number, type: number) => sdr.find((s) => isSensorRecord(s) && s.ownerId === addr && s.sensorNumber === num && s.sensorType === type)?.idString;
      let recs = await api.sel();
      if (count !== undefined) recs = recs.slice(-count);
      const json = recs.map((r) => ({ id: r.recordId, timestamp: r.timestamp ?? null, generator: r.generatorId ?? null, text: describeSelRecord(r, (addr, num) => name(addr, num, r.sensorType!)) }));
      const text = json.map((r) => `${r.id.toString(16).padStart(4, ' ')} | ${r.timestamp !== null ? new Date(r.timestamp * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC') : 'no timestamp'} | ${r.text}\n`).join('');
      return { text: text || 'SEL has no entries\n', json };
    },
  },
  activate: { usage: 'activate FRU', summary: 'Set FRU Activation (activate): M1 → M2 → M3 → M4', run: (api, args) => activation(api, args, true, 'activate') },
  deactivate: { usage: 'deactivate FRU', summary: 'Set FRU Activation (deactivate): M4 → M6 → M1 (the active ShMC: switchover first)', run: (api, args) => activation(api, args, false, 'deactivate') },
  boardreset: {
    usage: 'boardreset FRU',
    summary: 'FRU Control cold reset (the active ShMC: switchover)',
    run: async (api, args) => {
      const { fru, rest } = await oneFru(api, args);
      noArgs(rest, 'boardreset');
      await api.fruControl(fru.hardwareAddress, 0);
      return { text: `boardreset ${fru.name}: command executed successfully\n`, json: { fru: fru.name, option: 'cold-reset' } };
    },
  },
  frucontrol: {
    usage: 'frucontrol FRU cold|warm|graceful|diag',
    summary: 'PICMG FRU Control',
    run: async (api, args) => {
      const { fru, rest } = await oneFru(api, args);
      const options = ['cold', 'warm', 'graceful', 'diag'];
      const opt = options.indexOf(rest[0] ?? '');
      if (opt < 0 || rest.length !== 1) throw new UsageError(`frucontrol: option must be one of ${options.join(', ')}`);
      await api.fruControl(fru.hardwareAddress, opt);
      return { text: `frucontrol ${fru.name} ${rest[0]}: command executed successfully\n`, json: { fru: fru.name, option: rest[0] } };
    },
  },
  ipmc: {
    usage: 'ipmc [FRU]',
    summary: 'IPM controllers: device ID, firmware, PICMG version (bridged to each)',
    run: async (api, args) => {
      const frus = await api.frus();
      const list = args.length ? [resolveFru(frus, args).fru] : frus.filter((f) => f.state !== 0 && f.state !== 7);
      let text = '';
      const json = [];
      for (const f of list) {
        const d = await api.deviceId(f.ipmbAddress);
        const p = await api.picmgProperties(f.ipmbAddress);
        text += `${f.ipmbAddress.toString(16)}: ${f.name} "${f.label}"\n    Device ID: ${hex2(d.deviceId)}, Revision ${d.revision}, Firmware ${d.firmware}, IPMI ${d.ipmiVersion}\n    Manufacturer ID: ${d.manufacturerId} (${hex2(d.manufacturerId)}), Product ID: ${d.productId}\n    PICMG Version ${p.version}, Maximum FRU device ID ${hex2(p.maxFruId)}\n`;
        json.push({ name: f.name, ipmb_address: f.ipmbAddress, device_id: d.deviceId, revision: d.revision, firmware: d.firmware, ipmi_version: d.ipmiVersion, manufacturer_id: d.manufacturerId, product_id: d.productId, picmg_version: p.version, max_fru_id: p.maxFruId });
      }
      return { text, json };
    },
  },
  getfanlevel: {
    usage: 'getfanlevel [FAN]',
    summary: 'fan trays: speed level range and current level',
    run: async (api, args) => {
      const frus = await api.frus();
      const list = args.length ? [resolveFru(frus, args).fru] : frus.filter((f) => f.kind === 'fan' && f.state !== 0 && f.state !== 7);
      let text = '';
      const json = [];
      for (const f of list) {
        const l = await api.fanLevel(f.ipmbAddress);
        text += `${f.ipmbAddress.toString(16)}: ${f.name}: Current Level: ${l.local} (range ${l.min}..${l.max}, normal ${l.normal}), ${l.localEnabled ? 'local control enabled' : `override level ${l.override}`}\n`;
        json.push({ fan: f.name, level: l.local, min: l.min, max: l.max, normal: l.normal, local_control: l.localEnabled, override: l.override });
      }
      return { text, json };
    },
  },
  setfanlevel: {
    usage: 'setfanlevel FAN LEVEL',
    summary: 'Set Fan Level (override)',
    run: async (api, args) => {
      const { fru, rest } = await oneFru(api, args);
      const level = Number(rest[0]);
      if (rest.length !== 1 || !Number.isInteger(level) || level < 0 || level > 255) throw new UsageError('setfanlevel: LEVEL must be an integer');
      await api.setFanLevel(fru.ipmbAddress, level);
      return { text: `setfanlevel ${fru.name} ${level}: command executed successfully\n`, json: { fan: fru.name, level } };
    },
  },
  console: {
    usage: 'console [FRU]',
    summary: 'serial-console paths of the ShMCs and boards',
    run: async (api, args) => {
      const frus = await api.frus();
      const list = args.length ? [resolveFru(frus, args).fru] : frus.filter((f) => f.kind === 'shmc' || f.kind === 'hub' || f.kind === 'processor');
      let text = '';
      const json = [];
      for (const f of list) {
        try {
          const c = await api.consolePath(f.name);
          text += `${c.fru}: ${c.path}\n${c.link ? `    link: ${c.link}\n` : ''}`;
          json.push({ fru: c.fru, path: c.path, link: c.link ?? null });
        } catch (e) {
          if (!(e instanceof RefusedError) || args.length) throw e;
          text += `${f.name}: no console\n`;
          json.push({ fru: f.name, path: null });
        }
      }
      return { text, json };
    },
  },
  inject: {
    usage: 'inject fault FRU [payload|comm] | inject sensor FRU SENSOR VALUE',
    summary: 'inject a fault, or a sensor reading (engineering units)',
    run: async (api, args) => {
      if (args[0] === 'fault') {
        const { fru, rest } = await oneFru(api, args.slice(1));
        const kind = (rest[0] ?? 'payload') as 'payload' | 'comm';
        if (rest.length > 1 || (kind !== 'payload' && kind !== 'comm')) throw new UsageError('inject fault: kind must be payload or comm');
        const state = await api.fault(fru.name, 'inject', kind);
        return { text: `${fru.name}: ${kind} fault injected; now ${stateText(state)}\n`, json: { fru: fru.name, fault: kind, state: `M${state}` } };
      }
      if (args[0] === 'sensor') {
        const { fru, rest } = await oneFru(api, args.slice(1));
        if (rest.length < 2) throw new UsageError('inject sensor FRU SENSOR VALUE');
        const value = parseReading(rest[rest.length - 1]!);
        const sensor = rest.slice(0, -1).join(' ');
        await checkInjectable(api, fru, sensor, value, rest[rest.length - 1]!);
        const r = await api.sensorValue(fru.name, sensor, value);
        return { text: `${fru.name} "${sensor}": ${r.value} (raw ${r.raw}), status ${r.status}\n`, json: { fru: fru.name, sensor, value: r.value, raw: r.raw, status: r.status } };
      }
      throw new UsageError('inject fault FRU [payload|comm] | inject sensor FRU SENSOR VALUE');
    },
  },
  repair: {
    usage: 'repair FRU [payload|comm]',
    summary: 'repair injected faults (all unless one is named)',
    run: async (api, args) => {
      const { fru, rest } = await oneFru(api, args);
      const kind = rest[0] as 'payload' | 'comm' | undefined;
      if (rest.length > 1 || (kind !== undefined && kind !== 'payload' && kind !== 'comm')) throw new UsageError('repair FRU [payload|comm]');
      const state = await api.fault(fru.name, 'repair', kind);
      return { text: `${fru.name}: repaired; now ${stateText(state)}\n`, json: { fru: fru.name, repaired: kind ?? 'all', state: `M${state}` } };
    },
  },
  handle: {
    usage: 'handle open|close FRU',
    summary: 'the operator opens or closes the FRU\'s ejector handle',
    run: async (api, args) => {
      const op = args[0];
      if (op !== 'open' && op !== 'close') throw new UsageError('handle open|close FRU');
      const { fru, rest } = await oneFru(api, args.slice(1));
      noArgs(rest, 'handle');
      const state = await api.handle(fru.name, op);
      return { text: `${fru.name}: handle ${op === 'open' ? 'opened' : 'closed'}; now ${stateText(state)}\n`, json: { fru: fru.name, handle: op === 'open' ? 'open' : 'closed', state: `M${state}` } };
    },
  },
  insert: {
    usage: 'insert FRU',
    summary: 'plug a FRU in (M0 → M1, handle closed → M4)',
    run: async (api, args) => {
      const { fru, rest } = await oneFru(api, args);
      noArgs(rest, 'insert');
      const state = await api.insertExtract(fru.name, 'insert');
      return { text: `${fru.name}: inserted; now ${stateText(state)}\n`, json: { fru: fru.name, state: `M${state}` } };
    },
  },
  extract: {
    usage: 'extract FRU',
    summary: 'pull a FRU out (→ M0)',
    run: async (api, args) => {
      const { fru, rest } = await oneFru(api, args);
      noArgs(rest, 'extract');
      const state = await api.insertExtract(fru.name, 'extract');
      return { text: `${fru.name}: extracted; now ${stateText(state)}\n`, json: { fru: fru.name, state: `M${state}` } };
    },
  },
};

/** Every verb, by name. */
export const VERBS: Readonly<Record<string, Verb>> = { ...CORE_VERBS, ...HEALTH_VERBS, ...THRESHOLD_VERBS, ...SHELF_VERBS, ...USER_VERBS, ...LAN_VERBS };

/** The help text (all verbs, or one). @throws UsageError for an unknown verb */
export function helpText(verb?: string): string {
  if (verb) {
    const v = VERBS[verb];
    if (!v) throw new UsageError(`unknown verb "${verb}" (atcasim clia help)`);
    return `${v.usage}\n    ${v.summary}\n`;
  }
  const w = Math.max(...Object.values(VERBS).map((v) => v.usage.length));
  return Object.values(VERBS)
    .map((v) => `  ${v.usage.padEnd(w)}  ${v.summary}\n`)
    .join('');
}
