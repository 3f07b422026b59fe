/**
 * Seeded synthetic 5-tuples for the ECMP distribution tests and the bench, following the flow
 * model of dataplane.md §3 ("General rules"): source address uniform in 10.0.0.0/8, source port
 * uniform in 1024..65535, destination one of 16 VIP:port pairs (chosen once from the seed:
 * addresses in 198.18.0.0/15, the RFC 2544 benchmarking range; ports from a list of common
 * service ports), protocol TCP with probability 0.8 and UDP otherwise. Fills a caller-owned
 * FlowTuple in place (no allocation per flow).
 */
import type { Random } from '../common/random.ts';
import type { FlowTuple } from '../packet/flow-tuple.ts';

const SERVICE_PORTS = [80, 443, 53, 8080, 8443, 25, 110, 143, 993, 995, 3306, 5432, 6379, 11211, 5060, 1812];

/** Generator of random IPv4 5-tuples (see the module header). */
export class SyntheticFlows {
  /** The VIP addresses (u32, host order) and ports, fixed at construction. */
  readonly vips: Uint32Array;
  readonly vipPorts: Uint16Array;

  /**
   * @param random the seeded source (e.g. new SeededRandom(seed)); the same seed gives the same flows
   * @param vipCount number of VIP:port pairs (default 16)
   */
  constructor(private readonly random: Random, vipCount = 16) {
    this.vips = new Uint32Array(vipCount);
    this.vipPorts = new Uint16Array(vipCount);
    for (let i = 0; i < vipCount; i++) {
      this.vips[i] = (0xc6120000 | random.int(0x20000)) >>> 0;
      this.vipPorts[i] = SERVICE_PORTS[i % SERVICE_PORTS.length]!;
    }
  }

  /** Fills `t` with the next random flow (IPv4, ports present, not a fragment) and returns it. */
  next(t: FlowTuple): FlowTuple {
    const r = this.random;
    const src = 0x0a000000 | r.int(0x1000000);
    const v = r.int(this.vips.length);
    const dst = this.vips[v]!;
    t.family = 4;
    t.src[0] = src >>> 24;
    t.src[1] = (src >>> 16) & 0xff;
    t.src[2] = (src >>> 8) & 0xff;
    t.src[3] = src & 0xff;
    t.dst[0] = dst >>> 24;
    t.dst[1] = (dst >>> 16) & 0xff;
    t.dst[2] = (dst >>> 8) & 0xff;
    t.dst[3] = dst & 0xff;
    t.proto = r.next() < 0.8 ? 6 : 17;
    t.hasPorts = true;
    t.fragment = false;
    t.sport = 1024 + r.int(65536 - 1024);
    t.dport = this.vipPorts[v]!;
    return t;
  }
}
