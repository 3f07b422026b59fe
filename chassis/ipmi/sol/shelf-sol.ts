/**
 * Serial over LAN for the shelf's IPMI face: which console a SOL activation reaches, and where the
 * payload commands are served.
 *
 * Addressing (what `ipmitool -I lanplus … sol activate` does, checked against ipmitool 1.8.19):
 * - at the shelf-manager address 20h (plain `sol activate`, payload instance 1): the console of
 *   the active ShMC (it follows a switchover like the address does);
 * - bridged to a board's IPMC (`-t 0x86 -b 0 sol activate`: ipmitool wraps Activate Payload,
 *   Deactivate Payload and its Get Device ID keep-alives in Send Message; the SOL packets travel
 *   in the session itself), instance 1: that board's console — `-t 0x10`/`-t 0x12` reach the
 *   console of ShMC A/B whatever their roles;
 * - an atcasim convention for clients that cannot bridge: at 20h, payload instance N (2..14) is
 *   the console of the board in logical slot N (`sol activate instance=3` → slot3). Slot 1 (a hub)
 *   is reached by bridging only, since instance 1 is the shelf manager's.
 *
 * The payload and SOL configuration commands are registered in the LAN channel's table (requests
 * to 20h) and in the table of every IPMC that has a console (bridged requests), including IPMCs
 * installed later (a board inserted after start).
 */
import type { Clock } from '../../../board/common/clock.ts';
import type { Logger } from '../../../board/common/logger.ts';
import type { Shelf } from '../../model/shelf.ts';
import { payloadCommands, solConfigCommands } from '../commands/payload.ts';
import type { CommandTable } from '../controller.ts';
import type { LanServer } from '../lan-server.ts';
import { bitRateCode, type SolConfig } from './sol-config.ts';
import { SolService, type SolConsoleResolver, type SolConsoleTarget } from './sol-service.ts';

/** Highest payload instance of the slot convention at 20h (instances 2..SOL_MAX_INSTANCE). */
export const SOL_MAX_INSTANCE = 15;

/** The consoles SOL can reach, by FRU name (ConsoleMux satisfies it). */
export interface SolConsoleSource {
  get(name: string): SolConsoleTarget | undefined;
}

/** Options of attachShelfSol. */
export interface ShelfSolOptions {
  server: LanServer;
  shelf: Shelf;
  consoles: SolConsoleSource;
  clock: Clock;
  log: Logger;
  /** Initial SOL configuration (the bit rates default to the active ShMC's console baud). */
  config?: Partial<SolConfig>;
}

/** A SolService wired into the shelf's LAN server; `close()` undoes the wiring. */
export interface ShelfSol {
  readonly service: SolService;
  close(): void;
}

/** The resolver of the module comment over a shelf and its consoles. */
export function shelfSolResolver(shelf: Shelf, consoles: SolConsoleSource): SolConsoleResolver {
  const bySlot = (slot: number): SolConsoleTarget | undefined => {
    const name = shelf.fruNames().find((n) => shelf.fruConfig(n).slot === slot);
    return name ? consoles.get(name) : undefined;
  };
  return {
    resolve: (address, instance) => {
      if (address === shelf.shelfManagerAddress) {
        if (instance === 1) {
          const active = shelf.activeShmc();
          return active ? consoles.get(active) : undefined;
        }
        return instance >= 2 && instance <= SOL_MAX_INSTANCE ? bySlot(instance) : undefined;
      }
      if (instance !== 1) return undefined;
      const name = shelf.resolveAddress(address);
      return name ? consoles.get(name) : undefined;
    },
    capacity: (address) => {
      if (address === shelf.shelfManagerAddress) return SOL_MAX_INSTANCE;
      const name = shelf.resolveAddress(address);
      return name && consoles.get(name) ? 1 : 0;
    },
  };
}

/**
 * Creates the SOL service of `server` and registers the payload commands (see the module comment).
 * @throws TypeError when a command is already registered differently (a programming error)
 */
export function attachShelfSol(o: ShelfSolOptions): ShelfSol {
  const { server, shelf } = o;
  const active = shelf.activeShmc();
  const baud = active ? shelf.fruConfig(active).console?.baud : undefined;
  const service = new SolService({
    server,
    consoles: shelfSolResolver(shelf, o.consoles),
    clock: o.clock,
    log: o.log,
    config: { ...(baud !== undefined ? { nonVolatileRate: bitRateCode(baud), volatileRate: bitRateCode(baud) } : {}), ...o.config },
  });
  const defs = [...payloadCommands(service), ...solConfigCommands(service)];
  const added: Array<{ table: CommandTable; netFn: number; cmd: number }> = [];
  const register = (table: CommandTable) => {
    for (const d of defs) {
      if (table.lookup(d.netFn, d.cmd)) continue;
      table.register(d);
      added.push({ table, netFn: d.netFn, cmd: d.cmd });
    }
  };
  register(server.lanCommands);
  const withConsole = shelf.fruNames().filter((n) => o.consoles.get(n) !== undefined);
  const registerIpmc = (name: string) => {
    const c = server.controllerAt(shelf.fruConfig(name).ipmbAddress);
    if (c) register(c.commands);
  };
  for (const n of withConsole) registerIpmc(n);
  const off = shelf.on('hotswap', (e) => {
    if (e.from === 0 && withConsole.includes(e.fru)) registerIpmc(e.fru);
  });
  let closed = false;
  return {
    service,
    close: () => {
      if (closed) return;
      closed = true;
      off();
      service.close();
      for (const a of added) a.table.unregister(a.netFn, a.cmd);
    },
  };
}
