/**
 * The `lb.*` control ops (chassis/runtime/lb-ops.ts) on a real emulator in simulated time
 * (default shelf, MemoryStore): malformed `lb.apply` edits are refused in one line naming the
 * field and change nothing; a refused edit of several is named `edit K:`; `lb.zero` refuses a
 * service argument that is not a name and zeroes nothing then.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { memoryInput } from '../../../../chassis/dataplane/traffic.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { BUNDLED_CAPTURE_PATH } from '../../../../chassis/runtime/assets.ts';
import { ControlOps, type ControlResponse } from '../../../../chassis/runtime/control-ops.ts';
import { Emulator } from '../../../../chassis/runtime/emulator.ts';
import { registerLbOps, type LbService } from '../../../../chassis/runtime/lb-ops.ts';

const clock = new SimClock();
const store = new MemoryStore();
const ops = new ControlOps();
let em: Emulator;

beforeAll(async () => {
  em = await Emulator.start({
    platform: { clock, log: captureLogger(), random: new SeededRandom(1), cryptoRandom: (n) => new Uint8Array(n).fill(7) },
    store,
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 4096,
    admin: { password: 'admin-secret-1' },
    traffic: { inputs: [memoryInput('bundled', readFileSync(BUNDLED_CAPTURE_PATH))], label: 'bundled', pacing: { mode: 'rate', pps: 20_000 } },
    ipmi: {},
  });
  registerLbOps(ops, { config: em.config, dataPlane: em.dataPlane, store, nowMs: () => Date.UTC(2025, 0, 1) });
});
afterAll(async () => em.stop());

async function call(op: string, args: Record<string, unknown>): Promise<ControlResponse> {
  return ops.handle({ id: 1, op, args });
}

async function listing(): Promise<LbService[]> {
  const a = await call('lb.list', {});
  if (!a.ok) throw new Error(a.error);
  return (a.result as { services: LbService[] }).services;
}

const WEB = { protocol: 'tcp', vip: '198.51.100.9', port: 80 };

describe('lb.apply', () => {
  it('malformed edits are refused in one line naming the field; nothing changes', async () => {
    const before = await listing();
    const yaml = store.getConfig()!.yaml;
    const cases: Array<[unknown, string]> = [
      [[null], 'lb.apply: edits[0]: an edit object expected, got null'],
      [[{ op: 'frobnicate' }], 'lb.apply: edits[0].op: one of add-service|edit-service|delete-service|add-server|edit-server|delete-server|clear expected, got "frobnicate"'],
      [[{ op: 'add-service', service: WEB }, { op: 'add-server', service: WEB, server: null }], 'lb.apply: edits[1].server: an object expected, got null'],
      [[{ op: 'add-service', service: WEB, settings: { schedulerFlags: 'abc' } }], 'lb.apply: edits[0].settings.schedulerFlags: a list of sh-fallback|sh-port expected, got "abc"'],
      [[{ op: 'add-service', service: { ...WEB, port: 70000 } }], 'lb.apply: edits[0].service.port: an integer 0..65535 expected, got 70000'],
      [[{ op: 'add-service', service: { ...WEB, vip: 'nope\x1b' } }], 'lb.apply: edits[0].service.vip: an IPv4 or IPv6 address expected, got "nope\\u001b"'],
      [[{ op: 'delete-service' }], 'lb.apply: edits[0].service: an object expected, got undefined'],
      [[{ op: 'edit-service', service: WEB }], 'lb.apply: edits[0].settings: an object expected, got undefined'],
      [[{ op: 'add-server', service: WEB, server: { address: '10.2.0.1', weight: -1 } }], 'lb.apply: edits[0].server.weight: an integer 0..65535 expected, got -1'],
      [[{ op: 'clear', service: WEB }], 'lb.apply: edits[0]: unknown key "service" (op)'],
      [[{ op: 'add-service', service: WEB, settings: { health: { rise: 0 } } }], 'lb.apply: edits[0].settings.health.rise: an integer 1..100 expected, got 0'],
    ];
    for (const [edits, error] of cases) {
      const a = await call('lb.apply', { edits });
      expect(a, JSON.stringify(edits)).toEqual({ id: 1, ok: false, error });
    }
    expect(await listing()).toEqual(before);
    expect(store.getConfig()!.yaml).toBe(yaml);
  });

  it('a well-formed change applies; a refused edit of several is named edit K; port 0 needs persistence', async () => {
    const ok = await call('lb.apply', { edits: [{ op: 'add-service', service: WEB, settings: { scheduler: 'rr' } }, { op: 'add-server', service: WEB, server: { address: '10.2.0.1' } }] });
    expect(ok.ok, JSON.stringify(ok)).toBe(true);
    expect((await listing()).find((s) => s.vip === WEB.vip)).toMatchObject({ scheduler: 'rr', servers: [{ address: '10.2.0.1', port: 80 }] });
    expect(await call('lb.apply', { edits: [{ op: 'add-service', service: WEB }] })).toMatchObject({ ok: false, error: 'Service already exists' });
    expect(await call('lb.apply', { edits: [{ op: 'clear' }, { op: 'add-service', service: WEB }, { op: 'add-service', service: WEB }] })).toMatchObject({ ok: false, error: 'edit 3: Service already exists' });
    expect(await call('lb.apply', { edits: [{ op: 'add-service', service: { ...WEB, port: 0 } }] })).toMatchObject({ ok: false, error: 'Zero port specified for non-persistent service' });
    expect((await listing()).some((s) => s.vip === WEB.vip && s.port === 80)).toBe(true);
  });
});

describe('lb.zero', () => {
  it('refuses a service that is not a name (nor a known one) and zeroes nothing; without one it zeroes all', async () => {
    clock.advance(1500);
    const total = (ss: LbService[]) => ss.reduce((n, s) => n + s.servers.reduce((m, r) => m + r.inPackets, 0), 0);
    const before = total(await listing());
    expect(before).toBeGreaterThan(0);
    expect(await call('lb.zero', { service: 123 })).toEqual({ id: 1, ok: false, error: 'lb.zero: args.service must be a service name (a string)' });
    expect(await call('lb.zero', { service: null })).toMatchObject({ ok: false });
    expect(await call('lb.zero', { service: 'no-such\x07' })).toEqual({ id: 1, ok: false, error: 'lb.zero: No such service "no-such\\x07"' });
    expect(total(await listing())).toBeGreaterThanOrEqual(before);
    expect(await call('lb.zero', {})).toMatchObject({ ok: true });
    expect(total(await listing())).toBe(0);
  });
});
