// The live keys of the shelf YAML (chassis/config/live-section.ts): the shipped live shelf reads
// into front/back ports, local pools, the back gateway and per-service / per-member forwarding;
// broken entries are one-line refusals at the key (an RS outside every back-side subnet, a local
// address that is a VIP, a port on the wrong kind of board, a bad range).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../board/common/errors.ts';
import { parseShelfConfig } from '../../../../chassis/config/shelf-config.ts';

const live = readFileSync(new URL('../../../../chassis/config/live-shelf.yaml', import.meta.url), 'utf8');

function refusal(text: string): string {
  try {
    parseShelfConfig(text, 'live.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('accepted');
}

describe('live shelf keys', () => {
  const cfg = parseShelfConfig(live, 'live.yaml');
  it('reads the hubs\' front ports and the boards\' back ports', () => {
    const hub1 = cfg.frus.find((f) => f.name === 'slot1')!;
    expect(hub1.frontPort).toEqual({ address: '198.18.1.2/24', address6: 'fd00:a7ca:1::2/64', gateway: '198.18.1.1', gateway6: 'fd00:a7ca:1::1', mtu: 1500 });
    const n3 = cfg.frus.find((f) => f.name === 'slot3')!;
    expect(n3.backPort?.address).toBe('198.18.10.3/24');
    expect(n3.backPort?.localAddresses).toEqual(['198.18.10.30', '198.18.10.31', 'fd00:a7ca:10::30']);
    expect([n3.backPort?.localPortMin, n3.backPort?.localPortMax]).toEqual([1024, 65535]);
    expect(cfg.dataplane.backGateway).toEqual({ address: '198.18.10.2', address6: 'fd00:a7ca:10::2' });
  });
  it('reads the forwarding mode per service and the member override', () => {
    const svcs = cfg.dataplane.processor.services;
    expect(svcs.map((s) => s.forwarding)).toEqual(['dr', 'nat', 'fullnat', 'fullnat']);
    const fnat = svcs.find((s) => s.name === 'web-fullnat')!;
    expect(fnat.pool.map((p) => p.forwarding)).toEqual([undefined, undefined, 'nat']);
  });
  it('defaults to tunnel and no live ports on the default shelf', () => {
    const def = parseShelfConfig(readFileSync(new URL('../../../../chassis/config/default-shelf.yaml', import.meta.url), 'utf8'), 'd.yaml');
    expect(def.dataplane.processor.services.every((s) => s.forwarding === 'tunnel')).toBe(true);
    expect(def.frus.some((f) => f.backPort || f.frontPort)).toBe(false);
  });
  it('refuses an RS outside every back-side subnet, at its address', () => {
    const m = refusal(live.replace('198.18.10.102:80', '203.0.113.7:80'));
    expect(m).toMatch(/^live\.yaml:\d+:\d+: .*real server dr2 \(203\.0\.113\.7\) of service 'web-dr' is outside every back-side subnet \(198\.18\.10\.0\/24, fd00:a7ca:10::\/64\)/);
    expect(m.split('\n')).toHaveLength(1);
  });
  it('refuses a local address that is a VIP', () => {
    const m = refusal(live.replace('vip: 198.18.100.10', 'vip: 198.18.10.50'));
    expect(m).toMatch(/^live\.yaml:\d+:\d+: boards\.slot5\.back_port\.local_addresses\[0\]: local address 198\.18\.10\.50 of slot5 overlaps the VIP 198\.18\.10\.50 of service 'web-dr'/);
  });
  it('refuses a local address outside the port\'s subnet, a bad range, a port on the wrong board', () => {
    expect(refusal(live.replace('local_addresses: [198.18.10.30,', 'local_addresses: [198.18.11.30,'))).toMatch(/local address 198\.18\.11\.30 is outside the port's subnet 198\.18\.10\.3\/24/);
    expect(refusal(live.replace('local_ports: 1024-65535', 'local_ports: 9000-80'))).toMatch(/"9000-80" is not a port range/);
    expect(refusal(live.replace('front_port: { address: 198.18.1.2/24', 'back_port: { address: 198.18.1.2/24'))).toMatch(/only processor boards have a back_port/);
    expect(refusal(live.replace('forwarding: dr ', 'forwarding: ipvs '))).toMatch(/"ipvs" is not one of tunnel, dr, nat, fullnat/);
    expect(refusal(live.replace('gateway: 198.18.1.1,', 'gateway: 198.18.9.1,'))).toMatch(/198\.18\.9\.1 is outside the port's subnet 198\.18\.1\.2\/24/);
  });
});
