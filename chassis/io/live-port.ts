/**
 * A live data port: Ethernet frames to and from the host kernel, for the hubs' front side and the
 * processor boards' back side in live mode. Only moves frames; what they mean is the core's.
 *
 * Mechanism (chosen by measurement, docs/live.md): a TAP device (Linux tuntap, IFF_TAP |
 * IFF_NO_PI) read and written by the repository's small native addon (chassis/io/native/
 * live_port.c, built by `npm ci` through binding.gyp), which wakes on the descriptor through libuv
 * and moves a whole batch of frames per call into JavaScript — one callback per batch received,
 * one native call per batch sent. `kind: 'packet'` opens an AF_PACKET socket on an interface
 * instead (e.g. the appliance's end of a veth pair), with recvmmsg/sendmmsg batches.
 * The TAP's network side can sit in any network namespace (`netns`, as `ip netns` names it): the
 * addon enters it for the open only. A TAP made by `atcasim net up` is persistent: it stays, with
 * NO-CARRIER, while no emulator holds it, and comes up when one opens it.
 *
 * Batching: frames given to `send` are copied into the port's transmit buffer and go to the
 * kernel together — after the receive batch being handled (every port's pending frames are
 * flushed when a batch callback returns), when the buffer fills, or at the end of the current
 * microtask queue for sends made outside a receive batch (timers, probes).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the native addon exports (chassis/io/native/live_port.c). */
interface NativeLivePort {
  open(kind: 'tap' | 'packet', ifname: string, netns: string, rx: Uint8Array, rxLen: Uint32Array, slot: number, batch: number, onFrames: (n: number) => void): unknown;
  send(handle: unknown, tx: Uint8Array, txLen: Uint32Array, count: number): number;
  close(handle: unknown): void;
  ref(handle: unknown, keep: boolean): void;
}

/** Options of `openLivePort`. */
export interface LivePortOptions {
  /** Interface name (1–15 characters, Linux IFNAMSIZ − 1). */
  ifname: string;
  /** Network namespace (`ip netns` name) the interface lives in; default: the emulator's own. */
  netns?: string;
  /** 'tap' (default) or 'packet' (AF_PACKET on an existing interface). */
  kind?: 'tap' | 'packet';
  /** Largest frame in bytes, Ethernet header included (default 9216 + 18: jumbo frames fit). */
  maxFrame?: number;
  /** Frames per receive batch and per transmit buffer (default 64). */
  batch?: number;
  /** Refuse to open an interface that does not exist yet (default true): opening a TAP by a name
   * nobody made would silently create a new, uncabled one. */
  mustExist?: boolean;
}

/** Counters of a port (frames and bytes as the kernel saw them). */
export interface LivePortStats {
  rxFrames: number;
  rxBytes: number;
  /** Receive callbacks (batches); rxFrames / rxBatches is the batch size achieved. */
  rxBatches: number;
  /** Frames longer than maxFrame, cut by the kernel and dropped here. */
  rxOversize: number;
  txFrames: number;
  txBytes: number;
  txBatches: number;
  /** Frames the kernel did not take (its queue was full, or the link is gone). */
  txDropped: number;
  /** Frames refused by `send` for being empty or longer than maxFrame. */
  txOversize: number;
}

/** A handler of received frames: `frame` is a view into the port's receive buffer, valid only
 * during the call (copy what you keep). */
export type FrameHandler = (frame: Uint8Array) => void;

/** One open live port. */
export interface LivePort {
  readonly ifname: string;
  readonly netns: string;
  readonly kind: 'tap' | 'packet';
  readonly stats: Readonly<LivePortStats>;
  /** Queues one frame (`frame[0..length)`, copied) for sending. A closed port ignores it. */
  send(frame: Uint8Array, length?: number): void;
  /** Sends the queued frames now. */
  flush(): void;
  /** Sets the handler of received frames (one at a time; null stops delivery). */
  onFrame(handler: FrameHandler | null): void;
  /** Whether the port alone keeps the process running (default true). */
  ref(keep: boolean): void;
  /** Flushes, stops receiving and closes the descriptor (a non-persistent TAP disappears). */
  close(): void;
}

/** Thrown when the port cannot be opened; `code` is the errno name (EPERM, ENODEV, EBUSY, …). */
export class LivePortError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'LivePortError';
  }
}

const here = dirname(fileURLToPath(import.meta.url));
let native: NativeLivePort | null = null;

/** Where the addon is looked for (node-gyp's Release output at the package root). */
export function nativeAddonPath(): string {
  return join(here, '..', '..', 'build', 'Release', 'live_port.node');
}

/**
 * The native addon, loaded once.
 * @throws LivePortError('ENOADDON') when it was not built (not Linux, or `npm ci` skipped it)
 */
export function loadNative(): NativeLivePort {
  if (native !== null) return native;
  const p = nativeAddonPath();
  if (!existsSync(p)) {
    throw new LivePortError('ENOADDON', `live ports need the native addon ${p}: it is built by \`npm ci\` on Linux (python3, make and g++ needed); rebuild it with \`npm rebuild\``);
  }
  native = createRequire(import.meta.url)(p) as NativeLivePort;
  return native;
}

/** True when `name` is a usable Linux interface name. */
export function validIfname(name: string): boolean {
  return /^[A-Za-z0-9_.@-]{1,15}$/.test(name) && name !== '.' && name !== '..';
}

const dirty = new Set<PortImpl>();
let flushQueued = false;

function flushAll(): void {
  flushQueued = false;
  for (const p of dirty) p.flush();
  dirty.clear();
}

class PortImpl implements LivePort {
  readonly stats: LivePortStats = { rxFrames: 0, rxBytes: 0, rxBatches: 0, rxOversize: 0, txFrames: 0, txBytes: 0, txBatches: 0, txDropped: 0, txOversize: 0 };
  private readonly rx: Uint8Array;
  private readonly rxLen: Uint32Array;
  private readonly tx: Uint8Array;
  private readonly txLen: Uint32Array;
  private txCount = 0;
  private txOff = 0;
  private handler: FrameHandler | null = null;
  private handle: unknown = null;

  constructor(private readonly lp: NativeLivePort, readonly ifname: string, readonly netns: string, readonly kind: 'tap' | 'packet', private readonly slot: number, private readonly batch: number) {
    this.rx = new Uint8Array(slot * batch);
    this.rxLen = new Uint32Array(batch);
    this.tx = new Uint8Array(slot * batch);
    this.txLen = new Uint32Array(batch);
    try {
      this.handle = lp.open(kind, ifname, netns, this.rx, this.rxLen, slot, batch, (n) => this.received(n));
    } catch (err) {
      const e = err as Error & { code?: string };
      const where = netns === '' ? ifname : `${ifname} in network namespace ${netns}`;
      const why = e.code === 'EPERM' || e.code === 'EACCES' ? 'permission denied (live ports need root or CAP_NET_ADMIN)'
        : e.code === 'EBUSY' ? 'the interface is busy (another process holds it)'
        : e.code === 'ENOENT' && netns !== '' ? `no network namespace ${netns}`
        : e.code === 'ENODEV' ? 'no such interface' : e.message;
      throw new LivePortError(e.code ?? 'EIO', `cannot open ${kind} port ${where}: ${why}`);
    }
  }

  private received(n: number): void {
    const s = this.stats;
    s.rxBatches++;
    const h = this.handler;
    for (let i = 0; i < n; i++) {
      const len = this.rxLen[i]!;
      if (len > this.slot) {
        s.rxOversize++;
        continue;
      }
      s.rxFrames++;
      s.rxBytes += len;
      if (h !== null) h(this.rx.subarray(i * this.slot, i * this.slot + len));
    }
    flushAll();
  }

  send(frame: Uint8Array, length = frame.length): void {
    if (this.handle === null) return;
    if (length <= 0 || length > this.slot) {
      this.stats.txOversize++;
      return;
    }
    if (this.txCount === this.batch) this.flush();
    this.tx.set(frame.subarray(0, length), this.txOff);
    this.txLen[this.txCount++] = length;
    this.txOff += length;
    if (!dirty.has(this)) {
      dirty.add(this);
      if (!flushQueued) {
        flushQueued = true;
        queueMicrotask(flushAll);
      }
    }
  }

  flush(): void {
    const n = this.txCount;
    if (n === 0 || this.handle === null) return;
    const sent = this.lp.send(this.handle, this.tx, this.txLen, n);
    const s = this.stats;
    s.txBatches++;
    s.txFrames += sent;
    s.txDropped += n - sent;
    s.txBytes += this.txOff;
    this.txCount = 0;
    this.txOff = 0;
  }

  onFrame(handler: FrameHandler | null): void {
    this.handler = handler;
  }

  ref(keep: boolean): void {
    if (this.handle !== null) this.lp.ref(this.handle, keep);
  }

  close(): void {
    if (this.handle === null) return;
    this.flush();
    dirty.delete(this);
    this.lp.close(this.handle);
    this.handle = null;
    this.handler = null;
  }
}

/**
 * Opens a live port.
 * @throws LivePortError naming the interface: a bad name (EINVAL), no addon (ENOADDON), not
 *   root (EPERM), no such namespace (ENOENT) or interface (ENODEV), busy (EBUSY: another
 *   process holds the TAP)
 */
export function openLivePort(opts: LivePortOptions): LivePort {
  if (!validIfname(opts.ifname)) throw new LivePortError('EINVAL', `bad interface name '${opts.ifname}' (1–15 letters, digits, '-', '_', '.', '@')`);
  const netns = opts.netns ?? '';
  if (netns !== '' && !/^[A-Za-z0-9_.-]{1,200}$/.test(netns)) throw new LivePortError('EINVAL', `bad network namespace name '${netns}'`);
  const maxFrame = opts.maxFrame ?? 9216 + 18;
  const batch = opts.batch ?? 64;
  if (!(Number.isInteger(maxFrame) && maxFrame >= 64 && maxFrame <= 65535 + 18)) throw new LivePortError('EINVAL', `maxFrame must be 64..65553 bytes, got ${maxFrame}`);
  if (!(Number.isInteger(batch) && batch >= 1 && batch <= 1024)) throw new LivePortError('EINVAL', `batch must be 1..1024, got ${batch}`);
  const lp = loadNative();
  if (opts.mustExist !== false) {
    const r = spawnSync('ip', [...(netns === '' ? [] : ['-n', netns]), 'link', 'show', 'dev', opts.ifname], { encoding: 'utf8' });
    if (r.status !== 0) {
      const where = netns === '' ? opts.ifname : `${opts.ifname} in network namespace ${netns}`;
      const why = /netns|namespace/i.test(r.stderr ?? '') ? `no network namespace ${netns}` : 'no such interface';
      throw new LivePortError('ENODEV', `cannot open ${opts.kind ?? 'tap'} port ${where}: ${why} (is the lab up? atcasim net up)`);
    }
  }
  return new PortImpl(lp, opts.ifname, netns, opts.kind ?? 'tap', maxFrame, batch);
}
