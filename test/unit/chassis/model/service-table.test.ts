/**
 * The run-time service-table edits (chassis/model/service-table.ts) in ipvsadm's terms: -A/-E/-D,
 * -a/-e/-d, -C; identities by protocol, VIP and port (IPv6 spelled either way), libipvs's refusal
 * words, the input never changed.
 */
import { describe, expect, it } from 'vitest';
import { applyServiceEdits, ServiceEditError, type ServiceRef } from '../../../../chassis/model/service-table.ts';
import { service } from '../../../support/processor-config.ts';

const WEB: ServiceRef = { protocol: 'tcp', vip: '198.51.100.1', port: 80 };

describe('service table edits', () => {
  it('-A then two -a, -e a weight, -d one: the pool follows; ipvsadm defaults', () => {
    const s = applyServiceEdits([], [
      { op: 'add-service', service: WEB, settings: { scheduler: 'wrr' } },
      { op: 'add-server', service: WEB, server: { address: '10.2.0.1', port: 8080, weight: 2 } },
      { op: 'add-server', service: WEB, server: { address: '10.2.0.2', forwarding: 'nat' } },
      { op: 'edit-server', service: WEB, server: { address: '10.2.0.1', port: 8080, weight: 5 } },
    ]);
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ name: 'tcp-198.51.100.1-80', scheduler: 'wrr', persistenceMs: 0, encapsulation: 'gre' });
    expect(s[0]!.pool).toEqual([
      { name: '10.2.0.1:8080', address: '10.2.0.1', port: 8080, weight: 5 },
      { name: '10.2.0.2:80', address: '10.2.0.2', weight: 1, forwarding: 'nat' },
    ]);
    const t = applyServiceEdits(s, [{ op: 'delete-server', service: WEB, server: { address: '10.2.0.2', port: 80 } }]);
    expect(t[0]!.pool.map((r) => r.name)).toEqual(['10.2.0.1:8080']);
    expect(s[0]!.pool).toHaveLength(2); // input untouched
    expect(applyServiceEdits(applyServiceEdits([], [{ op: 'add-service', service: WEB }]), [])[0]!.scheduler).toBe('wlc');
  });
  it('-E changes settings of a YAML service found by protocol/VIP/port; IPv6 in another spelling matches', () => {
    const yaml = service({ name: 'web6', vip: 'fd00:0:0::1', port: 443 });
    const e = applyServiceEdits([yaml], [{ op: 'edit-service', service: { protocol: 'tcp', vip: 'fd00::1', port: 443 }, settings: { scheduler: 'sh', schedulerFlags: ['sh-port'], persistenceMs: 300_000, persistenceNetmask: 64 } }]);
    expect(e[0]).toMatchObject({ name: 'web6', scheduler: 'sh', schedulerFlags: ['sh-port'], persistenceMs: 300_000, persistenceNetmask: 64 });
  });
  it('refusals in libipvs words; -C clears', () => {
    const one = applyServiceEdits([], [{ op: 'add-service', service: WEB }, { op: 'add-server', service: WEB, server: { address: '10.2.0.1' } }]);
    expect(() => applyServiceEdits(one, [{ op: 'add-service', service: WEB }])).toThrow('Service already exists');
    const other: ServiceRef = { ...WEB, protocol: 'udp' };
    expect(() => applyServiceEdits(one, [{ op: 'edit-service', service: other, settings: {} }])).toThrow('No such service');
    expect(() => applyServiceEdits(one, [{ op: 'delete-service', service: other }])).toThrow('No such service');
    expect(() => applyServiceEdits(one, [{ op: 'add-server', service: other, server: { address: '10.2.0.1' } }])).toThrow('Service not defined');
    expect(() => applyServiceEdits(one, [{ op: 'add-server', service: WEB, server: { address: '10.2.0.1', port: 80 } }])).toThrow('Destination already exists');
    expect(() => applyServiceEdits(one, [{ op: 'edit-server', service: WEB, server: { address: '10.2.0.9' } }])).toThrow('No such destination');
    expect(() => applyServiceEdits(one, [{ op: 'delete-server', service: WEB, server: { address: '10.2.0.1', port: 81 } }])).toThrow('No such destination');
    expect(applyServiceEdits(one, [{ op: 'clear' }])).toEqual([]);
  });
});

describe('service table edits: port 0 and the refused edit', () => {
  it('a port-0 service must be persistent (-A and -E); the refusal carries the edit index', () => {
    const ANY: ServiceRef = { protocol: 'tcp', vip: '198.51.100.3', port: 0 };
    expect(() => applyServiceEdits([], [{ op: 'add-service', service: ANY }])).toThrow('Zero port specified for non-persistent service');
    const s = applyServiceEdits([], [{ op: 'add-service', service: ANY, settings: { persistenceMs: 60_000 } }]);
    expect(s[0]!.port).toBe(0);
    expect(() => applyServiceEdits(s, [{ op: 'edit-service', service: ANY, settings: { persistenceMs: 0 } }])).toThrow('Zero port specified for non-persistent service');
    expect(applyServiceEdits(s, [{ op: 'edit-service', service: ANY, settings: { scheduler: 'rr' } }])[0]!.persistenceMs).toBe(60_000);
    try {
      applyServiceEdits([], [{ op: 'add-service', service: WEB }, { op: 'clear' }, { op: 'add-service', service: WEB }, { op: 'add-service', service: WEB }]);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ServiceEditError);
      expect((e as ServiceEditError).message).toBe('Service already exists');
      expect((e as ServiceEditError).index).toBe(3);
    }
  });
});
