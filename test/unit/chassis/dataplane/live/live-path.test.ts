// The pure live path (chassis/dataplane/live/live-path.ts) on the live shelf with fake links:
// ARP/echo for a VIP on the front, a nat connection out to the RS after neighbour resolution and
// its reply back to the router translated, full-NAT SNAT from the board's pool and its
// exhaustion (counted, an alarm, no reuse), and "fragmentation needed" / "packet too big" when
// the back side's MTU is smaller than the client's datagram. Every frame sent is checksum-clean.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ArpMessage, buildArpReply, buildArpRequest, parseArp } from '../../../../../board/packet/arp.ts';
import { IpLayout, locateIp } from '../../../../../board/packet/ip-layout.ts';
import { parseShelfConfig } from '../../../../../chassis/config/shelf-config.ts';
import { LiveDataPath, liveMac, type LiveEvent } from '../../../../../chassis/dataplane/live/live-path.ts';
import { addr, checksumProblems, frame, type FrameSpec } from '../../../../support/frames.ts';
import { makePlane } from '../fixture.ts';

const LIVE = readFileSync(new URL('../../../../../chassis/config/live-shelf.yaml', import.meta.url), 'utf8');
const ROUTER_MAC = Uint8Array.of(2, 0, 0, 0, 0, 0x01);

interface Rig {
  path: LiveDataPath;
  sent: Map<string, Uint8Array[]>;
  events: LiveEvent[];
  advance(ms: number): void;
}

function rig(yaml = LIVE): Rig {
  const cfg = parseShelfConfig(yaml, 'live.yaml');
  const { dp, clock } = makePlane({}, cfg);
  const sent = new Map<string, Uint8Array[]>();
  const port = (name: string) => {
    sent.set(name, []);
    return { send: (f: Uint8Array, n: number) => sent.get(name)!.push(f.slice(0, n)) };
  };
  const front = new Map([[1, port('s1')], [2, port('s2')]]);
  const back = new Map([3, 4, 5, 6].map((s) => [s, port(`s${s}`)] as [number, ReturnType<typeof port>]));
  const events: LiveEvent[] = [];
  const path = new LiveDataPath({ config: cfg, dataPlane: dp, clock, log: nullLog as never, front, back, onEvent: (e) => events.push(e) });
  path.start();
  for (const v of sent.values()) v.length = 0;
  return { path, sent, events, advance: (ms) => clock.advance(ms) };
}
const nullLog = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, child: () => nullLog };

function toFront(s: FrameSpec): Uint8Array {
  const f = frame(s);
  f.set(liveMac('front', 1), 0);
  f.set(ROUTER_MAC, 6);
  return f;
}

function arpOf(f: Uint8Array): ArpMessage | null {
  const m = new ArpMessage();
  return parseArp(f, 14, f.length, m) ? m : null;
}

function ipText(f: Uint8Array): string {
  const ip = new IpLayout();
  if (!locateIp(f, 14, f.length, ip)) return 'not ip';
  const n = ip.family === 6 ? 16 : 4;
  const s = ip.l3 + (ip.family === 6 ? 8 : 12);
  const a = (o: number) => (ip.family === 4 ? Array.from(f.subarray(o, o + 4)).join('.') : Buffer.from(f.subarray(o, o + n)).toString('hex'));
  const port = (o: number) => (ip.proto === 6 || ip.proto === 17 ? `:${(f[ip.l4 + o]! << 8) | f[ip.l4 + o + 1]!}` : '');
  return `${a(s)}${port(0)}>${a(s + n)}${port(2)}`;
}

/** Answers the ARP request in `req` as host `mac` would. */
function arpAnswer(req: Uint8Array, mac: Uint8Array): Uint8Array {
  const m = arpOf(req)!;
  const out = new Uint8Array(60);
  const swapped = new ArpMessage();
  swapped.senderMac.set(m.senderMac);
  swapped.senderIp.set(m.senderIp);
  swapped.targetIp.set(m.targetIp);
  buildArpReply(out, swapped, mac);
  return out;
}

describe('live path', () => {
  it('answers ARP and echo for a VIP on the front', () => {
    const r = rig();
    const req = new Uint8Array(60);
    buildArpRequest(req, ROUTER_MAC, addr('198.18.1.1'), addr('198.18.100.11'));
    r.path.receiveFront(1, req);
    const rep = arpOf(r.sent.get('s1')![0]!)!;
    expect(rep.op).toBe(2);
    expect(Array.from(rep.senderMac)).toEqual(Array.from(liveMac('front', 1)));
    r.path.receiveFront(1, toFront({ src: '198.18.0.2', dst: '198.18.100.10', proto: 1 }));
    const echo = r.sent.get('s1')![1]!;
    expect(ipText(echo)).toBe('198.18.100.10>198.18.0.2');
    expect(echo[34]).toBe(0);
    expect(checksumProblems(echo)).toEqual([]);
  });

  it('nat: DNAT to the RS after ARP resolution, the reply SNATed back to the router', () => {
    const r = rig();
    r.path.receiveFront(1, toFront({ src: '198.18.0.2', dst: '198.18.100.11', proto: 6, sport: 41000, dport: 80 }));
    const [slot, frames] = [...r.sent.entries()].find(([k, v]) => k !== 's1' && v.length > 0)!;
    const who = arpOf(frames[0]!)!;
    expect(who.op).toBe(1);
    const rsIp = Array.from(who.targetIp).join('.');
    expect(['198.18.10.111', '198.18.10.112']).toContain(rsIp);
    const RS_MAC = Uint8Array.of(2, 0, 0, 0, 1, 0x11);
    r.path.receiveBack(Number(slot.slice(1)), arpAnswer(frames[0]!, RS_MAC));
    const syn = frames[1]!;
    expect(ipText(syn)).toBe(`198.18.0.2:41000>${rsIp}:8080`);
    expect(Array.from(syn.subarray(0, 6))).toEqual(Array.from(RS_MAC));
    expect(checksumProblems(syn)).toEqual([]);
    // the RS answers the client, through the shelf (its default route)
    const synAck = frame({ src: rsIp, dst: '198.18.0.2', proto: 6, sport: 8080, dport: 41000, flags: 0x12 });
    synAck.set(liveMac('back', Number(slot.slice(1))), 0);
    r.path.receiveBack(Number(slot.slice(1)), synAck);
    const hubFrames = r.sent.get('s1')!;
    expect(Array.from(arpOf(hubFrames[0]!)!.targetIp).join('.')).toBe('198.18.1.1');
    r.path.receiveFront(1, arpAnswer(hubFrames[0]!, ROUTER_MAC));
    expect(ipText(hubFrames[1]!)).toBe('198.18.100.11:80>198.18.0.2:41000');
    expect(checksumProblems(hubFrames[1]!)).toEqual([]);
    expect(r.path.stats().connections.nat).toBe(1);
    // the client reports the reply unreachable: the error goes to the RS, quoting RS:8080 → client
    const reply = hubFrames[1]!;
    const quote = Array.from(reply.subarray(14, 14 + 28));
    const err = frame({ src: '198.18.0.2', dst: '198.18.100.11', proto: 1, payload: quote });
    err[34] = 3;
    err[35] = 3;
    err[36] = 0;
    err[37] = 0;
    err.fill(0, 38, 42);
    let ck = 0;
    for (let i = 34; i < err.length; i += 2) ck += (err[i]! << 8) | (err[i + 1] ?? 0);
    while (ck > 0xffff) ck = (ck & 0xffff) + (ck >>> 16);
    err[36] = (~ck >> 8) & 0xff;
    err[37] = ~ck & 0xff;
    err.set(liveMac('front', 1), 0);
    r.path.receiveFront(1, err);
    const toRs = frames.at(-1)!;
    expect(ipText(toRs)).toBe(`198.18.0.2>${rsIp}`);
    const q = toRs.subarray(14 + 20 + 8);
    expect(`${Array.from(q.subarray(12, 16)).join('.')}:${(q[20]! << 8) | q[21]!}`).toBe(`${rsIp}:8080`);
    expect(checksumProblems(toRs)).toEqual([]);
  });

  it('fullnat: SNAT from the board\'s pool; a full pool is a counted drop and an alarm, never a reused port', () => {
    const r = rig(LIVE.replaceAll('local_ports: 1024-65535', 'local_ports: 5000-5000').replace('- { name: fnat3, address: 198.18.10.123:8080, weight: 2, forwarding: nat }', ''));
    for (let i = 0; i < 400; i++) r.path.receiveFront(1, toFront({ src: '198.18.0.2', dst: '198.18.100.12', proto: 6, sport: 20000 + i, dport: 80 }));
    const st = r.path.stats();
    // 4 boards × 2 IPv4 local addresses × 1 port, per RS (2 RS)
    expect(st.connections.fullnat).toBe(16);
    expect(st.drops.local_ports_exhausted).toBe(400 - 16);
    expect(r.events.filter((e) => e.type === 'live.pool.exhausted').map((e) => e.slot).sort()).toEqual([3, 4, 5, 6]);
  });

  it('a datagram over the back MTU: fragmentation needed (IPv4, DF) and packet too big (IPv6) from the hub', () => {
    const r = rig(LIVE.replaceAll('      mtu: 1500\n      local_addresses', '      mtu: 1400\n      local_addresses'));
    const big = Array.from({ length: 1500 - 40 }, (_, i) => i & 0xff);
    r.path.receiveFront(1, toFront({ src: '198.18.0.2', dst: '198.18.100.11', proto: 6, sport: 41001, dport: 80, flags: 0x10, payload: big }));
    const fn = r.sent.get('s1')![0]!;
    expect(ipText(fn)).toBe('198.18.1.2>198.18.0.2');
    expect([fn[34], fn[35], (fn[40]! << 8) | fn[41]!]).toEqual([3, 4, 1400]);
    const big6 = Array.from({ length: 1500 - 60 }, (_, i) => i & 0xff);
    r.path.receiveFront(1, toFront({ src: 'fd00:a7ca::2', dst: 'fd00:a7ca:100::12', proto: 6, sport: 41002, dport: 80, flags: 0x10, payload: big6 }));
    const ptb = r.sent.get('s1')![1]!;
    expect(ptb[54]).toBe(2);
    expect((ptb[58]! << 24) | (ptb[59]! << 16) | (ptb[60]! << 8) | ptb[61]!).toBe(1400);
    expect(r.path.stats().tooBig).toBe(2);
    expect(r.path.stats().toServer).toBe(0);
  });
});
