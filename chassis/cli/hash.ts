/**
 * `atcasim hash`: prints the ECMP hash of one flow, and with `--config` the hub port and board it
 * lands on ("where will this flow go?"). Pure computation over board/switch; no shelf is started.
 *
 *   atcasim hash --src IP --dst IP [--sport N --dport N] [--proto tcp|udp|sctp|N]
 *                [--alg pearson|crc32|crc16|toeplitz] [--key HEX] [--symmetric | --no-symmetric]
 *                [--config shelf.yaml]
 *
 * Output: `hash=0x` + 8 hex digits (16-bit hashes zero-extended); with --config also
 * ` port=N board=slotM` on the same line. Exit 0; 2 for bad input (addresses, ports, protocol,
 * key, algorithm, unreadable config) with a message on stderr.
 */
import { Command, Option } from 'commander';
import type { CliContext } from './context.ts';
import { CommandError, ConfigError } from '../../board/common/errors.ts';
import { ecmpMembers } from '../config/slots.ts';
import { loadShelfConfigFile } from './read-file.ts';
import { HASH_ALGORITHMS, parseToeplitzKey } from '../../board/switch/hash/index.ts';
import { hashFlow, placeFlow, tupleFromText } from '../../board/switch/place-flow.ts';
import { DEFAULT_ECMP, type EcmpConfig, type EcmpMember, type HashAlgorithmName } from '../../board/switch/switch-config.ts';

/** What `--config` needs from a shelf file: its ECMP settings and the hub's member ports. */
export interface ShelfEcmp {
  ecmp: EcmpConfig;
  members: EcmpMember[];
}

/** Loads the ECMP part of a shelf YAML file. @throws Error with a file:line:column message on bad input */
export type ShelfEcmpLoader = (file: string) => Promise<ShelfEcmp>;

/**
 * The loader `--config` uses: reads and validates the shelf YAML (chassis/io/data-dir.ts,
 * chassis/config), then takes its `dataplane.ecmp` settings and the hubs' members (one per
 * processor board, hub port = slot; HA buddies as failover targets).
 * @throws ConfigError (`file:line:column: …`) for an unreadable or invalid file
 */
export const loadShelfEcmp: ShelfEcmpLoader = async (file) => {
  const { config } = loadShelfConfigFile(file);
  return { ecmp: config.dataplane.ecmp, members: ecmpMembers(config, { buddyFailover: true }) };
};

/** Parsed options of the verb (as commander hands them over). */
export interface HashOptions {
  src: string;
  dst: string;
  sport?: string;
  dport?: string;
  proto?: string;
  alg?: string;
  key?: string;
  symmetric?: boolean;
  config?: string;
}

function parsePort(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[0-9]{1,5}$/.test(v) || Number(v) > 65535) throw new CommandError('bad_port', `--${name}: '${v}' is not a port number (0..65535)`);
  return Number(v);
}

/**
 * Runs the verb: computes the line to print.
 * @param loader shelf loader for --config (default loadShelfEcmp)
 * @returns the output line without newline
 * @throws CommandError (bad input; the CLI prints the message and exits 2)
 */
export async function runHash(o: HashOptions, loader: ShelfEcmpLoader = loadShelfEcmp): Promise<string> {
  let shelf: ShelfEcmp | undefined;
  if (o.config !== undefined) shelf = await loader(o.config);
  const base: EcmpConfig = { ...(shelf?.ecmp ?? DEFAULT_ECMP) };
  if (o.alg !== undefined) {
    if (!(HASH_ALGORITHMS as readonly string[]).includes(o.alg)) {
      throw new CommandError('bad_algorithm', `--alg: unknown algorithm '${o.alg}' (expected ${HASH_ALGORITHMS.join(', ')})`);
    }
    base.hash = o.alg as HashAlgorithmName;
  }
  if (o.key !== undefined) {
    if (base.hash !== 'toeplitz') throw new CommandError('bad_key', `--key applies to --alg toeplitz only (algorithm is ${base.hash})`);
    try {
      parseToeplitzKey(o.key);
    } catch (e) {
      throw new CommandError('bad_key', `--key: ${(e as Error).message.replace(/^Toeplitz key: /, '')}`);
    }
    base.toeplitzKey = o.key;
  }
  if (o.symmetric !== undefined) base.symmetric = o.symmetric;
  const tuple = tupleFromText({
    src: o.src,
    dst: o.dst,
    sport: parsePort('sport', o.sport),
    dport: parsePort('dport', o.dport),
    proto: o.proto,
  });
  if (!shelf) return `hash=0x${hex8(hashFlow(base, tuple))}`;
  const p = placeFlow(base, shelf.members, tuple);
  const where = p.port < 0 ? ' port=none board=none' : ` port=${p.port} board=slot${p.slot}`;
  return `hash=0x${hex8(p.hash)}${where}`;
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/** Registers `hash` on the root command. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('hash')
    .description('print the ECMP hash of a flow (and with --config the hub port and board it lands on)')
    .requiredOption('--src <ip>', 'source address (IPv4 or IPv6)')
    .requiredOption('--dst <ip>', 'destination address (same family)')
    .option('--sport <n>', 'source port (with --dport; without ports only the L3 fields are hashed)')
    .option('--dport <n>', 'destination port')
    .option('--proto <name>', 'tcp, udp, sctp, icmp, icmpv6, gre or a number 0..255 (default tcp)')
    .addOption(new Option('--alg <name>', `hash algorithm (default ${DEFAULT_ECMP.hash}, or the shelf's)`).choices([...HASH_ALGORITHMS]))
    .option('--key <hex>', 'Toeplitz key: 40 bytes as 80 hex digits (default: the Microsoft RSS key)')
    .option('--symmetric', 'order the endpoints first, so both directions hash alike')
    .option('--no-symmetric', "do not order the endpoints (overrides the shelf's setting)")
    .option('--config <file>', 'shelf YAML: also print the hub port and board the flow lands on')
    .action(async (o: HashOptions) => {
      try {
        ctx.stdout.write(`${await runHash(o)}\n`);
      } catch (e) {
        if (!(e instanceof CommandError || e instanceof ConfigError || e instanceof TypeError || e instanceof RangeError)) throw e;
        ctx.stderr.write(`atcasim hash: ${e.message}\n`);
        ctx.setExit(2);
      }
    });
}
