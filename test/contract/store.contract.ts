// One behavioural contract for every Store implementation (chassis/persistence/store.ts):
// run by store.contract.test.ts against MemoryStore and SqliteStore (':memory:' and a temp file).
import { describe, expect, it } from 'vitest';
import type { FruStateRecord, IpmiUserRecord, Store } from '../../chassis/persistence/store.ts';

/** A fresh store for one test, and how to dispose of it. `reopen` (durable stores) closes and reopens. */
export interface StoreFixture {
  store: Store;
  cleanup(): void;
  reopen?: () => Store;
}

const rec16 = (id: number, fill: number) => {
  const b = new Uint8Array(16).fill(fill);
  b[0] = id & 0xff;
  b[1] = id >> 8;
  b[2] = 0x02;
  return b;
};

const meta = (next: number, overflow = false) => ({ nextRecordId: next, overflow, lastAddTime: 1000 + next, lastEraseTime: 0xffffffff });

const user = (id: number, over: Partial<IpmiUserRecord> = {}): IpmiUserRecord => ({
  id,
  name: `user${id}`,
  password: new TextEncoder().encode(`secret-${id}`),
  privilege: 4,
  enabled: true,
  ipmiMessaging: true,
  linkAuth: false,
  callinRestricted: false,
  ...over,
});

const fruState = (fru: string, state: number): FruStateRecord => ({
  fru,
  state,
  previous: 4,
  lastCause: 'handle',
  handleClosed: false,
  activationLocked: false,
  deactivationLocked: true,
  activationPending: false,
  faults: ['payload'],
  ledOverrides: [{ led: 1, mode: 'blink', onMs: 300, offMs: 700, color: 2 }],
  powerLevel: 0,
  desiredLevel: 2,
  portOverrides: { 'fabric/1': false },
  chassisOff: false,
});

/** Registers the contract suite for one implementation. */
export function storeContract(name: string, make: () => StoreFixture): void {
  describe(`Store contract: ${name}`, () => {
    const withStore = (fn: (f: StoreFixture) => void) => () => {
      const f = make();
      try {
        fn(f);
      } finally {
        f.cleanup();
      }
    };

    it('starts empty', withStore(({ store }) => {
      expect(store.getConfig()).toBeUndefined();
      expect(store.loadSel()).toEqual({ records: [], nextRecordId: 1, overflow: false, lastAddTime: 0xffffffff, lastEraseTime: 0xffffffff });
      expect(store.listUsers()).toEqual([]);
      expect(store.loadFruStates()).toEqual([]);
      expect(store.loadRoles()).toEqual([]);
      expect(store.listThresholds()).toEqual([]);
      expect(store.getMeta('x')).toBeUndefined();
    }));

    it('keeps the configuration in force (replaced on put)', withStore(({ store }) => {
      store.putConfig({ yaml: 'a: 1\n', source: 'one.yaml', storedAt: 10 });
      store.putConfig({ yaml: 'b: 2\n', source: 'two.yaml', storedAt: 20 });
      expect(store.getConfig()).toEqual({ yaml: 'b: 2\n', source: 'two.yaml', storedAt: 20 });
    }));

    it('appends SEL records in log order with their counters; delete and clear', withStore(({ store }) => {
      store.appendSel(1, rec16(1, 0xaa), meta(2));
      store.appendSel(2, rec16(2, 0xbb), meta(3));
      store.appendSel(3, rec16(3, 0xcc), meta(4, true));
      let s = store.loadSel();
      expect(s.records.map((r) => [...r])).toEqual([[...rec16(1, 0xaa)], [...rec16(2, 0xbb)], [...rec16(3, 0xcc)]]);
      expect(s).toMatchObject(meta(4, true));
      store.deleteSel(2, meta(4, true));
      s = store.loadSel();
      expect(s.records.map((r) => r[0])).toEqual([1, 3]);
      store.clearSel({ nextRecordId: 1, overflow: false, lastAddTime: 1004, lastEraseTime: 2000 });
      s = store.loadSel();
      expect(s.records).toEqual([]);
      expect(s).toMatchObject({ nextRecordId: 1, overflow: false, lastEraseTime: 2000 });
      // IDs are reused after a clear
      store.appendSel(1, rec16(1, 0x11), meta(2));
      expect(store.loadSel().records.length).toBe(1);
    }));

    it('refuses SEL records that are not 16 bytes, and duplicate IDs, without changing anything', withStore(({ store }) => {
      store.appendSel(1, rec16(1, 1), meta(2));
      expect(() => store.appendSel(2, new Uint8Array(15), meta(3))).toThrow();
      expect(() => store.appendSel(1, rec16(1, 2), meta(3))).toThrow();
      expect(store.loadSel()).toMatchObject({ nextRecordId: 2 });
      expect(store.loadSel().records.map((r) => r[3])).toEqual([1]);
    }));

    it('stores FRU data with its baseline, returning copies', withStore(({ store }) => {
      const bytes = Uint8Array.from([1, 0, 1, 5, 0x0d, 0, 0, 0xec]);
      store.putFruData('slot3', { bytes, baseline: 'fnv1a:1' });
      const got = store.getFruData('slot3')!;
      expect([...got.bytes]).toEqual([...bytes]);
      got.bytes[0] = 9;
      expect(store.getFruData('slot3')!.bytes[0]).toBe(1);
      expect(store.getFruData('slot4')).toBeUndefined();
    }));

    it('stores thresholds per (fru, sensor)', withStore(({ store }) => {
      store.putThresholds({ fru: 'slot3', sensor: 1, values: { unc: 65, uc: 80, unr: null }, baseline: 'b1' });
      store.putThresholds({ fru: 'slot3', sensor: 1, values: { unc: 60 }, baseline: 'b1' });
      store.putThresholds({ fru: 'shmc-a', sensor: 1, values: { uc: 75 }, baseline: 'b2' });
      expect(store.listThresholds().sort((a, b) => a.fru.localeCompare(b.fru))).toEqual([
        { fru: 'shmc-a', sensor: 1, values: { uc: 75 }, baseline: 'b2' },
        { fru: 'slot3', sensor: 1, values: { unc: 60 }, baseline: 'b1' },
      ]);
      store.deleteThresholds('slot3', 1);
      expect(store.listThresholds().map((t) => t.fru)).toEqual(['shmc-a']);
    }));

    it('stores IPMI users with recoverable passwords and validates them', withStore(({ store }) => {
      store.setUser(user(2));
      store.setUser(user(3, { privilege: 2, enabled: false, ipmiMessaging: false, linkAuth: true, callinRestricted: true }));
      store.setUser(user(4, { privilege: 0x0f, name: 'nöaccess' }));
      expect(store.listUsers().map((u) => u.id)).toEqual([2, 3, 4]);
      expect(store.getUser(2)).toEqual(user(2));
      expect(new TextDecoder().decode(store.getUser(2)!.password)).toBe('secret-2');
      expect(store.getUser(3)).toEqual(user(3, { privilege: 2, enabled: false, ipmiMessaging: false, linkAuth: true, callinRestricted: true }));
      expect(store.getUser(4)!.name).toBe('nöaccess');
      store.setUser(user(2, { password: new Uint8Array(20).fill(0x41) }));
      expect(store.getUser(2)!.password.length).toBe(20);
      expect(() => store.setUser(user(16))).toThrow(RangeError);
      expect(() => store.setUser(user(0))).toThrow(RangeError);
      expect(() => store.setUser(user(5, { password: new Uint8Array(21) }))).toThrow(RangeError);
      expect(() => store.setUser(user(5, { name: 'x'.repeat(17) }))).toThrow(RangeError);
      expect(() => store.setUser(user(5, { privilege: 5 as 4 }))).toThrow(RangeError);
      expect(store.getUser(5)).toBeUndefined();
      store.deleteUser(3);
      expect(store.listUsers().map((u) => u.id)).toEqual([2, 4]);
    }));

    it('stores per-FRU hot-swap state records', withStore(({ store }) => {
      store.putFruState(fruState('slot3', 1));
      store.putFruState(fruState('slot4', 4));
      store.putFruState({ ...fruState('slot3', 2), fanLevel: 3, fanLocal: false });
      expect(store.loadFruStates().sort((a, b) => a.fru.localeCompare(b.fru))).toEqual([{ ...fruState('slot3', 2), fanLevel: 3, fanLocal: false }, fruState('slot4', 4)]);
      store.deleteFruState('slot4');
      expect(store.loadFruStates().map((r) => r.fru)).toEqual(['slot3']);
    }));

    it('keeps the current HA role per key and the history of changes', withStore(({ store }) => {
      store.putRole({ key: 'shmc-a', node: 'shmc-a', role: 'active', epoch: 1, at: 100 });
      store.putRole({ key: 'lb1/slot3', node: 'slot3', role: 'active', epoch: 1, at: 101 });
      store.putRole({ key: 'shmc-a', node: 'shmc-a', role: 'standby.ready', epoch: 2, at: 102 });
      expect(store.loadRoles().sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: 'lb1/slot3', node: 'slot3', role: 'active', epoch: 1, at: 101 },
        { key: 'shmc-a', node: 'shmc-a', role: 'standby.ready', epoch: 2, at: 102 },
      ]);
      expect(store.roleHistory(2).map((r) => [r.key, r.role, r.epoch])).toEqual([
        ['lb1/slot3', 'active', 1],
        ['shmc-a', 'standby.ready', 2],
      ]);
      expect(store.roleHistory(10).length).toBe(3);
    }));

    it('transactions commit together and roll back together', withStore(({ store }) => {
      store.transaction(() => {
        store.putMeta('a', '1');
        store.appendSel(1, rec16(1, 1), meta(2));
        store.transaction(() => store.putMeta('b', '2')); // nested: joins
      });
      expect([store.getMeta('a'), store.getMeta('b'), store.loadSel().records.length]).toEqual(['1', '2', 1]);
      expect(() =>
        store.transaction(() => {
          store.putMeta('a', 'changed');
          store.appendSel(2, rec16(2, 2), meta(3));
          store.setUser(user(7));
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(store.getMeta('a')).toBe('1');
      expect(store.loadSel()).toMatchObject({ nextRecordId: 2 });
      expect(store.loadSel().records.length).toBe(1);
      expect(store.getUser(7)).toBeUndefined();
      expect(store.transaction(() => 42)).toBe(42);
    }));

    it('a closed store refuses use', withStore(({ store }) => {
      store.close();
      expect(() => store.getMeta('x')).toThrow();
    }));

    it('durable stores keep everything across close and reopen', () => {
      const f = make();
      if (!f.reopen) {
        f.cleanup();
        return;
      }
      try {
        f.store.putConfig({ yaml: 'y', source: 's', storedAt: 1 });
        f.store.appendSel(1, rec16(1, 7), meta(2));
        f.store.setUser(user(2));
        f.store.putFruState(fruState('slot3', 1));
        f.store.putRole({ key: 'shmc-b', node: 'shmc-b', role: 'active', epoch: 3, at: 9 });
        f.store.putMeta('poh_minutes', '12.5');
        const again = f.reopen();
        expect(again.getConfig()).toEqual({ yaml: 'y', source: 's', storedAt: 1 });
        expect([...again.loadSel().records[0]!]).toEqual([...rec16(1, 7)]);
        expect(again.getUser(2)).toEqual(user(2));
        expect(again.loadFruStates()).toEqual([fruState('slot3', 1)]);
        expect(again.loadRoles()).toEqual([{ key: 'shmc-b', node: 'shmc-b', role: 'active', epoch: 3, at: 9 }]);
        expect(again.getMeta('poh_minutes')).toBe('12.5');
      } finally {
        f.cleanup();
      }
    });
  });
}
