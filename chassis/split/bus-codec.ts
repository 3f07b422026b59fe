/**
 * The local bus between the shelf process (`atcasim shelf`, the hardware) and one shelf-manager
 * process (`atcasim shmc`): newline-delimited JSON over a TCP connection on loopback, one message
 * per line. It stands for what a real ShMC reaches through its carrier's local bus: its own
 * backplane lines (PRESENT / HEALTHY / ACTIVE and the interlock), its IPMI watchdog, and the
 * shelf hardware's management controllers (here: the IPMI command layer, reached with raw RMCP/
 * RMCP+ datagrams; see docs/split.md for why the split is made at that point).
 *
 * A ShMC's lines are high only while its connection lives: the shelf drops them the instant the
 * connection closes (a killed process), and on watchdog expiry (the shelf resets the ShMC).
 *
 * Messages (field `t`), ShMC → shelf:
 *   hello {node:'shmc-a'|'shmc-b', pid, argv:string[], adminPassword?}  registration (argv = the validated
 *                       shmc flags, never with the password; adminPassword = the ShMC's administrator
 *                       password, kept in memory by the shelf for a restart, which passes it in the
 *                       new process's environment)
 *   healthy {on}        software drives HEALTHY                 claim {epoch}   assert ACTIVE
 *   release             release ACTIVE                          wdset {timeoutMs}  program + start the watchdog
 *   kick                reset the watchdog countdown            wdstop          stop the watchdog
 *   role {role, epoch}  the role to show on the shelf (TUI, shmstatus, SEL)
 *   ipmi {id, address, port, data}   one RMCP/RMCP+ datagram received on the shelf address (base64)
 *   statewant {}          a new active whose database never held the management state asks the shelf
 *                         for it (seeding: the shelf answers with every record, then `stateend`)
 *   stateload {sel, state, done}  a new active whose database holds the management state sends it,
 *                         in chunks (sel: [{id, data}], state: [{kind, key, data}]); on `done` the
 *                         shelf replaces its SEL, users and thresholds with it, before it relays any
 *                         IPMI datagram through that ShMC
 *   report {hbAgeMs, alarms}  every heartbeat interval: ms since the peer's last heartbeat (null: never), alarms (TUI)
 * Shelf → ShMC:
 *   welcome {node, ha}                  registration accepted (ha = the shelf YAML's HA timing)
 *   refused {reason}                    registration refused (the connection is closed after it)
 *   lines {self, peer, interlock, epoch, at}  the effective lines after every change (at: Unix ms of the change)
 *   claimed {ok, epoch}                 answer to `claim` (the interlock may refuse it)
 *   ipmi {id, replies:string[]}         reply datagrams (base64) for request `id`
 *   send {address, port, data}          a datagram the IPMI layer sends outside a reply (SOL)
 *   sel {id, data}                      one SEL record (16 bytes, base64), id = its record ID
 *   seldel {id} / selclear {}           a SEL record was deleted / the SEL was cleared
 *   user {id, data}                     an IPMI user as it now is (JSON: name, password base64, privilege, flags)
 *   thresholds {key, data}              a sensor's thresholds and hysteresis as they now are (key FRU#number)
 *   stateend {}                         the end of the seeding that answers `statewant`
 *   snmpconf {data}                     the SNMP agent's settings (JSON text: settings, engine ID, bind, port),
 *                                       after the welcome when the shelf serves SNMP (chassis/split/snmp-relay.ts)
 *   snmpview {seq, last, data}          one part of an SnmpView's JSON text (parts of 16 KiB; `last` on the final
 *                                       one): the rows the agent serves, to every registered ShMC after each change
 *   snmptrap {data}                     one SNMP notification (JSON text) for the active ShMC to send
 *
 * Garbage lines (not JSON, unknown `t`, wrong field types, longer than MAX_BUS_LINE) are reported
 * as DecodeError by `decodeBusMessage`; the receiver logs and drops them (it never crashes).
 * Pure: no I/O.
 */
import { DecodeError } from '../../board/common/errors.ts';

/** Longest accepted line, bytes (an IPMI datagram of 1024 bytes is ~1.4 kB in base64). */
export const MAX_BUS_LINE = 64 * 1024;

/** A ShMC node name. */
export type ShmcNode = 'shmc-a' | 'shmc-b';

/** Line levels of one ShMC as the shelf drives them. */
export interface BusLines {
  present: boolean;
  healthy: boolean;
  active: boolean;
  /** 'on' while the process is connected and not in reset. */
  power: 'on' | 'off' | 'reset';
}

/** ShMC → shelf. */
export type ToShelf =
  | { t: 'hello'; node: ShmcNode; pid: number; argv: string[]; adminPassword?: string }
  | { t: 'healthy'; on: boolean }
  | { t: 'claim'; epoch: number }
  | { t: 'release' }
  | { t: 'wdset'; timeoutMs: number }
  | { t: 'kick' }
  | { t: 'wdstop' }
  | { t: 'role'; role: string; epoch: number }
  | { t: 'ipmi'; id: number; address: string; port: number; data: string }
  | { t: 'statewant' }
  | { t: 'stateload'; sel: StateSel[]; state: StateItem[]; done: boolean }
  | { t: 'report'; hbAgeMs: number | null; alarms: string[] };

/** Shelf → ShMC. */
export type ToShmc =
  | { t: 'welcome'; node: ShmcNode; ha: Record<string, number> }
  | { t: 'refused'; reason: string }
  | { t: 'lines'; self: BusLines; peer: BusLines; interlock: boolean; epoch: number; at?: number }
  | { t: 'claimed'; ok: boolean; epoch: number }
  | { t: 'ipmi'; id: number; replies: string[] }
  | { t: 'send'; address: string; port: number; data: string }
  | { t: 'sel'; id: number; data: string }
  | { t: 'seldel'; id: number }
  | { t: 'selclear' }
  | { t: 'user'; id: number; data: string }
  | { t: 'thresholds'; key: string; data: string }
  | { t: 'stateend' }
  | { t: 'snmpconf'; data: string }
  | { t: 'snmpview'; seq: number; last: boolean; data: string }
  | { t: 'snmptrap'; data: string };

/** One SEL record of a `stateload`: its record ID and its 16 bytes (base64). */
export interface StateSel {
  id: number;
  data: string;
}

/** One other piece of management state of a `stateload` (a user by ID, a sensor's thresholds by FRU#number). */
export interface StateItem {
  kind: 'user' | 'thresholds';
  key: string;
  data: string;
}

/** Any bus message. */
export type BusMessage = ToShelf | ToShmc;

/** Encodes one message as a line (with the trailing newline). */
export function encodeBusMessage(m: BusMessage): string {
  return `${JSON.stringify(m)}\n`;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';

function isLines(v: unknown): v is BusLines {
  if (typeof v !== 'object' || v === null) return false;
  const l = v as Record<string, unknown>;
  return isBool(l.present) && isBool(l.healthy) && isBool(l.active) && (l.power === 'on' || l.power === 'off' || l.power === 'reset');
}

/** Field checks per message type (both directions). */
const SHAPES: Record<string, (m: Record<string, unknown>) => boolean> = {
  hello: (m) => (m.node === 'shmc-a' || m.node === 'shmc-b') && isNum(m.pid) && Array.isArray(m.argv) && m.argv.every(isStr) && (m.adminPassword === undefined || isStr(m.adminPassword)),
  healthy: (m) => isBool(m.on),
  claim: (m) => isNum(m.epoch),
  release: () => true,
  wdset: (m) => isNum(m.timeoutMs) && m.timeoutMs > 0,
  kick: () => true,
  wdstop: () => true,
  role: (m) => isStr(m.role) && isNum(m.epoch),
  ipmi: (m) => isNum(m.id) && ((isStr(m.address) && isNum(m.port) && isStr(m.data)) || (Array.isArray(m.replies) && m.replies.every(isStr))),
  statewant: () => true,
  stateload: (m) =>
    Array.isArray(m.sel) && m.sel.every((r) => typeof r === 'object' && r !== null && isNum((r as StateSel).id) && isStr((r as StateSel).data)) &&
    Array.isArray(m.state) && m.state.every((r) => typeof r === 'object' && r !== null && ((r as StateItem).kind === 'user' || (r as StateItem).kind === 'thresholds') && isStr((r as StateItem).key) && isStr((r as StateItem).data)) &&
    isBool(m.done),
  stateend: () => true,
  report: (m) => (m.hbAgeMs === null || isNum(m.hbAgeMs)) && Array.isArray(m.alarms) && m.alarms.every(isStr),
  welcome: (m) => (m.node === 'shmc-a' || m.node === 'shmc-b') && typeof m.ha === 'object' && m.ha !== null,
  refused: (m) => isStr(m.reason),
  lines: (m) => isLines(m.self) && isLines(m.peer) && isBool(m.interlock) && isNum(m.epoch) && (m.at === undefined || isNum(m.at)),
  claimed: (m) => isBool(m.ok) && isNum(m.epoch),
  send: (m) => isStr(m.address) && isNum(m.port) && isStr(m.data),
  sel: (m) => isNum(m.id) && isStr(m.data),
  seldel: (m) => isNum(m.id),
  selclear: () => true,
  user: (m) => isNum(m.id) && isStr(m.data),
  thresholds: (m) => isStr(m.key) && isStr(m.data),
  snmpconf: (m) => isStr(m.data),
  snmpview: (m) => isNum(m.seq) && isBool(m.last) && isStr(m.data),
  snmptrap: (m) => isStr(m.data),
};

/**
 * Decodes one line (without its newline).
 * @throws DecodeError('bus', field) for a line that is too long, not JSON, of an unknown type or
 *   with fields of the wrong type
 */
export function decodeBusMessage(line: string): BusMessage {
  if (line.length > MAX_BUS_LINE) throw new DecodeError('bus', 'line', 0, `line of ${line.length} bytes exceeds ${MAX_BUS_LINE}`);
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new DecodeError('bus', 'json', 0, `not JSON: ${line.slice(0, 40)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new DecodeError('bus', 't', 0, 'not a JSON object');
  const m = v as Record<string, unknown>;
  const shape = isStr(m.t) ? SHAPES[m.t] : undefined;
  if (!shape) throw new DecodeError('bus', 't', 0, `unknown message type ${JSON.stringify(m.t)}`);
  if (!shape(m)) throw new DecodeError('bus', String(m.t), 0, `message "${String(m.t)}" has missing or mistyped fields`);
  return m as unknown as BusMessage;
}

/**
 * Splits a byte stream into lines: `push(chunk)` returns the complete lines so far. A line longer
 * than MAX_BUS_LINE without a newline is cut off and returned as is (the decoder then refuses it),
 * so a peer cannot make the buffer grow without bound.
 */
export class LineSplitter {
  private buf = '';

  /** @returns the complete lines (without newlines) this chunk finished */
  push(chunk: string): string[] {
    this.buf += chunk;
    const out: string[] = [];
    let i: number;
    while ((i = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      if (line.trim() !== '') out.push(line);
    }
    if (this.buf.length > MAX_BUS_LINE) {
      out.push(this.buf);
      this.buf = '';
    }
    return out;
  }
}

/**
 * Cuts a ShMC's management state into `stateload` messages, each line at most about `maxBytes`
 * (default 32 KiB, half of MAX_BUS_LINE); the last has `done: true` (one message with `done` when
 * there is nothing to send).
 */
export function stateloadMessages(sel: readonly StateSel[], state: readonly StateItem[], maxBytes = 32 * 1024): Array<Extract<ToShelf, { t: 'stateload' }>> {
  const out: Array<Extract<ToShelf, { t: 'stateload' }>> = [];
  let cur: Extract<ToShelf, { t: 'stateload' }> = { t: 'stateload', sel: [], state: [], done: false };
  let size = 64;
  const flush = () => {
    out.push(cur);
    cur = { t: 'stateload', sel: [], state: [], done: false };
    size = 64;
  };
  for (const r of sel) {
    const n = JSON.stringify(r).length + 1;
    if (size + n > maxBytes && (cur.sel.length > 0 || cur.state.length > 0)) flush();
    cur.sel.push({ id: r.id, data: r.data });
    size += n;
  }
  for (const r of state) {
    const n = JSON.stringify(r).length + 1;
    if (size + n > maxBytes && (cur.sel.length > 0 || cur.state.length > 0)) flush();
    cur.state.push({ kind: r.kind, key: r.key, data: r.data });
    size += n;
  }
  cur.done = true;
  out.push(cur);
  return out;
}
