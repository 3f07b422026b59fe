/**
 * Text helpers of the TUI's view model (ui/view-model.ts): compact numbers, sparklines, the SEL
 * clock, clipping a Line to a width. Pure.
 */
/** Colours the panels understand (blessed colour names). */
export type Color =
  | 'red'
  | 'green'
  | 'yellow'
  | 'blue'
  | 'magenta'
  | 'cyan'
  | 'white'
  | 'gray'
  | 'light-red'
  | 'light-green'
  | 'light-yellow'
  | 'light-blue'
  | 'light-magenta'
  | 'light-cyan';

/** A run of text with one style. */
export interface Seg {
  text: string;
  fg?: Color;
  bold?: boolean;
  inverse?: boolean;
}

/** One screen line. */
export type Line = readonly Seg[];


/** Compact number: 0, 950, 1.2k, 12k, 123k, 1.2M, 12M (≤ 4 characters below 1e9). */
export function compact(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '0';
  if (n < 1000) return String(Math.round(n));
  if (n < 9950) return `${(n / 1000).toFixed(1)}k`;
  if (n < 999_500) return `${Math.round(n / 1000)}k`;
  if (n < 9_950_000) return `${(n / 1e6).toFixed(1)}M`;
  if (n < 999_500_000) return `${Math.round(n / 1e6)}M`;
  return `${(n / 1e9).toFixed(1)}G`;
}

/** Number with thousands separators (1,234,567). */
export function grouped(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const SPARK = ' ▁▂▃▄▅▆▇█';

/**
 * Sparkline of the last `width` samples, scaled to `max` (0 → blank, max → full block).
 * Shorter histories are right-aligned (newest sample at the right).
 */
export function sparkline(samples: readonly number[], width: number, max: number): string {
  if (width <= 0) return '';
  const tail = samples.slice(-width);
  let out = ' '.repeat(width - tail.length);
  for (const v of tail) {
    const level = max > 0 && v > 0 ? Math.max(1, Math.min(8, Math.round((v / max) * 8))) : 0;
    out += SPARK[level];
  }
  return out;
}

/** Clock text HH:MM:SS of a Unix time (seconds), in UTC (the SEL clock). */
export function clockText(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** Characters of a line (code points). */
export function textLength(l: Line): number {
  let n = 0;
  for (const s of l) n += [...s.text].length;
  return n;
}

/** Clips a line to `width` characters (an ellipsis marks a cut) and optionally pads it. */
export function fit(l: Line, width: number, pad = false): Line {
  const out: Seg[] = [];
  let left = width;
  const total = textLength(l);
  for (const s of l) {
    if (left <= 0) break;
    const chars = [...s.text];
    if (chars.length <= left) {
      out.push(s);
      left -= chars.length;
    } else {
      const cut = total > width && left >= 1 ? chars.slice(0, left - 1).join('') + '…' : chars.slice(0, left).join('');
      out.push({ ...s, text: cut });
      left = 0;
    }
  }
  if (pad && left > 0) out.push({ text: ' '.repeat(left) });
  return out;
}

/** Plain text of a line (tests, logs). */
export function lineText(l: Line): string {
  return l.map((s) => s.text).join('');
}

/** A front-view cell of exactly `width` characters (one kept free as the gap). */
export function cell(text: string, width: number, style: Omit<Seg, 'text'> = {}): Seg {
  const chars = [...text];
  const t = chars.length >= width ? chars.slice(0, Math.max(0, width - 1)) : chars;
  return { ...style, text: t.join('') + ' '.repeat(width - t.length) };
}
