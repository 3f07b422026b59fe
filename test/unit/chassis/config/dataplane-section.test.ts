/**
 * The service keys of the dataplane section (chassis/config/dataplane-section.ts) that ipvsadm's
 * vocabulary brought: `scheduler_flags` (-b sh-fallback, sh-port) and `persistence_netmask` (-M),
 * and their refusals at file:line:column.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../board/common/errors.ts';
import { netmaskBits } from '../../../../chassis/config/ip-address.ts';
import { parseShelfConfig } from '../../../../chassis/config/shelf-config.ts';

const BASE = `shelf:
  name: t
shelf_managers:
  units:
    shmc-a: {}
    shmc-b: {}
boards:
  slot1: { type: hub }
  slot3: { type: processor }
  slot4: { type: processor }
dataplane:
  services:
`;
const svc = (extra: string, vip = '10.0.0.1') => `${BASE}    - { name: a, vip: ${vip}, port: 80, protocol: tcp, scheduler: sh, ${extra}pool: [{ name: r, address: 10.1.1.1 }] }\n`;

function errorOf(text: string): ConfigError {
  try {
    parseShelfConfig(text, 'shelf.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('no ConfigError');
}

describe('dataplane service keys from ipvsadm', () => {
  it('scheduler_flags and persistence_netmask reach the service; absent they stay undefined', () => {
    const one = (text: string) => parseShelfConfig(text, 'shelf.yaml').dataplane.processor.services[0]!;
    const plain = one(svc(''));
    expect(plain.schedulerFlags).toBeUndefined();
    expect(plain.persistenceNetmask).toBeUndefined();
    expect(one(svc('scheduler_flags: [sh-port, sh-fallback], ')).schedulerFlags).toEqual(['sh-port', 'sh-fallback']);
    expect(one(svc('scheduler_flags: [], ')).schedulerFlags).toEqual([]);
    expect(one(svc('persistence: 5m, persistence_netmask: 255.255.255.0, ')).persistenceNetmask).toBe(24);
    expect(one(svc('persistence_netmask: 20, ')).persistenceNetmask).toBe(20);
    expect(one(svc('persistence_netmask: /64, ', 'fd00::1')).persistenceNetmask).toBe(64);
  });
  it('refusals name the value', () => {
    const t1 = svc('scheduler_flags: [sh-portt], ');
    const e1 = errorOf(t1);
    expect(e1.message).toMatch(/"sh-portt" is not one of sh-fallback, sh-port/);
    expect(e1.column).toBe(t1.split('\n').at(-2)!.indexOf('sh-portt') + 1);
    expect(errorOf(svc('persistence_netmask: 255.0.255.0, ')).message).toMatch(/"255.0.255.0" is not a netmask/);
    expect(errorOf(svc('persistence_netmask: 64, ')).message).toMatch(/"64" is not a netmask .*0\.\.32/);
  });
  it('client_address: toa / proxy-protocol on a fullnat TCP service; refused for other modes and protocols at the key', () => {
    const fn = (extra: string, fwd = 'fullnat', proto = 'tcp') => `${BASE}    - { name: a, vip: 10.0.0.1, port: 80, protocol: ${proto}, forwarding: ${fwd}, ${extra}pool: [{ name: r, address: 10.1.1.1 }] }\n`;
    const one = (text: string) => parseShelfConfig(text, 'shelf.yaml').dataplane.processor.services[0]!;
    expect(one(fn('client_address: toa, ')).clientAddress).toBe('toa');
    expect(one(fn('client_address: proxy-protocol, ')).clientAddress).toBe('proxy-protocol');
    expect(one(fn('client_address: none, ', 'nat')).clientAddress).toBe('none');
    expect(one(fn('')).clientAddress).toBeUndefined();
    const t = fn('client_address: toa, ', 'nat');
    const e = errorOf(t);
    expect(e.message).toMatch(/client_address toa needs forwarding fullnat \(real server "r" forwards by nat\)/);
    expect(e.column).toBe(t.split('\n').at(-2)!.indexOf('toa') + 1);
    expect(errorOf(fn('client_address: proxy-protocol, ', 'fullnat', 'udp')).message).toMatch(/needs protocol tcp \(the service is udp\)/);
    expect(errorOf(fn('client_address: xff, ')).message).toMatch(/"xff" is not one of none, toa, proxy-protocol/);
  });
  it('netmaskBits: dotted masks (contiguous ones only) and prefix lengths', () => {
    expect(netmaskBits('255.255.255.0', 32)).toBe(24);
    expect(netmaskBits('255.255.254.0', 32)).toBe(23);
    expect(netmaskBits('0.0.0.0', 32)).toBe(0);
    expect(netmaskBits('255.255.255.255', 32)).toBe(32);
    expect(netmaskBits('255.0.255.0', 32)).toBeNull();
    expect(netmaskBits('255.255.255.0', 128)).toBeNull();
    expect(netmaskBits('64', 128)).toBe(64);
    expect(netmaskBits('129', 128)).toBeNull();
  });
});
