// The per-FRU controller: timed steps through the Clock, waiting for the shelf manager's decision,
// poke, rollback when the host cannot commit, stop.
import { describe, expect, it } from 'vitest';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { HotSwapController, type HotSwapHost } from '../../../../chassis/model/hot-swap-controller.ts';
import { initialHotSwapContext, type MState } from '../../../../chassis/model/hot-swap.ts';

function setup(state: MState, host: Partial<HotSwapHost> = {}) {
  const clock = new SimClock();
  const log: string[] = [];
  let grant = true;
  let approve = true;
  let failNext = false;
  const h: HotSwapHost = {
    transitioned: (_f, s) => {
      if (failNext) {
        failNext = false;
        throw new Error('store down');
      }
      log.push(`M${s.from}>M${s.to}@${clock.now()}`);
    },
    contextChanged: () => {},
    grantActivation: () => grant,
    approveDeactivation: () => approve,
    stepFailed: (_f, e) => log.push(`failed:${(e as Error).message}@${clock.now()}`),
    ...host,
  };
  const c = new HotSwapController('slot3', initialHotSwapContext(state, { handleClosed: state !== 1 }), clock, 1000, h);
  return {
    c,
    clock,
    log,
    setGrant: (v: boolean) => (grant = v),
    setApprove: (v: boolean) => (approve = v),
    failOnce: () => (failNext = true),
  };
}

describe('HotSwapController', () => {
  it('runs M1 → M2 → M3 → M4 one step apart once the handle closes', () => {
    const t = setup(1);
    t.c.dispatch('handle.close');
    t.clock.advance(5000);
    expect(t.log).toEqual(['M1>M2@0', 'M2>M3@1000', 'M3>M4@2000']);
    expect(t.c.busy).toBe(false);
  });

  it('waits in M2 while the shelf manager does not grant; poke re-checks one step later', () => {
    const t = setup(1);
    t.setGrant(false);
    t.c.dispatch('handle.close');
    t.clock.advance(10_000);
    expect(t.c.context.state).toBe(2);
    expect(t.c.busy).toBe(false);
    t.setGrant(true);
    t.c.poke();
    expect(t.c.busy).toBe(true);
    t.clock.advance(2000);
    expect(t.log).toEqual(['M1>M2@0', 'M2>M3@11000', 'M3>M4@12000']);
  });

  it('waits in M5 until approved; a new event cancels a pending step', () => {
    const t = setup(4);
    t.setApprove(false);
    t.c.dispatch('handle.open');
    t.clock.advance(3000);
    expect(t.c.context.state).toBe(5);
    t.setApprove(true);
    t.c.poke();
    t.clock.advance(500);
    t.c.dispatch('handle.close'); // withdrawn before approval: M5 → M4, the pending step is dropped
    t.clock.advance(5000);
    expect(t.log).toEqual(['M4>M5@0', 'M5>M4@3500']);
  });

  it('a command the host cannot commit throws and leaves the state; a timed step is retried', () => {
    const t = setup(4);
    t.failOnce();
    expect(() => t.c.dispatch('handle.open')).toThrow('store down');
    expect(t.c.context.state).toBe(4);
    expect(t.c.context.handleClosed).toBe(true);
    t.c.dispatch('shm.deactivate');
    t.failOnce();
    t.clock.advance(1000);
    expect(t.c.context.state).toBe(6);
    t.clock.advance(1000);
    expect(t.log).toEqual(['M4>M6@0', 'failed:store down@1000', 'M6>M1@2000']);
  });

  it('resume schedules the step of a restored state; stop cancels everything', () => {
    const t = setup(6);
    t.c.resume();
    t.clock.advance(1000);
    expect(t.c.context.state).toBe(1);
    const u = setup(3);
    u.c.resume();
    u.c.stop();
    u.clock.advance(10_000);
    expect(u.c.context.state).toBe(3);
    expect(u.clock.pending()).toBe(0);
  });
});
