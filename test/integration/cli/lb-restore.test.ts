/**
 * `atcasim lb -R` against a real emulator behind a real control socket: a line the shelf refuses
 * is named by its input line (blank and comment lines counted), exit 1, and nothing of the input
 * is applied (one change, all or nothing); a line that does not parse is exit 2.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../../board/common/logger.ts';
import { SeededRandom } from '../../../board/common/random.ts';
import { SimClock } from '../../../board/common/sim-clock.ts';
import { runLb } from '../../../chassis/cli/lb.ts';
import { memoryInput } from '../../../chassis/dataplane/traffic.ts';
import { ControlServer } from '../../../chassis/io/control-server.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../chassis/persistence/store.ts';
import { BUNDLED_CAPTURE_PATH } from '../../../chassis/runtime/assets.ts';
import { ControlOps } from '../../../chassis/runtime/control-ops.ts';
import { Emulator } from '../../../chassis/runtime/emulator.ts';
import { registerLbOps } from '../../../chassis/runtime/lb-ops.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-lbr-'));
const db = join(dir, 's.db');
const store = new MemoryStore();
let em: Emulator;
let srv: ControlServer;

beforeAll(async () => {
  em = await Emulator.start({
    platform: { clock: new SimClock(), log: captureLogger(), random: new SeededRandom(1), cryptoRandom: (n) => new Uint8Array(n).fill(7) },
    store,
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 4096,
    admin: { password: 'admin-secret-1' },
    traffic: { inputs: [memoryInput('bundled', readFileSync(BUNDLED_CAPTURE_PATH))], label: 'bundled', pacing: { mode: 'rate', pps: 20_000 } },
    ipmi: {},
  });
  const ops = new ControlOps();
  registerLbOps(ops, { config: em.config, dataPlane: em.dataPlane, store, nowMs: () => Date.UTC(2025, 0, 1) });
  srv = await ControlServer.start({ dbPath: db, ops });
});
afterAll(async () => {
  await srv.stop();
  await em.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function lb(argv: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let o = '';
  let e = '';
  out.on('data', (c: Buffer) => (o += c.toString()));
  err.on('data', (c: Buffer) => (e += c.toString()));
  const code = await runLb(['--db', db, ...argv], { stdout: out, stderr: err, setExit: () => {} }, () => Promise.resolve(stdin));
  return { code, out: o, err: e };
}

describe('atcasim lb -R', () => {
  it('names the input line of an edit the shelf refuses; nothing of the input is applied', async () => {
    const before = (await lb(['-S', '-n'])).out;
    const rules = '# rules\n-A -t 198.51.100.20:80 -s rr\n\n-a -t 198.51.100.20:80 -r 10.2.0.1:80 -m\n-A -t 198.51.100.20:80 -s wrr\n';
    expect(await lb(['-R'], rules)).toEqual({ code: 1, out: '', err: 'atcasim lb: restore line 5: Service already exists\n' });
    expect(await lb(['-R'], '\n-a -t 198.51.100.21:80 -r 10.2.0.1:80\n')).toEqual({ code: 1, out: '', err: 'atcasim lb: restore line 2: Service not defined\n' });
    expect(await lb(['-R'], '#\n-A -t 198.51.100.22:0\n')).toEqual({ code: 2, out: '', err: 'atcasim lb: restore line 2: Zero port specified for non-persistent service\n' });
    expect((await lb(['-S', '-n'])).out).toBe(before);
    expect(await lb(['-A', '-t', '198.51.100.20:80'])).toMatchObject({ code: 0 });
    expect(await lb(['-A', '-t', '198.51.100.20:80'])).toEqual({ code: 1, out: '', err: 'atcasim lb: Service already exists\n' });
  });
});
