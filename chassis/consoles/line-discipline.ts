/**
 * The line discipline of a board's console UART, as a firmware shell does it in canonical mode
 * (the behaviour of termios ICANON/ECHO/ECHOE/ICRNL with a 256-byte line, POSIX.1-2017 §11.1.6):
 * bytes in, an ordered list of events out — what to echo, completed lines, cancelled lines.
 *
 *   printable ASCII (20h–7Eh)   appended and echoed; past `maxLine` the terminal bell (07h) instead
 *   CR (0Dh), LF (0Ah), CR LF   end of line (echo CR LF); the LF of a CR LF pair is swallowed
 *   BS (08h), DEL (7Fh)         erase one character (echo BS SP BS), bell on an empty line
 *   ^U (15h)                    erase the line;  ^W (17h) erase the last word
 *   ^C (03h)                    echo "^C", cancel the line (the shell prints a fresh prompt)
 *   ESC [ … final, ESC O x      ANSI escape sequences (arrow keys, function keys) swallowed; a
 *                               control byte inside one ends it and is handled as usual
 *   TAB and every other byte    ignored (control characters, 8-bit bytes, NUL): garbage never
 *                               reaches the shell and never throws
 *
 * Pure: no I/O, no time. One editor per console; input from every attached side (PTY, SOL) goes
 * through the same editor, as it would on the one UART of a board.
 */

/** One event of `LineEditor.feed`, in input order. */
export type LineEvent =
  /** Bytes to echo back to the terminal (ASCII text). */
  | { type: 'echo'; text: string }
  /** A completed line (without the terminator), ready for the shell. */
  | { type: 'line'; text: string }
  /** The line was cancelled with ^C. */
  | { type: 'cancel' };

/** Options of the line editor. */
export interface LineEditorOptions {
  /** Longest line in characters [255]; further characters ring the bell. */
  maxLine?: number;
}

const BEL = '\x07';
const ERASE = '\b \b';

/** Canonical-mode line editor (see the module comment). */
export class LineEditor {
  private buf = '';
  private lastCr = false;
  /** 0 = normal, 1 = after ESC, 2 = inside a CSI (ESC [ …), 3 = after ESC O (SS3). */
  private esc = 0;
  private readonly maxLine: number;
  /** Bytes dropped as garbage since creation (control characters, 8-bit bytes, escapes). */
  ignored = 0;

  /** @throws RangeError when maxLine is not a positive integer */
  constructor(opts: LineEditorOptions = {}) {
    this.maxLine = opts.maxLine ?? 255;
    if (!Number.isInteger(this.maxLine) || this.maxLine < 1) throw new RangeError(`maxLine must be a positive integer, got ${opts.maxLine}`);
  }

  /** The characters typed so far on the current line. */
  get pending(): string {
    return this.buf;
  }

  /** Forgets the partial line and any escape sequence in progress (e.g. after a reboot). */
  reset(): void {
    this.buf = '';
    this.lastCr = false;
    this.esc = 0;
  }

  /**
   * Feeds received bytes. @returns the events they caused, in order (echo text is merged between
   * lines). Never throws.
   */
  feed(bytes: Uint8Array): LineEvent[] {
    const out: LineEvent[] = [];
    let echo = '';
    const flushEcho = () => {
      if (echo) out.push({ type: 'echo', text: echo });
      echo = '';
    };
    for (const b of bytes) {
      if (this.esc !== 0) {
        if (b < 0x20 || b > 0x7e) {
          this.esc = 0; // a control or 8-bit byte ends an unfinished sequence and counts on its own
        } else {
          this.ignored++;
          if (this.esc === 1) this.esc = b === 0x5b ? 2 : b === 0x4f ? 3 : 0; // ESC [ → CSI, ESC O → SS3, else a 2-byte escape
          else if (this.esc === 3) this.esc = 0; // SS3 takes one final byte
          else if (b >= 0x40) this.esc = 0; // CSI final byte (parameters and intermediates are 20h–3Fh)
          continue;
        }
      }
      const wasCr = this.lastCr;
      this.lastCr = false;
      if (b === 0x0d || b === 0x0a) {
        if (b === 0x0a && wasCr) continue; // LF of a CR LF pair
        this.lastCr = b === 0x0d;
        echo += '\r\n';
        flushEcho();
        out.push({ type: 'line', text: this.buf });
        this.buf = '';
      } else if (b >= 0x20 && b <= 0x7e) {
        if (this.buf.length >= this.maxLine) {
          echo += BEL;
        } else {
          const c = String.fromCharCode(b);
          this.buf += c;
          echo += c;
        }
      } else if (b === 0x08 || b === 0x7f) {
        if (this.buf.length === 0) echo += BEL;
        else {
          this.buf = this.buf.slice(0, -1);
          echo += ERASE;
        }
      } else if (b === 0x15) {
        echo += ERASE.repeat(this.buf.length);
        this.buf = '';
      } else if (b === 0x17) {
        const trimmed = this.buf.replace(/\s+$/, '');
        const keep = trimmed.replace(/\S+$/, '');
        echo += ERASE.repeat(this.buf.length - keep.length);
        this.buf = keep;
      } else if (b === 0x03) {
        echo += '^C\r\n';
        flushEcho();
        out.push({ type: 'cancel' });
        this.buf = '';
      } else if (b === 0x1b) {
        this.esc = 1;
        this.ignored++;
      } else {
        this.ignored++; // TAB, NUL, other control characters, 8-bit bytes
      }
    }
    flushEcho();
    return out;
  }
}
