/**
 * Reads a secret (a password) from the terminal without echoing it: the prompt goes to stderr, the
 * terminal is put in raw mode while the line is typed (Enter ends it, Backspace deletes, Ctrl-C or
 * Ctrl-D abandons). When stdin is not a terminal, one line of it is read instead (scripts:
 * `printf 'pw\n' | atcasim clia user passwd 3`).
 */
import type { Readable, Writable } from 'node:stream';

/** A terminal-or-pipe stdin, as process.stdin is. */
type Input = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/**
 * @returns the line typed (without its end of line)
 * @throws Error('no password given') when input ends or Ctrl-C/Ctrl-D is typed before Enter
 */
export function readSecret(prompt: string, input: Input = process.stdin, output: Writable = process.stderr): Promise<string> {
  const tty = !!input.isTTY && typeof input.setRawMode === 'function';
  // echo off before the prompt shows: whoever answers it must not see the answer echoed
  if (tty) input.setRawMode!(true);
  output.write(prompt);
  return new Promise<string>((resolve, reject) => {
    let line = '';
    const finish = (err?: Error) => {
      input.off('data', onData);
      input.off('end', onEnd);
      if (tty) input.setRawMode!(false);
      input.pause();
      if (tty) output.write('\n');
      if (err) reject(err);
      else resolve(line);
    };
    const onEnd = () => finish(line ? undefined : new Error('no password given'));
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003' || ch === '\u0004') return finish(new Error('no password given'));
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else line += ch;
      }
    };
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
  });
}
