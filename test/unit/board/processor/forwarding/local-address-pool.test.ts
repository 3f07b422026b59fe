/**
 * The fullnat local address pool (board/processor/forwarding/local-address-pool.ts): allocation per
 * address and RS, exhaustion as a reason and a counter, partitions by share, reservations of synced
 * sessions, a VIP refused as a local address.
 */
import { describe, expect, it } from 'vitest';
import { LocalAddressPool } from '../../../../../board/processor/forwarding/local-address-pool.ts';
import { addr } from '../../../../support/frames.ts';

describe('local address pool (fullnat)', () => {
  it('allocates per (address, RS), round-robin over addresses, never reusing a port in use', () => {
    const pool = new LocalAddressPool({ addresses: ['198.18.10.30', '198.18.10.31'], portMin: 2000, portMax: 2003 });
    const out = { address: new Uint8Array(16), port: 0 };
    const got: string[] = [];
    for (let i = 0; i < 8; i++) {
      expect(pool.allocate(0, 4, 6, 'fnat1@198.18.10.121', out)).toBe(true);
      got.push(`${out.address[3]}:${out.port}`);
    }
    expect(new Set(got).size).toBe(8);
    expect(pool.allocate(0, 4, 6, 'fnat1@198.18.10.121', out)).toBe(false);
    expect(pool.lastFailure).toBe('local_ports_exhausted');
    expect(pool.stats.exhausted).toBe(1);
    // another RS has its own ports on the same addresses; UDP too
    expect(pool.allocate(0, 4, 6, 'fnat2@198.18.10.122', out)).toBe(true);
    expect(pool.allocate(0, 4, 17, 'fnat1@198.18.10.121', out)).toBe(true);
    pool.release(4, 6, 'fnat1@198.18.10.121', addr('198.18.10.31'), 2002);
    expect(pool.allocate(0, 4, 6, 'fnat1@198.18.10.121', out)).toBe(true);
    expect(`${out.address[3]}:${out.port}`).toBe('31:2002');
    expect(pool.stats.inUse).toBe(10);
  });
  it('partitions by share: two owners never hand out the same port', () => {
    const a = new LocalAddressPool({ addresses: ['198.18.10.30'], portMin: 1024, portMax: 1123, shares: 2 });
    const b = new LocalAddressPool({ addresses: ['198.18.10.30'], portMin: 1024, portMax: 1123, shares: 2 });
    const out = { address: new Uint8Array(16), port: 0 };
    const pa = new Set<number>();
    const pb = new Set<number>();
    while (a.allocate(0, 4, 6, 'rs', out)) pa.add(out.port);
    while (b.allocate(1, 4, 6, 'rs', out)) pb.add(out.port);
    expect(pa.size).toBe(50);
    expect(pb.size).toBe(50);
    expect([...pa].filter((p) => pb.has(p))).toEqual([]);
    expect([...pa].every((p) => a.shareOf(p) === 0)).toBe(true);
  });
  it('reserves synced ports (a conflict is counted) and refuses unknown addresses', () => {
    const pool = new LocalAddressPool({ addresses: ['fd00:a7ca:10::30'], portMin: 5000, portMax: 5001 });
    expect(pool.reserve(6, 6, 'rs', addr('fd00:a7ca:10::30'), 5000)).toBe(true);
    expect(pool.reserve(6, 6, 'rs', addr('fd00:a7ca:10::30'), 5000)).toBe(false);
    expect(pool.stats.conflicts).toBe(1);
    expect(pool.reserve(6, 6, 'rs', addr('fd00:a7ca:10::31'), 5000)).toBe(false);
    const out = { address: new Uint8Array(16), port: 0 };
    expect(pool.allocate(0, 6, 6, 'rs', out)).toBe(true);
    expect(out.port).toBe(5001);
    expect(pool.allocate(0, 4, 6, 'rs', out)).toBe(false);
    expect(pool.lastFailure).toBe('no_local_address');
  });
  it('refuses a local address that is a VIP, naming both', () => {
    expect(() => new LocalAddressPool({ addresses: ['198.18.100.12'] }, [{ service: 'web-fullnat', vip: '198.18.100.12' }]))
      .toThrow("local address pool: address 198.18.100.12 is the VIP of service 'web-fullnat'");
    expect(() => new LocalAddressPool({ addresses: ['10.0.0.1', '10.0.0.1'] })).toThrow('listed twice');
    expect(() => new LocalAddressPool({ addresses: ['10.0.0.1'], portMin: 10, portMax: 5 })).toThrow('bad port range');
  });
});
