/**
 * Synthetic traffic for scenarios (`traffic: { generator: { flows_per_s, duration_s: {median,
 * max} } }`): a TrafficInput (chassis/dataplane/traffic.ts) that produces TCP conversations as
 * Ethernet/IPv4 frames, time-stamped, lazily and for ever, so the emulator's TrafficSource paces
 * them to the simulated clock like a capture.
 *
 * Each flow: SYN (client → VIP), SYN+ACK (back), ACK — the session is ESTABLISHED — then one data
 * segment every `keepalive` (default 1 s) while it lasts, then FIN+ACK both ways and a last ACK
 * (TIME_WAIT). New flows arrive at `flows_per_s` (evenly spaced, ±50 % jitter); durations are
 * log-normal with the given median (σ = 1.2, the HA count model's distribution), clipped to
 * [100 ms, max]. Time stamps have 1 ms resolution. Every flow has its own 5-tuple: client 10.64.0.0/10 address and port from the
 * flow number, VIP 192.0.2.1–8 port 80. Deterministic for a seed. No I/O; frames are written into
 * one reused buffer (the reader contract of CaptureRecord: valid during the callback only).
 */
import { SeededRandom } from '../../board/common/random.ts';
import type { CaptureHandler } from '../../board/packet/capture-reader.ts';
import { CaptureRecord } from '../../board/packet/capture-record.ts';
import type { PacketFeed, TrafficInput } from '../dataplane/traffic.ts';
import { inverseNormal } from '../sim/count-model.ts';

/** Generator settings (ms, flows/s). */
export interface FlowGeneratorConfig {
  flowsPerSec: number;
  durationMedianMs: number;
  durationMaxMs: number;
  /** Log-normal sigma, default 1.2. */
  sigma?: number;
  /** A data segment every this many ms while a flow lasts, default 1000. */
  keepaliveMs?: number;
  /** Capture time (ms since 1970) of the first packet; default 2025-01-01T00:00:00Z. */
  epochMs?: number;
  seed: number;
}

const FIN = 0x01;
const SYN = 0x02;
const PSH = 0x08;
const ACK = 0x10;

interface Ev {
  t: number;
  flow: number;
  step: number;
  end: number;
}

/** Event order within a millisecond: time, then flow, then step (deterministic). */
function before(x: Ev, y: Ev): number {
  return x.t - y.t || x.flow - y.flow || x.step - y.step;
}

/** The feed: generates frames on demand for a handler. */
class GeneratorFeed implements PacketFeed {
  private readonly rec = new CaptureRecord();
  private readonly frame = new Uint8Array(14 + 20 + 20 + 64);
  /** Pending events by the millisecond they fall in (a calendar queue: O(1) per event). */
  private readonly buckets = new Map<number, Ev[]>();
  private cur = 0;
  private curList: Ev[] | null = null;
  private curIdx = 0;
  private random: SeededRandom;
  private nextFlow = 0;
  private nextArrival = 0;
  private packets = 0;
  private readonly interval: number;
  private readonly sigma: number;
  private readonly keepalive: number;
  private readonly epoch: number;

  constructor(private readonly c: FlowGeneratorConfig, private readonly handler: CaptureHandler) {
    this.interval = 1000 / c.flowsPerSec;
    this.sigma = c.sigma ?? 1.2;
    this.keepalive = c.keepaliveMs ?? 1000;
    this.epoch = c.epochMs ?? Date.UTC(2025, 0, 1);
    this.random = new SeededRandom(c.seed);
    this.rec.linkType = 1;
    this.rec.linkSupported = true;
    this.rec.hasTimestamp = true;
    this.rec.buf = this.frame;
    this.rec.offset = 0;
  }

  pump(): 'paused' | 'eof' {
    for (;;) {
      if (!this.curList) {
        while (this.nextArrival < this.cur + 1) this.arrive();
        const b = this.buckets.get(this.cur);
        if (!b) {
          this.cur++;
          continue;
        }
        b.sort(before);
        this.curList = b;
        this.curIdx = 0;
      }
      if (this.curIdx >= this.curList.length) {
        this.buckets.delete(this.cur);
        this.curList = null;
        this.cur++;
        continue;
      }
      const ev = this.curList[this.curIdx++]!;
      if (this.emit(ev) === false) return 'paused';
    }
  }

  /** Queues an event (at or after the current millisecond). */
  private schedule(ev: Ev): void {
    const ms = Math.floor(ev.t);
    if (ms === this.cur && this.curList) {
      // Into the part of the current millisecond not yet emitted, in order.
      const l = this.curList;
      let i = l.length;
      while (i > this.curIdx && before(l[i - 1]!, ev) > 0) i--;
      l.splice(i, 0, ev);
      return;
    }
    let b = this.buckets.get(ms);
    if (!b) this.buckets.set(ms, (b = []));
    b.push(ev);
  }

  rewind(): void {
    // Endless: a rewind (never asked for, since the feed never ends) starts over.
    this.random = new SeededRandom(this.c.seed);
    this.nextFlow = 0;
    this.nextArrival = 0;
    this.buckets.clear();
    this.cur = 0;
    this.curList = null;
    this.curIdx = 0;
  }

  close(): void {}

  private duration(): number {
    const u = Math.min(1 - 1e-9, Math.max(1e-9, this.random.next()));
    const d = this.c.durationMedianMs * Math.exp(this.sigma * inverseNormal(u));
    return Math.min(this.c.durationMaxMs, Math.max(100, d));
  }

  private arrive(): void {
    const t = this.nextArrival;
    const flow = this.nextFlow++;
    this.schedule({ t, flow, step: 0, end: t + this.duration() });
    this.nextArrival = t + this.interval * (0.5 + this.random.next());
  }

  /** Writes and delivers the packet of `ev`, and schedules the flow's next one (the same object). */
  private emit(ev: Ev): boolean | void {
    // steps: 0 SYN, 1 SYN+ACK, 2 ACK, 3 data…, then 10 FIN c→s, 11 FIN s→c, 12 last ACK
    let flags: number;
    let fromClient = true;
    let payload = 0;
    const t = ev.t;
    let again = true;
    switch (ev.step) {
      case 0:
        flags = SYN;
        ev.t = t + 0.2;
        ev.step = 1;
        break;
      case 1:
        flags = SYN | ACK;
        fromClient = false;
        ev.t = t + 0.2;
        ev.step = 2;
        break;
      case 2:
      case 3:
        if (ev.step === 2) flags = ACK;
        else {
          flags = PSH | ACK;
          payload = 64;
        }
        if (t + this.keepalive < ev.end) {
          ev.t = t + this.keepalive;
          ev.step = 3;
        } else {
          ev.t = Math.max(t + 0.2, ev.end);
          ev.step = 10;
        }
        break;
      case 10:
        flags = FIN | ACK;
        ev.t = t + 0.2;
        ev.step = 11;
        break;
      case 11:
        flags = FIN | ACK;
        fromClient = false;
        ev.t = t + 0.2;
        ev.step = 12;
        break;
      default:
        flags = ACK;
        again = false;
        break;
    }
    const len = this.write(ev.flow, fromClient, flags, payload);
    if (again) this.schedule(ev);
    // Time stamps at 1 ms resolution (a capture's usual precision): packets of the same millisecond
    // are paced together, one timer for all of them.
    const ms = this.epoch + Math.round(t);
    const rec = this.rec;
    rec.number = ++this.packets;
    const sec = Math.floor(ms / 1000);
    rec.tsSec = sec;
    rec.tsNsec = Math.min(999_999_999, Math.round((ms - sec * 1000) * 1e6));
    rec.caplen = len;
    rec.origLen = len;
    return this.handler.packet(rec);
  }

  /** Ethernet + IPv4 + TCP frame of `flow`; returns its length. Writes the reused buffer in place. */
  private write(flow: number, fromClient: boolean, flags: number, payload: number): number {
    const f = this.frame;
    const c1 = 64 | ((flow >>> 22) & 0x3f);
    const c2 = (flow >>> 14) & 0xff;
    const c3 = (flow >>> 6) & 0xff;
    const v3 = 1 + (flow & 7);
    const cport = 1024 + (((flow & 0x3f) * 977 + (flow >>> 6)) % 64000);
    const sport = fromClient ? cport : 80;
    const dport = fromClient ? 80 : cport;
    // Ethernet: dst, src MAC, EtherType IPv4
    f[0] = 2; f[1] = 0; f[2] = 0; f[3] = 0; f[4] = 0; f[5] = fromClient ? 1 : 2;
    f[6] = 2; f[7] = 0; f[8] = 0; f[9] = 0; f[10] = 0; f[11] = fromClient ? 2 : 1;
    f[12] = 0x08; f[13] = 0x00;
    // IPv4
    const total = 40 + payload;
    f[14] = 0x45; f[15] = 0; f[16] = total >> 8; f[17] = total & 0xff; f[18] = 0; f[19] = 0; f[20] = 0x40; f[21] = 0;
    f[22] = 64; f[23] = 6; f[24] = 0; f[25] = 0;
    const a = fromClient ? 26 : 30;
    const b = fromClient ? 30 : 26;
    f[a] = 10; f[a + 1] = c1; f[a + 2] = c2; f[a + 3] = c3;
    f[b] = 192; f[b + 1] = 0; f[b + 2] = 2; f[b + 3] = v3;
    let sum = 0;
    for (let i = 14; i < 34; i += 2) sum += (f[i]! << 8) | f[i + 1]!;
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    const ck = ~sum & 0xffff;
    f[24] = ck >> 8;
    f[25] = ck & 0xff;
    // TCP
    f[34] = sport >> 8; f[35] = sport & 0xff; f[36] = dport >> 8; f[37] = dport & 0xff;
    f[38] = 0; f[39] = 0; f[40] = 0; f[41] = 1; f[42] = 0; f[43] = 0; f[44] = 0; f[45] = flags & ACK ? 1 : 0;
    f[46] = 0x50; f[47] = flags; f[48] = 0xff; f[49] = 0xff; f[50] = 0; f[51] = 0; f[52] = 0; f[53] = 0;
    if (payload) f.fill(0x61, 54, 54 + payload);
    return 14 + total;
  }
}

/**
 * A traffic input generating flows for ever (name `generator`).
 * @throws RangeError for a rate outside 2..1,000,000 flows/s or durations that are not positive
 */
export function generatorInput(c: FlowGeneratorConfig): TrafficInput {
  if (!(c.flowsPerSec >= 2 && c.flowsPerSec <= 1_000_000)) throw new RangeError(`generator: flows_per_s must be 2..1000000, got ${c.flowsPerSec}`);
  if (!(c.durationMedianMs > 0 && c.durationMaxMs >= c.durationMedianMs)) throw new RangeError('generator: durations must be > 0 with max ≥ median');
  return { name: 'generator', open: (h) => new GeneratorFeed(c, h) };
}
