/**
 * clia `shelf` (Pigeon Point `shelf <param>`): the shelf as a whole.
 *
 *   shelf [info]     shelf address (PICMG Get Shelf Address Info), the shelf managers and their
 *                    roles, FRUs by kind and M-state, the TELCO alarm outputs
 *   shelf power      power budget (OEM Get Power Budget: what the PEMs in M4 supply, what is drawn)
 *                    and every FRU's present power level and watts (PICMG Get Power Level, steady)
 *   shelf cooling    cooling state (Normal, Minor Alert, Major Alert, Critical Alert: the worst
 *                    temperature sensor's threshold status), the fan trays' levels, the temperatures
 *
 * Also spelled as on Pigeon Point: `shelf power_management`, `shelf cooling_state`.
 */
import { ALARM_SEVERITIES } from '../ipmi/shelf-manager/oem-protocol.ts';
import { rawToValue } from '../sensors/linearization.ts';
import type { ShelfApi } from './shelf-api.ts';
import { UNIT_BY_CODE, UsageError, noArgs, type Verb, type VerbResult } from './verb-kit.ts';

const TEMPERATURE = 0x01;
const COOLING_STATES = ['Normal', 'Minor Alert', 'Major Alert', 'Critical Alert'] as const;

/** Cooling level of one threshold comparison status (Get Sensor Reading byte 3): 0 none … 3 non-recoverable. */
export function coolingLevel(states: number): number {
  if (states & 0x24) return 3; // lnr, unr
  if (states & 0x12) return 2; // lc, uc
  if (states & 0x09) return 1; // lnc, unc
  return 0;
}

async function info(api: ShelfApi): Promise<VerbResult> {
  const [address, s, frus, alarms] = [await api.shelfAddress(), await api.shmStatus(), await api.frus(), await api.alarms()];
  const kinds = ['shmc', 'hub', 'processor', 'fan', 'pem'] as const;
  const count = Object.fromEntries(kinds.map((k) => [k, frus.filter((f) => f.kind === k).length]));
  const byState: Record<string, number> = {};
  for (const f of frus) byState[`M${f.state}`] = (byState[`M${f.state}`] ?? 0) + 1;
  const outputs = ALARM_SEVERITIES.filter((_, i) => alarms.outputs & (1 << i));
  const text =
    `Shelf Address: "${address}"\n` +
    `Shelf managers: ${s.self} (${s.role})${s.peer ? `, ${s.peer} (${s.peerRole})` : ''}\n` +
    `FRUs: ${frus.length} (${count.shmc} ShMC, ${count.hub} hub, ${count.processor} processor boards, ${count.fan} fan trays, ${count.pem} PEMs)\n` +
    `Hot-swap states: ${Object.entries(byState).sort().map(([k, n]) => `${k} ${n}`).join(', ')}\n` +
    `TELCO alarms: ${outputs.join(', ') || 'none'}${alarms.alarms.length ? ` (${alarms.alarms.length} active; clia alarm)` : ''}\n`;
  return { text, json: { shelf_address: address, shelf_manager: s.self, role: s.role, peer: s.peer || null, peer_role: s.peerRole, frus: count, states: byState, alarms: outputs } };
}

async function power(api: ShelfApi): Promise<VerbResult> {
  const b = await api.powerBudget();
  const frus = await api.frus();
  const rows = [];
  for (const f of frus) {
    if (f.state === 0) continue;
    const p = await api.powerLevel(f.hardwareAddress);
    rows.push({ fru: f.name, state: `M${f.state}`, level: p.level, levels: p.levelsW.length, watts: p.level ? (p.levelsW[p.level - 1] ?? 0) : 0 });
  }
  const budget = Number.isFinite(b.budgetW) ? `${b.budgetW} W from ${b.pems} PEM${b.pems === 1 ? '' : 's'}` : 'no PEMs (not limited)';
  let text = `Power budget: ${budget}; drawn: ${b.usedW} W${Number.isFinite(b.budgetW) ? `; available: ${b.budgetW - b.usedW} W` : ''}\n`;
  text += rows.map((r) => `    ${r.fru.padEnd(8)} ${r.state}  level ${r.level} of ${r.levels}  ${r.watts} W\n`).join('');
  return { text, json: { budget_w: Number.isFinite(b.budgetW) ? b.budgetW : null, used_w: b.usedW, pems_supplying: b.pems, frus: rows } };
}

async function cooling(api: ShelfApi): Promise<VerbResult> {
  const frus = await api.frus();
  const fans = [];
  for (const f of frus.filter((x) => x.kind === 'fan' && x.state !== 0 && x.state !== 7)) {
    const l = await api.fanLevel(f.ipmbAddress);
    fans.push({ fan: f.name, level: l.local, min: l.min, max: l.max, local_control: l.localEnabled });
  }
  const temps = [];
  let worst = 0;
  for (const s of await api.sdr()) {
    if (s.type !== 'full' || s.sensorType !== TEMPERATURE) continue;
    const r = await api.sensorReading(s.ownerId, s.sensorNumber);
    if (!r.available) continue;
    const level = coolingLevel(r.states);
    worst = Math.max(worst, level);
    temps.push({ owner: s.ownerId, name: s.idString, value: rawToValue(r.raw, s.linearization), unit: UNIT_BY_CODE.get(s.unitCode) ?? 'unspecified', state: COOLING_STATES[level]! });
  }
  let text = `Cooling state: ${COOLING_STATES[worst]}\n`;
  text += fans.map((f) => `    ${f.fan}: level ${f.level} (${f.min}..${f.max})${f.local_control ? ', local control' : ''}\n`).join('');
  text += temps.map((t) => `    ${t.owner.toString(16)}: "${t.name}" ${t.value} ${t.unit}${t.state === 'Normal' ? '' : `  ${t.state}`}\n`).join('');
  return { text, json: { cooling_state: COOLING_STATES[worst], fans, temperatures: temps } };
}

/** The verbs of this file. */
export const SHELF_VERBS: Readonly<Record<string, Verb>> = {
  shelf: {
    usage: 'shelf [info|power|cooling]',
    summary: 'the shelf: address, shelf managers, FRUs and alarms; power budget; cooling state',
    run: async (api, args) => {
      const what = (args[0] ?? 'info').toLowerCase();
      noArgs(args.slice(1), `shelf ${what}`);
      if (what === 'info') return info(api);
      if (what === 'power' || what === 'power_management' || what === 'pm') return power(api);
      if (what === 'cooling' || what === 'cooling_state') return cooling(api);
      throw new UsageError(`shelf: "${args[0]}" is not info, power or cooling`);
    },
  },
};
