/**
 * Turns view-model Lines (ui/view-model.ts) into blessed tag markup: `{green-fg}M4{/green-fg}`,
 * `{bold}`, `{inverse}`. Text is escaped (blessed.escape), so braces in SEL text or sensor names
 * are shown, not parsed.
 */
import blessed from 'blessed';
import type { Line } from '../view-model.ts';

/** Markup of one line (no newline). */
export function lineMarkup(l: Line): string {
  let out = '';
  for (const s of l) {
    let open = '';
    let close = '';
    if (s.fg) {
      open += `{${s.fg}-fg}`;
      close = `{/${s.fg}-fg}` + close;
    }
    if (s.bold) {
      open += '{bold}';
      close = '{/bold}' + close;
    }
    if (s.inverse) {
      open += '{inverse}';
      close = '{/inverse}' + close;
    }
    out += open + blessed.escape(s.text) + close;
  }
  return out;
}

/** Markup of several lines joined by newlines. */
export function linesMarkup(ls: readonly Line[]): string {
  return ls.map(lineMarkup).join('\n');
}
