import { describe, expect, it } from 'vitest';
import { FieldSelector, FLOW_KEY_BYTES, writeFlowKey, type FieldSelectOptions } from '../../../../board/switch/field-select.ts';
import { createHash, HASH_ALGORITHMS } from '../../../../board/switch/hash/index.ts';
import { tupleFromText, type FlowText } from '../../../../board/switch/place-flow.ts';
import { DEFAULT_ECMP } from '../../../../board/switch/switch-config.ts';
import { fakePacket } from './fake-packet.ts';

const opts = (o: Partial<FieldSelectOptions> = {}): FieldSelectOptions => ({
  fields: 'l3l4',
  symmetric: false,
  tunnel: 'outer',
  layout: 'standard',
  ...o,
});
const keyHex = (sel: FieldSelector, n: number) => Buffer.from(sel.buf.subarray(0, n)).toString('hex');
const reverse = (f: FlowText): FlowText => ({ src: f.dst, dst: f.src, sport: f.dport, dport: f.sport, proto: f.proto });

describe('field selection layouts', () => {
  const flow: FlowText = { src: '10.1.2.3', dst: '192.0.2.7', sport: 0x1234, dport: 80, proto: 'tcp' };

  it('l3l4 standard: src, dst, protocol, sport, dport (13 bytes for IPv4)', () => {
    const sel = new FieldSelector(opts());
    const n = sel.selectTuple(tupleFromText(flow));
    expect(keyHex(sel, n)).toBe('0a010203' + 'c0000207' + '06' + '1234' + '0050');
  });

  it('l3l4 RSS (Toeplitz): src, dst, sport, dport, no protocol', () => {
    const sel = new FieldSelector(opts({ layout: 'rss' }));
    expect(keyHex(sel, sel.selectTuple(tupleFromText(flow)))).toBe('0a010203c000020712340050');
  });

  it('l3: src, dst, protocol; RSS l3: src, dst', () => {
    const sel = new FieldSelector(opts({ fields: 'l3' }));
    expect(keyHex(sel, sel.selectTuple(tupleFromText(flow)))).toBe('0a010203c000020706');
    const rss = new FieldSelector(opts({ fields: 'l3', layout: 'rss' }));
    expect(keyHex(rss, rss.selectTuple(tupleFromText(flow)))).toBe('0a010203c0000207');
  });

  it('IPv6 l3l4 standard is 37 bytes', () => {
    const sel = new FieldSelector(opts());
    const n = sel.selectTuple(tupleFromText({ src: '2001:db8::1', dst: '2001:db8::2', sport: 1, dport: 2, proto: 'udp' }));
    expect(n).toBe(37);
    expect(keyHex(sel, n)).toBe('20010db8000000000000000000000001' + '20010db8000000000000000000000002' + '11' + '0001' + '0002');
  });

  it('without usable ports (fragments, ICMP) hashes the L3 fields alone', () => {
    const sel = new FieldSelector(opts());
    const frag = tupleFromText(flow);
    frag.fragment = true; // first fragment: ports were read, but all pieces must go one way
    expect(keyHex(sel, sel.selectTuple(frag))).toBe('0a010203c000020706');
    const icmp = tupleFromText({ src: '10.1.2.3', dst: '192.0.2.7', proto: 'icmp' });
    expect(keyHex(sel, sel.selectTuple(icmp))).toBe('0a010203c000020701');
  });

  it('l2: src MAC, dst MAC, VLAN IDs (outer first)', () => {
    const sel = new FieldSelector(opts({ fields: 'l2' }));
    const pkt = fakePacket({ flow, srcMac: '02:00:00:00:00:aa', dstMac: '02:00:00:00:00:bb', vlans: [100, 0xfff] });
    expect(keyHex(sel, sel.selectPacket(pkt))).toBe('0200000000aa' + '0200000000bb' + '0064' + '0fff');
  });

  it('non-IP frames under l3/l3l4 hash their L2 fields; frames with neither give an empty key', () => {
    const sel = new FieldSelector(opts());
    const arp = fakePacket({ srcMac: '02:00:00:00:00:01', dstMac: 'ff:ff:ff:ff:ff:ff' });
    expect(keyHex(sel, sel.selectPacket(arp))).toBe('020000000001ffffffffffff');
    expect(sel.selectPacket(fakePacket({ noEthernet: true }))).toBe(0);
  });

  it('l2 profile on a frame without Ethernet (SLL, raw IP) hashes L3+L4', () => {
    const sel = new FieldSelector(opts({ fields: 'l2' }));
    const raw = fakePacket({ flow, noEthernet: true });
    expect(keyHex(sel, sel.selectPacket(raw))).toBe('0a010203c00002070612340050');
  });

  it('tunnel outer/inner picks the header level', () => {
    const pkt = fakePacket({ flow: { src: '203.0.113.1', dst: '203.0.113.2', proto: 47 }, inner: flow });
    const outer = new FieldSelector(opts({ tunnel: 'outer' }));
    expect(keyHex(outer, outer.selectPacket(pkt))).toBe('cb007101cb0071022f');
    const inner = new FieldSelector(opts({ tunnel: 'inner' }));
    expect(keyHex(inner, inner.selectPacket(pkt))).toBe('0a010203c00002070612340050');
    // not tunnelled: inner = outer
    const plain = fakePacket({ flow });
    expect(keyHex(inner, inner.selectPacket(plain))).toBe(keyHex(outer, outer.selectPacket(plain)));
  });

  it('rejects unknown options', () => {
    expect(() => new FieldSelector(opts({ fields: 'l4' as never }))).toThrow(/unknown field set/);
    expect(() => new FieldSelector(opts({ tunnel: 'middle' as never }))).toThrow(/unknown tunnel/);
  });
});

describe('symmetric hashing (dataplane.md T6)', () => {
  // 192.168.37.50 and 192.168.37.178 load as 0x3225a8c0 / 0xb225a8c0 on a little-endian host: they
  // differ by 0x80000000, which broke Linux's signed comparison in __flow_hash_consistentify.
  const pair: FlowText = { src: '192.168.37.50', dst: '192.168.37.178', sport: 1234, dport: 80, proto: 'tcp' };
  const cases: Array<[string, FlowText]> = [
    ['the 192.168.37.50:1234 ↔ 192.168.37.178:80 pair', pair],
    ['IPv6 fe80::1 ↔ fe80::2', { src: 'fe80::1', dst: 'fe80::2', sport: 5000, dport: 443, proto: 'udp' }],
    ['a hairpin flow (equal addresses, ports swapped)', { src: '10.0.0.1', dst: '10.0.0.1', sport: 40000, dport: 80, proto: 'tcp' }],
  ];

  for (const name of HASH_ALGORITHMS) {
    for (const [what, f] of cases) {
      for (const fields of ['l3', 'l3l4'] as const) {
        it(`${name} ${fields}: ${what} hashes alike both ways`, () => {
          const algo = createHash(name, DEFAULT_ECMP.toeplitzKey);
          const sel = new FieldSelector(opts({ fields, symmetric: true, layout: algo.layout }));
          const a = algo.hash(sel.buf, sel.selectTuple(tupleFromText(f)));
          const b = algo.hash(sel.buf, sel.selectTuple(tupleFromText(reverse(f))));
          expect(b).toBe(a);
        });
      }
    }

    it(`${name}: without the option the two directions of the pair differ (the test can fail)`, () => {
      const algo = createHash(name, DEFAULT_ECMP.toeplitzKey);
      const sel = new FieldSelector(opts({ symmetric: false, layout: algo.layout }));
      const a = algo.hash(sel.buf, sel.selectTuple(tupleFromText(pair)));
      const b = algo.hash(sel.buf, sel.selectTuple(tupleFromText(reverse(pair))));
      expect(b).not.toBe(a);
    });
  }

  it('orders the lower address first, then the lower port', () => {
    const sel = new FieldSelector(opts({ symmetric: true }));
    expect(keyHex(sel, sel.selectTuple(tupleFromText(reverse(pair))))).toBe('c0a82532' + 'c0a825b2' + '06' + '04d2' + '0050');
    const hairpin = tupleFromText({ src: '10.0.0.1', dst: '10.0.0.1', sport: 40000, dport: 80, proto: 'tcp' });
    expect(keyHex(sel, sel.selectTuple(hairpin))).toBe('0a000001' + '0a000001' + '06' + '0050' + '9c40');
  });

  it('l2: the two MACs are ordered too', () => {
    const sel = new FieldSelector(opts({ fields: 'l2', symmetric: true }));
    const a = fakePacket({ srcMac: '02:00:00:00:00:bb', dstMac: '02:00:00:00:00:aa' });
    const b = fakePacket({ srcMac: '02:00:00:00:00:aa', dstMac: '02:00:00:00:00:bb' });
    expect(keyHex(sel, sel.selectPacket(a))).toBe('0200000000aa0200000000bb');
    expect(keyHex(sel, sel.selectPacket(b))).toBe('0200000000aa0200000000bb');
  });
});

describe('writeFlowKey', () => {
  it('is direction-insensitive and separates protocols and port pairs', () => {
    const k = (f: FlowText) => {
      const out = new Uint8Array(FLOW_KEY_BYTES);
      return Buffer.from(out.subarray(0, writeFlowKey(tupleFromText(f), out))).toString('hex');
    };
    const f: FlowText = { src: '192.168.37.178', dst: '192.168.37.50', sport: 80, dport: 1234, proto: 'tcp' };
    expect(k(f)).toBe(k(reverse(f)));
    expect(k(f)).toBe('04' + '06' + 'c0a82532' + 'c0a825b2' + '04d2' + '0050');
    expect(k({ ...f, proto: 'udp' })).not.toBe(k(f));
    expect(k({ ...f, sport: 81 })).not.toBe(k(f));
    expect(k({ src: '10.0.0.1', dst: '10.0.0.2', proto: 'icmp' })).toBe('0401' + '0a000001' + '0a000002');
  });
});
