/**
 * Wrapping for narrow terminals (80×24): a detail line given as groups of segments that must stay
 * together is laid out over as many lines as needed, continuation lines indented, so that the
 * key facts (roles, watchdog, alarms) are shown whole instead of cut with an ellipsis. Pure.
 */
import { fit, textLength, type Line, type Seg } from './text.ts';

/**
 * Lays `groups` out in lines of at most `width` characters, breaking only between groups; a
 * group wider than a line on its own is clipped (fit).
 * @param groups runs of segments, each kept on one line
 * @param width the pane's columns
 * @param indent text that starts each continuation line
 */
export function wrapGroups(groups: readonly Seg[][], width: number, indent = '    '): Line[] {
  const out: Line[] = [];
  let cur: Seg[] = [];
  for (const g of groups) {
    const piece = cur.length === 0 && out.length > 0 ? [{ text: indent }, ...trimStart(g)] : g;
    if (cur.length > 0 && textLength([...cur, ...g]) > width) {
      out.push(fit(cur, width));
      cur = [{ text: indent }, ...trimStart(g)];
    } else {
      cur.push(...piece);
    }
  }
  if (cur.length) out.push(fit(cur, width));
  return out;
}

function trimStart(g: readonly Seg[]): Seg[] {
  const [first, ...rest] = g;
  if (!first) return [];
  return [{ ...first, text: first.text.replace(/^[ ,]+/, '') }, ...rest];
}
