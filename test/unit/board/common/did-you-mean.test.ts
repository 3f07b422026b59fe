/** "did you mean": edit distance and the near-miss rule (board/common/did-you-mean.ts). */
import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../../../board/common/did-you-mean.ts';

describe('did you mean', () => {
  it('edit distance counts insertions, deletions and substitutions', () => {
    expect(editDistance('crash', 'crash')).toBe(0);
    expect(editDistance('crsh', 'crash')).toBe(1);
    expect(editDistance('slot33', 'slot3')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
  it('offers a candidate within 2 edits and less than half the word; nothing for a far word or an exact one', () => {
    expect(closest('crsh', ['crash', 'hang'])).toBe('crash');
    expect(closest('explode', ['crash', 'hang'])).toBeUndefined();
    expect(closest('crash', ['crash'])).toBeUndefined();
    expect(closest('ab', ['xy'])).toBeUndefined();
    expect(didYouMean('lb7', ['lb1', 'lb2'])).toBe('; did you mean "lb1"?');
    expect(didYouMean('zzz', ['lb1'])).toBe('');
  });
});
