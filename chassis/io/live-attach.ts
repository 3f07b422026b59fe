/**
 * The live attachment of a running shelf (docs/live.md): opens the TAP of every hub's front port
 * and every processor board's back port (chassis/io/live-port.ts) — named as `atcasim net up`
 * makes them, `PREFIX-sSLOT` in namespace `PREFIX-router`, unless the port's `ifname`/`netns`
 * keys say otherwise — and connects them to the pure LiveDataPath (chassis/dataplane/live).
 *
 * A board that leaves service (M4 exit: deactivated, pulled, failed) closes its TAP, so the link
 * loses carrier as a real board's would; it is opened again when the board is back in service.
 *
 * All or nothing: when one port cannot be opened (no such interface or namespace, busy, not
 * root) the ports opened so far are closed again and the LivePortError (one line naming the
 * interface) is thrown; nothing of the running shelf is touched.
 */
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { ShelfConfig } from '../config/types.ts';
import type { DataPlane } from '../dataplane/data-plane.ts';
import { LiveDataPath, type LiveEvent } from '../dataplane/live/live-path.ts';
import type { FramePort } from '../dataplane/live/link-endpoint.ts';
import { LivePortError, openLivePort, type LivePort } from './live-port.ts';

/** Options of `attachLive`. */
export interface LiveAttachOptions {
  config: ShelfConfig;
  dataPlane: DataPlane;
  clock: Clock;
  log: Logger;
  /** Lab prefix (`atcasim net up --prefix`), default 'atcasim'. */
  prefix?: string;
  onEvent?: (ev: LiveEvent) => void;
}

/** One opened port as the ready line lists it. */
export interface LivePortInfo {
  slot: string;
  side: 'front' | 'back';
  netns: string;
  ifname: string;
}

/** The attached live path. */
export interface LiveAttachment {
  readonly path: LiveDataPath;
  readonly ports: readonly LivePortInfo[];
  /** Per port: frames and bytes the kernel saw. */
  portStats(): Record<string, { rx: number; tx: number; txDropped: number }>;
  /** Stops the path and closes every TAP (their carrier goes down). */
  close(): void;
}

/** The opened TAPs of a shelf, not yet connected to a path (`openLivePorts`). */
export interface OpenedLivePorts {
  readonly ports: ReadonlyArray<{ w: { slot: number; side: 'front' | 'back'; ifname: string; netns: string }; lp: LivePort }>;
  close(): void;
}

/**
 * Opens the TAP of every live port of `config` (all or nothing), before anything else is made:
 * frames that arrive before `attachLive` connects them are dropped.
 * @throws LivePortError for the first port that cannot be opened (nothing is left open);
 *   TypeError when the shelf has no live port at all
 */
export function openLivePorts(config: ShelfConfig, prefix = 'atcasim'): OpenedLivePorts {
  const wanted: Array<{ slot: number; side: 'front' | 'back'; ifname: string; netns: string }> = [];
  for (const f of config.frus) {
    const p = f.kind === 'hub' ? f.frontPort : f.kind === 'processor' ? f.backPort : undefined;
    if (p === undefined) continue;
    wanted.push({ slot: f.slot!, side: f.kind === 'hub' ? 'front' : 'back', ifname: p.ifname ?? `${prefix}-s${f.slot}`, netns: p.netns ?? `${prefix}-router` });
  }
  if (wanted.length === 0) throw new TypeError(`shelf "${config.name}" has no live port (front_port on a hub, back_port on a processor board): give --config a live shelf`);
  const opened: Array<{ w: (typeof wanted)[number]; lp: LivePort }> = [];
  try {
    for (const w of wanted) opened.push({ w, lp: openLivePort({ ifname: w.ifname, netns: w.netns }) });
  } catch (e) {
    for (const o of opened) o.lp.close();
    throw e;
  }
  return { ports: opened, close: () => opened.forEach((o) => o.lp.close()) };
}

/**
 * Connects the live ports of `config` (opened here, or `opts.opened`) to a new live path and
 * starts it.
 * @throws LivePortError / TypeError as `openLivePorts`
 */
export function attachLive(opts: LiveAttachOptions & { opened?: OpenedLivePorts }): LiveAttachment {
  const links = (opts.opened ?? openLivePorts(opts.config, opts.prefix)).ports.map(({ w, lp }) => ({ w, lp: lp as LivePort | null }));
  const front = new Map<number, FramePort>();
  const back = new Map<number, FramePort>();
  for (const link of links) (link.w.side === 'front' ? front : back).set(link.w.slot, { send: (f, n) => link.lp?.send(f, n) });
  const path = new LiveDataPath({ config: opts.config, dataPlane: opts.dataPlane, clock: opts.clock, log: opts.log, front, back, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) });
  let failures = 0;
  const listen = (link: (typeof links)[number]) => {
    const { w } = link;
    const rx = w.side === 'front' ? (f: Uint8Array) => path.receiveFront(w.slot, f) : (f: Uint8Array) => path.receiveBack(w.slot, f);
    link.lp?.onFrame((f) => {
      try {
        rx(f);
      } catch (e) {
        // one bad frame must not stop the shelf: logged (the first few), counted
        if (failures++ < 5) opts.log.error({ category: 'live', port: w.ifname, err: String((e as Error).stack ?? e) }, 'live frame handling failed');
      }
    });
  };
  links.forEach(listen);
  // A board out of service drops its link's carrier (the TAP closed: the router's next hop over a
  // hub goes dead, a board's bridge port goes down); back in service, the TAP is opened again.
  const off = opts.dataPlane.on('board.service', (ev) => {
    for (const link of links) {
      if (link.w.slot !== ev.slot) continue;
      if (!ev.inService && link.lp !== null) {
        link.lp.close();
        link.lp = null;
        opts.log.info({ category: 'live', port: link.w.ifname }, `slot${ev.slot} out of service: ${link.w.ifname} closed (no carrier)`);
      } else if (ev.inService && link.lp === null) {
        try {
          link.lp = openLivePort({ ifname: link.w.ifname, netns: link.w.netns });
          listen(link);
          opts.log.info({ category: 'live', port: link.w.ifname }, `slot${ev.slot} in service: ${link.w.ifname} opened again`);
        } catch (e) {
          opts.log.error({ category: 'live', port: link.w.ifname, err: (e as Error).message }, 'live port could not be opened again');
        }
      }
    }
  });
  path.start();
  return {
    path,
    ports: links.map(({ w }) => ({ slot: `slot${w.slot}`, side: w.side, netns: w.netns, ifname: w.ifname })),
    portStats: () => Object.fromEntries(links.map(({ w, lp }) => [w.ifname, { rx: lp?.stats.rxFrames ?? 0, tx: lp?.stats.txFrames ?? 0, txDropped: lp?.stats.txDropped ?? 0 }])),
    close: () => {
      off();
      path.stop();
      for (const l of links) l.lp?.close();
    },
  };
}

export { LivePortError };
