/**
 * Model-based tests of the pair-member machine with @xstate/graph (ha.md §6.7).
 *
 * `createTestModel` refuses machines with `after`, so the model is an abstract two-node world in
 * which time is an explicit event: the pending delayed events of each member (boot, settle,
 * peer-dead, handover timeout) are events of their own (`T A xstate.after.…`), next to heartbeats,
 * crashes, power, hangs and watchdog expiry, link cuts, a stuck HEALTHY line, bulk-sync
 * completion, final-sync acknowledgement, operator switchover, uplink loss and clock rebases.
 * Each abstract event is executed against the REAL machine definition with the pure
 * `transition()`; the world interprets the machine's named actions (claimActive asserts the
 * ACTIVE line through the interlock, releaseActive drops it, assertHealthy raises HEALTHY) and
 * delivers the resulting line changes to the peer, as the controller does.
 *
 * Checked after every step of every path: at most one active per pair (interlock on), at most
 * one ACTIVE line, epochs never decrease. Coverage: every state of the machine and every declared
 * transition is reached by the shortest paths.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromTransition, initialTransition } from 'xstate';
import type { AnyStateNode } from 'xstate';
import { getShortestPaths, getSimplePaths } from '@xstate/graph';
import { pairMemberMachine, roleOf } from '../../../../chassis/ha/pair-machine.ts';
import type { PairMemberEvent, PairMemberSnapshot } from '../../../../chassis/ha/pair-machine.ts';

type Id = 'A' | 'B';
const peerOf = (x: Id): Id => (x === 'A' ? 'B' : 'A');
const TIMING = { heartbeatMs: 100, missedHeartbeats: 3, bootMs: 200, settleMs: 2000, loneSettleMs: 600, handoverTimeoutMs: 500 };

interface World {
  m: Record<Id, PairMemberSnapshot>;
  pending: Record<Id, string[]>;
  power: Record<Id, 'on' | 'reset' | 'off'>;
  healthy: Record<Id, boolean>;
  active: Record<Id, boolean>;
  hung: Record<Id, boolean>;
  uplinkA: boolean;
  stuckA: boolean;
  interlock: boolean;
  /** The planted bug: firmware ignores the interlock (no guard (c), refused claims unchecked). */
  unsafe: boolean;
  link: boolean;
  epochReg: number;
  /** Faults injected so far (crash, power-off, hang, link, stuck line, uplink); the model allows FAULT_BUDGET. */
  faults: number;
  /** Set when an invariant broke on the way into this world. */
  broken: string | null;
}

type ModelEvent = { type: string };

/** Faults per path (repairs — power-on, heal of a link or line — are free). */
const FAULT_BUDGET = 2;

/** Transitions taken (observed): "sourceId|event|targets". */
const observed = new Set<string>();
/** Leaf states reached. */
const reached = new Set<string>();

function leafIds(s: PairMemberSnapshot): string[] {
  return [...(s as unknown as { _nodes: AnyStateNode[] })._nodes].filter((n) => n.type === 'atomic').map((n) => n.id);
}

function activeIds(s: PairMemberSnapshot): Set<string> {
  return new Set((s as unknown as { _nodes: AnyStateNode[] })._nodes.map((n) => n.id));
}

function lines(w: World, of: Id) {
  return {
    type: 'hw.lines' as const,
    present: true,
    healthy: w.power[of] === 'on' && w.healthy[of] && !(of === 'A' && w.stuckA),
    active: w.power[of] === 'on' && w.active[of],
    interlock: w.interlock,
    epoch: w.epochReg,
  };
}

/**
 * The pure transition of the real machine, as xstate's `transition()` does it, with one reusable
 * inert actor scope (creating a scope per call is most of `transition()`'s cost).
 */
const scopeActions: Array<{ type: string; params?: unknown }> = [];
const scopeSelf = createActor(pairMemberMachine, { input: { share: 's', self: 'a', peer: 'b', home: true, version: { major: 1, minor: 0 }, timing: TIMING } });
const scope = {
  self: scopeSelf, defer: () => {}, id: '', logger: () => {}, sessionId: '', stopChild: () => {}, system: scopeSelf.system, emit: () => {},
  actionExecutor: (a: { type: string; params?: unknown }) => scopeActions.push(a),
};
function pure(s: PairMemberSnapshot, ev: PairMemberEvent | { type: string }): [PairMemberSnapshot, Array<{ type: string; params?: unknown }>] {
  scopeActions.length = 0;
  const next = pairMemberMachine.transition(s, ev as PairMemberEvent, scope as never);
  return [next, [...scopeActions]];
}

/** Runs one machine event on member x and interprets its actions; queues line deliveries. */
function run(w: World, x: Id, ev: PairMemberEvent | { type: string }, queue: Array<[Id, PairMemberEvent | { type: string }]>): void {
  const before = w.m[x];
  const [snap, actions] = pure(before, ev);
  // Coverage: a declared transition is observed when its source was active before and its targets after.
  const prev = activeIds(before);
  const next = activeIds(snap);
  for (const t of declared) {
    if (!prev.has(t.source) || (t.event !== ev.type && t.event !== '')) continue;
    if (t.targets.length === 0 ? t.event === ev.type : t.targets.every((id) => next.has(id)) && (t.reenter || t.targets.some((id) => !prev.has(id)))) observed.add(t.key);
  }
  w.m[x] = snap;
  for (const id of leafIds(snap)) reached.add(id);
  const before0 = { h: lines(w, x).healthy, a: lines(w, x).active };
  for (const a of actions) {
    const p = a.params as { id?: string; delay?: number; sendId?: string } | undefined;
    if (a.type === 'xstate.raise' && p?.delay !== undefined) w.pending[x] = [...new Set([...w.pending[x], p.id!])].sort();
    else if (a.type === 'xstate.cancel') w.pending[x] = w.pending[x].filter((id) => id !== p!.sendId);
    else if (a.type === 'assertHealthy' && w.power[x] === 'on') w.healthy[x] = true;
    else if (a.type === 'claimActive') {
      if (w.power[x] === 'on' && !(w.interlock && w.power[peerOf(x)] === 'on' && w.active[peerOf(x)])) {
        w.active[x] = true;
        w.epochReg = Math.max(w.epochReg, snap.context.epoch);
      } else if (!w.unsafe) {
        // The controller re-reads the peer's lines, then reports the refusal.
        queue.push([x, lines(w, peerOf(x))], [x, { type: 'hw.claimRefused' }]);
      }
    } else if (a.type === 'releaseActive') w.active[x] = false;
  }
  const after0 = lines(w, x);
  if (after0.healthy !== before0.h || after0.active !== before0.a) queue.push([peerOf(x), after0]);
}

function settle(w: World, queue: Array<[Id, PairMemberEvent | { type: string }]>): void {
  for (let guard = 0; queue.length; guard++) {
    const [x, ev] = queue.shift()!;
    if (guard > 50) throw new Error(`line delivery did not settle: ${x} ${JSON.stringify(ev)} A=${JSON.stringify(w.m.A.value)} B=${JSON.stringify(w.m.B.value)} interlock=${w.interlock} lines=${JSON.stringify(w.active)}`);
    if (w.power[x] === 'off' || w.hung[x]) continue;
    run(w, x, ev, queue);
  }
}

function clone(w: World): World {
  return {
    m: { ...w.m }, pending: { A: [...w.pending.A], B: [...w.pending.B] }, power: { ...w.power }, healthy: { ...w.healthy },
    active: { ...w.active }, hung: { ...w.hung }, uplinkA: w.uplinkA, stuckA: w.stuckA, interlock: w.interlock, unsafe: w.unsafe, link: w.link, epochReg: w.epochReg, faults: w.faults, broken: null,
  };
}

function bothHeard(w: World): boolean {
  return w.m.A.context.peer.heard && !w.m.A.context.peer.silent && w.m.A.context.peer.role === 'active' &&
    w.m.B.context.peer.heard && !w.m.B.context.peer.silent && w.m.B.context.peer.role === 'active';
}

function up(w: World, x: Id): boolean {
  return w.power[x] === 'on' && !w.hung[x];
}

function check(prev: World, w: World): string | null {
  const owners = (['A', 'B'] as Id[]).filter((x) => w.power[x] !== 'off' && roleOf(w.m[x]) === 'active');
  // Two actives are allowed only with the interlock off (ha.md S24), and never once they hear each other.
  if (owners.length > 1 && (w.interlock || (w.link && prev.link && bothHeard(w)))) return 'two actives';
  if (w.interlock && w.active.A && w.active.B && w.power.A === 'on' && w.power.B === 'on') return 'two ACTIVE lines';
  for (const x of ['A', 'B'] as Id[]) if (w.m[x].context.epoch < prev.m[x].context.epoch) return `epoch of ${x} decreased`;
  return null;
}

function step(w0: World, e: ModelEvent): World {
  const w = clone(w0);
  const q: Array<[Id, PairMemberEvent | { type: string }]> = [];
  const [kind, xs, ...rest] = e.type.split(' ');
  const x = xs as Id;
  if (/^(CRASH|OFF|HANG|LINK|STICK|UPLINK|INTERLOCK)$/.test(kind!)) w.faults++;
  switch (kind) {
    case 'T': // a delayed event of member x falls due
      w.pending[x] = w.pending[x].filter((id) => id !== rest[0]);
      run(w, x, { type: rest[0]! }, q);
      break;
    case 'HB': { // heartbeats cross the link (both ways, from every node whose software runs)
      const hb = (from: Id) => {
        const s = w.m[from];
        return {
          type: 'hb.received', role: roleOf(s), epoch: s.context.epoch, version: { major: 1, minor: 0 }, healthy: true,
          uplink: from === 'A' ? w.uplinkA : true, handover: roleOf(s) === 'active.handover', hearsUs: true,
        };
      };
      const sending = (['A', 'B'] as Id[]).filter((y) => up(w, y) && !['booting', 'resetting', 'failed'].includes(roleOf(w.m[y])));
      const msgs = sending.map((y) => [peerOf(y), hb(y)] as const);
      for (const [to, m] of msgs) if (up(w, to)) run(w, to, m, q);
      break;
    }
    case 'CRASH': // supervisor reset, or the watchdog of a hung node
    case 'WD':
      w.power[x] = 'reset';
      w.healthy[x] = false;
      w.active[x] = false;
      w.hung[x] = false;
      w.pending[x] = [];
      run(w, x, { type: 'hw.reset' }, q);
      q.push([peerOf(x), lines(w, x)]);
      break;
    case 'OFF':
      w.power[x] = 'off';
      w.healthy[x] = false;
      w.active[x] = false;
      w.hung[x] = false;
      w.pending[x] = [];
      run(w, x, { type: 'hw.powerOff' }, q);
      q.push([peerOf(x), lines(w, x)]);
      break;
    case 'ON':
      w.power[x] = 'on';
      run(w, x, { type: 'hw.powerOn' }, q);
      q.push([x, lines(w, peerOf(x))]);
      break;
    case 'HANG':
      w.hung[x] = true;
      break;
    case 'LINK':
      w.link = !w.link;
      break;
    case 'STICK':
      w.stuckA = !w.stuckA;
      q.push(['B', lines(w, 'A')]);
      break;
    case 'INTERLOCK':
      w.interlock = !w.interlock;
      q.push(['A', lines(w, 'B')], ['B', lines(w, 'A')]);
      break;
    case 'STALE': // x acts on an outdated reading of its peer's lines (the posted delivery has not run yet): taken before the peer's claim, so ACTIVE low and the epoch register still 0
      run(w, x, { ...lines(w, peerOf(x)), active: false, healthy: true, epoch: 0 }, q);
      break;
    case 'UPLINK':
      w.uplinkA = !w.uplinkA;
      run(w, 'A', { type: w.uplinkA ? 'uplink.up' : 'uplink.down' }, q);
      break;
    default: // a plain machine event for x: sync.bulkDone, sync.stale, sync.finalAcked, operator.switchover, clock.rebased
      run(w, x, { type: kind! }, q);
  }
  settle(w, q);
  w.broken = check(w0, w);
  return w;
}

function events(w: World): ModelEvent[] {
  if (w.broken) return [];
  const out: string[] = [];
  for (const x of ['A', 'B'] as Id[]) {
    const y = peerOf(x);
    const role = roleOf(w.m[x]);
    if (up(w, x)) {
      for (const id of w.pending[x]) out.push(`T ${x} ${id}`);

      if (role === 'standby.ready' && roleOf(w.m[y]) === 'active' && up(w, y) && w.link) out.push(`sync.bulkDone ${x}`);
      if (role === 'standby.hot' && !w.link) out.push(`sync.stale ${x}`);
      if ((w.m[x].value as { role: unknown }).role && JSON.stringify(w.m[x].value).includes('finalSync') && w.link) out.push(`sync.finalAcked ${x}`);
      if (role === 'active') out.push(`operator.switchover ${x}`);
      if (role === 'standby.hot' && w.faults === 0) out.push(`clock.rebased ${x}`);
      if (w.faults < FAULT_BUDGET) {
        out.push(`CRASH ${x}`);
        if (w.faults === 0) out.push(`OFF ${x}`);
        if (role === 'active') out.push(`HANG ${x}`);
      }
    }
    if (w.power[x] === 'on' && w.hung[x]) out.push(`WD ${x}`);
    if (w.power[x] !== 'on' && roleOf(w.m[x]) !== 'booting') out.push(`ON ${x}`);
  }
  if (w.faults < FAULT_BUDGET || !w.link) out.push('LINK -');
  if (w.link) out.push('HB -');
  if (w.faults < FAULT_BUDGET || w.stuckA) out.push('STICK -');
  // Single-fault-only events keep the state space small: uplink loss, the interlock (then one more fault), stale line reads.
  if ((w.faults === 0 && roleOf(w.m.A) === 'active') || !w.uplinkA) out.push('UPLINK -');
  if (w.faults === 0 && w.interlock) out.push('INTERLOCK -'); // off for good: ha.md S24's documented exception
  for (const x of ['A', 'B'] as Id[]) if (w.faults === 0 && up(w, x) && roleOf(w.m[x]) === 'booting' && w.active[peerOf(x)] && w.power[peerOf(x)] === 'on') out.push(`STALE ${x}`);
  return out.map((type) => ({ type }));
}

/**
 * Abstract state for the traversal: both members' state values (role and peer regions), power,
 * hang, the ACTIVE and HEALTHY lines, the link, the stuck line, the uplink, the faults used and
 * which epoch is higher. Timers and heartbeat details are left out on purpose: the first world
 * reaching an abstract state stands for the others (the state space stays in the thousands).
 */
function key(w: World): string {
  const mem = (x: Id) => {
    const c = w.m[x].context;
    const role = roleOf(w.m[x]);
    const alive = c.peer.heard && !c.peer.silent;
    // Only the knowledge the guards use: an active member's peer heard hot (switchover), a standby's
    // peer heard as a standby (orphaned share), a booting member's view of the peer's ACTIVE line (stale reads).
    const know = role === 'active' ? alive && c.peer.role === 'standby.hot'
      : role.startsWith('standby') ? alive && c.peer.role.startsWith('standby')
        : role === 'booting' || role === 'arbitrating' ? c.hw.active : '';
    return [JSON.stringify(w.m[x].value), w.power[x], w.hung[x], w.healthy[x], w.active[x], know].join('/');
  };
  return [mem('A'), mem('B'), w.link, w.stuckA, w.uplinkA, w.interlock, Math.sign(w.m.A.context.epoch - w.m.B.context.epoch), w.faults, w.broken].join('|');
}

function initialWorld(unsafeNoInterlockGuard = false): World {
  const mk = (self: string, peer: string, home: boolean) =>
    initialTransition(pairMemberMachine, { share: 'lb1/slot3', self, peer, home, version: { major: 1, minor: 0 }, timing: TIMING, unsafeNoInterlockGuard });
  const [a, aa] = mk('slot3', 'slot4', true);
  const [b, ba] = mk('slot4', 'slot3', false);
  const ids = (acts: typeof aa) => acts.filter((x) => x.type === 'xstate.raise').map((x) => (x.params as { id: string }).id).sort();
  for (const s of [a, b]) for (const id of leafIds(s)) reached.add(id);
  const w: World = {
    m: { A: a, B: b }, pending: { A: ids(aa), B: ids(ba) }, power: { A: 'on', B: 'on' }, healthy: { A: false, B: false },
    active: { A: false, B: false }, hung: { A: false, B: false }, uplinkA: true, stuckA: false, interlock: true, unsafe: unsafeNoInterlockGuard, link: true, epochReg: 0, faults: 0, broken: null,
  };
  const q: Array<[Id, PairMemberEvent | { type: string }]> = [['A', lines(w, 'B')], ['B', lines(w, 'A')]];
  settle(w, q);
  return w;
}

interface Declared {
  key: string;
  source: string;
  event: string;
  targets: string[];
  reenter: boolean;
}

/** Every transition the machine declares: `on`, `after` and `always`, with its source and targets. */
const declared: Declared[] = (() => {
  const out: Declared[] = [];
  const walk = (n: AnyStateNode) => {
    const add = (event: string, defs: ReadonlyArray<{ target?: ReadonlyArray<AnyStateNode> | undefined; reenter?: boolean }>) => {
      for (const d of defs) {
        const targets = (d.target ?? []).map((t) => t.id);
        out.push({ key: `${n.id} --${event || 'always'}--> ${targets.join(',') || '(actions)'}${d.reenter ? ' (reenter)' : ''}`, source: n.id, event, targets, reenter: d.reenter === true });
      }
    };
    for (const [event, defs] of n.transitions) add(event, defs);
    if (n.always) add('', n.always);
    for (const c of Object.values(n.states)) walk(c as AnyStateNode);
  };
  walk(pairMemberMachine.root);
  // Same-event duplicates (guarded branches to the same target) count once.
  return [...new Map(out.map((d) => [d.key, d])).values()];
})();

const model = fromTransition((w: World, e: ModelEvent) => step(w, e), () => initialWorld());

describe('model-based tests of the pair-member machine (@xstate/graph, time as explicit events)', () => {
  const paths = getShortestPaths(model, {
    events: (s) => events(s.context),
    serializeState: (s) => key(s.context),
    serializeEvent: (e) => e.type,
    limit: 200_000,
  });

  it('explores the abstract two-node world and keeps the invariants after every step of every path', () => {
    expect(paths.length).toBeGreaterThan(1000);
    let steps = 0;
    for (const p of paths) {
      for (const s of p.steps) {
        steps++;
        if (s.state.context.broken) {
          throw new Error(`invariant broken (${s.state.context.broken}) after: ${p.steps.map((x) => x.event.type).join(' → ')}`);
        }
      }
    }
    expect(steps).toBeGreaterThan(paths.length);
  });

  it('reaches every state of the machine', () => {
    const all: string[] = [];
    const walk = (n: AnyStateNode) => {
      if (n.type === 'atomic') all.push(n.id);
      for (const c of Object.values(n.states)) walk(c as AnyStateNode);
    };
    walk(pairMemberMachine.root);
    expect(all.length).toBe(12);
    expect([...all].filter((id) => !reached.has(id))).toEqual([]);
  });

  it('takes every declared transition', () => {
    const missing = declared.filter((d) => !observed.has(d.key)).map((d) => d.key);
    expect(declared.length).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });

  it('catches a planted bug: with the interlock guard dropped (test-only switch) a path to two actives exists', () => {
    const buggy = fromTransition((w: World, e: ModelEvent) => step(w, e), () => initialWorld(true));
    const found = getShortestPaths(buggy, {
      events: (s) => events(s.context),
      serializeState: (s) => key(s.context),
      serializeEvent: (e) => e.type,
      toState: (s) => s.context.broken !== null,
      limit: 200_000,
    });
    expect(found.length).toBeGreaterThan(0);
    const shortest = found.reduce((a, b) => (a.steps.length <= b.steps.length ? a : b));
    expect(shortest.state.context.broken).toMatch(/two act/i);
    expect(shortest.steps.map((x) => x.event.type)).toEqual(expect.arrayContaining(['STICK -']));
  });

  const steady = () => {
    const p = paths.find((x) => roleOf(x.state.context.m.A) === 'active' && roleOf(x.state.context.m.B) === 'standby.hot' &&
      x.state.context.link && x.state.context.faults === 0 && x.state.context.m.B.context.peer.role === 'active');
    expect(p).toBeDefined();
    return p!.state.context;
  };

  it('no path of link cuts, hangs, heartbeats and time alone makes B active while A\'s hardware is healthy (shortest paths, BFS)', () => {
    const from = steady();
    const sub = fromTransition((w: World, e: ModelEvent) => step(w, e), () => from);
    const reach = getShortestPaths(sub, {
      events: (s) => events(s.context).filter((e) => /^(T |HB |LINK|HANG A|sync\.|clock\.)/.test(e.type)),
      serializeState: (s) => key(s.context),
      serializeEvent: (e) => e.type,
      limit: 100_000,
    });
    expect(reach.length).toBeGreaterThan(50);
    const bad = reach.filter((p) => roleOf(p.state.context.m.B) === 'active');
    expect(bad.map((p) => p.steps.map((s) => s.event.type).join(' → '))).toEqual([]);
  });

  it('lists every simple path to B active from the steady state: each goes through a crash or a watchdog reset of A (simple paths)', () => {
    const from = steady();
    const sub = fromTransition((w: World, e: ModelEvent) => step(w, e), () => from);
    const simple = getSimplePaths(sub, {
      events: (s) => events(s.context).filter((e) => /^(T |CRASH A|HANG A|WD A)/.test(e.type)),
      serializeState: (s) => key(s.context),
      serializeEvent: (e) => e.type,
      toState: (s) => roleOf(s.context.m.B) === 'active',
      stopWhen: (s) => roleOf(s.context.m.B) === 'active',
      limit: 50_000,
    });
    expect(simple.length).toBeGreaterThan(1);
    const ways = new Set<string>();
    for (const p of simple) {
      const evs = p.steps.map((s) => s.event.type);
      const how = evs.find((e) => /^(CRASH A|WD A)/.test(e));
      expect(how, evs.join(' → ')).toBeDefined();
      ways.add(how!);
      for (const s of p.steps) expect(s.state.context.broken).toBeNull();
    }
    expect([...ways].sort()).toEqual(['CRASH A', 'WD A']);
  });
});
