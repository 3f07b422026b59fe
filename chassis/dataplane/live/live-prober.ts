/**
 * Real health checks of a processor board's real servers over its live back link, from the
 * board's own back-side address (docs/live.md): the ProbePort (board/processor/health) of one
 * board, speaking for itself with frames built from the pure packet modules. Pure: no I/O; the
 * frames leave through the board's LinkEndpoint, time and timeouts from the Clock port.
 *
 * Kinds (HealthCheckConfig.kind):
 *  - `icmp`: an echo request (RFC 792 / RFC 4443 §4.1); up on the matching echo reply;
 *  - `tcp`: a SYN (RFC 9293 §3.5); up on SYN-ACK (the half-open connection is then reset,
 *    LVS's TCP_CHECK in spirit), down on RST;
 *  - `http`: SYN, then on SYN-ACK the ACK with `GET PATH HTTP/1.1` (Connection: close); up when
 *    the status line that comes back is 2xx/3xx, then reset;
 *  - `udp`: a datagram to the port; down on ICMP port/host unreachable quoting it, up on a UDP
 *    reply, and — as keepalived's UDP_CHECK without `require_reply` — up when neither came by
 *    the timeout (silence is not an error for UDP).
 * Anything else times out (`timeoutMs`) as a failure with the reason in `detail`.
 */
import type { Clock, TimerId } from '../../../board/common/clock.ts';
import { read16, setIpv4HeaderChecksum, setL4Checksum, write16 } from '../../../board/packet/checksum.ts';
import { ETHERTYPE_IPV4, ETHERTYPE_IPV6, writeEthernet } from '../../../board/packet/ether-frame.ts';
import type { IpLayout } from '../../../board/packet/ip-layout.ts';
import { writeIpv6Header } from '../../../board/packet/ndp.ts';
import { parseAddress } from '../../../board/processor/ip-address.ts';
import type { ProbePort, ProbeRequest, ProbeResult } from '../../../board/processor/health/probe-port.ts';
import type { LinkEndpoint } from './link-endpoint.ts';

const ZERO_MAC = new Uint8Array(6);
const TCP_FIN = 0x01;
const TCP_SYN = 0x02;
const TCP_RST = 0x04;
const TCP_PSH = 0x08;
const TCP_ACK = 0x10;

interface Pending {
  req: ProbeRequest;
  family: 4 | 6;
  rs: Uint8Array;
  /** Our port (tcp/http/udp) or echo identifier (icmp). */
  port: number;
  isn: number;
  state: 'syn' | 'request' | 'sent';
  requestLen: number;
  timer: TimerId;
  done: (r: ProbeResult) => void;
}

/** Counters of a prober. */
export interface ProberStats {
  probes: number;
  ok: number;
  failed: number;
}

export class LiveProber implements ProbePort {
  readonly stats: ProberStats = { probes: 0, ok: 0, failed: 0 };
  private readonly pending = new Map<number, Pending>();
  private readonly out = new Uint8Array(1600);
  private nextPort = 40_000;
  private isn = 0x1000_0000;
  private readonly enc = new TextEncoder();
  private readonly dec = new TextDecoder();

  constructor(private readonly ep: LinkEndpoint, private readonly clock: Clock) {}

  /** Starts a probe (ProbePort); `done` is called once, later. */
  probe(req: ProbeRequest, done: (result: ProbeResult) => void): void {
    this.stats.probes++;
    let rs: Uint8Array;
    let family: 4 | 6;
    try {
      const a = parseAddress(req.host);
      rs = a.bytes;
      family = a.family;
    } catch {
      this.clock.setTimeout(() => done({ ok: false, detail: `bad address ${req.host}` }), 0);
      return;
    }
    const src = family === 4 ? this.ep.own4 : this.ep.own6;
    if (src === null) {
      this.clock.setTimeout(() => done({ ok: false, detail: `no IPv${family} address on ${this.ep.name}` }), 0);
      return;
    }
    const port = this.allocPort();
    this.isn = (this.isn + 0x0101_0101) >>> 0;
    const p: Pending = {
      req, family, rs, port, isn: this.isn, state: 'syn', requestLen: 0, done,
      timer: this.clock.setTimeout(() => this.timeout(port), req.timeoutMs),
    };
    this.pending.set(port, p);
    if (req.kind === 'icmp') this.sendEcho(p);
    else if (req.kind === 'udp') this.sendUdp(p);
    else this.sendTcp(p, p.isn, 0, TCP_SYN, null);
  }

  private allocPort(): number {
    for (let i = 0; i < 20_000; i++) {
      const p = this.nextPort;
      this.nextPort = p >= 59_999 ? 40_000 : p + 1;
      if (!this.pending.has(p)) return p;
    }
    return this.nextPort;
  }

  private finish(p: Pending, ok: boolean, detail: string): void {
    if (this.pending.get(p.port) !== p) return;
    this.pending.delete(p.port);
    this.clock.clearTimeout(p.timer);
    if (ok) this.stats.ok++;
    else this.stats.failed++;
    p.done({ ok, detail });
  }

  private timeout(port: number): void {
    const p = this.pending.get(port);
    if (p === undefined) return;
    if (p.req.kind === 'udp') return this.finish(p, true, 'no ICMP error');
    if (p.req.kind === 'tcp' || p.req.kind === 'http') this.sendTcp(p, (p.isn + 1 + p.requestLen) >>> 0, 0, TCP_RST, null);
    this.finish(p, false, p.state === 'syn' ? 'timeout' : 'timeout waiting for the response');
  }

  /** Writes Ethernet + IP headers for a probe; @returns the L4 offset. */
  private ipHeader(p: Pending, proto: number, l4Len: number): number {
    const o = this.out;
    const src = (p.family === 4 ? this.ep.own4 : this.ep.own6)!;
    const l3 = writeEthernet(o, 0, ZERO_MAC, this.ep.mac, p.family === 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6);
    if (p.family === 6) return writeIpv6Header(o, l3, l4Len, proto, 64, src, p.rs);
    o[l3] = 0x45;
    o[l3 + 1] = 0;
    write16(o, l3 + 2, 20 + l4Len);
    write16(o, l3 + 4, p.port);
    write16(o, l3 + 6, 0x4000);
    o[l3 + 8] = 64;
    o[l3 + 9] = proto;
    o.set(src.subarray(0, 4), l3 + 12);
    o.set(p.rs.subarray(0, 4), l3 + 16);
    setIpv4HeaderChecksum(o, l3);
    return l3 + 20;
  }

  private send(p: Pending, l4: number, len: number, proto: number): void {
    setL4Checksum(this.out, p.family, 14, proto, l4, len);
    this.ep.output(p.family, p.rs, this.out, l4 + len);
  }

  private sendEcho(p: Pending): void {
    const body = 8 + 16;
    const proto = p.family === 4 ? 1 : 58;
    const l4 = this.ipHeader(p, proto, body);
    const o = this.out;
    o[l4] = p.family === 4 ? 8 : 128;
    o[l4 + 1] = 0;
    write16(o, l4 + 4, p.port);
    write16(o, l4 + 6, 1);
    for (let i = 8; i < body; i++) o[l4 + i] = 0x61 + i;
    this.send(p, l4, body, proto);
  }

  private sendUdp(p: Pending): void {
    const payload = this.enc.encode('atcasim health check\n');
    const len = 8 + payload.length;
    const l4 = this.ipHeader(p, 17, len);
    const o = this.out;
    write16(o, l4, p.port);
    write16(o, l4 + 2, p.req.port);
    write16(o, l4 + 4, len);
    o.set(payload, l4 + 8);
    this.send(p, l4, len, 17);
  }

  private sendTcp(p: Pending, seq: number, ack: number, flags: number, payload: Uint8Array | null): void {
    const n = payload?.length ?? 0;
    const l4 = this.ipHeader(p, 6, 20 + n);
    const o = this.out;
    write16(o, l4, p.port);
    write16(o, l4 + 2, p.req.port);
    write16(o, l4 + 4, seq >>> 16);
    write16(o, l4 + 6, seq & 0xffff);
    write16(o, l4 + 8, ack >>> 16);
    write16(o, l4 + 10, ack & 0xffff);
    o[l4 + 12] = 5 << 4;
    o[l4 + 13] = flags;
    write16(o, l4 + 14, 65_535);
    write16(o, l4 + 18, 0);
    if (payload) o.set(payload, l4 + 20);
    this.send(p, l4, 20 + n, 6);
  }

  /**
   * A datagram to the board's own address (located in `ip`). @returns true when it answered a probe
   */
  receive(frame: Uint8Array, ip: IpLayout): boolean {
    if (ip.l4 < 0) return false;
    const l4 = ip.l4;
    if (ip.proto === 6 && ip.l4Len >= 20) return this.tcp(frame, ip);
    if (ip.proto === 17 && ip.l4Len >= 8) {
      const p = this.pending.get(read16(frame, l4 + 2));
      if (p === undefined || p.req.kind !== 'udp') return false;
      this.finish(p, true, 'UDP reply');
      return true;
    }
    const icmp = (ip.family === 4 && ip.proto === 1) || (ip.family === 6 && ip.proto === 58);
    if (!icmp || ip.l4Len < 8) return false;
    const type = frame[l4]!;
    if ((ip.family === 4 && type === 0) || (ip.family === 6 && type === 129)) {
      const p = this.pending.get(read16(frame, l4 + 4));
      if (p === undefined || p.req.kind !== 'icmp') return false;
      this.finish(p, true, 'echo reply');
      return true;
    }
    const unreachable = (ip.family === 4 && type === 3) || (ip.family === 6 && type === 1);
    if (!unreachable) return false;
    // the quoted datagram: our probe (IP header, then its UDP/TCP ports)
    const q = l4 + 8;
    const qv = frame[q]! >> 4;
    const qhl = qv === 4 ? (frame[q]! & 15) << 2 : 40;
    const qproto = qv === 4 ? frame[q + 9] : frame[q + 6];
    if (q + qhl + 4 > ip.end) return false;
    const p = this.pending.get(read16(frame, q + qhl));
    if (p === undefined || (qproto !== 17 && qproto !== 6)) return false;
    this.finish(p, false, `ICMP unreachable (code ${frame[l4 + 1]})`);
    return true;
  }

  private tcp(frame: Uint8Array, ip: IpLayout): boolean {
    const l4 = ip.l4;
    const p = this.pending.get(read16(frame, l4 + 2));
    if (p === undefined || (p.req.kind !== 'tcp' && p.req.kind !== 'http') || read16(frame, l4) !== p.req.port) return false;
    const flags = frame[l4 + 13]!;
    const seq = ((read16(frame, l4 + 4) << 16) | read16(frame, l4 + 6)) >>> 0;
    if ((flags & TCP_RST) !== 0) {
      this.finish(p, false, p.state === 'syn' ? 'connection refused' : 'connection reset');
      return true;
    }
    if (p.state === 'syn' && (flags & (TCP_SYN | TCP_ACK)) === (TCP_SYN | TCP_ACK)) {
      if (p.req.kind === 'tcp') {
        this.sendTcp(p, (p.isn + 1) >>> 0, 0, TCP_RST, null);
        this.finish(p, true, 'connected');
        return true;
      }
      const host = p.family === 6 ? `[${p.req.host}]` : p.req.host;
      const req = this.enc.encode(`GET ${p.req.path} HTTP/1.1\r\nHost: ${host}:${p.req.port}\r\nUser-Agent: atcasim-health\r\nConnection: close\r\n\r\n`);
      p.requestLen = req.length;
      p.state = 'sent';
      this.sendTcp(p, (p.isn + 1) >>> 0, (seq + 1) >>> 0, TCP_ACK | TCP_PSH, req);
      return true;
    }
    const dataOff = (frame[l4 + 12]! >> 4) << 2;
    const n = ip.l4Len - dataOff;
    if (p.state === 'sent' && n > 0) {
      const text = this.dec.decode(frame.subarray(l4 + dataOff, l4 + dataOff + Math.min(n, 64)));
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      this.sendTcp(p, (p.isn + 1 + p.requestLen) >>> 0, 0, TCP_RST, null);
      if (m === null) this.finish(p, false, 'not an HTTP response');
      else this.finish(p, Number(m[1]) >= 200 && Number(m[1]) < 400, `HTTP ${m[1]}`);
      return true;
    }
    if ((flags & TCP_FIN) !== 0 && p.state === 'sent') {
      this.finish(p, false, 'closed without a response');
      return true;
    }
    return true;
  }

  /** Cancels every probe in flight (their `done` is not called). */
  stop(): void {
    for (const p of this.pending.values()) this.clock.clearTimeout(p.timer);
    this.pending.clear();
  }
}
