/**
 * `atcasim lb` arguments in ipvsadm(8)'s vocabulary, parsed into what to ask the shelf. Pure (no
 * I/O): chassis/cli/lb.ts runs the result. Commands (one per call):
 *
 *   -A|--add-service  -t|-u VIP:PORT [-s SCHED] [-p [TIMEOUT]] [-M NETMASK] [-b FLAGS|none] [atcasim options]
 *   -E|--edit-service -t|-u VIP:PORT [same options]
 *   -D|--delete-service -t|-u VIP:PORT
 *   -C|--clear
 *   -a|--add-server  -t|-u VIP:PORT -r RS[:PORT] [-g|-i|-m|--fullnat] [-w WEIGHT]
 *   -e|--edit-server -t|-u VIP:PORT -r RS[:PORT] [-g|-i|-m|--fullnat] [-w WEIGHT]
 *   -d|--delete-server -t|-u VIP:PORT -r RS[:PORT]
 *   -L|-l|--list [-t|-u VIP:PORT] [-n] [--stats|--rate|-c] [--board SLOT]   (the default command)
 *   -Z|--zero [-t|-u VIP:PORT]
 *   -S|--save [-n]      the rules in ipvsadm's format on stdout
 *   -R|--restore        rules in that format from stdin, applied as one change
 *   -h|--help           the synopsis below (LB_USAGE) on stdout, exit 0 (whatever else is given)
 *
 * atcasim-only long options: --fullnat (forwarding of an RS), --forwarding MODE (a service's
 * default: tunnel|dr|nat|fullnat), --client-address none|toa|proxy-protocol, --health KIND,
 * --health-interval D, --health-timeout D, --health-rise N, --health-fall N, --health-path P,
 * --board SLOT, --db FILE. Not implemented (refused): -f fwmark services, -x/-y thresholds,
 * --start-daemon, --set. A service on port 0 needs -p (ipvsadm's rule). Refusals are one line in ipvsadm's manner; the CLI exits 2 on them.
 */
import type { ClientAddressMode } from '../../board/processor/forwarding/client-address.ts';
import type { ForwardingMode } from '../../board/processor/forwarding/translation.ts';
import type { HealthCheckConfig, SchedulerFlag, SchedulerName } from '../../board/processor/processor-config.ts';
import { parseDuration } from '../config/duration.ts';
import { isIpAddress, netmaskBits } from '../config/ip-address.ts';
import { printable } from '../config/yaml-reader.ts';
import type { ServerSettings, ServiceEdit, ServiceRef, ServiceSettings } from '../model/service-table.ts';

/** A bad argument: the message is the one line to print (unprintable characters escaped, `\xNN`). */
export class LbUsageError extends Error {
  constructor(message: string) {
    super(printable(message));
    this.name = 'LbUsageError';
  }
}

/** What one `atcasim lb` call does. */
export type LbCommand =
  | { kind: 'edit'; edit: ServiceEdit }
  | { kind: 'list'; service?: ServiceRef; view: 'plain' | 'stats' | 'rate' | 'conns'; board?: number }
  | { kind: 'zero'; service?: ServiceRef }
  | { kind: 'save' }
  | { kind: 'restore' }
  | { kind: 'help' };

/** A parsed call: its command and the database it names. */
export interface LbCall {
  command: LbCommand;
  db?: string;
}

const COMMANDS: Record<string, string> = {
  '-A': 'add-service', '--add-service': 'add-service', '-E': 'edit-service', '--edit-service': 'edit-service',
  '-D': 'delete-service', '--delete-service': 'delete-service', '-C': 'clear', '--clear': 'clear',
  '-a': 'add-server', '--add-server': 'add-server', '-e': 'edit-server', '--edit-server': 'edit-server',
  '-d': 'delete-server', '--delete-server': 'delete-server', '-L': 'list', '-l': 'list', '--list': 'list',
  '-Z': 'zero', '--zero': 'zero', '-S': 'save', '--save': 'save', '-R': 'restore', '--restore': 'restore',
};
const UNSUPPORTED = new Set(['-f', '--fwmark-service', '-x', '--u-threshold', '-y', '--l-threshold', '--start-daemon', '--stop-daemon', '--set']);

const SCHEDULERS: readonly SchedulerName[] = ['rr', 'wrr', 'lc', 'wlc', 'sh', 'maglev', 'dynamic'];

/** What `atcasim lb -h|--help` prints: ipvsadm(8)'s synopsis, cut to what atcasim implements. */
export const LB_USAGE = `Usage: atcasim lb COMMAND [OPTIONS] [--db FILE]   (ipvsadm's vocabulary; details in docs/lb.md)
  atcasim lb -A|E -t|u service-address [-s scheduler] [-p [timeout]] [-M netmask] [-b sched-flags|none]
                  [--forwarding tunnel|dr|nat|fullnat] [--client-address none|toa|proxy-protocol]
                  [--health icmp|tcp|http|udp] [--health-interval D] [--health-timeout D]
                  [--health-rise N] [--health-fall N] [--health-path /PATH]
  atcasim lb -D -t|u service-address
  atcasim lb -C
  atcasim lb -a|e -t|u service-address -r server-address [-g|i|m|--fullnat] [-w weight]
  atcasim lb -d -t|u service-address -r server-address
  atcasim lb -L|l [-t|u service-address] [-n] [--exact] [--stats|--rate|-c] [--board SLOT]
  atcasim lb -Z [-t|u service-address]
  atcasim lb -S [-n]
  atcasim lb -R                  (rules as -S writes them, from stdin, applied as one change)
  atcasim lb -h|--help

Commands:
  --add-service     -A   add a virtual service          --edit-service    -E   change a virtual service
  --delete-service  -D   delete a virtual service       --clear           -C   delete every service
  --add-server      -a   add a real server              --edit-server     -e   change a real server
  --delete-server   -d   delete a real server           --list       -L|-l   list the table (the default)
  --zero            -Z   zero the counters              --save            -S   print the rules
  --restore         -R   apply rules from stdin         --help            -h   this text

Options:
  --tcp-service  -t ADDR:PORT   a TCP service ([v6]:PORT for IPv6; port 0 needs -p)
  --udp-service  -u ADDR:PORT   a UDP service
  --scheduler    -s SCHED       ${SCHEDULERS.join('|')} (default wlc)
  --persistent   -p [TIMEOUT]   persistence, seconds (default 300)
  --netmask      -M NETMASK     granularity of persistence
  --sched-flags  -b FLAGS       sh-fallback,sh-port or none
  --real-server  -r ADDR[:PORT] the real server (port: the service's by default)
  --gatewaying   -g             direct routing        --ipip  -i  tunnelling
  --masquerading -m             NAT                   --fullnat   full-NAT
  --weight       -w WEIGHT      0..65535 (default 1)
  --numeric      -n             numeric output (always)
  --stats / --rate / -c         counters / rates / connections (-L)
  --board SLOT                  one processor board's view (-L)
  --db FILE                     the shelf running on FILE (default: the one atcasim start uses)
Not implemented (refused): -f fwmark services, -x/-y thresholds, --start-daemon/--stop-daemon, --set.
Exit status: 0 done, 1 refused by the shelf, 2 bad arguments or no shelf.
`;
const WITH_VALUE = new Set(['-t', '--tcp-service', '-u', '--udp-service', '-s', '--scheduler', '-M', '--netmask', '-b', '--sched-flags', '-r', '--real-server', '-w', '--weight',
  '--board', '--db', '--client-address', '--forwarding', '--health', '--health-interval', '--health-timeout', '--health-rise', '--health-fall', '--health-path']);
/** Options each command takes (besides --db). */
const ALLOWED: Record<string, string[]> = {
  'add-service': ['svc', '-s', '-p', '-M', '-b', '--client-address', '--forwarding', 'health'],
  'edit-service': ['svc', '-s', '-p', '-M', '-b', '--client-address', '--forwarding', 'health'],
  'delete-service': ['svc'],
  clear: [],
  'add-server': ['svc', '-r', 'fwd', '-w'],
  'edit-server': ['svc', '-r', 'fwd', '-w'],
  'delete-server': ['svc', '-r'],
  list: ['svc', '-n', 'view', '--board', '--exact'],
  zero: ['svc'],
  save: ['-n'],
  restore: [],
};
const CANON: Record<string, string> = {
  '-t': 'svc', '--tcp-service': 'svc', '-u': 'svc', '--udp-service': 'svc', '--scheduler': '-s', '--persistent': '-p',
  '--netmask': '-M', '--sched-flags': '-b', '--real-server': '-r', '--weight': '-w', '--numeric': '-n',
  '-g': 'fwd', '--gatewaying': 'fwd', '-i': 'fwd', '--ipip': 'fwd', '-m': 'fwd', '--masquerading': 'fwd', '--fullnat': 'fwd',
  '--stats': 'view', '--rate': 'view', '-c': 'view', '--connection': 'view',
  '--health': 'health', '--health-interval': 'health', '--health-timeout': 'health', '--health-rise': 'health', '--health-fall': 'health', '--health-path': 'health',
};

/** `VIP:PORT`, `[v6]:PORT` → address and port. @throws LbUsageError */
export function parseEndpoint(text: string, what: string, portOptional: boolean): { address: string; port?: number } {
  const m6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const m4 = /^([^:[\]]+)(?::(\d+))?$/.exec(text);
  const m = m6 ?? m4;
  const address = m?.[1];
  const port = m?.[2] === undefined ? undefined : Number(m[2]);
  if (!m || address === undefined || !isIpAddress(address) || (port !== undefined && (port < 0 || port > 65535)) || (port === undefined && !portOptional)) {
    throw new LbUsageError(`illegal ${what} address[:port] specified`);
  }
  return port === undefined ? { address } : { address, port };
}

function scheduler(v: string): SchedulerName {
  if (!(SCHEDULERS as readonly string[]).includes(v)) throw new LbUsageError(`Scheduler not found: ${v} (known: ${SCHEDULERS.join(', ')})`);
  return v as SchedulerName;
}

function integer(v: string, what: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new LbUsageError(`illegal ${what} specified`);
  return n;
}

interface Raw {
  cmd: string;
  opts: Map<string, string[]>;
}

/** Splits argv into the command and its options (value options take the next word). */
function scan(args: readonly string[]): Raw {
  // bundled short options, as getopt reads them: -Ln = -L -n, -lnc = -l -n -c
  const argv = args.flatMap((a) => (/^-[A-Za-z]{2,}$/.test(a) ? [...a.slice(1)].map((ch) => `-${ch}`) : [a]));
  let cmd = '';
  const opts = new Map<string, string[]>();
  const put = (k: string, v: string) => opts.set(k, [...(opts.get(k) ?? []), v]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (UNSUPPORTED.has(a)) throw new LbUsageError(`option ${a} is not implemented by atcasim lb`);
    const c = COMMANDS[a];
    if (c !== undefined) {
      if (cmd !== '' && cmd !== c) throw new LbUsageError(`only one command is allowed (${cmd} and ${c} given)`);
      cmd = c;
      continue;
    }
    if (!a.startsWith('-')) throw new LbUsageError(`unexpected argument "${a}"`);
    if (a === '-p' || a === '--persistent') {
      const next = argv[i + 1];
      if (next !== undefined && /^\d+$/.test(next)) {
        put('-p', next);
        i++;
      } else put('-p', '300');
      continue;
    }
    if (WITH_VALUE.has(a)) {
      const v = argv[++i];
      if (v === undefined) throw new LbUsageError(`option ${a} requires an argument`);
      put(a, v);
      continue;
    }
    if (['-n', '--numeric', '--exact', '-g', '--gatewaying', '-i', '--ipip', '-m', '--masquerading', '--fullnat', '--stats', '--rate', '-c', '--connection'].includes(a)) {
      put(a, '');
      continue;
    }
    throw new LbUsageError(`invalid option -- '${a.replace(/^-+/, '')}'`);
  }
  return { cmd: cmd === '' ? 'list' : cmd, opts };
}

function check(raw: Raw): void {
  const allowed = ALLOWED[raw.cmd]!;
  const groups = new Map<string, string[]>();
  for (const k of raw.opts.keys()) {
    if (k === '--db') continue;
    const g = CANON[k] ?? k;
    if (!allowed.includes(g)) throw new LbUsageError(`Illegal '${k}' option with the '${raw.cmd}' command`);
    groups.set(g, [...(groups.get(g) ?? []), k]);
  }
  for (const [g, ks] of groups) {
    const n = ks.reduce((sum, k) => sum + raw.opts.get(k)!.length, 0);
    if (n > 1 && g !== 'health') throw new LbUsageError(`multiple ${g === 'svc' ? 'service' : g === 'fwd' ? 'forwarding' : g === 'view' ? 'list' : ks[0]} options given`);
  }
}

function one(raw: Raw, ...keys: string[]): [string, string] | undefined {
  for (const k of keys) {
    const v = raw.opts.get(k);
    if (v !== undefined) return [k, v[0]!];
  }
  return undefined;
}

function serviceRef(raw: Raw, required: boolean): ServiceRef | undefined {
  const o = one(raw, '-t', '--tcp-service', '-u', '--udp-service');
  if (o === undefined) {
    if (required) throw new LbUsageError(`You need to supply the 'service-address' option for the '${raw.cmd}' command`);
    return undefined;
  }
  const ep = parseEndpoint(o[1], 'virtual server', false);
  return { protocol: o[0] === '-t' || o[0] === '--tcp-service' ? 'tcp' : 'udp', vip: ep.address, port: ep.port! };
}

function healthOf(raw: Raw): Partial<HealthCheckConfig> | undefined {
  const h: Partial<HealthCheckConfig> = {};
  const dur = (k: string) => {
    const v = raw.opts.get(k)?.[0];
    if (v === undefined) return undefined;
    const ms = parseDuration(v);
    if (ms === undefined || ms < 1) throw new LbUsageError(`illegal ${k} value "${v}" (a duration such as 500ms, 5s)`);
    return ms;
  };
  const kind = raw.opts.get('--health')?.[0];
  if (kind !== undefined) {
    if (!['icmp', 'tcp', 'http', 'udp'].includes(kind)) throw new LbUsageError(`illegal --health kind "${kind}" (icmp, tcp, http, udp)`);
    h.kind = kind as HealthCheckConfig['kind'];
  }
  const iv = dur('--health-interval');
  if (iv !== undefined) h.intervalMs = iv;
  const to = dur('--health-timeout');
  if (to !== undefined) h.timeoutMs = to;
  const rise = raw.opts.get('--health-rise')?.[0];
  if (rise !== undefined) h.rise = integer(rise, '--health-rise value', 1, 100);
  const fall = raw.opts.get('--health-fall')?.[0];
  if (fall !== undefined) h.fall = integer(fall, '--health-fall value', 1, 100);
  const path = raw.opts.get('--health-path')?.[0];
  if (path !== undefined) {
    if (!path.startsWith('/')) throw new LbUsageError(`illegal --health-path "${path}" (an HTTP path starting with /)`);
    h.path = path;
  }
  return Object.keys(h).length > 0 ? h : undefined;
}

function serviceSettings(raw: Raw, ref: ServiceRef): ServiceSettings {
  const s: ServiceSettings = {};
  const sch = raw.opts.get('-s')?.[0] ?? raw.opts.get('--scheduler')?.[0];
  if (sch !== undefined) s.scheduler = scheduler(sch);
  const p = raw.opts.get('-p')?.[0];
  if (p !== undefined) s.persistenceMs = integer(p, 'timeout value', 1, 31_536_000) * 1000;
  const mask = raw.opts.get('-M')?.[0] ?? raw.opts.get('--netmask')?.[0];
  if (mask !== undefined) {
    const bits = netmaskBits(mask.replace(/^\//, ''), ref.vip.includes(':') ? 128 : 32);
    if (bits === null) throw new LbUsageError('illegal virtual server netmask specified');
    s.persistenceNetmask = bits;
  }
  const flags = raw.opts.get('-b')?.[0] ?? raw.opts.get('--sched-flags')?.[0];
  if (flags !== undefined) {
    const list = flags === 'none' ? [] : flags.split(',').filter((f) => f !== '');
    for (const f of list) if (f !== 'sh-port' && f !== 'sh-fallback') throw new LbUsageError(`invalid scheduler flag "${f}" (sh-fallback, sh-port)`);
    s.schedulerFlags = list as SchedulerFlag[];
  }
  const ca = raw.opts.get('--client-address')?.[0];
  if (ca !== undefined) {
    if (!['none', 'toa', 'proxy-protocol'].includes(ca)) throw new LbUsageError(`illegal --client-address "${ca}" (none, toa, proxy-protocol)`);
    s.clientAddress = ca as ClientAddressMode;
  }
  const fw = raw.opts.get('--forwarding')?.[0];
  if (fw !== undefined) s.forwarding = forwardingName(fw);
  const h = healthOf(raw);
  if (h !== undefined) s.health = h;
  return s;
}

function forwardingName(v: string): ForwardingMode {
  if (!['tunnel', 'dr', 'nat', 'fullnat'].includes(v)) throw new LbUsageError(`illegal --forwarding "${v}" (tunnel, dr, nat, fullnat)`);
  return v as ForwardingMode;
}

function serverSettings(raw: Raw): ServerSettings {
  const r = one(raw, '-r', '--real-server');
  if (r === undefined) throw new LbUsageError(`You need to supply the 'real-server' option for the '${raw.cmd}' command`);
  const ep = parseEndpoint(r[1], 'real server', true);
  const s: ServerSettings = { address: ep.address };
  if (ep.port !== undefined) s.port = ep.port;
  const w = one(raw, '-w', '--weight');
  if (w !== undefined) s.weight = integer(w[1], 'weight', 0, 65535);
  const FWD: Record<string, ForwardingMode> = { '-g': 'dr', '--gatewaying': 'dr', '-i': 'tunnel', '--ipip': 'tunnel', '-m': 'nat', '--masquerading': 'nat', '--fullnat': 'fullnat' };
  for (const [k, mode] of Object.entries(FWD)) if (raw.opts.has(k)) s.forwarding = mode;
  return s;
}

/**
 * Parses one call's arguments (without `atcasim lb`).
 * @throws LbUsageError with the line to print
 */
export function parseLbArgs(argv: readonly string[]): LbCall {
  if (argv.includes('-h') || argv.includes('--help')) return { command: { kind: 'help' } };
  const raw = scan(argv);
  check(raw);
  const db = raw.opts.get('--db')?.[0];
  const call = (command: LbCommand): LbCall => (db === undefined ? { command } : { command, db });
  switch (raw.cmd) {
    case 'add-service':
    case 'edit-service': {
      const ref = serviceRef(raw, true)!;
      const settings = serviceSettings(raw, ref);
      // ipvsadm: a port-0 service catches every port, which only makes sense with persistence
      if (ref.port === 0 && raw.cmd === 'add-service' && settings.persistenceMs === undefined) throw new LbUsageError('Zero port specified for non-persistent service');
      // ipvsadm: -s sh without -b has no flags (the shelf YAML's sh without scheduler_flags has sh-fallback)
      if (raw.cmd === 'add-service' && settings.scheduler === 'sh' && settings.schedulerFlags === undefined) settings.schedulerFlags = [];
      return call({ kind: 'edit', edit: raw.cmd === 'add-service' ? { op: 'add-service', service: ref, settings } : { op: 'edit-service', service: ref, settings } });
    }
    case 'delete-service':
      return call({ kind: 'edit', edit: { op: 'delete-service', service: serviceRef(raw, true)! } });
    case 'clear':
      return call({ kind: 'edit', edit: { op: 'clear' } });
    case 'add-server':
    case 'edit-server':
    case 'delete-server': {
      const ref = serviceRef(raw, true)!;
      const server = serverSettings(raw);
      if (raw.cmd === 'delete-server' && (server.weight !== undefined || server.forwarding !== undefined)) throw new LbUsageError(`Illegal option with the 'delete-server' command`);
      return call({ kind: 'edit', edit: { op: raw.cmd, service: ref, server } as ServiceEdit });
    }
    case 'zero': {
      const ref = serviceRef(raw, false);
      return call(ref === undefined ? { kind: 'zero' } : { kind: 'zero', service: ref });
    }
    case 'save':
      return call({ kind: 'save' });
    case 'restore':
      return call({ kind: 'restore' });
    default: {
      const view = raw.opts.has('--stats') ? 'stats' : raw.opts.has('--rate') ? 'rate' : raw.opts.has('-c') || raw.opts.has('--connection') ? 'conns' : 'plain';
      const ref = serviceRef(raw, false);
      const b = raw.opts.get('--board')?.[0];
      const cmd: LbCommand = { kind: 'list', view };
      if (ref !== undefined) cmd.service = ref;
      if (b !== undefined) cmd.board = integer(b.replace(/^slot/, ''), 'board slot', 1, 14);
      return call(cmd);
    }
  }
}
