/**
 * The consoles of a shelf: one BoardConsole per FRU that has a console UART (shelf managers, hubs,
 * processor boards — the FRUs whose shelf YAML entry has a `console`), each backed by
 * shelfBoardPort, kept in step with the shelf's events:
 *
 *   hot swap → M4                    payload up: banner (a board coming back from M7 keeps running)
 *   hot swap → M6 (from M4/M5)       "shutting down … System halted.", then silence
 *   hot swap → M0…M3                 silence (extracted, inactive, activating)
 *   FRU Control cold/warm reset, graceful reboot   restart: message, silence, banner
 *   FRU Control diagnostic interrupt                "NMI" notice
 *   payload fault injected           "kernel panic" line, then silence (M6 → M1 follows)
 *   HA role → resetting              "System reset" (when answering), silence until no role of the
 *                                    node is resetting any more, then the banner (ends a hang)
 *   HA role → booting while hung     banner: the node's software restarted
 *   setHung (HA hang/heal)           no echo, no answer / resumes
 *
 * Chassis power off takes the boards M4 → M6 → M1, so their consoles halt through the hot-swap
 * events; shelf managers stay up (management power). Pure: time from the Clock, no I/O — the PTYs
 * (chassis/io/serial-console.ts) and SOL (chassis/ipmi/sol) attach to the consoles from outside.
 */
import type { Clock } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { ConsoleConfig } from '../config/types.ts';
import type { DataPlane } from '../dataplane/data-plane.ts';
import { HOT_SWAP_CAUSE_TEXT } from '../model/hot-swap.ts';
import type { Shelf } from '../model/shelf.ts';
import type { ConsoleBoardPort } from './board-port.ts';
import { BoardConsole } from './board-console.ts';
import { hasConsole, shelfBoardPort, type HaLiveView } from './shelf-port.ts';

/** Options of the console mux. Defaults in brackets. */
export interface ConsoleMuxOptions {
  shelf: Shelf;
  /** Sessions, RS tables and weights of the processor boards. */
  dataPlane?: DataPlane;
  /** Live HA figures for `show ha` (the HA part's status). */
  haStatus?: () => readonly HaLiveView[];
  clock: Clock;
  log: Logger;
  /** Time a restart takes before the banner, ms [the shelf's hot-swap step, which is also how long a FRU Control reset keeps a board out of service]. */
  rebootMs?: number;
  /** Scrollback per console, bytes [16384]. */
  scrollbackBytes?: number;
  /** Port factory (tests) [shelfBoardPort]. */
  portFor?: (name: string) => ConsoleBoardPort;
}

const PAYLOAD_UP = new Set([4, 5, 7]);

/** The shelf's consoles (see the module comment). */
export class ConsoleMux {
  private readonly consoles = new Map<string, BoardConsole>();
  private readonly lines = new Map<string, ConsoleConfig>();
  private readonly offs: Array<() => void> = [];
  /** Role keys of each node that are in `resetting` (HA). */
  private readonly resetting = new Map<string, Set<string>>();
  private readonly log: Logger;

  constructor(private readonly opts: ConsoleMuxOptions) {
    const { shelf } = opts;
    this.log = opts.log.child({ module: 'chassis.consoles' });
    const rebootMs = opts.rebootMs ?? shelf.config.hotSwap.stepMs;
    for (const name of shelf.fruNames()) {
      const cfg = shelf.fruConfig(name);
      if (!hasConsole(cfg)) continue;
      const port = opts.portFor?.(name) ?? shelfBoardPort({ shelf, ...(opts.dataPlane ? { dataPlane: opts.dataPlane } : {}), ...(opts.haStatus ? { haStatus: opts.haStatus } : {}) }, name);
      this.consoles.set(
        name,
        new BoardConsole({
          name,
          port,
          clock: opts.clock,
          rebootMs,
          ...(opts.scrollbackBytes !== undefined ? { scrollbackBytes: opts.scrollbackBytes } : {}),
          initial: PAYLOAD_UP.has(shelf.state(name)) ? 'running' : 'halted',
          log: this.log,
        }),
      );
      this.lines.set(name, cfg.console!);
    }
    this.offs.push(
      shelf.on('hotswap', (e) => {
        const c = this.consoles.get(e.fru);
        if (!c) return;
        if (e.to === 4) {
          if (c.power !== 'running') c.boot();
        } else if (e.to === 6) {
          if (e.from === 4 || e.from === 5) c.halt('Deactivation in progress: shutting down the payload.\nSystem halted.');
          else c.halt();
        } else if (e.to === 5) {
          c.notice(`Hot swap: deactivation requested (${HOT_SWAP_CAUSE_TEXT[e.cause]}).`);
        } else if (e.to !== 7) {
          c.halt();
        }
      }),
      shelf.on('fru.control', (e) => {
        const c = this.consoles.get(e.fru);
        if (!c) return;
        if (e.option === 'diagnostic-interrupt') c.notice('NMI: diagnostic interrupt received (FRU Control).');
        else if (c.power === 'running') c.restart(e.option === 'graceful-reboot' ? 'Graceful reboot: stopping services. Restarting system.' : `${e.option === 'warm-reset' ? 'Warm' : 'Cold'} reset: restarting system.`);
      }),
      shelf.on('fault', (e) => {
        const c = this.consoles.get(e.fru);
        if (c && e.fault === 'payload' && e.active) c.halt('*** payload fault: Kernel panic - not syncing ***');
      }),
      shelf.on('role', (e) => {
        const c = this.consoles.get(e.node);
        if (!c) return;
        // a node with several roles (a processor board holds two shares) is resetting while any of them is
        let keys = this.resetting.get(e.node);
        if (!keys) this.resetting.set(e.node, (keys = new Set()));
        const was = keys.size > 0;
        if (e.role === 'resetting') keys.add(e.key);
        else keys.delete(e.key);
        const up = PAYLOAD_UP.has(shelf.state(e.node));
        if (keys.size > 0) {
          if (!was) c.restart('Reset: restarting system.', { hold: true });
        } else if (was) {
          if (up) c.boot();
          else c.halt();
        } else if (e.role === 'booting' && c.isHung && up) {
          c.boot(); // its software restarted without a reported reset
        }
      }),
    );
  }

  /** FRU names with a console, in shelf order. */
  names(): string[] {
    return [...this.consoles.keys()];
  }

  /** The console of FRU `name` (exact name), if it has one. */
  get(name: string): BoardConsole | undefined {
    return this.consoles.get(name);
  }

  /**
   * The console of a FRU reference (`slot3`, `3`, `shmc-a`).
   * @throws CommandError('unknown_fru' | 'empty_slot') from the shelf, CommandError('no_console') for a FRU without one
   */
  require(ref: string): BoardConsole {
    const name = this.opts.shelf.resolve(ref);
    const c = this.consoles.get(name);
    if (!c) throw new CommandError('no_console', `${name} has no console`);
    return c;
  }

  /** Line settings (baud, framing) of a console from the shelf YAML. @throws CommandError('no_console') */
  lineSettings(name: string): ConsoleConfig {
    const l = this.lines.get(name);
    if (!l) throw new CommandError('no_console', `${name} has no console`);
    return l;
  }

  /** HA `hang` / `heal` of a node: its console stops answering / answers again. Unknown nodes are ignored. */
  setHung(node: string, hung: boolean): void {
    let name: string;
    try {
      name = this.opts.shelf.resolve(node);
    } catch {
      return;
    }
    const c = this.consoles.get(name);
    if (!c) return;
    c.setHung(hung);
    this.log.info({ category: 'console', console: name, hung }, hung ? 'console stops answering (board hung)' : 'console answers again');
  }

  /** Stops following the shelf and closes every console. */
  close(): void {
    for (const off of this.offs.splice(0)) off();
    for (const c of this.consoles.values()) c.close();
  }
}
