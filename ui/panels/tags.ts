/**
 * Turns view-model Lines (ui/view-model.ts) into blessed tag markup: `{green-fg}M4{/green-fg}`,
 * `{bold}`, `{inverse}`. Text is escaped (blessed.escape), so braces in SEL text or sensor names
 * are shown, not parsed.
 *
 * "gray" (de-emphasised text) is colour 8, bright black, on terminals with 16 colours or more.
 * On an 8-colour terminal (TERM=xterm, screen: tmux's default) blessed would fold colour 8 onto
 * colour 0 — black, invisible on a dark background — so there it is drawn in the terminal's white
 * (colour 7) instead: `setColorCount(screen.tput.colors)` once the screen exists.
 */
import blessed from 'blessed';
import type { Line } from '../view-model.ts';

let grayTag = 'gray';

/** How many colours the terminal has (blessed's tput.colors); picks how "gray" is drawn. */
export function setColorCount(colors: number): void {
  grayTag = colors >= 16 ? 'gray' : 'white';
}

/** The blessed colour name a view colour is drawn with. */
export function tagColor(fg: string): string {
  return fg === 'gray' ? grayTag : fg;
}

/** Markup of one line (no newline). */
export function lineMarkup(l: Line): string {
  let out = '';
  for (const s of l) {
    let open = '';
    let close = '';
    if (s.fg) {
      const c = tagColor(s.fg);
      open += `{${c}-fg}`;
      close = `{/${c}-fg}` + close;
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
