/**
 * The actions of a scenario's timeline (`do:` lines): the HA actions of chassis/sim/sim-actions.ts
 * (crash, hang, cut heartbeat …) plus the data-plane and management actions that need the whole
 * emulator:
 *
 *   rs-down VIP RS · rs-up VIP RS           a real server fails its health checks / recovers
 *                                           (VIP = the service's VIP text or name, RS = its name)
 *   ipmi [to ADDR | local NODE] NETFN CMD [DATA…]
 *                                           an IPMI request: by default over LAN to the shelf
 *                                           address 20h (the active ShMC), with administrator
 *                                           privilege, through the same command tables ipmitool
 *                                           reaches; `to ADDR` another controller (e.g. 0x86);
 *                                           `local NODE` the node's in-band system interface to
 *                                           its own IPMI watchdog (Reset/Set/Get Watchdog Timer,
 *                                           as the node's firmware would call them). Bytes in hex
 *                                           (0x06) or decimal.
 *
 * The result (completion code and data) of an `ipmi` action is kept under the action's `label`
 * for the `completion_code` expectation.
 */
import { CommandError } from '../../board/common/errors.ts';
import { formatAction as formatSimAction, parseAction as parseSimAction } from '../sim/sim-actions.ts';
import type { SimAction } from '../sim/sim-actions.ts';

/** A real-server action. */
export interface RsAction {
  op: 'rs-down' | 'rs-up';
  /** Service name or VIP text. */
  vip: string;
  rs: string;
}

/** An IPMI request. */
export interface IpmiAction {
  op: 'ipmi';
  /** 'lan' (to an IPMB address, default the shelf address) or 'local' (a node's in-band watchdog). */
  via: 'lan' | 'local';
  /** LAN: target IPMB address (default 0x20). */
  address: number;
  /** Local: the node. */
  node?: string;
  netFn: number;
  cmd: number;
  data: number[];
}

/** Every action a scenario may run. */
export type ScenarioAction = SimAction | RsAction | IpmiAction;

/** Engines that cannot run an action say so with this code. */
export const NEEDS_EMULATOR = 'needs_emulator';

function byte(text: string, what: string): number {
  const t = text.trim();
  const v = /^0x[0-9a-f]{1,2}$/i.test(t) ? parseInt(t, 16) : /^\d{1,3}$/.test(t) ? Number(t) : NaN;
  if (!(v >= 0 && v <= 255)) throw new CommandError('bad_action', `ipmi: ${what} "${text}" is not a byte (0x00..0xff or 0..255)`);
  return v;
}

/**
 * Parses one `do:` line.
 * @throws CommandError('bad_action' | 'bad_duration') with what was expected
 */
export function parseScenarioAction(text: string): ScenarioAction {
  const w = text.trim().split(/\s+/);
  const op = w[0] ?? '';
  if (op === 'rs-down' || op === 'rs-up') {
    if (w.length !== 3) throw new CommandError('bad_action', `${op}: expected "${op} VIP RS", got "${text.trim()}"`);
    return { op, vip: w[1]!, rs: w[2]! };
  }
  if (op === 'ipmi') {
    let i = 1;
    let via: 'lan' | 'local' = 'lan';
    let address = 0x20;
    let node: string | undefined;
    if (w[i] === 'to') {
      address = byte(w[i + 1] ?? '', 'address');
      if (address % 2 !== 0) throw new CommandError('bad_action', `ipmi: address 0x${address.toString(16)} is odd (IPMB addresses are even)`);
      i += 2;
    } else if (w[i] === 'local') {
      via = 'local';
      node = w[i + 1];
      if (!node) throw new CommandError('bad_action', 'ipmi local: expected "ipmi local NODE NETFN CMD [DATA…]"');
      i += 2;
    }
    if (w.length < i + 2) throw new CommandError('bad_action', `ipmi: expected "ipmi [to ADDR | local NODE] NETFN CMD [DATA…]", got "${text.trim()}"`);
    const netFn = byte(w[i]!, 'NetFn');
    if (netFn % 2 !== 0 || netFn > 0x3e) throw new CommandError('bad_action', `ipmi: NetFn 0x${netFn.toString(16)} is not a request NetFn (even, 0x00..0x3e)`);
    const cmd = byte(w[i + 1]!, 'command');
    const data = w.slice(i + 2).map((x) => byte(x, 'data byte'));
    return { op: 'ipmi', via, address, ...(node !== undefined ? { node } : {}), netFn, cmd, data };
  }
  return parseSimAction(text);
}

/** The canonical text of an action (parseScenarioAction(formatScenarioAction(a)) equals a). */
export function formatScenarioAction(a: ScenarioAction): string {
  if (a.op === 'rs-down' || a.op === 'rs-up') return `${a.op} ${a.vip} ${a.rs}`;
  if (a.op === 'ipmi') {
    const hx = (n: number) => `0x${n.toString(16).padStart(2, '0')}`;
    const where = a.via === 'local' ? ` local ${a.node}` : a.address !== 0x20 ? ` to ${hx(a.address)}` : '';
    return `ipmi${where} ${[a.netFn, a.cmd, ...a.data].map(hx).join(' ')}`;
  }
  return formatSimAction(a as SimAction);
}

/** True for the actions the count model (pair-sim) runs; the others need the emulator. */
export function isSimAction(a: ScenarioAction): a is SimAction {
  return a.op !== 'rs-down' && a.op !== 'rs-up' && a.op !== 'ipmi';
}

/** The action names (hyphenated, as `chaos --faults` takes them) and their canonical first words. */
export const ACTION_NAMES = [
  'crash', 'power-off', 'power-on', 'hang', 'pause', 'heal', 'cut-heartbeat', 'restore-heartbeat', 'delay-heartbeat',
  'flap-heartbeat', 'cut-sync', 'restore-sync', 'lossy-sync', 'cut-uplink', 'restore-uplink', 'stick-healthy', 'interlock-off',
  'interlock-on', 'clock-jump', 'ntp-slew', 'switchover', 'shift', 'upgrade', 'deactivate', 'activate', 'extract', 'insert', 'fail',
  'repair', 'rs-down', 'rs-up', 'stall-control',
] as const;
