import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { Backplane } from '../../../../chassis/model/backplane.ts';
import type { LineChange } from '../../../../chassis/model/backplane.ts';

function pair() {
  const bp = new Backplane(['slot3', 'slot4'], ['lb1/slot3', 'lb1/slot4']);
  const changes: LineChange[] = [];
  bp.onChange((c) => changes.push(c));
  bp.setPower('slot3', 'on');
  bp.setPower('slot4', 'on');
  return { bp, changes };
}

describe('backplane lines (ShMC-style PRESENT/HEALTHY/ACTIVE + interlock)', () => {
  it('starts with both nodes present, unpowered, lines low; HEALTHY only while powered', () => {
    const bp = new Backplane(['a', 'b'], ['shmc']);
    expect(bp.lines('a', 'shmc')).toEqual({ present: true, healthy: false, active: false });
    bp.setHealthy('a', true); // not powered: no effect
    expect(bp.lines('a', 'shmc').healthy).toBe(false);
    bp.setPower('a', 'on');
    bp.setHealthy('a', true);
    expect(bp.lines('a', 'shmc').healthy).toBe(true);
  });

  it('lets only one node assert a channel\'s ACTIVE while the interlock is on; channels are independent', () => {
    const { bp } = pair();
    expect(bp.claimActive('slot3', 'lb1/slot3')).toBe(true);
    expect(bp.claimActive('slot4', 'lb1/slot3')).toBe(false);
    expect(bp.refusedClaims).toBe(1);
    expect(bp.claimActive('slot4', 'lb1/slot4')).toBe(true); // dual-active: the buddy's share
    expect(bp.lines('slot4', 'lb1/slot3').active).toBe(false);
    bp.releaseActive('slot3', 'lb1/slot3');
    expect(bp.claimActive('slot4', 'lb1/slot3')).toBe(true);
  });

  it('allows two ACTIVEs with the interlock off (ha.md S24) and reports the interlock change', () => {
    const { bp, changes } = pair();
    bp.claimActive('slot3', 'lb1/slot3');
    changes.length = 0;
    bp.setInterlock(false);
    expect(bp.interlock).toBe(false);
    expect(changes.map((c) => c.node)).toEqual(['slot3', 'slot4']);
    expect(bp.claimActive('slot4', 'lb1/slot3')).toBe(true);
    expect(bp.lines('slot3', 'lb1/slot3').active && bp.lines('slot4', 'lb1/slot3').active).toBe(true);
  });

  it('drops HEALTHY and every ACTIVE at the instant of a reset or power loss, and forgets the intent', () => {
    const { bp, changes } = pair();
    bp.setHealthy('slot3', true);
    bp.claimActive('slot3', 'lb1/slot3');
    changes.length = 0;
    bp.setPower('slot3', 'reset');
    expect(changes).toHaveLength(1);
    expect(changes[0]!.after).toMatchObject({ healthy: false, present: true, power: 'reset', active: { 'lb1/slot3': false } });
    bp.setPower('slot3', 'on');
    expect(bp.lines('slot3', 'lb1/slot3')).toEqual({ present: true, healthy: false, active: false });
    bp.setPower('slot3', 'extracted');
    expect(bp.lines('slot3', 'lb1/slot3').present).toBe(false);
    expect(bp.claimActive('slot3', 'lb1/slot3')).toBe(false);
  });

  it('a stuck HEALTHY line overrides what the node drives; drivenHealthy shows the truth', () => {
    const { bp } = pair();
    bp.setHealthy('slot3', true);
    bp.stickHealthy('slot3', 'low');
    expect(bp.lines('slot3', 'lb1/slot3').healthy).toBe(false);
    expect(bp.drivenHealthy('slot3')).toBe(true);
    bp.stickHealthy('slot3', 'high');
    bp.setPower('slot3', 'reset');
    expect(bp.lines('slot3', 'lb1/slot3').healthy).toBe(true);
    expect(bp.drivenHealthy('slot3')).toBe(false);
    bp.stickHealthy('slot3', null);
    expect(bp.lines('slot3', 'lb1/slot3').healthy).toBe(false);
    expect(bp.stuckHealthy('slot3')).toBeNull();
  });

  it('emits only effective changes and rejects unknown names with CommandError', () => {
    const { bp, changes } = pair();
    changes.length = 0;
    bp.releaseActive('slot3', 'lb1/slot3'); // already low
    bp.setHealthy('slot4', false);
    expect(changes).toEqual([]);
    expect(() => bp.lines('slot9', 'lb1/slot3')).toThrow(CommandError);
    expect(() => bp.lines('slot3', 'lb9/x')).toThrow(/unknown channel/);
    expect(() => bp.claimActive('slot3', 'nope')).toThrow(CommandError);
    expect(() => new Backplane(['a', 'a'], ['x'])).toThrow(/must differ/);
    expect(bp.peerOf('slot3')).toBe('slot4');
  });
});
