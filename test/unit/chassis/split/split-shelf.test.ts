/**
 * The split shelf's bus side (chassis/split/split-shelf.ts) in simulated time: lines drop when a
 * connection closes, a watchdog expiry resets the ShMC with its registered flags, registrations are
 * checked, stale connections are ignored.
 */
import { describe, expect, it } from 'vitest';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import type { ToShmc } from '../../../../chassis/split/bus-codec.ts';
import type { Shelf } from '../../../../chassis/model/shelf.ts';
import { encodeSelRecord, type SelRecord } from '../../../../chassis/sensors/sel.ts';
import { shmcArgv } from '../../../../chassis/split/shmc-flags.ts';
import { SplitShelf, type BusConnection, type ShmcRegistration } from '../../../../chassis/split/split-shelf.ts';

function fakeConn(label: string) {
  const sent: ToShmc[] = [];
  let closed = false;
  const c: BusConnection & { sent: ToShmc[]; closed: () => boolean } = {
    label,
    send: (m) => {
      if (!closed) sent.push(m);
    },
    close: () => {
      closed = true;
    },
    sent,
    closed: () => closed,
  };
  return c;
}

const argvOf = (n: 'a' | 'b') =>
  shmcArgv({ node: n, shelf: { host: '127.0.0.1', port: 4000 }, peerListen: { host: '127.0.0.1', port: n === 'a' ? 4001 : 4002 }, peer: { host: '127.0.0.1', port: n === 'a' ? 4002 : 4001 }, ipmiPort: 6230, maintPort: n === 'a' ? 4003 : 4004, db: `/tmp/shmc-${n}.db`, adminPassword: 'pw' });

describe('SplitShelf', () => {
  function setup() {
    const clock = new SimClock(0);
    const restarts: ShmcRegistration[] = [];
    const split = new SplitShelf({ clock, log: nullLogger, wallNow: () => 1_000_000 + clock.now(), ha: { heartbeatMs: 100 }, restart: (r) => restarts.push(r), kill: () => {} });
    return { clock, restarts, split };
  }

  it('checks registrations: bad flags, flags of the other node, a second connection for a live node', () => {
    const { split } = setup();
    const bad = fakeConn('bad');
    split.onMessage(bad, { t: 'hello', node: 'shmc-a', pid: 1, argv: [...argvOf('a'), '--exec', 'sh'] });
    expect(bad.sent[0]).toMatchObject({ t: 'refused', reason: expect.stringMatching(/unknown flag --exec/) });
    expect(bad.closed()).toBe(true);
    const wrong = fakeConn('wrong');
    split.onMessage(wrong, { t: 'hello', node: 'shmc-a', pid: 1, argv: argvOf('b') });
    expect(wrong.sent[0]).toMatchObject({ t: 'refused' });
    const a = fakeConn('a');
    split.onMessage(a, { t: 'hello', node: 'shmc-a', pid: 11, argv: argvOf('a') });
    expect(a.sent[0]).toMatchObject({ t: 'welcome', node: 'shmc-a', ha: { heartbeatMs: 100 } });
    const dup = fakeConn('dup');
    split.onMessage(dup, { t: 'hello', node: 'shmc-a', pid: 12, argv: argvOf('a') });
    expect(dup.sent[0]).toMatchObject({ t: 'refused', reason: expect.stringMatching(/already connected/) });
    // messages before a hello are ignored (counted)
    const stranger = fakeConn('s');
    split.onMessage(stranger, { t: 'claim', epoch: 1 });
    expect(stranger.sent).toEqual([]);
    expect(split.garbage).toBe(1);
  });

  it('a closed connection drops the lines at once (the peer is told); watchdog expiry restarts with the registered flags; the stale connection is ignored', () => {
    const { clock, restarts, split } = setup();
    const a = fakeConn('a');
    const b = fakeConn('b');
    split.onMessage(a, { t: 'hello', node: 'shmc-a', pid: 11, argv: argvOf('a') });
    split.onMessage(b, { t: 'hello', node: 'shmc-b', pid: 22, argv: argvOf('b') });
    split.onMessage(a, { t: 'healthy', on: true });
    split.onMessage(a, { t: 'claim', epoch: 1 });
    expect(a.sent.at(-1)).toEqual({ t: 'claimed', ok: true, epoch: 1 });
    split.onMessage(b, { t: 'healthy', on: true });
    split.onMessage(b, { t: 'claim', epoch: 2 });
    expect(b.sent.at(-1)).toEqual({ t: 'claimed', ok: false, epoch: 2 });
    split.onMessage(a, { t: 'wdset', timeoutMs: 1000 });
    split.onMessage(b, { t: 'wdset', timeoutMs: 1000 });
    const kickB = () => split.onMessage(b, { t: 'kick' });
    clock.advance(500);
    kickB();
    split.onMessage(a, { t: 'kick' });
    // SIGSTOP of a: no kicks any more, the connection stays open
    for (let i = 0; i < 9; i++) {
      clock.advance(100);
      kickB();
    }
    expect(restarts).toEqual([]);
    const linesBefore = b.sent.filter((m) => m.t === 'lines').length;
    clock.advance(100);
    kickB();
    expect(restarts).toEqual([{ node: 'shmc-a', pid: 11, argv: argvOf('a') }]);
    expect(split.restarts['shmc-a']).toBe(1);
    expect(a.closed()).toBe(true);
    const lastLines = b.sent.filter((m): m is Extract<ToShmc, { t: 'lines' }> => m.t === 'lines');
    expect(lastLines.length).toBeGreaterThan(linesBefore);
    expect(lastLines.at(-1)!.peer).toMatchObject({ healthy: false, active: false, power: 'reset' });
    expect(lastLines.at(-1)!.at).toBe(1_000_000 + clock.now());
    // the stopped process's connection is no longer heard
    split.onMessage(a, { t: 'claim', epoch: 9 });
    expect(split.hw.view('shmc-b').peer.active).toBe(false);
    // a killed ShMC (connection closed) drops its lines at once
    split.onMessage(b, { t: 'claim', epoch: 2 });
    expect(b.sent.at(-1)).toEqual({ t: 'claimed', ok: true, epoch: 2 });
    const a2 = fakeConn('a2');
    split.onMessage(a2, { t: 'hello', node: 'shmc-a', pid: 33, argv: argvOf('a') });
    expect(a2.sent[0]).toMatchObject({ t: 'welcome' });
    split.onClose(b);
    expect(a2.sent.filter((m) => m.t === 'lines').at(-1)).toMatchObject({ peer: { healthy: false, active: false, power: 'off' } });
    expect(split.connected('shmc-b')).toBe(false);
    split.stop();
  });

  it('a password on the registered argv is taken off it and kept apart; the restart gets it (for the environment), the stored flags never', () => {
    const { clock, restarts, split } = setup();
    const a = fakeConn('a');
    // an shmc that put its password on the argv (by hand, or an older build), in both flag forms
    split.onMessage(a, { t: 'hello', node: 'shmc-a', pid: 11, argv: [...argvOf('a'), '--admin-password', 'on-argv-pw'] });
    expect(a.sent[0]).toMatchObject({ t: 'welcome' });
    expect(split.registration('shmc-a')).toEqual({ node: 'shmc-a', pid: 11, argv: argvOf('a'), adminPassword: 'on-argv-pw' });
    const b = fakeConn('b');
    split.onMessage(b, { t: 'hello', node: 'shmc-b', pid: 22, argv: [`--admin-password=eq-pw`, ...argvOf('b')] });
    expect(split.registration('shmc-b')).toEqual({ node: 'shmc-b', pid: 22, argv: argvOf('b'), adminPassword: 'eq-pw' });
    // the hello's own field (what atcasim shmc sends) wins over one found on the argv
    split.onClose(b);
    const b2 = fakeConn('b2');
    split.onMessage(b2, { t: 'hello', node: 'shmc-b', pid: 23, argv: argvOf('b'), adminPassword: 'field-pw' });
    expect(split.registration('shmc-b')).toEqual({ node: 'shmc-b', pid: 23, argv: argvOf('b'), adminPassword: 'field-pw' });
    // watchdog expiry: the restart carries the password apart from the argv
    split.onMessage(a, { t: 'wdset', timeoutMs: 500 });
    clock.advance(500);
    expect(restarts).toHaveLength(1);
    expect(restarts[0]).toEqual({ node: 'shmc-a', pid: 11, argv: argvOf('a'), adminPassword: 'on-argv-pw' });
    expect(restarts[0]!.argv.join(' ')).not.toMatch(/admin-password|on-argv-pw/);
    split.stop();
  });

  it('a stateload too large to be a SEL is refused: the ShMC is seeded from the shelf instead, the rest of it ignored', () => {
    const { split } = setup();
    const a = fakeConn('a');
    split.onMessage(a, { t: 'hello', node: 'shmc-a', pid: 11, argv: argvOf('a') });
    const sel = Array.from({ length: 0x10000 }, (_, i) => ({ id: i + 1, data: 'AAAA' }));
    split.onMessage(a, { t: 'stateload', sel, state: [], done: false });
    expect(a.sent.filter((m) => m.t === 'stateend')).toHaveLength(1);
    split.onMessage(a, { t: 'stateload', sel: [{ id: 1, data: 'AAAA' }], state: [], done: true });
    expect(a.sent.filter((m) => m.t === 'stateend')).toHaveLength(1);
    expect(split.lastLoad).toBeUndefined();
    split.stop();
  });
  it('double fault: a ShMC that missed changes while it was not the hot standby may not load its stale copy over them (it is seeded from the shelf)', () => {
    const { split } = setup();
    // the shelf's SEL, as far as the split side sees it
    const subs = new Map<string, (e: unknown) => void>();
    const recs = new Map<number, SelRecord>();
    let nextId = 1;
    const rec = (id: number): SelRecord => ({ recordId: id, recordType: 2, timestamp: 1000 + id, generatorId: 0x20, evmRev: 4, sensorType: 0xf0, sensorNumber: 1, eventDirType: 0x6f, eventData: [0, 0, 0] });
    const log = (): number => {
      const r = rec(nextId++);
      recs.set(r.recordId, r);
      subs.get('sel.added')?.({ record: r });
      return r.recordId;
    };
    const shelf = {
      on: (ev: string, cb: (e: unknown) => void) => {
        subs.set(ev, cb);
        return () => subs.delete(ev);
      },
      roles: { set: () => {} },
      fruNames: () => [],
      sensors: { list: () => [] },
      sel: {
        records: () => [...recs.values()],
        reserve: () => 0,
        delete: (id: number) => {
          recs.delete(id);
          subs.get('sel.deleted')?.({ recordId: id });
        },
        add: (r: SelRecord) => {
          const x = { ...r, recordId: nextId++ };
          recs.set(x.recordId, x);
          return x;
        },
      },
    };
    split.attachShelf(shelf as unknown as Shelf);
    const selOf = (c: ReturnType<typeof fakeConn>) => c.sent.filter((m) => m.t === 'sel').map((m) => (m as Extract<ToShmc, { t: 'sel' }>).id);
    const up = (c: ReturnType<typeof fakeConn>, node: 'shmc-a' | 'shmc-b', pid: number) => {
      split.onMessage(c, { t: 'hello', node, pid, argv: argvOf(node === 'shmc-a' ? 'a' : 'b') });
      split.onMessage(c, { t: 'healthy', on: true });
    };
    const activate = (c: ReturnType<typeof fakeConn>, epoch: number, sel: number[]) => {
      split.onMessage(c, { t: 'claim', epoch });
      expect(c.sent.at(-1)).toEqual({ t: 'claimed', ok: true, epoch });
      split.onMessage(c, { t: 'role', role: 'active', epoch });
      split.onMessage(c, { t: 'stateload', sel: sel.map((id) => ({ id, data: Buffer.from(encodeSelRecord(recs.get(id) ?? rec(id))).toString('base64') })), state: [], done: true });
    };
    // a active with b hot: records 1, 2 go to a (and, mirrored, to b)
    const a = fakeConn('a');
    const b = fakeConn('b');
    up(a, 'shmc-a', 11);
    up(b, 'shmc-b', 22);
    activate(a, 1, []);
    split.onMessage(b, { t: 'role', role: 'standby.hot', epoch: 1 });
    const r1 = log();
    const r2 = log();
    expect(selOf(a)).toEqual([r1, r2]);
    // kill -9 a: b (hot, holds 1 and 2) takes over and loads its copy — accepted
    split.onClose(a);
    activate(b, 2, [r1, r2]);
    expect(split.lastLoad).toMatchObject({ node: 'shmc-b', kept: 2, dropped: 0 });
    // b acknowledges record 3 while a is down; a restarts (its database holds 1, 2 only) …
    const r3 = log();
    expect(selOf(b)).toContain(r3);
    const a2 = fakeConn('a2');
    up(a2, 'shmc-a', 33);
    split.onMessage(a2, { t: 'role', role: 'standby.ready', epoch: 2 });
    // … and b is killed before a caught up: a's load would drop record 3 — refused, a is seeded
    split.onClose(b);
    split.lastLoad = undefined;
    activate(a2, 3, [r1, r2]);
    expect(split.lastLoad).toBeUndefined();
    expect(recs.has(r3)).toBe(true);
    expect(a2.sent.filter((m) => m.t === 'stateend')).toHaveLength(1);
    expect(selOf(a2)).toEqual(expect.arrayContaining([r1, r2, r3]));
    // control: once a ShMC has caught up (standby.hot) its copy is trusted again
    const b2 = fakeConn('b2');
    up(b2, 'shmc-b', 44);
    split.onMessage(b2, { t: 'role', role: 'standby.hot', epoch: 3 });
    split.onClose(a2);
    activate(b2, 4, [r1, r2, r3]);
    expect(split.lastLoad).toMatchObject({ node: 'shmc-b', kept: 3, dropped: 0 });
    split.stop();
  });
});
