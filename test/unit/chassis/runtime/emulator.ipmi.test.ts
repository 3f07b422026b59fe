/**
 * The runtime's face for what scenarios need of a running emulator: `Emulator.ipmi` (one request
 * at a controller of the shelf's IPMI face, no session) and `Emulator.nodePackets` (a board's
 * packet counter) — so chassis/scenarios reaches neither chassis/ipmi nor runtime internals.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { captureLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { memoryInput } from '../../../../chassis/dataplane/traffic.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { seededCryptoRandom } from '../../../../chassis/platform.ts';
import { BUNDLED_CAPTURE_PATH } from '../../../../chassis/runtime/assets.ts';
import { Emulator, type EmulatorOptions } from '../../../../chassis/runtime/emulator.ts';

const capture = readFileSync(BUNDLED_CAPTURE_PATH);
let em: Emulator | undefined;

async function start(clock: SimClock, over: Partial<EmulatorOptions> = {}): Promise<Emulator> {
  em = await Emulator.start({
    platform: { clock, log: captureLogger(), random: new SeededRandom(2), cryptoRandom: seededCryptoRandom(new SeededRandom(3)) },
    store: new MemoryStore(),
    ownsStore: true,
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 4096,
    admin: { password: 'admin-secret-1' },
    traffic: { inputs: [memoryInput('bundled', capture)], label: 'bundled', pacing: { mode: 'rate', pps: 10_000 } },
    ipmi: {},
    consoles: false,
    ...over,
  });
  return em;
}

afterEach(async () => {
  await em?.stop();
  em = undefined;
});

describe('Emulator.ipmi', () => {
  it('answers at the shelf manager (20h) and at a board IPMC, as the command tables do', async () => {
    const e = await start(new SimClock());
    // Get PICMG Properties (NetFn 2Ch, cmd 00h): 00h, extension version 2.2, max FRU ID, FRU 0
    const props = e.ipmi({ address: 0x20, netFn: 0x2c, cmd: 0x00, data: Uint8Array.of(0x00) });
    expect(props.cc).toBe(0x00);
    expect([...props.data.subarray(0, 2)]).toEqual([0x00, 0x22]);
    // Get Device ID (NetFn 06h, cmd 01h) at the first processor board's IPMB-0 address
    const board = e.config.frus.find((f) => f.kind === 'processor')!;
    const id = e.ipmi({ address: board.ipmbAddress, netFn: 0x06, cmd: 0x01, data: new Uint8Array(0) });
    expect(id.cc).toBe(0x00);
    expect(id.data.length).toBeGreaterThanOrEqual(11);
    // a command nobody registered: C1h, not a throw
    expect(e.ipmi({ address: 0x20, netFn: 0x06, cmd: 0x7f, data: new Uint8Array(0) }).cc).toBe(0xc1);
  });

  it('answers D3h for an address no controller has, and refuses without an IPMI server', async () => {
    const e = await start(new SimClock());
    expect(e.ipmi({ address: 0xfe, netFn: 0x06, cmd: 0x01, data: new Uint8Array(0) })).toEqual({ cc: 0xd3, data: new Uint8Array(0) });
    await e.stop();
    const off = await start(new SimClock(), { ipmi: false });
    let err: unknown;
    try {
      off.ipmi({ address: 0x20, netFn: 0x06, cmd: 0x01, data: new Uint8Array(0) });
    } catch (x) {
      err = x;
    }
    expect(err).toBeInstanceOf(CommandError);
    expect((err as CommandError).code).toBe('no_ipmi');
  });
});

describe('Emulator.nodePackets', () => {
  it('counts what a processor board handled; 0 for a node that is not a board', async () => {
    const clock = new SimClock();
    const e = await start(clock);
    const slot = e.dataPlane.boardSlots[0]!;
    expect(e.nodePackets(`slot${slot}`)).toBe(e.dataPlane.board(slot).packets);
    clock.runUntil(2000);
    const handled = e.nodePackets(`slot${slot}`);
    expect(handled).toBeGreaterThan(0);
    expect(handled).toBe(e.dataPlane.board(slot).packets);
    const hub = e.dataPlane.hubSlots[0]!;
    expect(e.nodePackets(`slot${hub}`)).toBe(e.dataPlane.hub(hub).counters().packets);
    expect(e.nodePackets('shmc-a')).toBe(0);
    expect(e.nodePackets('slot99')).toBe(0);
  });
});
