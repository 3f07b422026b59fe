// The load score behind dynamic weights (board/processor/scheduler/load-score.ts).
import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../../../../board/processor/scheduler/index.ts';
import { loadScore, weightsFromScores } from '../../../../../board/processor/scheduler/load-score.ts';

describe('load score (dynamic weights)', () => {
  it('follows Score = 1/(0.7 CPU + 0.2 MEM + 0.1 Q) with a floor', () => {
    expect(loadScore(0.5, 0.5, 0.5)).toBeCloseTo(2, 12);
    expect(loadScore(1, 0, 0)).toBeCloseTo(1 / 0.7, 12);
    expect(loadScore(0, 0, 0)).toBe(100);
    expect(loadScore(2, -1, 0)).toBeCloseTo(1 / 0.7, 12); // clamped to 0..1
  });

  it('scales scores to integer weights 1..100, 0 for ineligible', () => {
    const s = [loadScore(0.2, 0.3, 0), loadScore(0.4, 0.3, 0), loadScore(0.9, 0.9, 1), loadScore(0, 0, 0)];
    const w = weightsFromScores(s, [true, true, true, false]);
    // den: 0.2 → 5.0, 0.34 → 2.94, 0.91 → 1.10
    expect(w).toEqual([100, 59, 22, 0]);
  });

  it('createScheduler rejects unknown names', () => {
    expect(() => createScheduler('nope' as never)).toThrow(/unknown scheduler/);
  });
});

describe('load score with configured weights', () => {
  it('weights × scores, scaled to the best: equal load 3:1 → 100:33; 1 × 5.0 against 2 × 2.94 → 85:100', () => {
    const s = loadScore(0.3, 0.3, 0);
    expect(weightsFromScores([s, s], [true, true], [3, 1])).toEqual([100, 33]);
    const a = loadScore(0.2, 0.3, 0); // den 0.2 → 5.0
    const b = loadScore(0.4, 0.3, 0); // den 0.34 → 2.94
    expect(weightsFromScores([a, b], [true, true], [1, 2])).toEqual([85, 100]);
    // a configured weight of 0 (drained) and an ineligible member get 0
    expect(weightsFromScores([a, b], [false, true], [0, 2])).toEqual([0, 100]);
  });
});
