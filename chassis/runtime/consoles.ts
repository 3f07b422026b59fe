/**
 * The consoles part of the emulator (docs/consoles.md): the board consoles (chassis/consoles
 * ConsoleMux: firmware shell per ShMC, hub and processor board, following the shelf's hot-swap, reset,
 * fault and HA events), Serial over LAN in the IPMI LAN server (chassis/ipmi/sol), and — when the
 * caller gives an `expose` edge (`atcasim start`: chassis/io/serial-console.ts, socat PTYs opened
 * through serialport, stable links) — a pseudo-terminal per console whose user-side path goes to
 * `Endpoints.consoles` (the ready line, `clia console`, the TUI's detail pane).
 *
 * No I/O here: the PTYs come in through `expose`. A failing `expose` (socat missing, no PTYs) is
 * logged and the emulator runs on with its consoles reachable over SOL only.
 */
import type { Logger } from '../../board/common/logger.ts';
import type { ConsoleConfig } from '../config/types.ts';
import type { BoardConsole } from '../consoles/board-console.ts';
import { ConsoleMux } from '../consoles/console-mux.ts';
import type { HaLiveView } from '../consoles/shelf-port.ts';
import type { DataPlane } from '../dataplane/data-plane.ts';
import type { LanServer } from '../ipmi/lan-server.ts';
import { attachShelfSol, type ShelfSol } from '../ipmi/sol/shelf-sol.ts';
import type { Shelf } from '../model/shelf.ts';
import type { Platform } from '../platform.ts';

/** What an expose edge returns: the user-side path and stable link of each console it exposed. */
export interface ExposedConsoleEndpoints {
  /** FRU name → user-side path (/dev/pts/N). */
  paths: Record<string, string>;
  /** FRU name → stable link ($XDG_RUNTIME_DIR/atcasim/slot3 …), where one was made. */
  links: Record<string, string>;
  /** Closes the ports, ends socat, removes the links. */
  stop(): Promise<void>;
}

/** Puts the consoles on real serial devices. @throws Error when that fails (logged by the caller) */
export type ConsoleExpose = (consoles: ReadonlyArray<{ side: BoardConsole; line: ConsoleConfig }>) => Promise<ExposedConsoleEndpoints>;

/** Options of the consoles part. */
export interface ConsoleOptions {
  /** The serial edge; omitted = consoles exist (and SOL works) but no PTYs (simulated runs, tests). */
  expose?: ConsoleExpose;
  /** Time a console restart takes before the banner, ms [the shelf's hot-swap step]. */
  rebootMs?: number;
}

/** What the part is built from. */
export interface ConsolesContext {
  shelf: Shelf;
  dataPlane: DataPlane;
  platform: Platform;
  /** Live HA figures for `show ha`. */
  haStatus: () => readonly HaLiveView[];
  /** The IPMI LAN server, for SOL (absent: no SOL). */
  lanServer?: LanServer;
  options: ConsoleOptions;
}

/** A running consoles part. */
export class ConsolesPart {
  /** FRU name → user-side PTY path (empty without an expose edge). */
  readonly paths: Record<string, string> = {};
  /** FRU name → stable link. */
  readonly links: Record<string, string> = {};
  private exposed: ExposedConsoleEndpoints | undefined;
  private stopping: Promise<void> | undefined;

  private constructor(
    /** The consoles. */
    readonly mux: ConsoleMux,
    /** Serial over LAN, when the IPMI server exists. */
    readonly sol: ShelfSol | undefined,
    private readonly log: Logger,
  ) {}

  /** Builds the consoles, attaches SOL, exposes the PTYs. Never throws for a failing `expose` (logged). */
  static async start(ctx: ConsolesContext): Promise<ConsolesPart> {
    const log = ctx.platform.log.child({ module: 'chassis.runtime.consoles' });
    const mux = new ConsoleMux({
      shelf: ctx.shelf,
      dataPlane: ctx.dataPlane,
      haStatus: ctx.haStatus,
      clock: ctx.platform.clock,
      log: ctx.platform.log,
      ...(ctx.options.rebootMs !== undefined ? { rebootMs: ctx.options.rebootMs } : {}),
    });
    const sol = ctx.lanServer ? attachShelfSol({ server: ctx.lanServer, shelf: ctx.shelf, consoles: mux, clock: ctx.platform.clock, log: ctx.platform.log }) : undefined;
    const part = new ConsolesPart(mux, sol, log);
    if (ctx.options.expose) {
      try {
        const ex = await ctx.options.expose(mux.names().map((n) => ({ side: mux.get(n)!, line: mux.lineSettings(n) })));
        part.exposed = ex;
        Object.assign(part.paths, ex.paths);
        Object.assign(part.links, ex.links);
      } catch (e) {
        log.error({ category: 'console', err: e instanceof Error ? e.message : String(e) }, 'consoles not exposed on PTYs (is socat installed?); they stay reachable over SOL');
      }
    }
    return part;
  }

  /** HA hang/heal of a node: its console stops answering / answers again. */
  setHung(node: string, hung: boolean): void {
    this.mux.setHung(node, hung);
  }

  /** Removes the PTYs and links, ends SOL, closes the consoles (idempotent; never throws). */
  stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = (async () => {
        try {
          await this.exposed?.stop();
        } catch (e) {
          this.log.error({ category: 'shutdown', part: 'console ptys', err: String(e) }, 'closing the console PTYs failed');
        }
        this.sol?.close();
        this.mux.close();
      })();
    }
    return this.stopping;
  }
}
