/**
 * The hubs' IPv4 Pearson fast path (no key bytes written) against the definition: the key bytes
 * FieldSelector writes, hashed by pearson16 — for every profile it applies to, symmetric or
 * not, with and without ports, fragments, equal addresses and tunnels.
 */
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../../board/common/random.ts';
import { EcmpGroup } from '../../../../board/switch/ecmp-group.ts';
import { FieldSelector } from '../../../../board/switch/field-select.ts';
import { pearson16, pearson16V4 } from '../../../../board/switch/hash/index.ts';
import { SwitchBoard } from '../../../../board/switch/switch-board.ts';
import type { FieldSet, TunnelHeader } from '../../../../board/switch/switch-config.ts';
import type { FlowText } from '../../../../board/switch/place-flow.ts';
import { fakePacket } from './fake-packet.ts';

const PROTOS = ['tcp', 'udp', 'sctp', 'icmp', 'gre'];

function randomFlow(r: SeededRandom): FlowText {
  const ip = () => {
    // small pools so equal addresses and equal ports occur
    const pick = r.int(4);
    if (pick === 0) return '10.0.0.1';
    if (pick === 1) return `192.168.${r.int(256)}.${r.int(256)}`;
    return `${r.int(256)}.${r.int(256)}.${r.int(256)}.${r.int(256)}`;
  };
  const proto = PROTOS[r.int(PROTOS.length)]!;
  const ports = proto === 'tcp' || proto === 'udp' || proto === 'sctp';
  const port = () => (r.int(3) === 0 ? 80 : r.int(65536));
  return { src: ip(), dst: ip(), proto, ...(ports ? { sport: port(), dport: port() } : {}) };
}

describe('SwitchBoard IPv4 Pearson fast path', () => {
  it('pearson16V4 equals pearson16 over the 9- and 13-byte keys', () => {
    const r = new SeededRandom(1);
    const buf = new Uint8Array(13);
    for (let i = 0; i < 5000; i++) {
      const a = r.u32() | 0;
      const b = r.u32() | 0;
      const proto = r.int(256);
      const ports = r.u32() | 0;
      const bytes = [a >>> 24, (a >>> 16) & 255, (a >>> 8) & 255, a & 255, b >>> 24, (b >>> 16) & 255, (b >>> 8) & 255, b & 255, proto,
        ports >>> 24, (ports >>> 16) & 255, (ports >>> 8) & 255, ports & 255];
      buf.set(bytes);
      expect(pearson16V4(a, b, proto, ports, true)).toBe(pearson16(buf, 13));
      expect(pearson16V4(a, b, proto, ports, false)).toBe(pearson16(buf, 9));
    }
  });

  for (const fields of ['l3', 'l3l4'] as FieldSet[]) {
    for (const tunnel of ['outer', 'inner'] as TunnelHeader[]) {
      for (const symmetric of [true, false]) {
        it(`hashes as FieldSelector + pearson16 (${fields}, ${tunnel}, symmetric ${symmetric})`, () => {
          const group = new EcmpGroup({ mapping: 'resilient', buckets: 4096 }, [{ port: 3, slot: 3 }, { port: 4, slot: 4 }]);
          const hub = new SwitchBoard({ slot: 1, group, ecmp: { fields, tunnel, symmetric, hash: 'pearson' } });
          const sel = new FieldSelector({ fields, tunnel, symmetric, layout: 'standard' });
          const r = new SeededRandom(fields.length * 7 + (symmetric ? 1 : 0) + (tunnel === 'inner' ? 2 : 0));
          for (let i = 0; i < 3000; i++) {
            const pkt = fakePacket({
              flow: randomFlow(r),
              inner: r.int(2) === 0 ? randomFlow(r) : undefined,
              fragment: r.int(5) === 0,
            });
            const n = sel.selectPacket(pkt);
            const want = n > 0 ? pearson16(sel.buf, n) : 0;
            expect(hub.hashPacket(pkt)).toBe(want);
            const d = hub.ingress(pkt, 0);
            expect(d.hash).toBe(want);
            expect(d.port).toBe(group.select(want));
          }
        });
      }
    }
  }
});
