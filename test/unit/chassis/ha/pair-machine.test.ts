import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { alarmsOf, isOwner, pairMemberMachine, roleOf } from '../../../../chassis/ha/pair-machine.ts';
import type { PairMemberEvent, PairMemberInput, PairMemberSnapshot } from '../../../../chassis/ha/pair-machine.ts';
import type { WireRole } from '../../../../chassis/ha/heartbeat.ts';

const TIMING = { heartbeatMs: 100, missedHeartbeats: 3, bootMs: 200, settleMs: 2000, loneSettleMs: 600, handoverTimeoutMs: 500 };
const input = (over: Partial<PairMemberInput> = {}): PairMemberInput => ({
  share: 'lb1/slot3', self: 'slot4', peer: 'slot3', home: false, version: { major: 1, minor: 0 }, timing: TIMING, ...over,
});

type Step = [PairMemberSnapshot, string[]];
const step = (s: PairMemberSnapshot, e: PairMemberEvent | { type: string }): Step => {
  const [n, a] = transition(pairMemberMachine, s, e as PairMemberEvent);
  return [n, a.map((x) => x.type)];
};
const lines = (present: boolean, healthy: boolean, active: boolean, interlock = true) => ({ type: 'hw.lines' as const, present, healthy, active, interlock });
const hb = (role: WireRole, epoch: number, over: object = {}) =>
  ({ type: 'hb.received' as const, role, epoch, version: { major: 1, minor: 0 }, healthy: true, uplink: true, handover: false, hearsUs: true, ...over });
const BOOTED = { type: 'xstate.after.bootDelay.member.role.booting' };
const SILENT_ALIVE = { type: 'xstate.after.peerDeadAfter.member.peer.alive' };
const SILENT_UNKNOWN = { type: 'xstate.after.peerDeadAfter.member.peer.unknown' };

/** A standby.hot member of lb1/slot3 on slot4 whose peer slot3 is active (epoch 1) and heard. */
function hotStandby(over: Partial<PairMemberInput> = {}): PairMemberSnapshot {
  let [s] = initialTransition(pairMemberMachine, input(over));
  [s] = step(s, lines(true, true, true));
  [s] = step(s, BOOTED);
  [s] = step(s, hb('active', 1));
  expect(roleOf(s)).toBe('standby.ready');
  [s] = step(s, { type: 'sync.bulkDone' });
  expect(roleOf(s)).toBe('standby.hot');
  return s;
}

describe('pair-member machine: pure transitions', () => {
  it('starts booting with the boot delay and the peer-silence timer armed (named delays from HaConfig)', () => {
    const [s, actions] = initialTransition(pairMemberMachine, input());
    expect(s.value).toEqual({ role: 'booting', peer: 'unknown' });
    const delays = actions.filter((a) => a.type === 'xstate.raise').map((a) => [(a.params as { id: string }).id, (a.params as { delay: number }).delay]);
    expect(delays).toEqual([['xstate.after.bootDelay.member.role.booting', 200], ['xstate.after.peerDeadAfter.member.peer.unknown', 300]]);
    expect(s.context.epoch).toBe(0);
  });

  it('boot tie-break: with the peer present, healthy and not active the home member goes active, the other waits', () => {
    let [home] = initialTransition(pairMemberMachine, input({ self: 'slot3', peer: 'slot4', home: true }));
    [home] = step(home, BOOTED);
    const [h2, acts] = step(home, lines(true, true, false));
    expect(roleOf(h2)).toBe('active');
    expect(acts).toContain('claimActive');
    expect(h2.context.epoch).toBe(1);
    expect(h2.context.activation).toBe('boot');
    let [other] = initialTransition(pairMemberMachine, input());
    [other] = step(other, BOOTED);
    [other] = step(other, lines(true, true, false));
    expect(roleOf(other)).toBe('arbitrating');
    [other] = step(other, lines(true, true, true)); // the home asserted ACTIVE
    expect(roleOf(other)).toBe('standby.ready');
  });

  it('boot: a lone node (peer absent) goes active after S; a present-but-unhealthy peer after T_settle', () => {
    let [s] = initialTransition(pairMemberMachine, input());
    [s] = step(s, lines(false, false, false));
    [s] = step(s, BOOTED);
    expect(roleOf(s)).toBe('arbitrating');
    [s] = step(s, { type: 'xstate.after.loneSettle.member.role.arbitrating' });
    expect(roleOf(s)).toBe('active');
    let [t] = initialTransition(pairMemberMachine, input());
    [t] = step(t, lines(true, false, false));
    [t] = step(t, BOOTED);
    [t] = step(t, { type: 'xstate.after.loneSettle.member.role.arbitrating' });
    expect(roleOf(t)).toBe('arbitrating');
    [t] = step(t, { type: 'xstate.after.settle.member.role.arbitrating' });
    expect(roleOf(t)).toBe('active');
  });

  it('a restarted node re-arbitrates from booting and never restores its old role; its epoch persists', () => {
    let [s] = initialTransition(pairMemberMachine, input({ epoch: 7 }));
    expect(roleOf(s)).toBe('booting');
    [s] = step(s, lines(false, false, false));
    [s] = step(s, BOOTED);
    [s] = step(s, { type: 'xstate.after.loneSettle.member.role.arbitrating' });
    expect(s.context.epoch).toBe(8);
    [s] = step(s, { type: 'hw.reset' });
    expect(roleOf(s)).toBe('resetting');
    [s] = step(s, { type: 'hw.powerOn' });
    expect(roleOf(s)).toBe('booting');
    expect(s.context.epoch).toBe(8);
    [s] = step(s, { type: 'hw.powerOff' });
    expect(roleOf(s)).toBe('failed');
  });

  it('dual arbitration: silence alone never promotes; silence + peer not HEALTHY + peer ACTIVE low does', () => {
    let s = hotStandby();
    [s] = step(s, SILENT_ALIVE);
    expect(roleOf(s)).toBe('standby.hot');
    expect(alarmsOf(s)).toContain('PEER_SILENT_BUT_HEALTHY');
    // Hardware says the peer is down but its ACTIVE is still high: the interlock vetoes (S23).
    [s] = step(s, lines(true, false, true));
    expect(roleOf(s)).toBe('standby.hot');
    const [t, acts] = step(s, lines(true, false, false));
    expect(roleOf(t)).toBe('active');
    expect(acts).toContain('claimActive');
    expect(t.context.epoch).toBe(2);
    expect(t.context.activation).toBe('forced');
    expect(t.context.takeoverNotHot).toBe(false);
  });

  it('hardware down alone (heartbeats still flowing) never promotes: HW_SW_DISAGREE (S22)', () => {
    let s = hotStandby();
    [s] = step(s, lines(true, false, false));
    [s] = step(s, hb('active', 1));
    expect(roleOf(s)).toBe('standby.hot');
    expect(alarmsOf(s)).toContain('HW_SW_DISAGREE');
  });

  it('interlock off (S24): the rule applies without term (c); the planted test bug drops (c) even with it on', () => {
    let s = hotStandby();
    [s] = step(s, SILENT_ALIVE);
    [s] = step(s, lines(true, false, true, false));
    expect(roleOf(s)).toBe('active');
    let b = hotStandby({ unsafeNoInterlockGuard: true });
    [b] = step(b, SILENT_ALIVE);
    [b] = step(b, lines(true, false, true, true));
    expect(roleOf(b)).toBe('active');
  });

  it('a takeover from standby.ready is flagged TAKEOVER_NOT_HOT', () => {
    let [s] = initialTransition(pairMemberMachine, input());
    [s] = step(s, lines(true, true, true));
    [s] = step(s, BOOTED);
    [s] = step(s, hb('active', 4));
    [s] = step(s, SILENT_ALIVE);
    [s] = step(s, lines(false, false, false));
    expect(roleOf(s)).toBe('active');
    expect(s.context.takeoverNotHot).toBe(true);
    expect(s.context.epoch).toBe(5); // max(own, peer) + 1
  });

  it('an active member yields to a live peer with a higher epoch that holds ACTIVE and drops its table; equal epochs: the home keeps it', () => {
    let s = hotStandby();
    [s] = step(s, SILENT_ALIVE);
    [s] = step(s, lines(true, false, false));
    expect(s.context.epoch).toBe(2);
    // With the interlock on, a peer whose ACTIVE line is low (its claim was refused) never makes us yield.
    expect(roleOf(step(s, hb('active', 3))[0])).toBe('active');
    // The split of ha.md S24: interlock off, the peer holds ACTIVE too.
    [s] = step(s, lines(true, false, true, false));
    const [y, acts] = step(s, hb('active', 3));
    expect(roleOf(y)).toBe('standby.ready');
    expect(acts).toEqual(expect.arrayContaining(['releaseActive', 'dropTable', 'enterStandby', 'requestBulk']));
    const [keep] = step(s, hb('active', 1));
    expect(roleOf(keep)).toBe('active');
    const [tie] = step(s, hb('active', 2)); // non-home with an equal epoch yields
    expect(roleOf(tie)).toBe('standby.ready');
  });

  it('planned switchover: refused to a standby that is not hot or runs another major version; otherwise final sync, release, handover', () => {
    let [a] = initialTransition(pairMemberMachine, input({ self: 'slot3', peer: 'slot4', home: true }));
    [a] = step(a, BOOTED);
    [a] = step(a, lines(true, true, false));
    [a] = step(a, hb('standby.ready', 0));
    let [r] = step(a, { type: 'operator.switchover' });
    expect(r.context.refusal).toBe('peer_not_hot');
    expect(isOwner(r)).toBe(true);
    [r] = step(step(a, hb('standby.hot', 0, { version: { major: 2, minor: 0 } }))[0], { type: 'operator.switchover' });
    expect(r.context.refusal).toBe('incompatible_version');
    [a] = step(a, hb('standby.hot', 0));
    let acts: string[];
    [a, acts] = step(a, { type: 'operator.switchover' });
    expect(a.value).toMatchObject({ role: { active: 'finalSync' } });
    expect(acts).toContain('startFinalSync');
    [a, acts] = step(a, { type: 'sync.finalAcked' });
    expect(roleOf(a)).toBe('active.handover');
    expect(acts).toEqual(expect.arrayContaining(['releaseActive', 'offerHandover']));
    expect(isOwner(a)).toBe(false);
    [a] = step(a, lines(true, true, true)); // the peer claimed
    expect(roleOf(a)).toBe('standby.ready');
  });

  it('a hot standby accepts a handover offer only once the offering peer released ACTIVE', () => {
    let s = hotStandby();
    [s] = step(s, hb('active.handover', 1, { handover: true }));
    expect(roleOf(s)).toBe('standby.hot'); // line still high
    [s] = step(s, lines(true, true, false));
    expect(roleOf(s)).toBe('active');
    expect(s.context.activation).toBe('planned');
    expect(s.context.epoch).toBe(2);
  });

  it('a handover that times out (no claim) reclaims ACTIVE and keeps serving', () => {
    let [a] = initialTransition(pairMemberMachine, input({ self: 'slot3', peer: 'slot4', home: true }));
    [a] = step(a, BOOTED);
    [a] = step(a, lines(true, true, false));
    [a] = step(a, hb('standby.hot', 0));
    [a] = step(a, { type: 'operator.switchover' });
    [a] = step(a, { type: 'sync.finalAcked' });
    const [b, acts] = step(a, { type: 'xstate.after.handoverTimeout.member.role.active.handingOver' });
    expect(b.value).toMatchObject({ role: { active: 'serving' } });
    expect(acts).toEqual(expect.arrayContaining(['abortHandover', 'claimActive']));
    expect(b.context.epoch).toBe(1);
  });

  it('uplink loss on the active hands over cooperatively when the peer is hot (S21)', () => {
    let [a] = initialTransition(pairMemberMachine, input({ self: 'slot3', peer: 'slot4', home: true }));
    [a] = step(a, BOOTED);
    [a] = step(a, lines(true, true, false));
    [a] = step(a, { type: 'uplink.down' });
    expect(a.value).toMatchObject({ role: { active: 'serving' } }); // no hot peer yet
    expect(alarmsOf(a)).toContain('UPLINK_DOWN');
    [a] = step(a, hb('standby.hot', 0));
    expect(a.value).toMatchObject({ role: { active: 'finalSync' } });
  });

  it('a stale standby goes back to ready; a non-home standby never claims an orphaned share, the home does', () => {
    let s = hotStandby();
    [s] = step(s, { type: 'sync.stale' });
    expect(roleOf(s)).toBe('standby.ready');
    [s] = step(s, lines(true, true, false));
    [s] = step(s, hb('standby.hot', 1));
    expect(roleOf(s)).toBe('standby.ready');
    let h = hotStandby({ self: 'slot3', peer: 'slot4', home: true });
    [h] = step(h, lines(true, true, false));
    [h] = step(h, hb('standby.hot', 1));
    expect(roleOf(h)).toBe('active');
    expect(h.context.activation).toBe('orphan');
  });

  it('after boot, a never-heard peer counts as silent after N × h', () => {
    let [s] = initialTransition(pairMemberMachine, input());
    [s] = step(s, SILENT_UNKNOWN);
    expect(s.value).toMatchObject({ peer: 'silent' });
    expect(s.context.peer.silent).toBe(true);
  });
});

describe('pair-member machine: in simulated time (createActor with { clock })', () => {
  function actor(over: Partial<PairMemberInput> = {}) {
    const clock = new SimClock();
    const a = createActor(pairMemberMachine, { clock, input: input(over) });
    a.start();
    return { clock, a };
  }

  it('boots in bootMs and declares the peer silent exactly N × h after its last heartbeat (re-entered on each)', () => {
    const { clock, a } = actor();
    a.send(lines(true, true, true));
    clock.advance(199);
    expect(roleOf(a.getSnapshot())).toBe('booting');
    clock.advance(1);
    expect(roleOf(a.getSnapshot())).toBe('standby.ready');
    a.send(hb('active', 1));
    clock.advance(250);
    a.send(hb('active', 1)); // restarts the 300 ms deadline
    clock.advance(299);
    expect(a.getSnapshot().context.peer.silent).toBe(false);
    clock.advance(1);
    expect(a.getSnapshot().context.peer.silent).toBe(true);
    a.send({ type: 'clock.rebased' }); // a global stall: the silence timer restarts
    expect(a.getSnapshot().context.peer.silent).toBe(true);
    a.send(hb('active', 1));
    a.send({ type: 'clock.rebased' });
    clock.advance(299);
    expect(a.getSnapshot().context.peer.silent).toBe(false);
    a.stop();
  });

  it('a crashed peer (lines drop, heartbeats stop) is taken over 3 intervals after its last heartbeat', () => {
    const { clock, a } = actor();
    a.send(lines(true, true, true));
    clock.advance(200);
    for (let i = 0; i < 10; i++) {
      a.send(hb('active', 1));
      clock.advance(100);
    }
    a.send({ type: 'sync.bulkDone' });
    a.send(hb('active', 1));
    const last = clock.now();
    clock.advance(20);
    a.send(lines(true, false, false)); // crash: the supervisor resets the board
    clock.advance(279);
    expect(roleOf(a.getSnapshot())).toBe('standby.hot');
    clock.advance(1);
    expect(roleOf(a.getSnapshot())).toBe('active');
    expect(clock.now() - last).toBe(300);
    a.stop();
  });

  it('boot tie with the peer present but never healthy: active after T_settle on the clock', () => {
    const { clock, a } = actor();
    a.send(lines(true, false, false));
    clock.advance(200 + 1999);
    expect(roleOf(a.getSnapshot())).toBe('arbitrating');
    clock.advance(1);
    expect(roleOf(a.getSnapshot())).toBe('active');
    a.stop();
  });
});
