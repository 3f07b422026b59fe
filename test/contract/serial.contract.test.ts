// Runs the serial-console contract (serial.contract.ts) against both serial edges:
// 1. @serialport/binding-mock: the console's port is a SerialPortMock; the user types with
//    emitData and reads what the console wrote from the binding's recording;
// 2. a real PTY: socat's pair (chassis/io/pty.ts), the emulator's end opened through serialport
//    exactly as `atcasim start` does, the user's end opened with a second SerialPort, like picocom.
// The console is a processor board's of a wall-clock emulator (real shelf, data plane, traffic).
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort, SerialPortMock } from 'serialport';
import { nullLogger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { memoryInput } from '../../chassis/dataplane/traffic.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../chassis/io/data-dir.ts';
import { consoleLinkDir, exposeConsolesOnPtys, linkSerialPort, openConsolePort } from '../../chassis/io/serial-console.ts';
import { SystemClock } from '../../chassis/io/system-clock.ts';
import { nodeCryptoRandom } from '../../chassis/io/crypto-random.ts';
import { MemoryStore } from '../../chassis/persistence/store.ts';
import { BUNDLED_CAPTURE_PATH } from '../../chassis/runtime/assets.ts';
import { Emulator } from '../../chassis/runtime/emulator.ts';
import { describe, expect, it } from 'vitest';
import { serialContract, type SerialRig } from './serial.contract.ts';

async function wallClockEmulator(): Promise<Emulator> {
  const em = await Emulator.start({
    platform: { clock: new SystemClock(), log: nullLogger, random: new SeededRandom(5), cryptoRandom: nodeCryptoRandom },
    store: new MemoryStore(),
    ownsStore: true,
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.now(),
    sessionCapacity: 4096,
    hotSwapStepMs: 300,
    admin: { password: 'admin-secret-1' },
    traffic: { inputs: [memoryInput('bundled', readFileSync(BUNDLED_CAPTURE_PATH))], label: 'bundled', pacing: { mode: 'rate', pps: 3000 } },
    ipmi: false,
  });
  // let traffic build some sessions on every board (on a loaded machine this takes longer than 1.5 s)
  const end = Date.now() + 30_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    em.sampleTraffic();
    const boards = em.view().traffic?.boards ?? [];
    if (boards.length > 0 && boards.every((b) => b.sessions.active >= 20)) break;
    if (Date.now() > end) throw new Error('no traffic reached every processor board within 30 s');
  }
  return em;
}

serialContract('@serialport/binding-mock', async (): Promise<SerialRig> => {
  const em = await wallClockEmulator();
  const fru = 'slot3';
  const path = `/dev/atcasim-mock-${process.pid}-${fru}`;
  SerialPortMock.binding.createPort(path, { record: true });
  const port = await openConsolePort(path, em.consoles!.mux.lineSettings(fru), true);
  const link = linkSerialPort(port, em.consoles!.mux.get(fru)!, nullLogger);
  // @serialport/binding-mock's MockPortBinding (its types do not resolve under package exports)
  const binding = port.port as unknown as { emitData(data: Buffer): void; recording: Buffer };
  return {
    em,
    fru,
    term: {
      write: async (text) => {
        binding.emitData(Buffer.from(text, 'latin1'));
        await new Promise((r) => setImmediate(r));
      },
      received: () => binding.recording.toString('latin1'),
    },
    cleanup: async () => {
      await link.close();
      await em.stop();
      SerialPortMock.binding.reset();
    },
  };
});

serialContract('socat PTY (user side opened like picocom)', async (): Promise<SerialRig> => {
  const em = await wallClockEmulator();
  const fru = 'slot4';
  const dir = mkdtempSync(join(tmpdir(), 'atcasim-serial-'));
  const exposed = await exposeConsolesOnPtys({ consoles: [{ side: em.consoles!.mux.get(fru)!, line: em.consoles!.mux.lineSettings(fru) }], linkDir: dir, log: nullLogger });
  const userPath = exposed.consoles[0]!.path;
  const user = new SerialPort({ path: exposed.consoles[0]!.link ?? userPath, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => user.open((e) => (e ? reject(e) : resolve())));
  let got = '';
  user.on('data', (b: Buffer) => (got += b.toString('latin1')));
  return {
    em,
    fru,
    term: {
      write: (text) => new Promise<void>((resolve, reject) => user.write(Buffer.from(text, 'latin1'), (e) => (e ? reject(e) : user.drain(() => resolve())))),
      received: () => got,
    },
    cleanup: async () => {
      await new Promise<void>((r) => user.close(() => r()));
      await exposed.stop();
      await em.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('PTY edge: setup failures and links', () => {
  it('a missing socat is a clear error, and nothing is left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atcasim-serial-'));
    try {
      const side = { name: 'slot3', attach: () => () => {}, input: () => {} };
      await expect(
        exposeConsolesOnPtys({ consoles: [{ side, line: { baud: 115200, framing: '8N1', dataBits: 8, parity: 'none', stopBits: 1 } }], linkDir: dir, log: nullLogger, socat: '/nonexistent/socat' }),
      ).rejects.toThrow(/cannot start socat/);
      expect(existsSync(dir)).toBe(false); // no owner file, and the folder it left empty is gone
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the link folder is $XDG_RUNTIME_DIR/atcasim, else "consoles" beside the database', () => {
    expect(consoleLinkDir('/var/lib/x/atcasim.db', { XDG_RUNTIME_DIR: '/run/user/1000' })).toBe('/run/user/1000/atcasim');
    expect(consoleLinkDir('/var/lib/x/atcasim.db', {})).toBe('/var/lib/x/consoles');
    expect(consoleLinkDir('/var/lib/x/atcasim.db', { XDG_RUNTIME_DIR: 'relative' })).toBe('/var/lib/x/consoles');
  });

  it('a stale link is replaced; a file that is not a link is left alone; stop removes only our links', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atcasim-serial-'));
    const em = await Emulator.start({
      platform: { clock: new SystemClock(), log: nullLogger, random: new SeededRandom(5), cryptoRandom: nodeCryptoRandom },
      store: new MemoryStore(),
      ownsStore: true,
      defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
      wallTimeMs: Date.now(),
      sessionCapacity: 1024,
      admin: { password: 'admin-secret-1' },
      ipmi: false,
    });
    try {
      symlinkSync('/dev/pts/nonexistent-999', join(dir, 'slot3'));
      writeFileSync(join(dir, 'slot4'), 'not a link');
      const mux = em.consoles!.mux;
      const exposed = await exposeConsolesOnPtys({ consoles: ['slot3', 'slot4'].map((n) => ({ side: mux.get(n)!, line: mux.lineSettings(n) })), linkDir: dir, log: nullLogger });
      const [s3, s4] = exposed.consoles;
      expect(readlinkSync(join(dir, 'slot3'))).toBe(s3!.path);
      expect(s4!.link).toBeUndefined();
      expect(readFileSync(join(dir, 'slot4'), 'utf8')).toBe('not a link');
      await exposed.stop();
      expect(readdirSync(dir)).toEqual(['slot4']);
    } finally {
      await em.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
