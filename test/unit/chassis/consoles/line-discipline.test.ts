// The console's line discipline: canonical-mode editing, CR/LF handling, escapes and garbage.
import { describe, expect, it } from 'vitest';
import { LineEditor, type LineEvent } from '../../../../chassis/consoles/line-discipline.ts';

const bytes = (s: string) => Uint8Array.from([...s].map((c) => c.charCodeAt(0)));
const lines = (evs: LineEvent[]) => evs.filter((e) => e.type === 'line').map((e) => (e as { text: string }).text);
const echo = (evs: LineEvent[]) => evs.filter((e) => e.type === 'echo').map((e) => (e as { text: string }).text).join('');

describe('LineEditor', () => {
  it('echoes printable characters and ends a line on CR, LF or CR LF (one line each)', () => {
    const ed = new LineEditor();
    expect(lines(ed.feed(bytes('show slot\r')))).toEqual(['show slot']);
    expect(lines(ed.feed(bytes('help\n')))).toEqual(['help']);
    const evs = ed.feed(bytes('a\r\nb\r\n'));
    expect(lines(evs)).toEqual(['a', 'b']); // the LF of each CR LF is swallowed, not an empty line
    expect(echo(evs)).toBe('a\r\nb\r\n');
    expect(lines(ed.feed(bytes('\n\n')))).toEqual(['', '']); // lone LFs after a completed CR LF are lines
  });

  it('keeps order: echo of a line comes before the line, and the next echo after it', () => {
    const evs = new LineEditor().feed(bytes('ab\rcd'));
    expect(evs).toEqual([
      { type: 'echo', text: 'ab\r\n' },
      { type: 'line', text: 'ab' },
      { type: 'echo', text: 'cd' },
    ]);
  });

  it('backspace and DEL erase one character (BS SP BS), the bell on an empty line', () => {
    const ed = new LineEditor();
    const evs = ed.feed(bytes('shoxw\x08\x08w\x7fw slot\r'));
    expect(lines(evs)).toEqual(['show slot']);
    expect(echo(new LineEditor().feed(bytes('\x7f')))).toBe('\x07');
    expect(echo(new LineEditor().feed(bytes('ab\x08')))).toBe('ab\b \b');
  });

  it('^U kills the line, ^W the last word, ^C cancels the line', () => {
    const ed = new LineEditor();
    expect(lines(ed.feed(bytes('garbage\x15help\r')))).toEqual(['help']);
    expect(lines(ed.feed(bytes('show sessions\x17slot\r')))).toEqual(['show slot']);
    const evs = ed.feed(bytes('reboot\x03'));
    expect(evs.at(-1)).toEqual({ type: 'cancel' });
    expect(echo(evs)).toBe('reboot^C\r\n');
    expect(ed.pending).toBe('');
  });

  it('swallows ANSI escape sequences (arrow keys, function keys) and 8-bit / control garbage', () => {
    const ed = new LineEditor();
    const evs = ed.feed(Uint8Array.from([0x1b, 0x5b, 0x41, 0x1b, 0x4f, 0x50, 0x1b, 0x5b, 0x31, 0x35, 0x7e, 0x00, 0x09, 0xff, 0x80, 0x01, ...bytes('help\r')]));
    expect(lines(evs)).toEqual(['help']);
    expect(echo(evs)).toBe('help\r\n');
    expect(ed.ignored).toBeGreaterThanOrEqual(14);
  });

  it('rings the bell past the maximum line length and keeps the line', () => {
    const ed = new LineEditor({ maxLine: 4 });
    const evs = ed.feed(bytes('abcdef\r'));
    expect(lines(evs)).toEqual(['abcd']);
    expect(echo(evs)).toBe('abcd\x07\x07\r\n');
    expect(() => new LineEditor({ maxLine: 0 })).toThrow(RangeError);
  });

  it('never throws on random bytes and never emits a line with non-printable characters', () => {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    const ed = new LineEditor();
    for (let i = 0; i < 2000; i++) {
      const chunk = Uint8Array.from({ length: 1 + (rnd() % 64) }, rnd);
      for (const e of ed.feed(chunk)) if (e.type === 'line') expect(e.text).toMatch(/^[\x20-\x7e]*$/);
    }
  });
});

describe('LineEditor escape recovery', () => {
  it('a control byte inside an unfinished escape sequence ends it and still acts (^U, CR)', () => {
    const ed = new LineEditor();
    expect(lines(ed.feed(bytes('junk\x1b[12\x15help\r')))).toEqual(['help']);
    expect(lines(ed.feed(bytes('\x1b\rshow\r')))).toEqual(['', 'show']);
  });
});
