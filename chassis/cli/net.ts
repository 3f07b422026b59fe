/**
 * `atcasim net`: the live lab (network namespaces the live shelf is cabled to).
 *
 *   atcasim net up   [--prefix P] [--config FILE]   make the lab for the live shelf (default
 *                                                    chassis/config/live-shelf.yaml) and print one
 *                                                    JSON line {"event":"net-ready", …}
 *   atcasim net down [--prefix P]                   remove every namespace P-… and what is in it
 *
 * Root is needed (network namespaces, TAP devices): otherwise one line and exit 2, nothing made.
 * Bad input (an existing namespace, a bad prefix, an RS outside every back-side subnet, a local
 * address that is a VIP, …) is one line naming the thing, exit 2, and nothing is left made.
 * The plan is chassis/io/lab-plan.ts, its execution chassis/io/netns-lab.ts; docs/live.md.
 */
import type { Command } from 'commander';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { LabPlanError, planLab, type LabPlan } from '../io/lab-plan.ts';
import { LabError, labDown, labStateDir, labUp } from '../io/netns-lab.ts';
import type { CliContext } from './context.ts';
import { readConfigText } from './read-file.ts';
import { ConfigError } from '../../board/common/errors.ts';

/** The live shelf shipped beside the default one. */
export const LIVE_SHELF_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'config', 'live-shelf.yaml');

/** The net-ready event of a lab (what `net up` prints). */
export function netReadyEvent(p: LabPlan, logs: Record<string, string>): Record<string, unknown> {
  return {
    event: 'net-ready',
    prefix: p.prefix,
    namespaces: { client: p.namespaces.client, router: p.namespaces.router, rs: Object.fromEntries(p.realServers.map((r) => [r.name, r.netns])) },
    client: { netns: p.namespaces.client, ifname: p.client.ifname, address: p.client.address.split('/')[0], address6: p.client.address6.split('/')[0] },
    ports: p.ports.map((x) => ({ slot: `slot${x.slot}`, side: x.side, kind: 'tap', netns: x.netns, ifname: x.ifname, mtu: x.mtu })),
    interfaces: [p.client.link, ...p.ports.map((x) => x.ifname), p.bridge.ifname, ...p.realServers.map((r) => r.link)],
    vips: p.services.map((s) => s.vip),
    services: p.services.map((s) => ({ name: s.name, vip: s.vip, forwarding: s.forwarding, rs: s.rs.map((r) => ({ name: r.name, address: r.endpoint, forwarding: r.forwarding, weight: r.weight })) })),
    rs: Object.fromEntries(p.realServers.map((r) => [r.name, { netns: r.netns, addresses: r.addresses.map((a) => a.split('/')[0]), endpoints: r.endpoints, log: logs[r.name] }])),
    state: labStateDir(p.prefix),
  };
}

function needRoot(ctx: CliContext, verb: string): boolean {
  if (typeof process.getuid === 'function' && process.getuid() === 0) return true;
  ctx.stderr.write(`atcasim net ${verb}: needs root (network namespaces and TAP devices): run it with sudo\n`);
  ctx.setExit(2);
  return false;
}

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command('net').description('make or remove the live lab (network namespaces for atcasim start --live)');
  cmd
    .command('up')
    .description('make the live lab and print {"event":"net-ready", …}')
    .option('--prefix <name>', 'name prefix of every namespace and interface (1-10 letters/digits)', 'atcasim')
    .option('--config <file>', 'live shelf YAML whose services and ports the lab is made for', LIVE_SHELF_PATH)
    .action((opts: { prefix: string; config: string }) => {
      let plan: LabPlan;
      try {
        const text = readConfigText(opts.config, 'shelf YAML file');
        plan = planLab(parse(text), opts.prefix);
      } catch (e) {
        if (e instanceof LabPlanError || e instanceof ConfigError) {
          ctx.stderr.write(`atcasim net up: ${e instanceof LabPlanError ? `${opts.config}: ` : ''}${e.message}\n`);
        } else {
          ctx.stderr.write(`atcasim net up: ${opts.config}: not a valid YAML shelf (${(e as Error).message.split('\n')[0]})\n`);
        }
        ctx.setExit(2);
        return;
      }
      if (!needRoot(ctx, 'up')) return;
      try {
        const r = labUp(plan);
        ctx.stdout.write(`${JSON.stringify(netReadyEvent(plan, r.logs))}\n`);
      } catch (e) {
        if (!(e instanceof LabError)) throw e;
        ctx.stderr.write(`atcasim net up: ${e.message} (nothing was left made)\n`);
        ctx.setExit(2);
      }
    });
  cmd
    .command('down')
    .description('remove every namespace of the lab (and its interfaces and servers)')
    .option('--prefix <name>', 'name prefix of the lab', 'atcasim')
    .action((opts: { prefix: string }) => {
      if (!/^[a-z][a-z0-9]{0,9}$/.test(opts.prefix)) {
        ctx.stderr.write(`atcasim net down: bad --prefix '${opts.prefix}': 1-10 characters, a lower-case letter then letters or digits\n`);
        ctx.setExit(2);
        return;
      }
      if (!needRoot(ctx, 'down')) return;
      try {
        const gone = labDown(opts.prefix);
        ctx.stdout.write(`${JSON.stringify({ event: 'net-down', prefix: opts.prefix, removed: gone })}\n`);
      } catch (e) {
        if (!(e instanceof LabError)) throw e;
        ctx.stderr.write(`atcasim net down: ${e.message}\n`);
        ctx.setExit(2);
      }
    });
}
