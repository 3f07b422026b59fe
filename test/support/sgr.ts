/**
 * Reads the SGR attributes of a `tmux capture-pane -e` screen (ECMA-48 §8.3.117: CSI … m) cell
 * by cell: which foreground and background colour each visible character is drawn in.
 * Colours: a palette index 0–255 (30–37 → 0–7, 90–97 → 8–15, 38;5;N → N), 'rgb' for 38;2;…, or
 * 'default'.
 */

/** One drawn character with its colours. */
export interface SgrCell {
  row: number;
  col: number;
  ch: string;
  fg: number | 'rgb' | 'default';
  bg: number | 'rgb' | 'default';
  inverse: boolean;
}

/** Every non-blank character of `screen` with the colours it is drawn in. */
export function sgrCells(screen: string): SgrCell[] {
  const out: SgrCell[] = [];
  let fg: SgrCell['fg'] = 'default';
  let bg: SgrCell['bg'] = 'default';
  let inverse = false;
  screen.split('\n').forEach((line, row) => {
    let col = 0;
    const re = /\x1b\[([0-9;:]*)m|\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|([^\x1b])/gu;
    for (let m = re.exec(line); m; m = re.exec(line)) {
      if (m[2] !== undefined) {
        if (m[2] !== ' ') out.push({ row, col, ch: m[2], fg, bg, inverse });
        col++;
        continue;
      }
      if (m[1] === undefined) continue;
      const p = m[1] === '' ? [0] : m[1].split(/[;:]/).map(Number);
      for (let i = 0; i < p.length; i++) {
        const n = p[i]!;
        if (n === 0) [fg, bg, inverse] = ['default', 'default', false];
        else if (n === 7) inverse = true;
        else if (n === 27) inverse = false;
        else if (n >= 30 && n <= 37) fg = n - 30;
        else if (n >= 90 && n <= 97) fg = n - 90 + 8;
        else if (n === 39) fg = 'default';
        else if (n >= 40 && n <= 47) bg = n - 40;
        else if (n >= 100 && n <= 107) bg = n - 100 + 8;
        else if (n === 49) bg = 'default';
        else if (n === 38 || n === 48) {
          const v: SgrCell['fg'] = p[i + 1] === 5 ? p[i + 2]! : 'rgb';
          if (n === 38) fg = v;
          else bg = v;
          i += p[i + 1] === 5 ? 2 : 4;
        }
      }
    }
  });
  return out;
}
