/**
 * Fuzz of the LAN server (bad input gets no crash and loses nothing): 120,000 malformed datagrams —
 * random bytes, random bytes behind a valid RMCP header, truncations, byte/bit/length mutations of real
 * packets (every datagram of ../shared/ipmi/captures plus live packets of RMCP+ suite 3/17 and IPMI 1.5
 * sessions open on this server) — fed to the LAN server in-process with a fixed seed. Then real
 * ipmitool `-I lanplus` (`-C 3` and `-C 17`) still gets `mc info` from the same server over UDP.
 * Checked: nothing escapes handleDatagram (no 'internal' drop either), every reply is a well-formed
 * datagram, session tables stay within their limits, the sessions opened before still work.
 */
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../board/common/random.ts';
import { DEFAULT_SESSION_LIMITS } from '../../chassis/ipmi/rmcp-session-table.ts';
import { decodeRmcpHeader } from '../../chassis/ipmi/rmcp.ts';
import { decodeRmcpPlus } from '../../chassis/ipmi/rmcpplus.ts';
import { decodeSession15 } from '../../chassis/ipmi/session15.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { shared } from '../support/shared.ts';
import { Ipmi15Client, RmcpPlusClient } from '../support/ipmi-client.ts';
import type { Wire } from '../support/ipmi-client.ts';
import { readIpmiCapture } from '../support/ipmi-captures.ts';
import { startUdpTestServer } from '../support/ipmi-test-server.ts';

const COUNT = 120_000;
const SEED = 0x1b3f5a;

let srv: Awaited<ReturnType<typeof startUdpTestServer>>;
beforeAll(async () => {
  srv = await startUdpTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

/** Checks that a reply is a complete, parseable datagram. */
function wellFormed(reply: Uint8Array): boolean {
  const h = decodeRmcpHeader(reply);
  if (h.msgClass === 6) return reply.length === 28;
  if (reply[4] === 0x06) decodeRmcpPlus(reply);
  else decodeSession15(reply);
  return true;
}

describe('fuzzing the LAN server', () => {
  it(`survives ${COUNT.toLocaleString('en')} malformed datagrams and still serves real ipmitool`, async () => {
    const server = srv.server;
    const now = () => performance.now();
    const wire = (port: number): Wire => ({ server, peer: { address: '127.0.0.1', port }, now });

    // live sessions whose packets get mutated (and which must survive)
    const c3 = new RmcpPlusClient(wire(61001), 'admin', 'adminpass', 3);
    const c17 = new RmcpPlusClient(wire(61002), 'oper', 'operpass', 17, 0x13);
    const c15 = new Ipmi15Client(wire(61003), 'admin', 'adminpass');
    expect([c3.login().ok, c17.login().ok, c15.login(4).ok]).toEqual([true, true, true]);

    const corpus: Uint8Array[] = [];
    for (const f of readdirSync(shared('ipmi', 'captures')).filter((n) => n.endsWith('.pcap'))) {
      for (const fr of readIpmiCapture(f.replace(/\.pcap$/, ''))) corpus.push(fr.payload);
    }
    const harmless: Array<[number, number, number[]]> = [[0x06, 0x01, []], [0x06, 0x04, []], [0x06, 0x3d, [0]], [0x06, 0x38, [0x81, 4]], [0x0c, 0x02, [1, 3, 0, 0]], [0x06, 0x34, [0x40, 0x86, 0x18, 0x62, 0x20, 0x04, 0x01, 0xdb]]];
    for (let i = 0; i < 40; i++) {
      const [n, c, d] = harmless[i % harmless.length]!;
      corpus.push(c3.packet(n, c, d), c17.packet(n, c, d), c15.packet(n, c, d));
    }
    expect(corpus.length).toBeGreaterThan(300);

    const rnd = new SeededRandom(SEED);
    const bytes = (n: number) => Uint8Array.from({ length: n }, () => rnd.int(256));
    const pick = () => corpus[rnd.int(corpus.length)]!;
    const mutate = (src: Uint8Array): Uint8Array => {
      let b = src.slice();
      const edits = 1 + rnd.int(4);
      for (let e = 0; e < edits; e++) {
        const kind = rnd.int(6);
        const at = b.length ? rnd.int(b.length) : 0;
        if (kind === 0 && b.length) b[at] = rnd.int(256);
        else if (kind === 1 && b.length) b[at] = b[at]! ^ (1 << rnd.int(8));
        else if (kind === 2) b = Uint8Array.from([...b.subarray(0, at), rnd.int(256), ...b.subarray(at)]);
        else if (kind === 3 && b.length) b = Uint8Array.from([...b.subarray(0, at), ...b.subarray(at + 1)]);
        else if (kind === 4 && b.length > 16) b[13 + rnd.int(4)] = [0x00, 0xff, 0x7f, 0x80][rnd.int(4)]!; // length / session fields
        else if (b.length > 8) b.set(bytes(4), 4 + rnd.int(Math.max(1, b.length - 8))); // session ID / sequence area
      }
      return b;
    };

    const before = process.memoryUsage().heapUsed;
    const maxHalf = DEFAULT_SESSION_LIMITS.maxHalfOpen;
    let replies = 0;
    let malformedReplies = 0;
    for (let i = 0; i < COUNT; i++) {
      const k = rnd.int(100);
      let d: Uint8Array;
      if (k < 15) d = bytes(rnd.int(400));
      else if (k < 30) d = Uint8Array.from([0x06, 0x00, 0xff, rnd.int(2) ? 0x07 : 0x06, ...bytes(rnd.int(120))]);
      else if (k < 45) d = pick().slice(0, rnd.int(pick().length + 1));
      else d = mutate(pick());
      const out = server.handleDatagram(d, { address: `10.9.${rnd.int(4)}.${rnd.int(250)}`, port: 1024 + rnd.int(60000) }, now());
      replies += out.length;
      for (const r of out) {
        try {
          if (!wellFormed(r)) malformedReplies++;
        } catch {
          malformedReplies++;
        }
      }
      if (i % 2000 === 0) {
        server.tick(now());
        const st = server.stats();
        expect(st.halfOpenSessions).toBeLessThanOrEqual(maxHalf);
        expect(st.activeSessions).toBeLessThanOrEqual(DEFAULT_SESSION_LIMITS.maxSessions);
      }
    }
    const st = server.stats();
    expect(st.datagrams).toBeGreaterThanOrEqual(COUNT);
    expect(st.dropped.internal ?? 0).toBe(0); // no unexpected exception inside the server
    expect(malformedReplies).toBe(0);
    expect(replies).toBeGreaterThan(0); // some mutations are still valid requests (pings, auth caps, …)
    expect(st.halfOpenSessions).toBeLessThanOrEqual(maxHalf);
    expect(st.activeSessions).toBeLessThanOrEqual(DEFAULT_SESSION_LIMITS.maxSessions);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(256 * 1024 * 1024);

    // the sessions opened before the flood still answer
    expect(c3.request(0x06, 0x01)!.cc).toBe(0);
    expect(c17.request(0x06, 0x04)!.data).toEqual(Uint8Array.of(0x55, 0x00));
    expect(c15.request(0x06, 0x01)!.cc).toBe(0);
    for (const c of [c3, c17]) {
      const id = new Uint8Array(4);
      new DataView(id.buffer).setUint32(0, c.bmcSid, true);
      expect(c.request(0x06, 0x3c, id)!.cc).toBe(0);
    }

    // and the real client still works against the same server
    for (const suite of ['3', '17']) {
      const r = await runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(srv.port), '-U', 'admin', '-P', 'adminpass', '-C', suite, 'mc', 'info']);
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toMatch(/^Manufacturer Name\s+: PICMG$/m);
    }
  }, 180_000);
});
