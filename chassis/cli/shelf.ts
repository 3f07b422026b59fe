/**
 * The shelf process of the split shelf (docs/split.md):
 *
 *   atcasim shelf --listen 127.0.0.1:PORT [--db FILE] [--config FILE] [--ipmi-port PORT]
 *                 [--admin-password PW] [--rate PPS] [--session-capacity N] [--stats-interval D]
 *                 [--snmp-port PORT]
 *
 * runs the emulated shelf headless (boards, data plane with traffic, processor-board HA, sensors,
 * hot swap, SEL — `atcasim start --headless` without the ShMC pair) and waits on the bus for two
 * `atcasim shmc` processes (started by the user); `atcasim start --split` runs the same shelf with
 * its TUI (or headless) and starts both ShMCs itself (both through split-setup.ts).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { parseLoopbackHostPort } from '../split/shmc-flags.ts';
import type { CliContext } from './context.ts';
import { durationArg, intArg, runStart, type StartOptions } from './start.ts';

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('shelf')
    .description('run the shelf hardware of the split shelf (headless; two `atcasim shmc` processes register on --listen; docs/split.md)')
    .requiredOption('--listen <host:port>', 'bus address for the shmc processes (loopback; port 0 = a free one, printed in the ready line)')
    .option('--db <file>', 'database file')
    .option('--config <file>', 'shelf YAML (replaces the shelf stored in the database)')
    .option('--ipmi-port <port>', 'the shelf address the ShMCs serve (their --ipmi-port; default 6230)', intArg('--ipmi-port', 1, 65535))
    .option('--admin-password <pw>', 'first start: IPMI administrator password')
    .option('--snmp-port <port>', 'the SNMP port the active ShMC serves (docs/snmp.md; default: snmp.port, else none)', intArg('--snmp-port', 1, 65535))
    .option('--rate <pps>', 'replay at this many packets/s (default: paced to the capture)', (v) => Number(v))
    .option('--session-capacity <n>', 'session-table entries per processor board', intArg('--session-capacity', 1, 1 << 26))
    .addOption(
      new Option('--stats-interval <duration>', 'time between stats lines (250ms, 5s; a bare number is seconds)')
        .argParser(durationArg('--stats-interval', 100))
        .default(5000, '5s'),
    )
    .action(async (o: { listen: string; db?: string; config?: string; ipmiPort?: number; adminPassword?: string; snmpPort?: number; rate?: number; sessionCapacity?: number; statsInterval: number }) => {
      let listen: { host: string; port: number };
      try {
        listen = /:0$/.test(o.listen) ? { host: parseLoopbackHostPort('--listen', o.listen.replace(/:0$/, ':1')).host, port: 0 } : parseLoopbackHostPort('--listen', o.listen);
      } catch (e) {
        ctx.stderr.write(`atcasim shelf: ${(e as Error).message}\n`);
        ctx.setExit(2);
        return;
      }
      const so: StartOptions = {
        headless: true,
        statsInterval: o.statsInterval,
        logLevel: 'info',
        ipmi15: true,
        split: true,
        splitListen: listen,
        splitSpawn: false,
        verb: 'shelf',
        ...(o.db !== undefined ? { db: o.db } : {}),
        ...(o.config !== undefined ? { config: o.config } : {}),
        ...(o.ipmiPort !== undefined ? { ipmiPort: o.ipmiPort } : {}),
        ...(o.adminPassword !== undefined ? { adminPassword: o.adminPassword } : {}),
        ...(o.snmpPort !== undefined ? { snmpPort: o.snmpPort } : {}),
        ...(o.rate !== undefined && o.rate > 0 ? { rate: o.rate } : {}),
        ...(o.sessionCapacity !== undefined ? { sessionCapacity: o.sessionCapacity } : {}),
      };
      ctx.setExit(await runStart(so, ctx));
    });
}
