/**
 * The control socket (chassis/io/control-server.ts, chassis/io/control-client.ts) over a real
 * Unix socket: ops round-trip, a bad line is answered and the connection keeps serving, the
 * socket is 0600 and another user cannot connect (needs root to become that user: a visible SKIP
 * otherwise), a stale socket is replaced, a live one refused, the socket is gone after stop.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callControl, ControlError } from '../../../chassis/io/control-client.ts';
import { ControlServer } from '../../../chassis/io/control-server.ts';
import { ControlOps } from '../../../chassis/runtime/control-ops.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-ctl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = process.getuid?.() === 0;
if (!root) process.stdout.write('SKIP control socket: "another user cannot connect" (test/integration/io/control-server.test.ts) needs root to run a client as nobody\n');

function opsWith(): ControlOps {
  const ops = new ControlOps();
  ops.register('echo', (a) => ({ got: a }));
  ops.register('slow', async (a) => {
    await new Promise((r) => setTimeout(r, Number(a.ms ?? 50)));
    return 'late';
  });
  ops.register('boom', () => {
    throw new RangeError('slot9: no such board\nsecond line');
  });
  return ops;
}

/** Sends raw lines over one connection and collects `n` answer lines. */
function rawExchange(path: string, text: string, n: number): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('error', reject);
    sock.on('connect', () => sock.write(text));
    sock.on('data', (c: string) => {
      buf += c;
      const lines = buf.split('\n').filter((l) => l !== '');
      if (buf.endsWith('\n') && lines.length >= n) {
        sock.destroy();
        resolve(lines.map((l) => JSON.parse(l) as Record<string, unknown>));
      }
    });
  });
}

describe('control socket', () => {
  it('round-trips ops, refuses unknown ops and throws in one line, answers bad lines and keeps serving', async () => {
    const db = join(dir, 'a.db');
    const srv = await ControlServer.start({ dbPath: db, ops: opsWith() });
    try {
      expect(srv.path).toBe(`${db}.ctl`);
      expect(await callControl(db, 'echo', { x: [1, 'two'] })).toEqual({ got: { x: [1, 'two'] } });
      expect(await callControl(db, 'ops')).toEqual(['boom', 'echo', 'ops', 'slow']);
      await expect(callControl(db, 'nope')).rejects.toThrow(/unknown op "nope" \(known: boom, echo, ops, slow\)/);
      const err = await callControl(db, 'boom').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ControlError);
      expect((err as ControlError).code).toBe('refused');
      expect((err as ControlError).message).toBe('slot9: no such board');
      // one connection: garbage, a non-object, bad args, then a good request — all answered, in order
      const answers = await rawExchange(srv.path, 'this is not json\n[1,2]\n{"id":7,"op":"echo","args":5}\n{"id":8,"op":"slow","args":{"ms":30}}\n{"id":9,"op":"echo"}\n', 5);
      expect(answers[0]).toMatchObject({ id: null, ok: false });
      expect(String(answers[0]!.error)).toMatch(/^bad request: not JSON/);
      expect(answers[1]).toMatchObject({ id: null, ok: false, error: expect.stringMatching(/expected a JSON object/) });
      expect(answers[2]).toEqual({ id: 7, ok: false, error: 'bad request: "args" must be an object' });
      expect(answers[3]).toEqual({ id: 8, ok: true, result: 'late' });
      expect(answers[4]).toEqual({ id: 9, ok: true, result: { got: {} } });
      await expect(callControl(db, 'slow', { ms: 500 }, 100)).rejects.toMatchObject({ code: 'timeout' });
      // still serving after all of it
      expect(await callControl(db, 'echo', { y: 1 })).toEqual({ got: { y: 1 } });
    } finally {
      await srv.stop();
    }
    expect(existsSync(`${db}.ctl`)).toBe(false);
    await expect(callControl(db, 'echo')).rejects.toMatchObject({ code: 'no-shelf', message: expect.stringMatching(/^no shelf running for .*a\.db/) });
  });

  it('creates the socket 0600; another user is refused with "permission denied"', async () => {
    const sub = join(dir, 'shared');
    rmSync(sub, { recursive: true, force: true });
    spawnSync('mkdir', ['-m', '0755', sub]);
    chmodSync(sub, 0o755);
    const db = join(sub, 'b.db');
    const srv = await ControlServer.start({ dbPath: db, ops: opsWith() });
    try {
      expect(statSync(srv.path).isSocket()).toBe(true);
      expect(statSync(srv.path).mode & 0o777).toBe(0o600);
      if (!root) return;
      // the same client code, run as nobody (uid 65534)
      const script = `import('${new URL('../../../chassis/io/control-client.ts', import.meta.url).href}').then(m => m.callControl(${JSON.stringify(db)}, 'echo', {})).then(r => console.log('OK', JSON.stringify(r)), e => console.log('ERR', e.code, e.message))`;
      const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', '-e', script], { encoding: 'utf8', cwd: process.cwd(), timeout: 30_000 });
      expect(r.stdout, r.stderr).toMatch(/^ERR denied permission denied on .*b\.db\.ctl/);
      // and root (the owner here) still gets through
      expect(await callControl(db, 'echo', { who: 'owner' })).toEqual({ got: { who: 'owner' } });
    } finally {
      await srv.stop();
    }
  });

  it('replaces a stale socket, refuses a live one and a non-socket file', async () => {
    const db = join(dir, 'c.db');
    // a process that binds the socket and dies without removing it
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(`${db}.ctl`)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((res) => child.stdout.once('data', () => res()));
    // while it lives: refused
    await expect(ControlServer.start({ dbPath: db, ops: opsWith() })).rejects.toThrow(/another running shelf serves it/);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(statSync(`${db}.ctl`).isSocket()).toBe(true);
    await expect(callControl(db, 'echo')).rejects.toMatchObject({ code: 'no-shelf', message: expect.stringMatching(/nobody listens/) });
    const srv = await ControlServer.start({ dbPath: db, ops: opsWith() });
    expect(await callControl(db, 'echo', {})).toEqual({ got: {} });
    await srv.stop();
    const file = join(dir, 'd.db');
    writeFileSync(`${file}.ctl`, 'not a socket');
    await expect(ControlServer.start({ dbPath: file, ops: opsWith() })).rejects.toThrow(/exists and is not a socket/);
  });
});
