/**
 * atcasim's OEM commands for the shelf as a whole (NetFn 2Eh, IANA 0FFFF0h; layouts in
 * shelf-manager/oem-protocol.ts and docs/clia.md), answered by the logical shelf manager:
 *
 * - 09h Get Alarms: the TELCO alarm outputs (minor, major, critical; Pigeon Point `clia alarm`) and
 *   the alarms behind them, paged (ALARMS_PER_ANSWER per answer: responses stay ≤ 245 bytes).
 *   What raises an output: an HA alarm on a pair member (major), a threshold sensor past a
 *   non-critical (minor), critical (major) or non-recoverable (critical) threshold, a FRU with an
 *   injected fault or in M7 (major), and the operator (`clia alarm major`, Set Alarm Outputs).
 * - 0Ah Set Alarm Outputs (OPERATOR): sets or clears operator-set outputs (bit mask b0 minor, b1
 *   major, b2 critical); derived outputs stay on while their cause lasts.
 * - 0Bh Get Power Budget: the watts the PEMs in M4 supply and what the FRUs draw at their present
 *   power levels (chassis/model/shelf/power.ts; PICMG 3.0 §3.9).
 */
import type { ByteReader } from '../../../board/common/bytes.ts';
import { DecodeError } from '../../../board/common/errors.ts';
import { CompletionCode, IpmiError, NetFn, Privilege } from '../codes.ts';
import type { CommandDef, CommandResult } from '../controller.ts';
import { ShelfRefusal } from '../shelf-manager/errors.ts';
import {
  ALARMS_PER_ANSWER,
  ALARM_SEVERITIES,
  OemCmd,
  encodeOemError,
  hasOemIana,
  oemReader,
  oemWriter,
  putStr,
  type AlarmSeverity,
} from '../shelf-manager/oem-protocol.ts';
import type { ShelfTarget } from '../shelf-manager/target.ts';

/** One alarm behind the TELCO outputs. */
export interface ShelfAlarm {
  severity: AlarmSeverity;
  /** Where it comes from: a FRU name, or `node share` for an HA alarm (`slot3 lb1/slot3`). */
  source: string;
  /** What it is: the HA alarm name, `"Node3 Temp" cr`, `payload fault`, `M7`. */
  alarm: string;
}

const SENSOR_SEVERITY: Partial<Record<string, AlarmSeverity>> = { nc: 'minor', cr: 'major', nr: 'critical' };

/** Every alarm of the shelf now, in a stable order (HA, then FRUs in configuration order). */
export function shelfAlarms(t: ShelfTarget): ShelfAlarm[] {
  const shelf = t.shelf;
  const out: ShelfAlarm[] = t.services.haAlarms().map((a) => ({ severity: 'major' as const, source: `${a.node} ${a.share}`, alarm: a.alarm }));
  const snap = shelf.snapshot();
  for (const f of snap.frus) {
    for (const fault of f.faults) out.push({ severity: 'major', source: f.name, alarm: `${fault} fault` });
    if (f.state === 7) out.push({ severity: 'major', source: f.name, alarm: 'M7 (communication lost)' });
    if (f.state === 0 || f.state === 7) continue;
    for (const s of shelf.sensors.list(f.name)) {
      const severity = s.kind === 'threshold' ? SENSOR_SEVERITY[s.status] : undefined;
      if (severity) out.push({ severity, source: f.name, alarm: `"${s.name}" ${s.status}` });
    }
  }
  return out;
}

const bit = (s: AlarmSeverity) => 1 << ALARM_SEVERITIES.indexOf(s);

/** Output bits: the operator's plus every alarm's severity. */
function outputs(t: ShelfTarget, alarms: readonly ShelfAlarm[]): number {
  return alarms.reduce((m, a) => m | bit(a.severity), t.services.alarmPanel.operator);
}

function handler(fn: (r: ByteReader) => Uint8Array): (req: { data: Uint8Array }) => CommandResult {
  return (req) => {
    if (!hasOemIana(req.data)) throw new IpmiError(CompletionCode.InvalidCommand, 'not atcasim\'s IANA');
    try {
      return fn(oemReader(req.data));
    } catch (e) {
      if (e instanceof DecodeError) return { cc: CompletionCode.RequestDataLengthInvalid, data: encodeOemError('bad_request', e.message) };
      if (e instanceof ShelfRefusal) return { cc: e.cc, data: encodeOemError(e.code, e.message) };
      throw e;
    }
  };
}

/** The shelf-wide OEM command definitions of the logical shelf manager. */
export function oemShelfCommands(t: ShelfTarget): CommandDef[] {
  const def = (cmd: number, name: string, privilege: number, fn: (r: ByteReader) => Uint8Array): CommandDef => ({ netFn: NetFn.OemGroup, cmd, name, privilege, handler: handler(fn) });
  return [
    def(OemCmd.alarms, 'atcasim Get Alarms', Privilege.User, (r) => {
      const index = r.u8('index');
      const all = shelfAlarms(t);
      const page = all.slice(index, index + ALARMS_PER_ANSWER);
      const next = index + page.length < all.length ? index + page.length : 0xff;
      const w = oemWriter();
      w.u8(outputs(t, all)).u8(t.services.alarmPanel.operator).u8(Math.min(all.length, 0xff)).u8(next);
      for (const a of page) {
        w.u8(ALARM_SEVERITIES.indexOf(a.severity));
        putStr(w, a.source, 40);
        putStr(w, a.alarm, 40);
      }
      return new Uint8Array(w.toBuffer());
    }),
    def(OemCmd.setAlarms, 'atcasim Set Alarm Outputs', Privilege.Operator, (r) => {
      const op = r.u8('op');
      const bits = r.u8('bits');
      if (op > 1) throw new ShelfRefusal(CompletionCode.InvalidDataField, 'bad_value', `alarm op ${op} (1 set, 0 clear)`);
      if (bits & ~0x07) throw new ShelfRefusal(CompletionCode.InvalidDataField, 'bad_value', `alarm bits ${bits.toString(16)}h (b0 minor, b1 major, b2 critical)`);
      const panel = t.services.alarmPanel;
      panel.operator = op === 1 ? panel.operator | bits : panel.operator & ~bits;
      t.services.log.info({ category: 'alarm', operator: panel.operator }, `TELCO alarm outputs set by the operator: ${ALARM_SEVERITIES.filter((s) => panel.operator & bit(s)).join(', ') || 'none'}`);
      const w = oemWriter();
      w.u8(outputs(t, shelfAlarms(t))).u8(panel.operator);
      return new Uint8Array(w.toBuffer());
    }),
    def(OemCmd.powerBudget, 'atcasim Get Power Budget', Privilege.User, () => {
      const p = t.shelf.power;
      const budget = p.budgetW();
      const supplying = t.shelf.snapshot().frus.filter((f) => t.shelf.fruConfig(f.name).kind === 'pem' && f.state === 4 && f.faults.length === 0).length;
      const w = oemWriter();
      w.u32le(Number.isFinite(budget) ? Math.round(budget) : 0xffffffff).u32le(Math.round(p.usedW())).u8(supplying);
      return new Uint8Array(w.toBuffer());
    }),
  ];
}
