/**
 * The services written back into a shelf YAML (chassis/config/services-yaml.ts): the default and
 * the live shelf's services read back identical through the loader; the rest of the document and
 * its comments stay; run-time additions (flags, netmask, client address, an empty pool) survive.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseShelfConfig } from '../../../../chassis/config/shelf-config.ts';
import { withServices } from '../../../../chassis/config/services-yaml.ts';
import { repoRoot } from '../../../support/shared.ts';

const read = (f: string) => readFileSync(join(repoRoot, 'chassis', 'config', f), 'utf8');

describe('withServices', () => {
  for (const f of ['default-shelf.yaml', 'live-shelf.yaml']) {
    it(`${f}: its own services written back read identically; the other sections unchanged`, () => {
      const yaml = read(f);
      const c = parseShelfConfig(yaml, f);
      const again = withServices(yaml, c.dataplane.processor.services);
      const c2 = parseShelfConfig(again, f);
      expect(c2.dataplane.processor.services).toEqual(c.dataplane.processor.services);
      expect({ ...c2, dataplane: null }).toEqual({ ...c, dataplane: null });
      expect(again).toContain('# Redundant pairs and their timing');
    });
  }
  it('run-time settings survive the round trip', () => {
    const yaml = read('default-shelf.yaml');
    const c = parseShelfConfig(yaml, 'x');
    const svc = {
      ...c.dataplane.processor.services[0]!, name: 'tcp-198.51.100.1-80', vip: '198.51.100.1', port: 80, protocol: 'tcp' as const,
      scheduler: 'sh' as const, schedulerFlags: ['sh-port' as const], persistenceMs: 300_000, persistenceNetmask: 24,
      pool: [{ name: '10.2.0.1:8080', address: '10.2.0.1', port: 8080, weight: 3 }],
    };
    const empty = { ...svc, name: 'empty', vip: '198.51.100.2', pool: [] };
    const back = parseShelfConfig(withServices(yaml, [svc, empty]), 'x').dataplane.processor.services;
    expect(back).toEqual([svc, empty]);
  });
});
