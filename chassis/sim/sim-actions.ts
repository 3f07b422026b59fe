/**
 * The fault and operator actions of the HA simulation (the scenario action list of docs/scenarios.md),
 * as a discriminated union with a text parser and formatter, so `atcasim scenario` / `chaos` and the
 * tests speak the same language:
 *
 *   crash NODE · power-off NODE · power-on NODE · hang NODE · heal NODE · pause NODE DURATION ·
 *   stall-control NODE · cut heartbeat|sync PAIR [one-way A->B] · restore heartbeat|sync PAIR ·
 *   delay heartbeat|sync PAIR DURATION · jitter heartbeat|sync PAIR DURATION ·
 *   flap heartbeat|sync PAIR PERIOD · lossy heartbeat|sync PAIR PERCENT · cut uplink NODE ·
 *   restore uplink NODE · stick-healthy NODE low|high|off · interlock off|on ·
 *   clock-jump NODE ±DURATION · ntp-slew NODE PPM · switchover PAIR · shift PAIR PERCENT ·
 *   upgrade NODE VERSION · deactivate SLOT · activate SLOT · extract SLOT · insert SLOT ·
 *   fail SLOT · repair SLOT
 *
 * PAIR may name a pair ('shmc', 'lb1') or a share ('lb1/slot3'). Durations: '250ms', '1.5s',
 * '2m', '1h'. `rs-down` / `rs-up` belong to the data plane and are not modelled here.
 */
import { didYouMean } from '../../board/common/did-you-mean.ts';
import { CommandError } from '../../board/common/errors.ts';

/** Node-only actions. */
export type NodeOp =
  | 'crash' | 'power-off' | 'power-on' | 'hang' | 'heal' | 'stall-control'
  | 'deactivate' | 'activate' | 'extract' | 'insert' | 'fail' | 'repair' | 'cut-uplink' | 'restore-uplink';

/** A link between the two members of a pair. */
export type LinkName = 'heartbeat' | 'sync';

/** One action of the simulation. */
export type SimAction =
  | { op: NodeOp; node: string }
  | { op: 'pause'; node: string; ms: number }
  | { op: 'cut'; link: LinkName; pair: string; from?: string; to?: string }
  | { op: 'restore'; link: LinkName; pair: string }
  | { op: 'delay' | 'jitter'; link: LinkName; pair: string; ms: number }
  | { op: 'flap'; link: LinkName; pair: string; periodMs: number }
  | { op: 'lossy'; link: LinkName; pair: string; percent: number }
  | { op: 'stick-healthy'; node: string; level: 'low' | 'high' | 'off' }
  | { op: 'interlock'; on: boolean }
  | { op: 'clock-jump'; node: string; ms: number }
  | { op: 'ntp-slew'; node: string; ppm: number }
  | { op: 'switchover'; pair: string }
  | { op: 'shift'; pair: string; percent: number }
  | { op: 'upgrade'; node: string; version: string };

const DUR = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration: '250ms', '1.5s', '2m', '1h' (a bare number is rejected: units are required).
 * @throws CommandError('bad_duration')
 */
export function parseDuration(text: string): number {
  const m = DUR.exec(text.trim());
  if (!m) throw new CommandError('bad_duration', `bad duration "${text}": expected e.g. 250ms, 1.5s, 2m`);
  return Number(m[1]) * UNIT[m[2]!]!;
}

/** Formats ms as the shortest exact duration text ('1.5s', '250ms', '2m'). */
export function formatDuration(ms: number): string {
  if (ms !== 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms !== 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000 && Number.isInteger(ms / 100)) return `${ms / 1000}s`;
  return `${Number(ms.toFixed(3))}ms`;
}

function percent(text: string): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(text);
  const v = m ? Number(m[1]) : NaN;
  if (!(v >= 0 && v <= 100)) throw new CommandError('bad_action', `bad percentage "${text}": expected 0..100`);
  return v;
}

/** Every action word (for "did you mean"). */
const ACTION_NAMES = ['crash', 'power-off', 'power-on', 'hang', 'heal', 'stall-control', 'deactivate', 'activate', 'extract', 'insert', 'fail', 'repair', 'pause', 'cut', 'restore', 'delay', 'jitter', 'flap', 'lossy', 'stick-healthy', 'interlock', 'clock-jump', 'ntp-slew', 'switchover', 'shift', 'upgrade', 'rs-down', 'rs-up'];

const NODE_OPS = new Set<string>(['crash', 'power-off', 'power-on', 'hang', 'heal', 'stall-control', 'deactivate', 'activate', 'extract', 'insert', 'fail', 'repair']);

/**
 * Parses one action written as in a scenario's `do:` line.
 * @throws CommandError('bad_action' | 'bad_duration') with the offending word, e.g.
 *   `cut heartbeat: expected "cut heartbeat|sync PAIR [one-way A->B]" or "cut uplink NODE"`.
 */
export function parseAction(text: string): SimAction {
  const w = text.trim().split(/\s+/);
  const op = w[0] ?? '';
  const need = (n: number, usage: string) => {
    if (w.length !== n) throw new CommandError('bad_action', `${op}: expected "${usage}", got "${text.trim()}"`);
  };
  const link = (x: string | undefined, usage: string): LinkName => {
    if (x !== 'heartbeat' && x !== 'sync') throw new CommandError('bad_action', `${op}: expected "${usage}" (link heartbeat or sync), got "${text.trim()}"`);
    return x;
  };
  if (NODE_OPS.has(op)) {
    need(2, `${op} NODE`);
    return { op: op as NodeOp, node: w[1]! };
  }
  switch (op) {
    case 'pause':
      need(3, 'pause NODE DURATION');
      return { op, node: w[1]!, ms: parseDuration(w[2]!) };
    case 'cut':
    case 'restore': {
      if (w[1] === 'uplink') {
        need(3, `${op} uplink NODE`);
        return { op: op === 'cut' ? 'cut-uplink' : 'restore-uplink', node: w[2]! };
      }
      const usage = op === 'cut' ? 'cut heartbeat|sync PAIR [one-way A->B]' : 'restore heartbeat|sync PAIR';
      const l = link(w[1], usage);
      if (op === 'restore') {
        need(3, usage);
        return { op, link: l, pair: w[2]! };
      }
      if (w.length === 3) return { op, link: l, pair: w[2]! };
      if (w.length === 5 && w[3] === 'one-way') {
        const m = /^([^>\s-][^\s>]*)->(\S+)$/.exec(w[4]!);
        if (!m) throw new CommandError('bad_action', `cut: bad direction "${w[4]}", expected A->B`);
        return { op, link: l, pair: w[2]!, from: m[1]!, to: m[2]! };
      }
      throw new CommandError('bad_action', `cut: expected "${usage}", got "${text.trim()}"`);
    }
    case 'delay':
    case 'jitter':
      need(4, `${op} heartbeat|sync PAIR DURATION`);
      return { op, link: link(w[1], `${op} heartbeat|sync PAIR DURATION`), pair: w[2]!, ms: parseDuration(w[3]!) };
    case 'flap':
      need(4, 'flap heartbeat|sync PAIR PERIOD');
      return { op, link: link(w[1], 'flap heartbeat|sync PAIR PERIOD'), pair: w[2]!, periodMs: parseDuration(w[3]!) };
    case 'lossy':
      need(4, 'lossy heartbeat|sync PAIR PERCENT');
      return { op, link: link(w[1], 'lossy heartbeat|sync PAIR PERCENT'), pair: w[2]!, percent: percent(w[3]!) };
    case 'stick-healthy': {
      need(3, 'stick-healthy NODE low|high|off');
      const level = w[2];
      if (level !== 'low' && level !== 'high' && level !== 'off') throw new CommandError('bad_action', `stick-healthy: level must be low, high or off, got "${level}"`);
      return { op, node: w[1]!, level };
    }
    case 'interlock':
      need(2, 'interlock off|on');
      if (w[1] !== 'on' && w[1] !== 'off') throw new CommandError('bad_action', `interlock: expected on or off, got "${w[1]}"`);
      return { op, on: w[1] === 'on' };
    case 'clock-jump': {
      need(3, 'clock-jump NODE ±DURATION');
      const m = /^([+-])(.+)$/.exec(w[2]!);
      if (!m) throw new CommandError('bad_action', `clock-jump: expected a signed duration like +1h or -30s, got "${w[2]}"`);
      return { op, node: w[1]!, ms: (m[1] === '-' ? -1 : 1) * parseDuration(m[2]!) };
    }
    case 'ntp-slew': {
      need(3, 'ntp-slew NODE PPM');
      const v = Number(w[2]);
      if (!Number.isFinite(v) || Math.abs(v) > 100_000) throw new CommandError('bad_action', `ntp-slew: bad PPM "${w[2]}"`);
      return { op, node: w[1]!, ppm: v };
    }
    case 'switchover':
      need(2, 'switchover PAIR');
      return { op, pair: w[1]! };
    case 'shift':
      need(3, 'shift PAIR PERCENT');
      return { op, pair: w[1]!, percent: percent(w[2]!) };
    case 'upgrade':
      need(3, 'upgrade NODE VERSION');
      if (!/^\d{1,3}\.\d{1,3}(\.\d+)?$/.test(w[2]!)) throw new CommandError('bad_action', `upgrade: bad version "${w[2]}", expected MAJOR.MINOR[.PATCH]`);
      return { op, node: w[1]!, version: w[2]! };
    case 'rs-down':
    case 'rs-up':
      throw new CommandError('bad_action', `${op}: real-server actions belong to the data plane, not the HA pair simulation`);
    default:
      throw new CommandError('bad_action', `unknown action "${op}"${didYouMean(op, ACTION_NAMES)}`);
  }
}

/** The canonical text of an action (parseAction(formatAction(a)) equals a). */
export function formatAction(a: SimAction): string {
  switch (a.op) {
    case 'pause':
      return `pause ${a.node} ${formatDuration(a.ms)}`;
    case 'cut':
      return `cut ${a.link} ${a.pair}${a.from ? ` one-way ${a.from}->${a.to}` : ''}`;
    case 'restore':
      return `restore ${a.link} ${a.pair}`;
    case 'delay':
    case 'jitter':
      return `${a.op} ${a.link} ${a.pair} ${formatDuration(a.ms)}`;
    case 'flap':
      return `flap ${a.link} ${a.pair} ${formatDuration(a.periodMs)}`;
    case 'lossy':
      return `lossy ${a.link} ${a.pair} ${a.percent}%`;
    case 'cut-uplink':
      return `cut uplink ${a.node}`;
    case 'restore-uplink':
      return `restore uplink ${a.node}`;
    case 'stick-healthy':
      return `stick-healthy ${a.node} ${a.level}`;
    case 'interlock':
      return `interlock ${a.on ? 'on' : 'off'}`;
    case 'clock-jump':
      return `clock-jump ${a.node} ${a.ms < 0 ? '-' : '+'}${formatDuration(Math.abs(a.ms))}`;
    case 'ntp-slew':
      return `ntp-slew ${a.node} ${a.ppm}`;
    case 'switchover':
      return `switchover ${a.pair}`;
    case 'shift':
      return `shift ${a.pair} ${a.percent}`;
    case 'upgrade':
      return `upgrade ${a.node} ${a.version}`;
    default:
      return `${a.op} ${a.node}`;
  }
}
