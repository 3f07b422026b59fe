// The Shelf's power budget (shelf.power): activation waits for a shelf manager and for power; the
// first start is budgeted as a later activation is (PICMG 3.0 §3.9).
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../../board/common/errors.ts';
import { MemoryStore } from '../../../../../chassis/persistence/store.ts';
import type { ChassisEvent } from '../../../../../chassis/model/events.ts';
import { defaultConfig, rig } from '../../../../support/shelf-fixture.ts';

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof CommandError) return e.code;
    throw e;
  }
  return 'no error';
};
const hs = (events: ChassisEvent[], fru: string) => events.filter((e) => e.type === 'hotswap' && e.fru === fru).map((e) => (e.type === 'hotswap' ? `M${e.from}>M${e.to}:${e.cause}` : ''));

describe('the shelf manager and the power budget gate activation', () => {
  it('with no ShMC active, a board waits in M2; it activates once a ShMC is back', () => {
    const r = rig();
    r.shelf.hotSwap.deactivate('shmc-a');
    r.shelf.hotSwap.deactivate('shmc-b');
    r.run(1000);
    expect(r.shelf.activeShmc()).toBeUndefined();
    expect(r.shelf.resolveAddress(0x20)).toBeUndefined();
    r.shelf.hotSwap.openHandle('slot3');
    r.run(10_000);
    expect(r.shelf.state(3)).toBe(5); // nobody approves the deactivation request
    r.shelf.hotSwap.activate('shmc-b');
    r.run(2000);
    expect(r.shelf.activeShmc()).toBe('shmc-b');
    r.run(2000);
    expect(r.shelf.state(3)).toBe(1);
    r.shelf.hotSwap.deactivate('shmc-b');
    r.run(1000);
    r.shelf.hotSwap.closeHandle('slot3');
    r.run(10_000);
    expect(r.shelf.state(3)).toBe(2);
    expect(r.events.some((e) => e.type === 'activation.waiting' && e.fru === 'slot3' && e.reason === 'no_shelf_manager')).toBe(true);
    r.shelf.hotSwap.activate('shmc-a');
    r.run(5000);
    expect(r.shelf.state(3)).toBe(4);
  });

  it('without PEM power a board waits in M2 (power budget); it activates when a PEM returns', () => {
    const r = rig();
    r.shelf.hotSwap.openHandle('slot6');
    r.run(2000);
    r.shelf.hotSwap.extract('pem1');
    r.shelf.hotSwap.extract('pem2');
    expect(r.shelf.power.budgetW()).toBe(0);
    expect(r.shelf.chassis.status().powerFault).toBe(true);
    r.shelf.hotSwap.closeHandle('slot6');
    r.run(10_000);
    expect(r.shelf.state(6)).toBe(2);
    expect(r.events.some((e) => e.type === 'activation.waiting' && e.reason === 'power_budget')).toBe(true);
    expect(code(() => r.shelf.hotSwap.activate('slot6'))).toBe('power_budget');
    r.shelf.hotSwap.insert('pem1');
    r.run(10_000);
    expect(r.shelf.state('pem1')).toBe(4);
    expect(r.shelf.state(6)).toBe(4);
  });

  it('a partial budget grants a lower power level', () => {
    const r = rig({ config: defaultConfig((y) => y.replace(/capacity_w: 1500/g, 'capacity_w: 625')) });
    // 1250 W budget, negotiated at power-up in configuration order after the PEMs (2×5 W):
    // ShMCs 2×20, hubs 2×150, processors 4×200 → 1150 W; fan1 60 W; fan2 gets level 1 (30 W of
    // the 40 W left); fan3 (30 W at level 1) does not fit in the 10 W left and waits in M2
    expect(r.shelf.power.usedW()).toBe(1240);
    expect(r.shelf.chassis.status().powerOverload).toBe(false);
    expect(r.shelf.power.level('fan2').level).toBe(1);
    expect(r.shelf.state('fan3')).toBe(2);
    r.shelf.hotSwap.openHandle('slot3');
    r.run(2000);
    expect(r.shelf.state(3)).toBe(1);
    r.run(2000);
    // slot3 in M1 released 200 W: the waiting fan3 takes its desired level (60 W of 210 W)
    expect(r.shelf.state('fan3')).toBe(4);
    expect(r.shelf.power.level('fan3').level).toBe(2);
    r.shelf.hotSwap.closeHandle('slot3');
    r.run(2000);
    expect(r.shelf.state(3)).toBe(4);
    expect(r.shelf.power.level('slot3').level).toBe(1); // 120 W fits in the 150 W left, 200 W does not
    expect(r.shelf.power.usedW()).toBe(1220);
    expect(r.shelf.chassis.status().powerOverload).toBe(false);
  });
});

describe('the power budget at the first start (PICMG 3.0 §3.9)', () => {
  // 2 PEMs × 150 W. Negotiated as a later activation is, PEMs first, then in configuration order:
  // PEMs 10 W; shmc-a, shmc-b 20 W each (50); slot1 150 W (200); slot2 only level 1, 90 W (290);
  // 10 W left: slot3…slot6 (120 W at level 1) and fan1…fan3 (30 W) wait in M2.
  const tiny = () => defaultConfig((y) => y.replace(/capacity_w: 1500/g, 'capacity_w: 150'));

  it('activates only what the PEM capacity covers; the others wait in M2 with the reason, out of service', () => {
    const r = rig({ config: tiny() });
    const states = Object.fromEntries(r.shelf.fruNames().map((f) => [f, r.shelf.state(f)]));
    expect(states).toEqual({ 'shmc-a': 4, 'shmc-b': 4, slot1: 4, slot2: 4, slot3: 2, slot4: 2, slot5: 2, slot6: 2, fan1: 2, fan2: 2, fan3: 2, pem1: 4, pem2: 4 });
    expect(r.shelf.power.level('slot1').level).toBe(2);
    expect(r.shelf.power.level('slot2').level).toBe(1);
    expect(r.shelf.power.level('slot3').level).toBe(0);
    expect(r.shelf.power.usedW()).toBe(290);
    expect(r.shelf.power.budgetW()).toBe(300);
    expect(r.shelf.chassis.status().powerOverload).toBe(false);
    expect([...r.dp.inService]).toEqual([1, 2, 3, 4, 5, 6].map((s) => [s, s <= 2]));
    const texts = r.shelf.sel.records().map((x) => r.shelf.sel.describe(x));
    expect(texts).toContain('FRU Hot Swap Node3 HotSwap | Transition to M2 | Asserted');
    expect(texts).toContain('FRU Hot Swap Hub2 HotSwap | Transition to M4 | Asserted');
    expect(texts).not.toContain('FRU Hot Swap Node3 HotSwap | Transition to M4 | Asserted');
    expect(r.shelf.hotSwap.context('slot3')).toMatchObject({ state: 2, previous: 1 });
    expect(r.log.records.some((l) => l.level === 'warn' && l.msg === 'not enough power budget at power-up; FRU waits in M2' && (l.obj as { fru?: string }).fru === 'slot3')).toBe(true);
    // one step later the shelf manager asks again and says why it does not grant
    r.run(1000);
    expect(r.events.find((e) => e.type === 'activation.waiting' && e.fru === 'slot3')).toMatchObject({ reason: 'power_budget', neededW: 120, availableW: 10 });
    r.run(60_000);
    expect(r.shelf.state('slot3')).toBe(2);
    expect(r.shelf.state('fan1')).toBe(2);
    expect(r.shelf.power.usedW()).toBe(290);
  });

  it('a waiting board activates when power is released, in configuration order', () => {
    const r = rig({ config: tiny() });
    r.shelf.hotSwap.openHandle('slot1'); // releases 150 W once in M1: 160 W left
    r.run(2000);
    expect(r.shelf.state('slot1')).toBe(1);
    r.run(3000);
    // slot3 (first in configuration order) takes 120 W at level 1; slot4…slot6 (120 W) still do
    // not fit in the 40 W left, fan1 takes 30 W at level 1, fan2 and fan3 wait
    expect(['slot3', 'slot4', 'slot5', 'slot6', 'fan1', 'fan2', 'fan3'].map((f) => r.shelf.state(f))).toEqual([4, 2, 2, 2, 4, 2, 2]);
    expect(r.shelf.power.level('slot3').level).toBe(1);
    expect(r.shelf.power.level('fan1').level).toBe(1);
    expect(r.shelf.power.usedW()).toBe(290);
    expect(hs(r.events, 'slot3')).toEqual(['M2>M3:shelfManager', 'M3>M4:normal']);
  });

  it('FRUs added to the configuration later are budgeted against what is already allocated', () => {
    const store = new MemoryStore();
    // first start at 2 × 700 W: the default shelf's 1330 W fit
    const a = rig({ store, config: defaultConfig((y) => y.replace(/capacity_w: 1500/g, 'capacity_w: 700')) });
    for (const f of a.shelf.fruNames()) expect(a.shelf.state(f), f).toBe(4);
    expect(a.shelf.power.usedW()).toBe(1330);
    // the same store with less capacity and an extra board in slot7: the running FRUs keep their
    // state (a restart resumes), the new board gets what is left (70 W: not enough) and waits
    const yaml = (y: string) => y.replace(/capacity_w: 1500/g, 'capacity_w: 700').replace('\nfan_trays:', `\n  slot7:\n    type: processor\n    label: Node7\n    sensors:\n      - { name: Node7 HotSwap, type: hotswap }\n    power: { levels_w: [120, 200] }\n\nfan_trays:`);
    const b = rig({ store, config: defaultConfig(yaml) });
    expect(b.shelf.state('slot6')).toBe(4);
    expect(b.shelf.state('slot7')).toBe(2);
    expect(b.shelf.power.usedW()).toBe(1330);
  });
});
