/**
 * The emulator composition shared by `atcasim start` (wall clock, SQLite, UDP, TUI or headless)
 * and by anything that runs the same shelf in simulated time (scenarios, split processes, tests):
 *
 *   Store ─→ config selection ─→ IPMI administrator ─→ DataPlane ─→ Shelf (DataPlanePort = the
 *   DataPlane) ─→ HA part (optional seam) ─→ TrafficSource (loops a capture, paced on the Clock)
 *   ─→ LanServer (optional; its UDP edge is injected) ─→ TrafficMonitor + EventFeed (what the
 *   front ends read) ─→ operator command API (what the TUI's keys call).
 *
 * Everything here runs on the Platform's Clock: with a SystemClock the timers are real (the only
 * real timers of a `start` run), with a SimClock the same emulator runs in simulated time — no
 * sockets, no TUI (`ipmi.listen` and the front end are optional parts). The store is opened by the
 * caller (SqliteStore for `start`, MemoryStore or ':memory:' for tests) and closed by `stop()`
 * when `ownsStore` is set. No I/O happens in this file.
 *
 * Ticks: the data plane's aging/health/rate window at the deadline it returns (10 ms … 1 s); the
 * traffic source pumped at the next packet's due time (at most `pumpBudget` packets per call, so
 * a slow machine catches up in slices and the event loop stays responsive); the traffic monitor
 * once a second; the LAN server by its UDP edge.
 */
import type { ProbePort } from '../../board/processor/health/probe-port.ts';
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { ShelfConfig } from '../config/types.ts';
import { DataPlane } from '../dataplane/data-plane.ts';
import type { DataPlaneStats, RsTable, SessionHandover } from '../dataplane/types.ts';
import { TrafficSource, type Pacing, type TrafficInput } from '../dataplane/traffic.ts';
import type { LanServer } from '../ipmi/lan-server.ts';
import { Shelf } from '../model/shelf.ts';
import { resolveShelfConfig, type ConfigInput, type ResolvedShelf } from '../persistence/config-selection.ts';
import type { Store } from '../persistence/store.ts';
import { PersistentUserStore } from '../persistence/user-store.ts';
import type { Platform } from '../platform.ts';
import { operatorCommands, type OperatorCommands } from './commands.ts';
import { ConsolesPart, type ConsoleOptions } from './consoles.ts';
import { EventFeed } from './event-feed.ts';
import type { HaFactory, HaPart } from './ha-seam.ts';
import type { AlertPort } from '../ipmi/pef/pef-engine.ts';
import { callController, ipmiSettings, provisionAdmin, shelfIpmiFactory, type AdminOptions, type AdminProvision, type IpmiAnswer, type IpmiCall, type IpmiFace, type IpmiFactory, type IpmiRuntimeOptions } from './ipmi.ts';
import { TrafficMonitor } from './traffic-monitor.ts';
import type { EmulatorView, Endpoints, TrafficSourceView } from './view.ts';

/** A bound listener of the IPMI LAN server (the UDP edge, chassis/io/udp-ipmi.ts, in `start`). */
export interface IpmiListener {
  /** Bound address. */
  address: string;
  port: number;
  /** Closes the socket. */
  stop(): Promise<void>;
}

/** Starts serving a LanServer (binds a socket). @throws what binding throws (address in use …) */
export type IpmiListen = (server: LanServer, settings: { bind: string; port: number }) => Promise<IpmiListener>;

/** The traffic the emulator loops. */
export interface TrafficOptions {
  /** Capture inputs (chassis/dataplane/traffic.ts: `memoryInput` for the bundled capture, a file
   * input over chassis/io/capture-file.ts for `--replay`). */
  inputs: readonly TrafficInput[];
  /** Name shown in the TUI title and the ready line ('bundled' or the path). */
  label: string;
  /** Capture pace (default) or a fixed rate in packets/s. */
  pacing: Extract<Pacing, { mode: 'capture' } | { mode: 'rate' }>;
  /** Packets per pump at most [2048]. */
  pumpBudget?: number;
}

/** How to build an emulator. Defaults in brackets. */
export interface EmulatorOptions {
  /** Clock, logger, randomness (`cryptoRandom` for RMCP+ and the generated administrator
   * password). SystemClock for `start`, SimClock for simulated runs. */
  platform: Platform;
  /** The opened database. */
  store: Store;
  /** Close the store in stop() [false]. */
  ownsStore?: boolean;
  /** `--config`: a shelf YAML that replaces the stored one. */
  configInput?: ConfigInput;
  /** The shipped default shelf (used by a new database without `--config`). */
  defaultShelf: ConfigInput;
  /** Unix ms at `platform.clock.now()`: base of the SEL clock, `stored_at` of the config. */
  wallTimeMs: number;
  /** Session-table capacity per processor board [the config's sessions.capacity, 1,500,000]. */
  sessionCapacity?: number;
  /** Hot-swap step time override, ms [the config's hot_swap.step, 1 s]. */
  hotSwapStepMs?: number;
  /** Traffic to loop; omitted or false = none (the shelf idles). */
  traffic?: TrafficOptions | false;
  /** First-start administrator inputs. */
  admin?: AdminOptions;
  /** IPMI: omitted or false = no LanServer at all. */
  ipmi?:
    | false
    | {
        /** Flags over the YAML's `ipmi` section. */
        options?: IpmiRuntimeOptions;
        /** Builds the IPMI face [shelfIpmiFactory: chassis/ipmi/shelf-manager createShelfIpmi]. */
        factory?: IpmiFactory;
        /** Serves it (UDP). Omitted = the server exists but listens nowhere (simulated runs). */
        listen?: IpmiListen;
        /** Sends PEF alerts (PETs); omitted = alerts are logged only. */
        alerts?: AlertPort;
      };
  /** The HA part (chassis/ha, docs/ha.md), built once the shelf and data plane exist. */
  ha?: HaFactory;
  /** Serial consoles and SOL (docs/consoles.md, chassis/runtime/consoles.ts); false = none. `expose` puts them on PTYs. */
  consoles?: false | ConsoleOptions;
  /** Traffic monitor period, ms [1000]. */
  statsSampleMs?: number;
  /** Data-plane packets/s window, ms [2000]. */
  rateWindowMs?: number;
  /** Live mode: the real health probes of each processor board (its back link). */
  probe?: (slot: number) => ProbePort;
}

/**
 * A running emulator. Build with `Emulator.start(options)`; stop with `stop()`.
 * Public parts are the ones other layers plug into (HA uses `dataPlane` and `shelf`; the TUI uses
 * `view()`, `rsTable()` and `commands`).
 */
export class Emulator {
  /** Operator command API (the TUI's keys; the same Shelf commands IPMI and scripts use). */
  readonly commands: OperatorCommands;
  /** Where it listens (the ready line). */
  readonly endpoints: Endpoints = { consoles: {} };
  /** The HA part, when wired. */
  ha: HaPart | undefined;
  /** The IPMI LAN server, when enabled. */
  lanServer: LanServer | undefined;
  /** The board consoles, SOL and their PTYs (docs/consoles.md), unless disabled. */
  consoles: ConsolesPart | undefined;
  private ipmiFace: IpmiFace | undefined;
  /** Administrator provisioning result of this start (`generatedPassword` only on a first start without one given; `ignored` when a given password was not applied). */
  readonly admin: AdminProvision;

  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly feed: EventFeed;
  private readonly monitor: TrafficMonitor;
  private source: TrafficSource | undefined;
  private sourceLabel = '';
  private sourcePacing: TrafficOptions['pacing'] | undefined;
  private readonly reportedTrafficErrors = new Set<string>();
  private listener: IpmiListener | undefined;
  private tickTimer: TimerId | undefined;
  private pumpTimer: TimerId | undefined;
  private stopped = false;
  private stopping: Promise<void> | undefined;
  /** Late-bound session handover of the data plane (set once the HA part exists). */
  private handoverRef: { fn?: SessionHandover } = {};

  private constructor(
    private readonly opts: EmulatorOptions,
    /** The shelf configuration in force and how it was chosen. */
    readonly resolved: ResolvedShelf,
    /** The configuration the shelf runs (resolved + overrides). */
    readonly config: ShelfConfig,
    /** The shelf model and its command API. */
    readonly shelf: Shelf,
    /** The data plane (hubs, processor boards). */
    readonly dataPlane: DataPlane,
    admin: AdminProvision,
  ) {
    this.log = opts.platform.log.child({ module: 'chassis.runtime' });
    this.clock = opts.platform.clock;
    this.admin = admin;
    this.feed = new EventFeed(shelf);
    this.monitor = new TrafficMonitor(dataPlane, this.clock, { sampleMs: opts.statsSampleMs ?? 1000 });
    this.commands = operatorCommands(shelf, () => this.ha, { hung: (node, hung) => this.consoles?.setHung(node, hung) });
  }

  /**
   * Builds and starts an emulator.
   * @throws ConfigError (bad `--config` or stored YAML: `file:line:column: …`), StoreError (the
   *   database cannot be used), CommandError (administrator name/password refused by the policy;
   *   'no_traffic' when no traffic input yields a packet), TypeError/RangeError (inconsistent
   *   options), and what `ipmi.listen` throws (address in use).
   *   On a throw, everything started so far is stopped again (the store stays open unless owned).
   */
  static async start(opts: EmulatorOptions): Promise<Emulator> {
    const { platform, store } = opts;
    const log = platform.log.child({ module: 'chassis.runtime' });
    let resolved: ResolvedShelf;
    try {
      resolved = resolveShelfConfig(store, {
        ...(opts.configInput ? { given: opts.configInput } : {}),
        defaultShelf: opts.defaultShelf,
        nowMs: opts.wallTimeMs,
        log: platform.log,
      });
    } catch (e) {
      if (opts.ownsStore) store.close();
      throw e;
    }
    if (resolved.replaced) log.warn({ category: 'config', source: resolved.source }, `the shelf stored in the database was replaced by ${resolved.source}`);
    let config = resolved.config;
    if (opts.hotSwapStepMs !== undefined) {
      if (!(opts.hotSwapStepMs >= 0 && Number.isFinite(opts.hotSwapStepMs))) {
        if (opts.ownsStore) store.close();
        throw new RangeError(`hot-swap step must be ≥ 0 ms, got ${opts.hotSwapStepMs}`);
      }
      config = { ...config, hotSwap: { ...config.hotSwap, stepMs: opts.hotSwapStepMs } };
    }
    const handover: { fn?: SessionHandover } = {};
    let admin: AdminProvision;
    let dataPlane: DataPlane;
    let shelf: Shelf;
    try {
      admin = provisionAdmin(new PersistentUserStore(store), opts.admin ?? {}, platform.cryptoRandom);
      dataPlane = new DataPlane({
        config,
        platform,
        // HA seam: with an HA part, a leaving board's buckets go to its buddy, which may take its sessions over.
        ...(opts.ha ? { buddyFailover: true, handover: (slot, board) => handover.fn?.(slot, board) ?? 0 } : {}),
        ...(opts.sessionCapacity !== undefined ? { sessionCapacity: opts.sessionCapacity } : {}),
        ...(opts.rateWindowMs !== undefined ? { rateWindowMs: opts.rateWindowMs } : {}),
        ...(opts.probe ? { probe: opts.probe } : {}),
      });
      shelf = Shelf.open({ config, platform, store, dataPlane, selTimeBase: Math.floor(opts.wallTimeMs / 1000) });
    } catch (e) {
      if (opts.ownsStore) store.close();
      throw e;
    }
    const em = new Emulator(opts, resolved, config, shelf, dataPlane, admin);
    em.handoverRef = handover;
    try {
      await em.startParts();
    } catch (e) {
      await em.stop();
      throw e;
    }
    return em;
  }

  private async startParts(): Promise<void> {
    const opts = this.opts;
    if (opts.ha) {
      this.ha = await opts.ha({ shelf: this.shelf, dataPlane: this.dataPlane, platform: opts.platform, config: this.config });
      if (this.ha.handover) this.handoverRef.fn = this.ha.handover;
    }
    this.scheduleTick(0);
    this.monitor.start();
    if (opts.traffic) this.startTraffic(opts.traffic);
    if (opts.ipmi) {
      const settings = ipmiSettings(this.config, opts.ipmi.options ?? {});
      const factory = opts.ipmi.factory ?? shelfIpmiFactory;
      this.ipmiFace = factory({
        shelf: this.shelf,
        config: this.config,
        users: new PersistentUserStore(opts.store),
        platform: opts.platform,
        settings,
        consolePath: (fru) => this.endpoints.consoles[fru],
        consoleLink: (fru) => this.endpoints.consoleLinks?.[fru],
        ...(this.ha?.ipmiHooks ? { ha: this.ha.ipmiHooks } : {}),
        ...(opts.ipmi.alerts ? { alerts: opts.ipmi.alerts } : {}),
        log: opts.platform.log,
      });
      this.lanServer = this.ipmiFace.server;
      if (opts.ipmi.listen) {
        this.listener = await opts.ipmi.listen(this.lanServer, { bind: settings.bind, port: settings.port });
        this.endpoints.ipmi = hostPort(this.listener.address, this.listener.port);
      }
    }
    if (opts.consoles !== false) {
      this.consoles = await ConsolesPart.start({
        shelf: this.shelf,
        dataPlane: this.dataPlane,
        platform: opts.platform,
        haStatus: () => this.ha?.status() ?? [],
        ...(this.lanServer ? { lanServer: this.lanServer } : {}),
        options: opts.consoles ?? {},
      });
      Object.assign(this.endpoints.consoles, this.consoles.paths);
      if (Object.keys(this.consoles.links).length) this.endpoints.consoleLinks = { ...this.consoles.links };
    }
  }

  // ------------------------------------------------------------------ timers

  private scheduleTick(delay: number): void {
    if (this.stopped) return;
    this.tickTimer = this.clock.setTimeout(() => {
      const now = this.clock.now();
      let next = now + 1000;
      try {
        next = this.dataPlane.tick(now);
      } catch (e) {
        this.log.error({ category: 'internal', err: String(e) }, 'data-plane tick failed');
      }
      this.scheduleTick(Math.max(10, Math.min(1000, next - now)));
    }, delay);
  }

  private startTraffic(t: TrafficOptions): void {
    this.sourceLabel = t.label;
    this.sourcePacing = t.pacing;
    // The source loops for ever: an input that yields no packet at all (not a capture, empty)
    // would make it spin without delivering anything, so such inputs are left out here.
    const inputs = t.inputs.filter((input) => {
      const problem = probeInput(input);
      if (problem !== undefined) this.log.error({ category: 'traffic', input: input.name, err: problem }, `capture input ${input.name} left out: ${problem}`);
      return problem === undefined;
    });
    if (inputs.length === 0) throw new CommandError('no_traffic', `traffic: no capture input yields a packet (${t.inputs.map((i) => i.name).join(', ')})`);
    const source = new TrafficSource({
      inputs,
      sink: this.dataPlane,
      loops: Infinity,
      pacing: t.pacing,
      startMs: this.clock.now(),
    });
    this.source = source;
    const budget = t.pumpBudget ?? 2048;
    const pump = () => {
      this.pumpTimer = undefined;
      if (this.stopped) return;
      const now = this.clock.now();
      let next: number;
      try {
        next = source.pump(now, budget);
      } catch (e) {
        this.log.error({ category: 'traffic', err: String(e) }, 'traffic source failed; traffic stopped');
        return;
      }
      this.reportTrafficErrors(source);
      if (!Number.isFinite(next)) {
        this.log.warn({ category: 'traffic', errors: source.errors }, 'traffic source has nothing left to deliver; traffic stopped');
        return;
      }
      // Budget ran out (next == now): go on at once, letting other events in between.
      this.pumpTimer = this.clock.setTimeout(pump, Math.max(0, Math.min(50, next - now)));
    };
    this.pumpTimer = this.clock.setTimeout(pump, 0);
  }

  private reportTrafficErrors(source: TrafficSource): void {
    for (const e of source.errors) {
      const key = `${e.input}\0${e.message}`;
      if (this.reportedTrafficErrors.has(key)) continue;
      this.reportedTrafficErrors.add(key);
      this.log.warn({ category: 'traffic', input: e.input, packetsBefore: e.packetsBefore, err: e.message }, `capture input ${e.input}: ${e.message}`);
    }
  }

  // ------------------------------------------------------------------ what front ends read

  /** The traffic source's figures (absent without traffic). */
  sourceView(): TrafficSourceView | undefined {
    if (!this.source || !this.sourcePacing) return undefined;
    const c = this.source.counters();
    return {
      file: this.sourceLabel,
      rate: this.sourcePacing.mode === 'rate' ? this.sourcePacing.pps : 'capture',
      loops: c.loopsDone,
      packets: c.packets,
    };
  }

  /** Latest data-plane sample (refreshed by the monitor once per sample period). */
  get traffic(): DataPlaneStats {
    return this.monitor.latest;
  }

  /** Takes a data-plane sample now (tests and shutdown reports). */
  sampleTraffic(): DataPlaneStats {
    return this.monitor.sample();
  }

  /** The bundle the TUI and the stats line render. */
  view(): EmulatorView {
    const src = this.sourceView();
    const lost = this.ha?.lostByAge?.();
    return {
      snapshot: this.shelf.snapshot(),
      traffic: this.monitor.latest,
      history: this.monitor.history(),
      totalHistory: this.monitor.totalHistory(),
      events: this.feed.entries(),
      ha: this.ha?.status() ?? [],
      haAvailable: this.ha !== undefined,
      ...(lost ? { lostByAge: lost } : {}),
      endpoints: this.endpoints,
      ...(src ? { source: src } : {}),
      sessionCapacity: this.dataPlane.sessionCapacity,
    };
  }

  /** The RS table of the processor board in `slot`, or undefined for other slots. */
  rsTable(slot: number): RsTable | undefined {
    return this.dataPlane.boardSlots.includes(slot) ? this.dataPlane.rsTable(slot) : undefined;
  }

  /** Calls `fn` after every shelf event (front ends re-render promptly). @returns unsubscribe */
  subscribe(fn: () => void): () => void {
    return this.shelf.onAny(() => fn());
  }

  /** The event feed (SEL entries with their sources). */
  get events(): EventFeed {
    return this.feed;
  }

  /**
   * Runs one IPMI request at the controller answering IPMB `req.address` (20h = the active ShMC),
   * with administrator privilege on the LAN channel and no session, at the clock's time (a
   * scenario's `ipmi` action; chassis/runtime/ipmi.ts `callController`).
   * @returns completion code and data; D3h when no controller answers at that address
   * @throws CommandError('no_ipmi') when the emulator runs without IPMI
   */
  ipmi(req: IpmiCall): IpmiAnswer {
    return callController(this.lanServer, req, this.clock.now());
  }

  /** Packets the hub or processor board `node` (`slotN`) has handled so far; 0 for any other node. */
  nodePackets(node: string): number {
    const m = /^slot([0-9]{1,3})$/.exec(node);
    const slot = m ? Number(m[1]) : -1;
    if (this.dataPlane.hubSlots.includes(slot)) return this.dataPlane.hub(slot).counters().packets;
    if (this.dataPlane.boardSlots.includes(slot)) return this.dataPlane.board(slot).packets;
    return 0;
  }

  // ------------------------------------------------------------------ shutdown

  /**
   * Stops everything in reverse order: traffic, IPMI socket, HA, timers, shelf (persists the POH
   * counter), then closes the store when it owns it. Idempotent; never throws (problems are logged).
   */
  stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopping = this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    this.stopped = true;
    const step = async (what: string, fn: () => void | Promise<void>) => {
      try {
        await fn();
      } catch (e) {
        this.log.error({ category: 'shutdown', part: what, err: String(e) }, `stopping ${what} failed`);
      }
    };
    if (this.pumpTimer !== undefined) this.clock.clearTimeout(this.pumpTimer);
    if (this.tickTimer !== undefined) this.clock.clearTimeout(this.tickTimer);
    await step('traffic', () => this.source?.close());
    await step('consoles', () => this.consoles?.stop());
    await step('ipmi', () => this.listener?.stop());
    await step('ipmi face', () => this.ipmiFace?.close());
    await step('ha', () => this.ha?.stop());
    await step('monitor', () => this.monitor.stop());
    await step('feed', () => this.feed.close());
    await step('shelf', () => this.shelf.close());
    if (this.opts.ownsStore) await step('store', () => this.opts.store.close());
  }
}

/**
 * Opens an input and reads up to its first packet.
 * @returns the problem when it yields none (not a capture, cut short before a packet, empty), else undefined
 */
export function probeInput(input: TrafficInput): string | undefined {
  let packets = 0;
  let feed: ReturnType<TrafficInput['open']> | undefined;
  try {
    feed = input.open({
      packet: () => {
        packets++;
        return false;
      },
    });
    feed.pump();
  } catch (e) {
    if (packets === 0) return e instanceof Error ? e.message : String(e);
  } finally {
    try {
      feed?.close();
    } catch {
      // closing a probe cannot fail in a way that matters
    }
  }
  return packets === 0 ? 'the capture holds no packet' : undefined;
}

/** `host:port`, with brackets for IPv6. */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
