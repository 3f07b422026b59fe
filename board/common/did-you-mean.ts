/**
 * "did you mean …" for a mistyped word: the closest candidate by edit distance (Levenshtein:
 * insertions, deletions, substitutions), when it is close enough to be a typo — at most 2 edits,
 * and fewer than half the word's length.
 */

/** Edit distance between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The candidate `word` is most likely a typo of, or undefined. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best !== undefined && bestD > 0 && bestD <= 2 && bestD < Math.max(2, word.length / 2) ? best : undefined;
}

/** `; did you mean "x"?` for a near miss, else ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : `; did you mean "${c}"?`;
}
