/**
 * `atcasim lb` argument parsing (chassis/cli/lb-args.ts): -h/--help is a command of its own, a
 * port-0 service without -p is refused as ipvsadm refuses it, echoed input has its unprintable
 * characters escaped; and `-R` input (chassis/cli/lb.ts restoreEdits) names the real input line.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LB_USAGE, LbUsageError, parseLbArgs } from '../../../../chassis/cli/lb-args.ts';
import { restoreEdits, runLb } from '../../../../chassis/cli/lb.ts';

function refusal(argv: string[]): string {
  try {
    parseLbArgs(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(LbUsageError);
    return (e as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('atcasim lb arguments', () => {
  it('-h and --help ask for the usage text, also beside other options', () => {
    for (const argv of [['-h'], ['--help'], ['-A', '-t', '10.1.1.3:80', '--help'], ['--db', 'x.db', '-h']]) {
      expect(parseLbArgs(argv).command, argv.join(' ')).toEqual({ kind: 'help' });
    }
  });

  it('the usage text is an ipvsadm-style synopsis of every command and points to docs/lb.md', () => {
    for (const c of ['-A|E', '-D', '-C', '-a|e', '-d', '-L|l', '-Z', '-S', '-R', '-h|--help', '--fullnat', '--health', '--db FILE']) expect(LB_USAGE).toContain(c);
    expect(LB_USAGE).toContain('docs/lb.md');
    expect(LB_USAGE.endsWith('\n')).toBe(true);
  });

  it('atcasim lb --help prints the usage on stdout and exits 0, nothing on stderr', async () => {
    const out = new PassThrough();
    const err = new PassThrough();
    let text = '';
    let errText = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    err.on('data', (c: Buffer) => (errText += c.toString()));
    const code = await runLb(['--help'], { stdout: out, stderr: err, setExit: () => {} }, () => Promise.reject(new Error('stdin read')));
    expect(code).toBe(0);
    expect(text).toBe(LB_USAGE);
    expect(errText).toBe('');
  });

  it('a port-0 service without persistence is refused as ipvsadm refuses it; with -p it is accepted', () => {
    expect(refusal(['-A', '-t', '10.1.1.3:0'])).toBe('Zero port specified for non-persistent service');
    expect(refusal(['-A', '-u', '[2001:db8::1]:0', '-s', 'rr'])).toBe('Zero port specified for non-persistent service');
    expect(parseLbArgs(['-A', '-t', '10.1.1.3:0', '-p', '60']).command).toMatchObject({ kind: 'edit', edit: { op: 'add-service', service: { port: 0 }, settings: { persistenceMs: 60_000 } } });
    expect(parseLbArgs(['-A', '-t', '10.1.1.3:0', '-p']).command).toMatchObject({ edit: { settings: { persistenceMs: 300_000 } } });
  });

  it('echoed input has control characters escaped', () => {
    expect(refusal(['-A', '-t', '10.1.1.3:80', '-s', 'r\x1b[2Jr'])).toBe('Scheduler not found: r\\x1b[2Jr (known: rr, wrr, lc, wlc, sh, maglev, dynamic)');
    expect(refusal(['-L', 'x\x07\u202e'])).toBe('unexpected argument "x\\x07\\u202e"');
  });

  it('-R input: edits with their input line numbers (blank and # lines counted), refusals name the line', () => {
    const text = '# saved\n-A -t 10.1.1.3:80 -s rr\n\n-a -t 10.1.1.3:80 -r 10.2.0.1:80 -m -w 1\n';
    const r = restoreEdits(text);
    expect(r.lines).toEqual([2, 4]);
    expect(r.edits.map((e) => e.op)).toEqual(['add-service', 'add-server']);
    expect(() => restoreEdits('# x\n\n-A -t 10.1.1.3:80 -s bogus\x01\n')).toThrow('restore line 3: Scheduler not found: bogus\\x01 (known:');
    expect(() => restoreEdits('-A -t 10.1.1.3:80\n-A -t 10.1.1.4:0\n')).toThrow('restore line 2: Zero port specified for non-persistent service');
    expect(() => restoreEdits('\n-L -n\n')).toThrow('restore line 2: only -A, -E, -D, -C, -a, -e, -d lines can be restored');
  });
});
