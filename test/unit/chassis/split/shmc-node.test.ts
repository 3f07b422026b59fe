/**
 * Two ShMC runtimes (chassis/split/shmc-node.ts) on a split shelf (chassis/split/split-shelf.ts),
 * wired through in-memory bus connections and a loopback "UDP" with 0.2 ms latency, in simulated
 * time: the whole protocol without sockets, deterministic.
 *
 * - boot: one active (holds the shelf address), the other standby.hot;
 * - synchronous mirroring: the answer to an IPMI request that wrote a SEL record leaves the active
 *   only after the hot standby committed the record to its own database;
 * - kill (connection closed): the standby takes over within 3 heartbeat intervals + activation of
 *   the lines dropping, and holds every record;
 * - heartbeats blocked both ways: no takeover (the lines show the peer healthy and active);
 * - hang (no kicks, connection open): the shelf's watchdog resets it (restart port with the
 *   registered flags), the peer takes over.
 */
import { describe, expect, it } from 'vitest';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { resolveHaConfig } from '../../../../chassis/config/ha.ts';
import type { LanServer } from '../../../../chassis/ipmi/lan-server.ts';
import type { Shelf } from '../../../../chassis/model/shelf.ts';
import { encodeSelRecord, type SelRecord } from '../../../../chassis/sensors/sel.ts';
import type { ShmcNode, ToShmc } from '../../../../chassis/split/bus-codec.ts';
import { shmcArgv } from '../../../../chassis/split/shmc-flags.ts';
import { ShmcRuntime, type ShmcStatePort } from '../../../../chassis/split/shmc-node.ts';
import { SplitShelf, type BusConnection, type ShmcRegistration } from '../../../../chassis/split/split-shelf.ts';

const LAT = 0.2;

function memState(): ShmcStatePort & { sel: Map<number, string>; mgmt: Map<string, string> } {
  const sel = new Map<number, string>();
  const mgmt = new Map<string, string>();
  let epoch = 0;
  let held = false;
  return {
    sel,
    mgmt,
    stateHeld: () => held,
    setStateHeld: (h) => void (held = h),
    putState: (kind, key, data) => void mgmt.set(`${kind}:${key}`, data),
    allState: () => [...mgmt].map(([k, data]) => ({ kind: k.split(':')[0] as 'user' | 'thresholds', key: k.slice(k.indexOf(':') + 1), data })),
    putSel: (id, data) => void sel.set(id, data),
    deleteSel: (id) => void sel.delete(id),
    clearSel: () => sel.clear(),
    allSel: () => [...sel].map(([id, data]) => ({ id, data })).sort((a, b) => a.id - b.id),
    epoch: () => epoch,
    setEpoch: (e) => void (epoch = e),
  };
}

function world() {
  const clock = new SimClock(0);
  const cfg = resolveHaConfig();
  const restarts: ShmcRegistration[] = [];
  const split = new SplitShelf({ clock, log: nullLogger, wallNow: () => clock.now(), ha: { ...cfg }, restart: (r) => restarts.push(r), kill: () => {} });
  // A shelf with a SEL: the fake LAN server logs one record per request (an "Add SEL Entry").
  const selListeners: Array<(e: { record: SelRecord }) => void> = [];
  const changeListeners = new Map<string, (e: { recordId?: number }) => void>();
  const records: SelRecord[] = [];
  const shelf = {
    on: (type: string, fn: (e: { record: SelRecord }) => void) => {
      if (type === 'sel.added') selListeners.push(fn);
      else changeListeners.set(type, fn as unknown as (e: { recordId?: number }) => void);
      return () => {};
    },
    fruNames: () => ['slot3'],
    roles: { set: () => {} },
    // what a stateload uses (the Shelf's Delete / Add SEL Entry and Set Sensor Thresholds)
    sel: {
      records: () => records,
      reserve: () => 1,
      delete: (id: number) => {
        const i = records.findIndex((r) => r.recordId === id);
        if (i < 0) throw new Error(`no SEL record ${id}`);
        records.splice(i, 1);
        changeListeners.get('sel.deleted')?.({ recordId: id });
        return id;
      },
      add: (r: SelRecord) => {
        const rec = { ...r, recordId: Math.max(0, ...records.map((x) => x.recordId)) + 1 };
        records.push(rec);
        for (const fn of selListeners) fn({ record: rec });
        return rec;
      },
    },
    sensors: {
      list: () => [{ number: 2, thresholds: { unc: 70 }, hysteresis: { positive: 2, negative: 2 } }],
      get: (_fru: string, n: number) => ({ number: n, thresholds: { unc: thresholdUnc }, hysteresis: { positive: 2, negative: 2 } }),
      setThresholds: (_fru: string, _n: number, t: { unc?: number | null }) => {
        thresholdUnc = t.unc ?? 0;
        changeListeners.get('sensor.thresholds')?.({ fru: 'slot3', number: 2 } as never);
      },
    },
  } as unknown as Shelf;
  let thresholdUnc = 70;
  const users = [1, 2].map((id) => ({ id, name: id === 2 ? 'admin' : '', password: new Uint8Array([1, 2, 3]), privilege: 4, enabled: true, ipmiMessaging: true, linkAuth: false, callinRestricted: false }));
  split.attachShelf(shelf);
  const lan = {
    users: {
      list: () => users.map((u) => ({ ...u })),
      get: (id: number) => users.find((u) => u.id === id),
      update: (id: number, ch: Record<string, unknown>) => Object.assign(users.find((u) => u.id === id)!, ch),
    },
    handleDatagram: (bytes: Uint8Array) => {
      if (bytes[0] === 0xee) {
        // Set User Password on user 2
        users[1]!.password = new Uint8Array([9, 9, bytes[1]!]);
        return [new Uint8Array([0xbb, 0])];
      }
      if (bytes[0] === 0xef) {
        // Set Sensor Thresholds on slot3 #2
        thresholdUnc = bytes[1]!;
        changeListeners.get('sensor.thresholds')?.({ fru: 'slot3', number: 2 } as never);
        return [new Uint8Array([0xbc, 0])];
      }
      const r: SelRecord = { recordId: records.length + 1, recordType: 2, timestamp: 0, generatorId: 0x20, evmRev: 4, sensorType: 1, sensorNumber: bytes[0]!, eventDirType: 1, eventData: [0, 0, 0] };
      records.push(r);
      for (const fn of selListeners) fn({ record: r });
      return [new Uint8Array([0xaa, r.recordId])];
    },
    tick: () => undefined,
    attachTransport: () => () => {},
    endAllSessions: () => 0,
  } as unknown as LanServer;
  split.attachLan(lan, 6230);

  const nodes = new Map<ShmcNode, { rt: ShmcRuntime; conn: BusConnection; state: ReturnType<typeof memState>; blocked: { v: boolean }; alive: boolean; bound: boolean; replies: Array<{ at: number; bytes: Uint8Array; standbyHad: boolean; standbyMgmt: Map<string, string> }> }>();
  const other = (n: ShmcNode): ShmcNode => (n === 'shmc-a' ? 'shmc-b' : 'shmc-a');
  const boot = (n: ShmcNode, pid: number) => {
    const state = memState();
    const letter = n === 'shmc-a' ? 'a' : 'b';
    let rt: ShmcRuntime | undefined;
    let open = true;
    const conn: BusConnection = {
      label: n,
      send: (m: ToShmc) => {
        if (open) clock.setTimeout(() => open && rt?.onBus(m), LAT);
      },
      close: () => {
        open = false;
      },
    };
    const entry = { rt: undefined as unknown as ShmcRuntime, conn, state, blocked: { v: false }, alive: true, bound: false, replies: [] as Array<{ at: number; bytes: Uint8Array; standbyHad: boolean; standbyMgmt: Map<string, string> }> };
    rt = new ShmcRuntime({
      node: n,
      cfg,
      clock,
      random: new SeededRandom(pid),
      log: nullLogger,
      wallNow: () => clock.now(),
      bus: (m) => {
        if (open && entry.alive) clock.setTimeout(() => split.onMessage(conn, m), LAT);
      },
      sendPeer: (bytes) => {
        const copy = Uint8Array.from(bytes);
        clock.setTimeout(() => {
          const peer = nodes.get(other(n));
          if (peer?.alive) peer.rt.onPeerDatagram(copy);
        }, LAT);
      },
      shelfAddress: (b) => void (entry.bound = b),
      sendIpmi: (_a, _p, ds) => {
        for (const d of ds) entry.replies.push({ at: clock.now(), bytes: d, standbyHad: nodes.get(other(n))?.state.sel.has(d[1]!) ?? false, standbyMgmt: new Map(nodes.get(other(n))?.state.mgmt ?? []) });
      },
      state,
    });
    entry.rt = rt;
    nodes.set(n, entry);
    split.onMessage(conn, {
      t: 'hello', node: n, pid,
      argv: shmcArgv({ node: letter, shelf: { host: '127.0.0.1', port: 1 }, peerListen: { host: '127.0.0.1', port: 2 }, peer: { host: '127.0.0.1', port: 3 }, ipmiPort: 6230, maintPort: 4, db: `/x/${n}.db`, adminPassword: 'pw' }),
    });
    clock.advance(1);
    rt.start();
    return entry;
  };
  const kill = (n: ShmcNode) => {
    const e = nodes.get(n)!;
    e.alive = false;
    e.rt.stop();
    split.onClose(e.conn);
  };
  const hang = (n: ShmcNode) => {
    // SIGSTOP: nothing runs, the connection stays open
    const e = nodes.get(n)!;
    e.alive = false;
    e.rt.stop();
  };
  const deleteRecord = (id: number) => {
    records.splice(records.findIndex((r) => r.recordId === id), 1);
    changeListeners.get('sel.deleted')?.({ recordId: id });
  };
  const clearSel = () => {
    records.length = 0;
    changeListeners.get('sel.cleared')?.({});
  };
  /** A record the shelf's hardware logs (hot swap, a fault): pushed to the loaded active, else pending. */
  const hardwareRecord = (sensorNumber: number) => {
    const r: SelRecord = { recordId: Math.max(0, ...records.map((x) => x.recordId)) + 1, recordType: 2, timestamp: 0, generatorId: 0x20, evmRev: 4, sensorType: 0xf0, sensorNumber, eventDirType: 0x6f, eventData: [1, 0, 0] };
    records.push(r);
    for (const fn of selListeners) fn({ record: r });
    return r;
  };
  /** A record put into the shelf's SEL behind the ShMCs' back (no event: never mirrored). */
  const behindTheBack = (sensorNumber: number) => {
    const r: SelRecord = { recordId: Math.max(0, ...records.map((x) => x.recordId)) + 1, recordType: 2, timestamp: 0, generatorId: 0x20, evmRev: 4, sensorType: 0x01, sensorNumber, eventDirType: 1, eventData: [0, 0, 0] };
    records.push(r);
    return r;
  };
  return { clock, cfg, split, nodes, boot, kill, hang, restarts, records, users, deleteRecord, clearSel, hardwareRecord, behindTheBack };
}

function roleOf(w: ReturnType<typeof world>, n: ShmcNode): string {
  return w.nodes.get(n)!.rt.status().role;
}

describe('ShMC pair on the split shelf (simulated time)', () => {
  it('boots to one active holding the shelf address and one hot standby', () => {
    const w = world();
    w.boot('shmc-a', 101);
    w.boot('shmc-b', 102);
    w.clock.advance(3000);
    expect(roleOf(w, 'shmc-a')).toBe('active');
    expect(roleOf(w, 'shmc-b')).toBe('standby.hot');
    expect(w.nodes.get('shmc-a')!.bound).toBe(true);
    expect(w.nodes.get('shmc-b')!.bound).toBe(false);
    expect(w.split.shmStatus()).toMatchObject({ self: 'shmc-a', role: 'active', peer: 'shmc-b', peerRole: 'standby.hot' });
    // the TUI's HA lines: roles, heartbeat ages the ShMCs report, the watchdog countdown in the shelf
    const views = w.split.memberViews();
    expect(views.map((v) => [v.node, v.role])).toEqual([['shmc-a', 'active'], ['shmc-b', 'standby.hot']]);
    for (const v of views) {
      expect(v.heartbeatAgeMs).toBeLessThan(w.cfg.heartbeatMs * 2);
      expect(v.watchdogMs).toBeGreaterThan(0);
    }
  });

  it('an answer that reports a SEL write leaves only after the hot standby committed the record', () => {
    const w = world();
    const a = w.boot('shmc-a', 101);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    expect(a.rt.status().mirror).toMatchObject({ synchronous: true });
    for (let i = 0; i < 5; i++) {
      a.rt.onIpmiDatagram(new Uint8Array([i]), '127.0.0.1', 40000);
      w.clock.advance(0.5); // the shelf answered (bus round trip) but the mirror ack is not back yet
    }
    w.clock.advance(50);
    expect(a.replies).toHaveLength(5);
    for (const r of a.replies) expect(r.standbyHad, `reply for record ${r.bytes[1]}`).toBe(true);
    expect([...b.state.sel.keys()]).toEqual(expect.arrayContaining(w.records.map((r) => r.recordId)));
    // Without a hot standby the answers go at once.
    w.kill('shmc-b');
    w.clock.advance(1000);
    const n = a.replies.length;
    a.rt.onIpmiDatagram(new Uint8Array([9]), '127.0.0.1', 40000);
    w.clock.advance(1);
    expect(a.replies).toHaveLength(n + 1);
    expect(a.replies.at(-1)!.standbyHad).toBe(false);
  });

  it('users and thresholds changed by a request are on the hot standby before its answer leaves', () => {
    const w = world();
    const a = w.boot('shmc-a', 101);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    // the catch-up at activation brought every user and thresholds record to both
    for (const s of [a.state, b.state]) {
      expect(JSON.parse(s.mgmt.get('user:2')!)).toMatchObject({ name: 'admin', password: Buffer.from([1, 2, 3]).toString('base64') });
      expect(JSON.parse(s.mgmt.get('thresholds:slot3#2')!)).toMatchObject({ thresholds: { unc: 70 } });
    }
    a.rt.onIpmiDatagram(new Uint8Array([0xee, 7]), '127.0.0.1', 40000);
    a.rt.onIpmiDatagram(new Uint8Array([0xef, 75]), '127.0.0.1', 40000);
    w.clock.advance(50);
    const [pw, th] = a.replies.slice(-2);
    expect(JSON.parse(pw!.standbyMgmt.get('user:2')!).password).toBe(Buffer.from([9, 9, 7]).toString('base64'));
    expect(JSON.parse(th!.standbyMgmt.get('thresholds:slot3#2')!)).toMatchObject({ thresholds: { unc: 75 } });
    expect(b.rt.status().state).toEqual({ users: [2], thresholds: 1, held: true });
  });

  it('deleted records and a cleared SEL reach both replicas; a restarted standby catches up exactly', () => {
    const w = world();
    const a = w.boot('shmc-a', 101);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    for (let i = 0; i < 4; i++) a.rt.onIpmiDatagram(new Uint8Array([i]), '127.0.0.1', 40000);
    w.clock.advance(50);
    const ids = w.records.map((r) => r.recordId);
    w.deleteRecord(ids[1]!);
    w.clock.advance(50);
    const expected = ids.filter((id) => id !== ids[1]);
    expect([...a.state.sel.keys()].sort((x, y) => x - y)).toEqual(expected);
    expect([...b.state.sel.keys()].sort((x, y) => x - y)).toEqual(expected);
    // b goes away; meanwhile one more record is deleted and one added; b restarts with a stale database
    w.kill('shmc-b');
    w.clock.advance(2000);
    w.deleteRecord(ids[2]!);
    a.rt.onIpmiDatagram(new Uint8Array([7]), '127.0.0.1', 40000);
    w.clock.advance(50);
    const stale = b.state.sel;
    const b2 = w.boot('shmc-b', 202);
    for (const [id, data] of stale) b2.state.putSel(id, data);
    w.clock.advance(3000);
    expect(b2.rt.status().role).toBe('standby.hot');
    const now = w.records.map((r) => r.recordId).sort((x, y) => x - y);
    expect([...b2.state.sel.keys()].sort((x, y) => x - y)).toEqual(now);
    w.clearSel();
    w.clock.advance(50);
    expect(a.state.sel.size).toBe(0);
    expect(b2.state.sel.size).toBe(0);
  });

  it('kill of the active: the standby takes over within 3 heartbeats + activation of the lines dropping, with every record', () => {
    const w = world();
    const a = w.boot('shmc-a', 101);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    for (let i = 0; i < 3; i++) a.rt.onIpmiDatagram(new Uint8Array([i]), '127.0.0.1', 40000);
    w.clock.advance(50);
    w.clock.advance(13); // somewhere between two heartbeats
    w.kill('shmc-a');
    const t0 = w.clock.now();
    while (roleOf(w, 'shmc-b') !== 'active' && w.clock.now() - t0 < 2000) w.clock.advance(1);
    expect(roleOf(w, 'shmc-b')).toBe('active');
    const t = b.rt.status().takeover!;
    expect(t.from).toBe('standby.hot');
    expect(t.sincePeerLinesDropMs).not.toBeNull();
    expect(t.totalMs!).toBeLessThanOrEqual(w.cfg.heartbeatMs * w.cfg.missedHeartbeats + w.cfg.activationMs);
    expect(b.bound).toBe(true);
    for (const r of w.records) expect(b.state.sel.has(r.recordId)).toBe(true);
  });

  it('the first active of fresh databases is seeded by the shelf (statewant … stateend) and then holds the state; so does its standby after the catch-up', () => {
    const w = world();
    const a = w.boot('shmc-a', 101);
    expect(a.state.stateHeld()).toBe(false);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    expect(a.rt.status().activations).toEqual([expect.objectContaining({ source: 'statewant' })]);
    expect(a.state.stateHeld()).toBe(true);
    expect(b.rt.status().role).toBe('standby.hot');
    expect(b.state.stateHeld()).toBe(true);
    expect(w.split.lastLoad).toBeUndefined();
  });

  it('kill of the active: the new active loads the shelf from its own database — a record behind the ShMCs\' back is gone, records logged during the takeover are kept and mirrored', () => {
    const w = world();
    const a = w.boot('shmc-a', 101);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    for (let i = 0; i < 3; i++) a.rt.onIpmiDatagram(new Uint8Array([i]), '127.0.0.1', 40000);
    w.clock.advance(50);
    const committed = [...b.state.sel].sort((x, y) => x[0] - y[0]);
    expect(committed.map(([id]) => id)).toEqual(w.records.map((r) => r.recordId));
    // the control: a record the shelf holds that no ShMC ever got
    const ghost = w.behindTheBack(0x77);
    // a user renamed in the standby's copy only (as if changed on the shelf behind its back the other way round)
    const u2 = JSON.parse(b.state.mgmt.get('user:2')!) as Record<string, unknown>;
    b.state.putState('user', '2', JSON.stringify({ ...u2, name: 'root' }));
    w.kill('shmc-a');
    // the shelf's hardware logs the fault while no ShMC is loaded: pending
    const fault = w.hardwareRecord(0x55);
    while (roleOf(w, 'shmc-b') !== 'active') w.clock.advance(1);
    w.clock.advance(5);
    expect(b.rt.status().activations.at(-1)).toMatchObject({ source: 'stateload', sel: committed.length });
    expect(w.split.lastLoad).toMatchObject({ node: 'shmc-b', kept: committed.length, dropped: 1, readded: 0, pending: 1, users: 1 });
    const ids = w.records.map((r) => r.recordId);
    expect(ids).not.toContain(ghost.recordId);
    expect(ids).toContain(fault.recordId);
    for (const [id, data] of committed) {
      const r = w.records.find((x) => x.recordId === id)!;
      expect(Buffer.from(encodeSelRecord(r)).toString('base64')).toBe(data);
    }
    expect(w.users.find((u) => u.id === 2)!.name).toBe('root');
    // the pending record went to the new active's database
    expect(b.state.sel.has(fault.recordId)).toBe(true);
    // no datagram was relayed before the load
    expect(w.split.unloadedIpmi).toBe(0);
  });

  it('a stateload whose users have no administrator keeps the shelf\'s users (and sends them to the ShMC)', () => {
    const w = world();
    const a = w.boot('shmc-a', 101);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    const u2 = JSON.parse(b.state.mgmt.get('user:2')!) as Record<string, unknown>;
    b.state.putState('user', '2', JSON.stringify({ ...u2, enabled: false }));
    w.kill('shmc-a');
    while (roleOf(w, 'shmc-b') !== 'active') w.clock.advance(1);
    w.clock.advance(5);
    expect(w.split.lastLoad).toMatchObject({ users: 0 });
    expect(w.users.find((u) => u.id === 2)!.enabled).toBe(true);
    expect(JSON.parse(b.state.mgmt.get('user:2')!)).toMatchObject({ enabled: true });
    void a;
  });

  it('heartbeats blocked both ways: no takeover (the peer\'s lines stay healthy and active)', () => {
    const w = world();
    const a = w.boot('shmc-a', 101);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    a.rt.blockHeartbeats(true);
    b.rt.blockHeartbeats(true);
    let silent = false;
    for (let i = 0; i < 50; i++) {
      w.clock.advance(100);
      expect(roleOf(w, 'shmc-a')).toBe('active');
      expect(roleOf(w, 'shmc-b')).not.toBe('active');
      if ((b.rt.status().heartbeatAgeMs ?? 0) > 300) silent = true;
    }
    expect(silent).toBe(true);
    expect(b.rt.status().takeovers).toBe(0);
  });

  it('hang (connection open, no kicks): the shelf\'s watchdog resets it with the registered flags; the peer takes over', () => {
    const w = world();
    w.boot('shmc-a', 101);
    const b = w.boot('shmc-b', 102);
    w.clock.advance(3000);
    w.hang('shmc-a');
    w.clock.advance(500);
    expect(roleOf(w, 'shmc-b')).not.toBe('active'); // silent but its lines are still up
    w.clock.advance(1000);
    expect(w.restarts).toHaveLength(1);
    expect(w.restarts[0]).toMatchObject({ node: 'shmc-a', pid: 101 });
    expect(w.restarts[0]!.argv).toContain('--node');
    expect(roleOf(w, 'shmc-b')).toBe('active');
    expect(b.rt.status().takeover!.sincePeerLinesDropMs).not.toBeNull();
    // the restarted process registers again and comes back as a standby
    const a2 = w.boot('shmc-a', 201);
    w.clock.advance(3000);
    expect(a2.rt.status().role).toBe('standby.hot');
    const seq = a2.rt.status().roles.map((r) => r.role);
    expect(seq).not.toContain('active');
    expect(seq.indexOf('standby.hot')).toBeGreaterThan(seq.indexOf('standby.ready'));
  });
});
