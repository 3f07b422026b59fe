// The live health prober (chassis/dataplane/live/live-prober.ts) against a scripted peer on a
// fake link: tcp up on SYN-ACK (then a reset), down on RST; http up on a 2xx status line; icmp
// down on timeout; udp up on silence and down on ICMP port unreachable. Every frame it sends is
// checksum-clean and comes from the board's own address.
import { describe, expect, it } from 'vitest';
import { SimClock } from '../../../../../board/common/sim-clock.ts';
import { IpLayout, locateIp } from '../../../../../board/packet/ip-layout.ts';
import type { ProbeResult } from '../../../../../board/processor/health/probe-port.ts';
import { LinkEndpoint } from '../../../../../chassis/dataplane/live/link-endpoint.ts';
import { LiveProber } from '../../../../../chassis/dataplane/live/live-prober.ts';
import { addr, checksumProblems, frame } from '../../../../support/frames.ts';

const OWN = '198.18.10.3';
const RS = '198.18.10.111';

function rig() {
  const clock = new SimClock();
  const sent: Uint8Array[] = [];
  const ep = new LinkEndpoint({ name: 'slot3 back', mac: Uint8Array.of(2, 0xa7, 0xca, 0, 0, 3), own4: addr(OWN), own6: null, mtu: 1500, port: { send: (f, n) => sent.push(f.slice(0, n)) }, clock });
  ep.neighbours.learn(4, addr(RS), Uint8Array.of(2, 0, 0, 0, 1, 0x11), true, true, true);
  const prober = new LiveProber(ep, clock);
  const results: ProbeResult[] = [];
  const feed = (f: Uint8Array) => {
    const ip = new IpLayout();
    expect(locateIp(f, 14, f.length, ip)).toBe(true);
    return prober.receive(f, ip);
  };
  return { clock, sent, prober, results, feed, done: (r: ProbeResult) => results.push(r) };
}

const sport = (f: Uint8Array) => (f[34]! << 8) | f[35]!;
const seq = (f: Uint8Array) => ((f[38]! << 24) | (f[39]! << 16) | (f[40]! << 8) | f[41]!) >>> 0;

describe('live prober', () => {
  it('tcp: SYN from the board\'s address; SYN-ACK is up (then RST); RST is down', () => {
    const r = rig();
    r.prober.probe({ kind: 'tcp', host: RS, port: 8080, path: '/', timeoutMs: 1000 }, r.done);
    const syn = r.sent[0]!;
    expect(checksumProblems(syn)).toEqual([]);
    expect(Array.from(syn.subarray(26, 30)).join('.')).toBe(OWN);
    expect(syn[47]).toBe(0x02);
    r.feed(frame({ src: RS, dst: OWN, proto: 6, sport: 8080, dport: sport(syn), flags: 0x12, payload: [] }));
    expect(r.results).toEqual([{ ok: true, detail: 'connected' }]);
    expect(r.sent[1]![47]).toBe(0x04);
    expect(seq(r.sent[1]!)).toBe((seq(syn) + 1) >>> 0);
    r.prober.probe({ kind: 'tcp', host: RS, port: 8080, path: '/', timeoutMs: 1000 }, r.done);
    r.feed(frame({ src: RS, dst: OWN, proto: 6, sport: 8080, dport: sport(r.sent[2]!), flags: 0x14, payload: [] }));
    expect(r.results[1]).toEqual({ ok: false, detail: 'connection refused' });
  });

  it('http: GET after the handshake; a 200 status line is up, a 503 down', () => {
    for (const [code, ok] of [[200, true], [503, false]] as const) {
      const r = rig();
      r.prober.probe({ kind: 'http', host: RS, port: 8080, path: '/health', timeoutMs: 1000 }, r.done);
      const p = sport(r.sent[0]!);
      r.feed(frame({ src: RS, dst: OWN, proto: 6, sport: 8080, dport: p, flags: 0x12, payload: [] }));
      const get = r.sent[1]!;
      expect(checksumProblems(get)).toEqual([]);
      expect(Buffer.from(get.subarray(54)).toString()).toMatch(/^GET \/health HTTP\/1\.1\r\nHost: 198\.18\.10\.111:8080\r\n/);
      r.feed(frame({ src: RS, dst: OWN, proto: 6, sport: 8080, dport: p, flags: 0x18, payload: [...Buffer.from(`HTTP/1.1 ${code} X\r\n\r\n`)] }));
      expect(r.results).toEqual([{ ok, detail: `HTTP ${code}` }]);
    }
  });

  it('icmp: no echo reply within the timeout is down; udp: silence is up, port unreachable down', () => {
    const r = rig();
    r.prober.probe({ kind: 'icmp', host: RS, port: 0, path: '/', timeoutMs: 500 }, r.done);
    expect(checksumProblems(r.sent[0]!)).toEqual([]);
    expect(r.sent[0]![34]).toBe(8);
    r.clock.advance(600);
    expect(r.results).toEqual([{ ok: false, detail: 'timeout' }]);
    r.prober.probe({ kind: 'udp', host: RS, port: 8080, path: '/', timeoutMs: 500 }, r.done);
    r.clock.advance(600);
    expect(r.results[1]).toEqual({ ok: true, detail: 'no ICMP error' });
    r.prober.probe({ kind: 'udp', host: RS, port: 8080, path: '/', timeoutMs: 500 }, r.done);
    const dgram = r.sent.at(-1)!;
    expect(checksumProblems(dgram)).toEqual([]);
    const err = frame({ src: RS, dst: OWN, proto: 1, payload: [...dgram.subarray(14, 14 + 28)] });
    err[34] = 3;
    err[35] = 3;
    expect(r.feed(err)).toBe(true);
    expect(r.results[2]).toEqual({ ok: false, detail: 'ICMP unreachable (code 3)' });
  });
});
