/** The out-of-service log (chassis/runtime/service-log.ts): planned vs unplanned by hot-swap cause. */
import { describe, expect, it } from 'vitest';
import { ServiceLog } from '../../../../chassis/runtime/service-log.ts';

describe('service log', () => {
  it('keeps the FRUs out of M4 with the planned/unplanned verdict of their cause, and counts leaves', () => {
    const log = new ServiceLog();
    log.onHotSwap({ at: 0, fru: 'slot3', from: 3, to: 4, cause: 'normal' });
    log.onHotSwap({ at: 100, fru: 'slot3', from: 4, to: 7, cause: 'communication' });
    log.onHotSwap({ at: 200, fru: 'slot4', from: 4, to: 5, cause: 'handle' });
    log.onHotSwap({ at: 300, fru: 'slot4', from: 5, to: 6, cause: 'normal' }); // same leave, next step
    expect(log.current()).toEqual([
      { fru: 'slot3', planned: false, cause: 'communication', since: 100 },
      { fru: 'slot4', planned: true, cause: 'handle', since: 200 },
    ]);
    log.onHotSwap({ at: 400, fru: 'slot3', from: 3, to: 4, cause: 'normal' });
    expect(log.current().map((o) => o.fru)).toEqual(['slot4']);
    expect([log.planned, log.unplanned]).toEqual([1, 1]);
  });
});
