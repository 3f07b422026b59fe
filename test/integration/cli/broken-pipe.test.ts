/**
 * A reader that stops early: `atcasim fields x.pcap | head -1` and `atcasim scenario --json … |
 * head -2` end with status 0 and nothing on stderr (no EPIPE stack trace), as `head` expects.
 * Run through bash with the exit status of atcasim itself (PIPESTATUS).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ATCASIM_BIN } from '../../support/headless.ts';
import { repoRoot } from '../../support/shared.ts';

function piped(args: string, lines: number): { status: string; out: string; err: string } {
  const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(ATCASIM_BIN)} ${args} 2>"$ERR" | head -${lines}; echo "status=\${PIPESTATUS[0]}"; cat "$ERR"`;
  const err = `/tmp/atcasim-epipe-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const out = execFileSync('bash', ['-c', script], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, ERR: err }, timeout: 120_000 });
  execFileSync('rm', ['-f', err]);
  const [head, tail] = out.split(/^status=/m);
  const [status, ...rest] = tail!.split('\n');
  return { status: status!, out: head!, err: rest.join('\n').trim() };
}

describe('a pipe closed by the reader', () => {
  it('fields x.pcap | head -1: the CSV header, exit 0, nothing on stderr', () => {
    const r = piped('fields chassis/assets/loopback-mix-20k.pcap', 1);
    expect(r.out).toMatch(/^frame\.number,frame\.len,/);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect([r.status, r.err]).toEqual(['0', '']);
  });

  it('scenario --json | head -2: exit 0, nothing on stderr', () => {
    const r = piped('scenario --json chassis/scenarios/library/s03-crash.yaml', 2);
    expect(r.out).toMatch(/^\[\n/);
    expect([r.status, r.err]).toEqual(['0', '']);
  });
});
