// SnmpFeed (chassis/snmp/feed.ts) on a Shelf in simulated time: a deactivation gives one
// atcasimFruHotSwapTransition per step with the standard and enterprise varbinds, a threshold
// crossing and its recovery give atcasimSensorThresholdEvent, a FRU leaving/entering M0 gives
// entConfigChange at most once per 5 s; the view is current before each notification and bursts
// of events are coalesced into one rebuild.
import { describe, expect, it } from 'vitest';
import { SnmpFeed } from '../../../../chassis/snmp/feed.ts';
import type { SnmpNotification, SnmpView } from '../../../../chassis/snmp/view.ts';
import { rig } from '../../../support/shelf-fixture.ts';

const BASE = '1.3.6.1.4.1.32473';

function setup() {
  const r = rig();
  const views: SnmpView[] = [];
  const notes: Array<{ n: SnmpNotification; viewSeq: number }> = [];
  const feed = new SnmpFeed(r.shelf, r.clock, { view: (v) => views.push(v), notify: (n) => notes.push({ n, viewSeq: views.at(-1)!.seq }) });
  return { r, views, notes, feed };
}

describe('SnmpFeed', () => {
  it('hands the first view at once', () => {
    const { views, r } = setup();
    expect(views).toHaveLength(1);
    expect(views[0]!.seq).toBe(r.shelf.snapshot().seq);
  });

  it('a deactivation (handle opened): M4→M5→M6→M1, one notification per step, the table current before each', () => {
    const { r, notes, views } = setup();
    r.shelf.hotSwap.openHandle('slot5');
    r.run(5000);
    const hs = notes.filter((x) => x.n.kind === 'hotswap');
    expect(hs.map((x) => x.n.varbinds.map((b) => b.value))).toEqual([
      ['slot5', 5, 4, 2],
      ['slot5', 6, 5, 1],
      ['slot5', 1, 6, 0],
    ]);
    expect(hs[0]!.n).toEqual({
      kind: 'hotswap',
      trapOid: `${BASE}.0.1`,
      varbinds: [
        { oid: '1.3.6.1.2.1.47.1.1.1.1.7.105000', type: 'octets', value: 'slot5' },
        { oid: `${BASE}.1.1.1.1.105000`, type: 'integer', value: 5 },
        { oid: `${BASE}.1.1.1.3.105000`, type: 'integer', value: 4 },
        { oid: `${BASE}.1.1.1.4.105000`, type: 'integer', value: 2 },
      ],
    });
    for (const x of hs) {
      const v = views.find((w) => w.seq === x.viewSeq)!;
      expect(v.frus.find((f) => f.index === 105_000)!.state).toBe(x.n.varbinds[1]!.value);
    }
    const last = views.at(-1)!.frus.find((f) => f.index === 105_000)!;
    expect(last).toMatchObject({ state: 1, previous: 6, changedAgeMs: 0 });
    expect(notes.some((x) => x.n.kind === 'configChange')).toBe(false);
  });

  it('a threshold crossing and its recovery: offset, direction, value and threshold at the sensor precision', () => {
    const { r, notes } = setup();
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 75);
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 50);
    const th = notes.filter((x) => x.n.kind === 'threshold').map((x) => x.n);
    expect(th).toHaveLength(2);
    expect(th[0]).toEqual({
      kind: 'threshold',
      trapOid: `${BASE}.0.2`,
      varbinds: [
        { oid: '1.3.6.1.2.1.47.1.1.1.1.7.103001', type: 'octets', value: 'Node3 Temp' },
        { oid: '1.3.6.1.2.1.99.1.1.1.4.103001', type: 'integer', value: 75 },
        { oid: `${BASE}.1.2.1.0`, type: 'integer', value: 7 },
        { oid: `${BASE}.1.2.2.0`, type: 'integer', value: 1 },
        { oid: `${BASE}.1.2.3.0`, type: 'integer', value: 70 },
        { oid: `${BASE}.1.2.4.0`, type: 'octets', value: 'unc' },
      ],
    });
    expect(th[1]!.varbinds.map((b) => b.value)).toEqual(['Node3 Temp', 50, 7, 2, 70, 'unc']);
    const v12 = notes.length;
    r.shelf.sensors.setValue('slot3', 'Node3 12V', 12.6);
    const volt = notes.slice(v12).map((x) => x.n.varbinds.map((b) => b.value));
    // 12V's linearisation has Rexp = -1: one decimal
    expect(volt).toEqual([['Node3 12V', 126, 7, 1, 126, 'unc']]);
  });

  it('readings without a crossing: no notification; a burst is one rebuild on the next turn', () => {
    const { r, notes, views } = setup();
    const before = views.length;
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 51);
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 52);
    r.shelf.sensors.setValue('slot4', 'Node4 Temp', 53);
    expect(views.length).toBe(before);
    r.run(0);
    expect(views.length).toBe(before + 1);
    expect(views.at(-1)!.sensors.find((s) => s.index === 104_001)!.value).toBe(53);
    expect(notes).toEqual([]);
  });

  it('M0 in and out: entConfigChange at most once per 5 s, entLastChangeTime moves every time', () => {
    const { r, notes, views } = setup();
    r.shelf.hotSwap.extract('slot6');
    r.run(1000);
    r.shelf.hotSwap.insert('slot6');
    r.run(1000);
    expect(notes.filter((x) => x.n.kind === 'configChange').map((x) => x.n)).toEqual([{ kind: 'configChange', trapOid: '1.3.6.1.2.1.47.2.0.1', varbinds: [] }]);
    expect(views.at(-1)!.lastChangeAgeMs).toBe(1000);
    r.run(5000);
    r.shelf.hotSwap.extract('slot6');
    expect(notes.filter((x) => x.n.kind === 'configChange')).toHaveLength(2);
  });

  it('stop(): no more views or notifications', () => {
    const { r, notes, views, feed } = setup();
    feed.stop();
    const n = views.length;
    r.shelf.hotSwap.openHandle('slot5');
    r.run(5000);
    expect(views.length).toBe(n);
    expect(notes).toEqual([]);
  });
});
