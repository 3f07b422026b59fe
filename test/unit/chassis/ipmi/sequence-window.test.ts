/** The inbound sequence window: new numbers only, replays and out-of-window numbers rejected. */
import { describe, expect, it } from 'vitest';
import { SequenceWindow } from '../../../../chassis/ipmi/sequence-window.ts';

function take(w: SequenceWindow, seq: number): boolean {
  if (!w.check(seq)) return false;
  w.accept(seq);
  return true;
}

describe('SequenceWindow', () => {
  it('accepts the first packets from start+1 .. start+ahead (ipmitool starts at 3), never 0', () => {
    const w = new SequenceWindow(32, 16);
    expect(w.check(0)).toBe(false);
    expect(w.check(17)).toBe(false);
    expect(take(w, 3)).toBe(true);
    expect(w.last).toBe(3);
  });

  it('rejects duplicates, both of the highest and of late packets', () => {
    const w = new SequenceWindow(8, 8, 100);
    expect(take(w, 101)).toBe(true);
    expect(take(w, 101)).toBe(false);
    expect(take(w, 105)).toBe(true);
    expect(take(w, 103)).toBe(true); // late, unseen
    expect(take(w, 103)).toBe(false);
    expect(take(w, 100)).toBe(false); // the start value counts as seen
    expect(take(w, 96)).toBe(false); // 9 behind
    expect(take(w, 114)).toBe(false); // 9 ahead
    expect(take(w, 113)).toBe(true);
  });

  it('check() has no side effect: a number only counts once accepted', () => {
    const w = new SequenceWindow(32, 16);
    expect(w.check(5)).toBe(true);
    expect(w.check(5)).toBe(true);
    expect(take(w, 2)).toBe(true);
    expect(take(w, 5)).toBe(true);
  });

  it('keeps the bitmap across large jumps and wraps around 2^32 skipping 0', () => {
    const w = new SequenceWindow(32, 16, 0xfffffff0);
    expect(take(w, 0xfffffffe)).toBe(true);
    expect(take(w, 0xffffffff)).toBe(true);
    expect(take(w, 0)).toBe(false);
    expect(take(w, 1)).toBe(true);
    expect(take(w, 0xffffffff)).toBe(false);
    expect(take(w, 0xfffffff8)).toBe(true);
    const v = new SequenceWindow(4, 16);
    for (let s = 1; s <= 16; s++) expect(take(v, s)).toBe(true);
    expect(take(v, 12)).toBe(false);
    expect(take(v, 11)).toBe(false); // 5 behind: out of a 4-deep window
  });

  it('validates its sizes', () => {
    expect(() => new SequenceWindow(0, 1)).toThrow(RangeError);
    expect(() => new SequenceWindow(33, 1)).toThrow(RangeError);
    expect(() => new SequenceWindow(8, 0)).toThrow(RangeError);
  });
});
