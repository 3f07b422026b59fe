/**
 * The HA hook over the hubs' bucket table (chassis/runtime/share-router.ts): a share moved to
 * the buddy takes its home's flows there and back, blue/green shifts move the stated fraction.
 */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { loadDefaultShelf } from '../../../../chassis/io/data-dir.ts';
import { shareRouter } from '../../../../chassis/runtime/share-router.ts';
import { makePlane } from '../dataplane/fixture.ts';

describe('shareRouter', () => {
  it('assign moves a share to the buddy and back; shift keeps the stated percentage at home', () => {
    const shelf = loadDefaultShelf();
    const { dp } = makePlane({}, shelf);
    const r = shareRouter(dp.group, shelf.ha.pairs);
    const served = () => dp.stats(0).boards.map((b) => b.buckets);
    expect(served()).toEqual([1024, 1024, 1024, 1024]);
    r.assign('lb1/slot3', 'slot4');
    expect(served()).toEqual([0, 2048, 1024, 1024]);
    r.assign('lb1/slot3', 'slot3');
    expect(served()).toEqual([1024, 1024, 1024, 1024]);
    r.shift('lb2/slot5', 25);
    expect(served()).toEqual([1024, 1024, 256, 1792]);
    r.shift('lb2/slot5', 100);
    expect(served()).toEqual([1024, 1024, 1024, 1024]);
    expect(() => r.assign('lb1/slot3', 'slot5')).toThrow(CommandError);
    expect(() => r.assign('lb9/slot3', 'slot4')).toThrow(/no processor-pair share/);
    expect(() => r.shift('lb1/slot4', 120)).toThrow(/0\.\.100/);
  });
});
