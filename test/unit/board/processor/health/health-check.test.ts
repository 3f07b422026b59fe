import { describe, expect, it } from 'vitest';
import { HealthChecker } from '../../../../../board/processor/health/health-check.ts';
import type { HealthChange, HealthTarget } from '../../../../../board/processor/health/health-check.ts';
import type { ProbePort, ProbeRequest, ProbeResult } from '../../../../../board/processor/health/probe-port.ts';
import { SimClock } from '../../../../../board/common/sim-clock.ts';

const sim = (down: Array<{ from: number; to: number }> = []) => ({ capacity: 100, cpu: 0.2, mem: 0.3, queue: 0, down });
const target = (id: number, over: Partial<HealthTarget> = {}): HealthTarget => ({ id, name: `rs${id}`, real: false, host: `10.0.0.${id}`, port: undefined, sim: sim(), ...over });

/** Runs a checker on a SimClock by scheduling a tick at every deadline it returns. */
function drive(c: HealthChecker, clock: SimClock, until: number): void {
  const step = () => {
    const next = c.tick(clock.now());
    if (next < Infinity && next <= until) clock.setTimeout(step, next - clock.now());
  };
  step();
  clock.runUntil(until);
}

describe('HealthChecker (rise/fall)', () => {
  it('goes down after `fall` failures and up after `rise` successes, in simulated time', () => {
    const changes: HealthChange[] = [];
    const c = new HealthChecker({
      config: { kind: 'icmp', intervalMs: 5000, timeoutMs: 1000, rise: 2, fall: 3 },
      targets: [target(7), target(8, { sim: sim([{ from: 12_000, to: 26_000 }]) })],
      startMs: 0,
      onChange: (x) => changes.push(x),
    });
    const clock = new SimClock();
    drive(c, clock, 60_000);
    // rs8 probes at 15, 20, 25 s fail (known at +1 s) → down at 26 s; 30, 35 s succeed → up at 35 s
    expect(changes.map((x) => `${x.id}:${x.up ? 'up' : 'down'}@${x.atMs}`)).toEqual(['8:down@26000', '8:up@35000']);
    expect(changes[0]!.detail).toBe('probe failed 3 times: scheduled outage');
    expect(c.probes).toBe(24); // 12 rounds × 2 targets
  });

  it('two failures then a success never go down (the run resets)', () => {
    const changes: HealthChange[] = [];
    const c = new HealthChecker({
      config: { kind: 'tcp', intervalMs: 1000, timeoutMs: 0, rise: 1, fall: 3 },
      targets: [target(1)],
      startMs: 0,
      onChange: (x) => changes.push(x),
    });
    const clock = new SimClock();
    for (const [t, fail] of [[1000, true], [2000, true], [3000, false], [4000, true], [5000, true], [6000, true]] as const) {
      c.setFailing(0, fail);
      clock.runUntil(t);
      c.tick(clock.now());
    }
    expect(changes.map((x) => `${x.up}@${x.atMs}`)).toEqual(['false@6000']);
  });

  it('real targets go through the port; late (stale) answers are ignored and silence fails', () => {
    const asked: Array<{ req: ProbeRequest; done: (r: ProbeResult) => void }> = [];
    const port: ProbePort = { probe: (req, done) => asked.push({ req, done }) };
    const changes: HealthChange[] = [];
    const c = new HealthChecker({
      config: { kind: 'http', intervalMs: 1000, timeoutMs: 500, rise: 1, fall: 1, path: '/hz' },
      targets: [target(3, { real: true, host: '127.0.0.1', port: 8080 })],
      startMs: 0,
      probe: port,
      onChange: (x) => changes.push(x),
    });
    expect(c.tick(1000)).toBe(2000);
    expect(asked.map((a) => a.req)).toEqual([{ kind: 'http', host: '127.0.0.1', port: 8080, path: '/hz', timeoutMs: 500 }]);
    asked[0]!.done({ ok: false, detail: 'HTTP 503' });
    expect(changes.map((x) => x.up)).toEqual([false]);
    // the next probe never answers: while it is out no other probe is sent, and after
    // timeout + 1 s it counts as failed (still down: no change)
    c.tick(2000);
    expect(c.tick(3499)).toBe(3500);
    expect(asked.length).toBe(2);
    expect(c.tick(3500)).toBe(4000);
    c.tick(4000);
    expect(asked.length).toBe(3);
    asked[1]!.done({ ok: true, detail: 'HTTP 200' }); // stale: ignored
    expect(changes.length).toBe(1);
    asked[2]!.done({ ok: true, detail: 'HTTP 200' });
    expect(changes.map((x) => x.up)).toEqual([false, true]);
  });

  it('after a long gap only the last few probes run', () => {
    const c = new HealthChecker({
      config: { kind: 'icmp', intervalMs: 5000, timeoutMs: 1000, rise: 2, fall: 3 },
      targets: [target(1)],
      startMs: 0,
      onChange: () => {},
    });
    c.tick(1_700_000_000_000); // a replay's first timestamp
    expect(c.probes).toBeLessThanOrEqual(5);
  });

  it('rejects bad settings', () => {
    expect(() => new HealthChecker({ config: { kind: 'icmp', intervalMs: 0, timeoutMs: 1, rise: 1, fall: 1 }, targets: [], startMs: 0, onChange: () => {} })).toThrow(/interval/);
    expect(() => new HealthChecker({ config: { kind: 'icmp', intervalMs: 1, timeoutMs: 1, rise: 0, fall: 1 }, targets: [], startMs: 0, onChange: () => {} })).toThrow(/rise/);
  });
});
