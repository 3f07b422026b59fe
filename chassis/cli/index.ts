/**
 * Registry of CLI verbs. Each verb lives in its own file in this folder and exports
 * `register(program, ctx)`; add one line to VERBS per verb (its name, the one-line description it
 * registers, and a dynamic import of its module).
 *
 * Only the verb that runs is loaded: `atcasim clia board 3` imports chassis/cli/clia.ts and what
 * it imports, nothing of `start` (SQLite, the data plane, the TUI). For the verb list of `--help`
 * (no verb, or one that is not known) every verb is registered as a stub with its description.
 */
import type { Command } from 'commander';
import type { CliContext } from './context.ts';

type Registrar = (program: Command, ctx: CliContext) => void;

/** One verb: its name, its `--help` line (what its module's register sets), and its loader. */
export interface VerbEntry {
  name: string;
  description: string;
  load(): Promise<{ register: Registrar }>;
}

/** Every verb, in `--help` order. test/unit/chassis/cli/index.test.ts checks the descriptions. */
export const VERBS: readonly VerbEntry[] = [
  { name: 'fields', description: 'print the header fields of every packet of a pcap/pcapng capture as CSV (tshark-comparable)', load: () => import('./fields.ts') },
  { name: 'hash', description: 'print the ECMP hash of a flow (and with --config the hub port and board it lands on)', load: () => import('./hash.ts') },
  { name: 'config', description: 'print or check shelf configuration files (YAML)', load: () => import('./config.ts') },
  { name: 'db', description: 'inspect, back up or reset the atcasim database', load: () => import('./db.ts') },
  {
    name: 'clia',
    description: 'shelf-manager CLI over IPMI (verbs: shmstatus, switchover, fru, board, sensordata, getthreshold, sel, showunhealthy, alarm, shelf, user, getlanconfig, version, activate, deactivate, console, inject …; "clia help"; no verb: an interactive shell)',
    load: () => import('./clia.ts'),
  },
  { name: 'start', description: 'run the emulated shelf with live traffic, IPMI and the terminal UI (--headless: JSON log lines)', load: () => import('./start.ts') },
  { name: 'replay', description: 'run pcap/pcapng captures through the shelf data plane (hubs, ECMP, processor boards) and report', load: () => import('./replay.ts') },
  {
    name: 'scenario',
    description: 'run scripted failover scenarios in simulated time and check their expectations (exit 0 pass, 1 fail, 2 invalid file)',
    load: () => import('./scenario.ts'),
  },
  {
    name: 'chaos',
    description: 'random fault schedules in simulated time, invariants checked after every step; a violation is minimised into a scenario file (exit 1)',
    load: () => import('./chaos.ts'),
  },
  {
    name: 'shelf',
    description: 'run the shelf hardware of the split shelf (headless; two `atcasim shmc` processes register on --listen; docs/split.md)',
    load: () => import('./shelf.ts'),
  },
  { name: 'shmc', description: 'run one shelf manager of the split shelf (atcasim start --split runs two; docs/split.md)', load: () => import('./shmc.ts') },
  {
    name: 'status',
    description: 'HA status of a running shelf: pairs, owners, roles, epochs, heartbeats, sync lag, watchdogs, alarms, sessions lost by age',
    load: () => import('./status.ts'),
  },
  {
    name: 'lb',
    description: 'virtual services and real servers of a running shelf, in ipvsadm\'s vocabulary (-A/-E/-D, -a/-e/-d, -L -n, -Z, -S, -R; docs/lb.md)',
    load: () => import('./lb.ts'),
  },
  { name: 'net', description: 'make or remove the live lab (network namespaces for atcasim start --live)', load: () => import('./net.ts') },
  { name: 'hpm', description: 'HPM.1 firmware upgrade images for the emulated controllers (ipmitool hpm)', load: () => import('./hpm.ts') },
];

/**
 * The verb `argv` runs: its first word that is not an option (the program has no option that
 * takes a value), or the word after `help`. @returns undefined for none or an unknown word
 */
export function verbOf(argv: readonly string[]): VerbEntry | undefined {
  const words = argv.slice(2).filter((a) => !a.startsWith('-'));
  const word = words[0] === 'help' ? words[1] : words[0];
  return VERBS.find((v) => v.name === word);
}

/**
 * Registers the verb `argv` names (loading only its module), or, when it names none, every verb
 * as a stub for the help list and commander's "unknown command" suggestion.
 * @param argv process.argv-style (node, script, args…); absent: every verb is loaded in full
 */
export async function registerAll(program: Command, ctx: CliContext, argv?: readonly string[]): Promise<void> {
  if (argv === undefined) {
    for (const m of await Promise.all(VERBS.map((v) => v.load()))) m.register(program, ctx);
    return;
  }
  const verb = verbOf(argv);
  if (verb) {
    (await verb.load()).register(program, ctx);
    return;
  }
  for (const v of VERBS) program.command(v.name).description(v.description);
}
