/**
 * The TUI's keys as pure functions (key → UiCommand, selection moves) and UiCommand → the
 * emulator's operator command API, against a fake (call routing, messages, refusals) and a real
 * emulator in simulated time (the Shelf's own refusals come through unchanged).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CommandError } from '../../../board/common/errors.ts';
import type { HotSwapOutcome } from '../../../chassis/model/shelf/hot-swap.ts';
import type { OperatorCommands } from '../../../chassis/runtime/commands.ts';
import type { Emulator } from '../../../chassis/runtime/emulator.ts';
import { keyToCommand, moveSelection, runCommand, SWITCHOVER_PAIR, type UiCommand } from '../../../ui/keymap.ts';
import { simEmulator } from './fixture.ts';

const ctx = { selected: 'slot3', selectedState: 4 as const, help: false };

describe('keyToCommand', () => {
  it.each<[string, UiCommand | undefined]>([
    ['left', { kind: 'select', move: 'left' }],
    ['right', { kind: 'select', move: 'right' }],
    ['tab', { kind: 'select', move: 'next' }],
    ['S-tab', { kind: 'select', move: 'prev' }],
    ['up', { kind: 'select', move: 'up' }],
    ['down', { kind: 'select', move: 'down' }],
    ['x', { kind: 'open-handle', target: 'slot3' }],
    ['i', { kind: 'close-handle', target: 'slot3' }],
    ['e', { kind: 'extract', target: 'slot3' }],
    ['f', { kind: 'fault', target: 'slot3' }],
    ['r', { kind: 'repair', target: 'slot3' }],
    ['s', { kind: 'not-redundant', target: 'slot3' }],
    ['w', { kind: 'hang', target: 'slot3' }],
    ['?', { kind: 'help' }],
    ['q', { kind: 'quit' }],
    ['C-c', { kind: 'quit' }],
    ['pagedown', { kind: 'scroll', by: 5 }],
    ['pageup', { kind: 'scroll', by: -5 }],
    ['z', undefined],
    ['enter', undefined],
  ])('%s', (key, want) => {
    expect(keyToCommand(key, ctx)).toEqual(want);
  });

  it('s: a processor board switches its share, a ShMC the ShMC pair, anything else is refused', () => {
    expect(keyToCommand('s', { ...ctx, selectedKind: 'processor' })).toEqual({ kind: 'switchover', pair: 'slot3' });
    expect(keyToCommand('s', { selected: 'shmc-b', help: false, selectedKind: 'shmc' })).toEqual({ kind: 'switchover', pair: SWITCHOVER_PAIR });
    for (const k of ['hub', 'fan', 'pem', undefined]) expect(keyToCommand('s', { selected: 'slot13', help: false, ...(k ? { selectedKind: k } : {}) })).toEqual({ kind: 'not-redundant', target: 'slot13' });
  });

  it('e inserts an extracted board', () => {
    expect(keyToCommand('e', { ...ctx, selectedState: 0 })).toEqual({ kind: 'insert', target: 'slot3' });
  });

  it('targets the selection, empty slots included (the shelf refuses them)', () => {
    expect(keyToCommand('x', { selected: 'slot9', help: false })).toEqual({ kind: 'open-handle', target: 'slot9' });
    expect(keyToCommand('x', { selected: 'shmc-b', help: false })).toEqual({ kind: 'open-handle', target: 'shmc-b' });
  });

  it('with the help open any key closes it, q and Ctrl-C still quit', () => {
    const h = { ...ctx, help: true };
    expect(keyToCommand('x', h)).toEqual({ kind: 'close-help' });
    expect(keyToCommand('escape', h)).toEqual({ kind: 'close-help' });
    expect(keyToCommand('q', h)).toEqual({ kind: 'quit' });
    expect(keyToCommand('C-c', h)).toEqual({ kind: 'quit' });
  });
});

describe('moveSelection', () => {
  const order = ['s13', 's11', 's9', 's7', 'shmc-a', 'shmc-b', 'fan1'];
  it('left/right/tab walk the whole order and wrap', () => {
    expect(moveSelection(order, 's13', 'left', 4)).toBe('fan1');
    expect(moveSelection(order, 'fan1', 'right', 4)).toBe('s13');
    expect(moveSelection(order, 's9', 'next', 4)).toBe('s7');
    expect(moveSelection(order, 's9', 'prev', 4)).toBe('s11');
  });
  it('up/down jump between the front row and the management row at the nearest position', () => {
    expect(moveSelection(order, 's13', 'down', 4)).toBe('shmc-a');
    expect(moveSelection(order, 's7', 'down', 4)).toBe('fan1');
    expect(moveSelection(order, 'fan1', 'up', 4)).toBe('s7');
    expect(moveSelection(order, 'shmc-a', 'up', 4)).toBe('s13');
  });
  it('an unknown current selection starts at the first', () => {
    expect(moveSelection(order, 'gone', 'right', 4)).toBe('s11');
    expect(moveSelection([], 'x', 'right', 0)).toBe('x');
  });
});

describe('runCommand', () => {
  function fake(): { api: OperatorCommands; calls: string[] } {
    const calls: string[] = [];
    const o = (fru: string, state: number, changed = true): HotSwapOutcome => ({ fru, state: state as HotSwapOutcome['state'], changed });
    const api: OperatorCommands = {
      openHandle: (f) => (calls.push(`open ${f}`), o(f, 5)),
      closeHandle: (f) => (calls.push(`close ${f}`), o(f, 4, false)),
      extract: (f) => (calls.push(`extract ${f}`), o(f, 0)),
      insert: (f) => (calls.push(`insert ${f}`), o(f, 1)),
      injectFault: (f, k) => (calls.push(`fault ${f} ${k}`), o(f, 6)),
      repair: (f) => {
        calls.push(`repair ${f}`);
        throw new CommandError('not_faulted', `${f} has no fault to repair`);
      },
      switchover: (p) => void calls.push(`switchover ${p}`),
      hang: () => {
        throw new TypeError('boom');
      },
      heal: () => {},
      haAvailable: true,
    };
    return { api, calls };
  }

  it('routes each action to the operator API and describes the outcome', () => {
    const { api, calls } = fake();
    expect(runCommand({ kind: 'open-handle', target: 'slot3' }, api)).toEqual({ text: 'slot3: handle opened → M5', level: 'info' });
    expect(runCommand({ kind: 'close-handle', target: 'slot3' }, api)).toEqual({ text: 'slot3: handle closed (stays in M4)', level: 'info' });
    expect(runCommand({ kind: 'extract', target: 'slot4' }, api)?.text).toBe('slot4: extracted → M0');
    expect(runCommand({ kind: 'insert', target: 'slot4' }, api)?.text).toBe('slot4: inserted → M1');
    expect(runCommand({ kind: 'fault', target: 'slot5' }, api)?.text).toBe('slot5: payload fault injected → M6');
    expect(runCommand({ kind: 'switchover', pair: 'shmc' }, api)?.text).toBe('shmc: switchover requested');
    expect(calls).toEqual(['open slot3', 'close slot3', 'extract slot4', 'insert slot4', 'fault slot5 payload', 'switchover shmc']);
  });

  it('refusals become error messages; other errors are not swallowed', () => {
    const { api } = fake();
    expect(runCommand({ kind: 'repair', target: 'slot6' }, api)).toEqual({ text: 'slot6: slot6 has no fault to repair', level: 'error' });
    expect(() => runCommand({ kind: 'hang', target: 'slot6' }, api)).toThrow(TypeError);
    expect(runCommand({ kind: 'select', move: 'left' }, api)).toBeUndefined();
    expect(runCommand({ kind: 'quit' }, api)).toBeUndefined();
  });

  describe('against a real emulator', () => {
    let em: Emulator | undefined;
    afterAll(async () => {
      await em?.stop();
    });
    it('x, i, e, f, r, s, w on the shelf in simulated time', async () => {
      const sim = await simEmulator(500);
      em = sim.em;
      const api = em.commands;
      expect(runCommand({ kind: 'open-handle', target: 'slot3' }, api)).toEqual({ text: 'slot3: handle opened → M5', level: 'info' });
      sim.clock.advance(3000);
      expect(em.shelf.state('slot3')).toBe(1);
      expect(runCommand({ kind: 'open-handle', target: 'slot3' }, api)?.text).toBe('slot3: handle opened (stays in M1)');
      expect(runCommand({ kind: 'close-handle', target: 'slot3' }, api)?.text).toBe('slot3: handle closed → M2');
      expect(runCommand({ kind: 'open-handle', target: 'slot7' }, api)).toEqual({ text: 'slot7: slot7 is empty', level: 'error' });
      expect(runCommand({ kind: 'extract', target: 'slot5' }, api)?.text).toBe('slot5: extracted → M0');
      expect(runCommand({ kind: 'extract', target: 'slot5' }, api)).toMatchObject({ level: 'error', text: expect.stringContaining('not installed') });
      expect(runCommand({ kind: 'insert', target: 'slot5' }, api)?.text).toMatch(/^slot5: inserted → M/);
      expect(runCommand({ kind: 'fault', target: 'slot6' }, api)?.text).toBe('slot6: payload fault injected → M6');
      sim.clock.advance(1500);
      expect(em.shelf.state('slot6')).toBe(1);
      expect(runCommand({ kind: 'close-handle', target: 'slot6' }, api)).toEqual({ text: 'slot6: slot6 has a payload fault: it stays in M1 until repaired', level: 'error' });
      expect(runCommand({ kind: 'repair', target: 'slot6' }, api)?.level).toBe('info');
      expect(runCommand({ kind: 'switchover', pair: 'shmc' }, api)).toEqual({ text: 'shmc: switchover: the HA layer is off (started with --no-ha)', level: 'error' });
      expect(runCommand({ kind: 'hang', target: 'slot4' }, api)).toMatchObject({ level: 'error', text: expect.stringContaining('the HA layer is off') });
      sim.clock.advance(6000);
      for (const s of ['slot3', 'slot5', 'slot6']) expect(em.shelf.state(s)).toBe(4);
    });
  });
});

describe('the HA status overlay key', () => {
  it('a opens it; while open any key closes it without acting, q still quits', () => {
    const ctx = { selected: 'slot3', selectedState: 4 as const, selectedKind: 'processor', help: false };
    expect(keyToCommand('a', ctx)).toEqual({ kind: 'ha-status' });
    expect(keyToCommand('x', { ...ctx, haStatus: true })).toEqual({ kind: 'close-ha-status' });
    expect(keyToCommand('q', { ...ctx, haStatus: true })).toEqual({ kind: 'quit' });
    expect(keyToCommand('x', ctx)).toMatchObject({ kind: 'open-handle' });
  });
});
