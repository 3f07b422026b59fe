/**
 * Durations as people write them in the shelf and scenario YAML: `250ms`, `1.5s`, `2m`, `1h`
 * (a number and a unit, no spaces required). Units: ms, s, m (minutes), h. Result in ms.
 */

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration. @returns milliseconds (may be fractional, e.g. `0.5ms`), or undefined when
 * the text is not a non-negative number followed by ms, s, m or h.
 */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)\s*$/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** Formats ms the way the YAML writes them (`250ms`, `1.5s`, `2m`), for summaries and docs. */
export function formatDuration(ms: number): string {
  if (ms !== 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms !== 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000) return `${Number((ms / 1000).toPrecision(6))}s`;
  return `${ms}ms`;
}
