/**
 * The stdin control channel's grammar (chassis/runtime/control.ts) and its answers over the
 * operator command API of a real emulator in simulated time.
 */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { captureLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { parseControlLine, runControlLine } from '../../../../chassis/runtime/control.ts';
import { Emulator } from '../../../../chassis/runtime/emulator.ts';

describe('parseControlLine', () => {
  it.each([
    ['open-handle slot3', { verb: 'open-handle', target: 'slot3' }],
    ['x 3', { verb: 'open-handle', target: '3' }],
    ['deactivate slot4', { verb: 'open-handle', target: 'slot4' }],
    ['  i   slot3  ', { verb: 'close-handle', target: 'slot3' }],
    ['e slot5', { verb: 'extract', target: 'slot5' }],
    ['insert slot5', { verb: 'insert', target: 'slot5' }],
    ['f slot6', { verb: 'fault', target: 'slot6', kind: 'payload' }],
    ['fault slot6 comm', { verb: 'fault', target: 'slot6', kind: 'comm' }],
    ['r slot6', { verb: 'repair', target: 'slot6' }],
    ['s', { verb: 'switchover', pair: 'shmc' }],
    ['switchover lb1', { verb: 'switchover', pair: 'lb1' }],
    ['w shmc-a', { verb: 'hang', target: 'shmc-a' }],
    ['heal shmc-a # back', { verb: 'heal', target: 'shmc-a' }],
  ])('%s', (line, want) => {
    expect(parseControlLine(line)).toEqual(want);
  });

  it('blank and comment lines are nothing', () => {
    expect(parseControlLine('')).toBeUndefined();
    expect(parseControlLine('   # note')).toBeUndefined();
  });

  it.each(['bogus slot3', 'x', 'fault slot3 smoke', 'x slot3 slot4', 'switchover a b'])('usage error: %s', (line) => {
    expect(() => parseControlLine(line)).toThrow(CommandError);
    try {
      parseControlLine(line);
    } catch (e) {
      expect((e as CommandError).code).toBe('usage');
    }
  });
});

describe('runControlLine', () => {
  it('answers every line after the command returned, with the state', async () => {
    const clock = new SimClock();
    const em = await Emulator.start({
      platform: { clock, log: captureLogger(), random: new SeededRandom(1), cryptoRandom: (n) => new Uint8Array(n) },
      store: new MemoryStore(),
      defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
      wallTimeMs: 0,
      sessionCapacity: 1024,
      admin: { password: 'control-pass-1' },
    });
    expect(runControlLine('x slot3', em.commands)).toEqual({ event: 'command', line: 'x slot3', ok: true, message: 'slot3: handle opened', fru: 'slot3', state: 'M5' });
    clock.advance(3500);
    expect(runControlLine('x slot3', em.commands)).toMatchObject({ ok: true, state: 'M1', message: 'slot3: handle opened (no change)' });
    expect(runControlLine('fault slot9', em.commands)).toEqual({ event: 'command', line: 'fault slot9', ok: false, code: 'empty_slot', message: 'slot9 is empty' });
    expect(runControlLine('nope', em.commands)).toMatchObject({ ok: false, code: 'usage' });
    expect(runControlLine('s', em.commands)).toMatchObject({ ok: false, code: 'not_available' });
    expect(runControlLine('# just a comment', em.commands)).toBeUndefined();
    await em.stop();
  });
});
