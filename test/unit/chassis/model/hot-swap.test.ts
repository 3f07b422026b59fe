// The pure PICMG 3.0 hot-swap machine: every (state, event) pair against an expectation table
// written here independently of chassis/model/hot-swap.ts, the legal state-change set of the
// PICMG diagram (research/ipmi.md §D), guards (activation/deactivation locks), and the Hot Swap
// event data format checked against the reference SEL record seeded in ../shared/ipmi/sim/atca.emu.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  HOT_SWAP_EVENTS,
  LEGAL_STATE_CHANGES,
  M_STATES,
  BLUE_LED_BY_STATE,
  hotSwapEventData,
  initialHotSwapContext,
  isLegalStateChange,
  setPolicy,
  step,
  type HotSwapCause,
  type HotSwapEvent,
  type MState,
} from '../../../../chassis/model/hot-swap.ts';
import { shared } from '../../../support/shared.ts';

type Expect = { to: MState | 'prev'; cause: HotSwapCause } | 'unchanged' | 'illegal';

// Written from the PICMG 3.0 transition list (research/ipmi.md §D), not copied from the module.
const T = (to: MState | 'prev', cause: HotSwapCause): Expect => ({ to, cause });
const EXPECTED: Record<MState, Partial<Record<HotSwapEvent, Expect>>> = {
  0: { insert: T(1, 'normal') },
  1: {
    extract: T(0, 'normal'),
    'handle.close': T(2, 'handle'),
    'handle.open': 'unchanged',
    'shm.activate': T(2, 'shelfManager'),
    'fru.activate.request': T(2, 'programmatic'),
    'comm.lost': T(7, 'communication'),
  },
  2: {
    extract: T(0, 'surpriseExtraction'),
    'handle.close': 'unchanged',
    'handle.open': T(1, 'handle'),
    'shm.activate': T(3, 'shelfManager'),
    'shm.deactivate': T(1, 'shelfManager'),
    'comm.lost': T(7, 'communication'),
  },
  3: {
    extract: T(0, 'surpriseExtraction'),
    'handle.close': 'unchanged',
    'handle.open': T(6, 'handle'),
    'shm.deactivate': T(6, 'shelfManager'),
    'activation.done': T(4, 'normal'),
    'payload.fault': T(6, 'unexpectedDeactivation'),
    'comm.lost': T(7, 'communication'),
  },
  4: {
    extract: T(0, 'surpriseExtraction'),
    'handle.close': 'unchanged',
    'handle.open': T(5, 'handle'),
    'shm.deactivate': T(6, 'shelfManager'),
    'fru.deactivate.request': T(5, 'programmatic'),
    'payload.fault': T(6, 'unexpectedDeactivation'),
    'comm.lost': T(7, 'communication'),
  },
  5: {
    extract: T(0, 'surpriseExtraction'),
    'handle.close': T(4, 'handle'),
    'handle.open': 'unchanged',
    'shm.activate': T(4, 'shelfManager'),
    'shm.deactivate': T(6, 'shelfManager'),
    'payload.fault': T(6, 'unexpectedDeactivation'),
    'comm.lost': T(7, 'communication'),
  },
  6: {
    extract: T(0, 'surpriseExtraction'),
    'handle.close': 'unchanged',
    'handle.open': 'unchanged',
    'deactivation.done': T(1, 'normal'),
    'comm.lost': T(7, 'communication'),
  },
  7: {
    extract: T(0, 'surpriseExtraction'),
    'handle.close': 'unchanged',
    'handle.open': 'unchanged',
    'comm.restored': T('prev', 'communication'),
  },
};

// The PICMG diagram's state changes.
const LEGAL: Array<[MState, MState]> = [
  [0, 1],
  [1, 0], [1, 2], [1, 7],
  [2, 0], [2, 1], [2, 3], [2, 7],
  [3, 0], [3, 4], [3, 6], [3, 7],
  [4, 0], [4, 5], [4, 6], [4, 7],
  [5, 0], [5, 4], [5, 6], [5, 7],
  [6, 0], [6, 1], [6, 7],
  [7, 0], [7, 1], [7, 2], [7, 3], [7, 4], [7, 5], [7, 6],
];

describe('hot-swap transition table', () => {
  for (const s of M_STATES) {
    for (const ev of HOT_SWAP_EVENTS) {
      const want = EXPECTED[s][ev] ?? 'illegal';
      it(`M${s} + ${ev} → ${typeof want === 'string' ? want : `M${want.to} (${want.cause})`}`, () => {
        // M7 is entered from M4 in this context; comm.restored must return there.
        const ctx = initialHotSwapContext(s, { previous: s === 7 ? 4 : s, handleClosed: ev === 'handle.close' ? false : true });
        const r = step(ctx, ev);
        if (want === 'illegal') {
          expect(r.kind).toBe('illegal');
          return;
        }
        if (want === 'unchanged') {
          expect(r.kind).toBe('unchanged');
          if (r.kind === 'unchanged') expect(r.context.state).toBe(s);
          return;
        }
        expect(r.kind).toBe('transition');
        if (r.kind !== 'transition') return;
        const to = want.to === 'prev' ? 4 : want.to;
        expect([r.from, r.to, r.cause]).toEqual([s, to, want.cause]);
        expect(r.context.state).toBe(to);
        expect(r.context.previous).toBe(s);
        expect(r.context.lastCause).toBe(want.cause);
        expect(isLegalStateChange(s, to)).toBe(true);
      });
    }
  }

  it('the legal state changes are exactly the PICMG diagram', () => {
    const got = LEGAL_STATE_CHANGES.map(([a, b]) => `${a}>${b}`).sort();
    expect(got).toEqual(LEGAL.map(([a, b]) => `${a}>${b}`).sort());
    for (const a of M_STATES) {
      for (const b of M_STATES) {
        const legal = LEGAL.some(([x, y]) => x === a && y === b);
        expect(isLegalStateChange(a, b), `M${a}→M${b}`).toBe(legal);
      }
    }
  });

  it('no event reaches an illegal state change from any state', () => {
    for (const s of M_STATES) {
      for (const ev of HOT_SWAP_EVENTS) {
        for (const previous of [1, 2, 3, 4, 5, 6] as MState[]) {
          const r = step(initialHotSwapContext(s, { previous }), ev);
          if (r.kind === 'transition') expect(LEGAL.some(([a, b]) => a === r.from && b === r.to), `M${r.from}→M${r.to} by ${ev}`).toBe(true);
        }
      }
    }
  });

  it('comm.restored returns to whichever state M7 was entered from', () => {
    for (const s of [1, 2, 3, 4, 5, 6] as MState[]) {
      const lost = step(initialHotSwapContext(s), 'comm.lost');
      expect(lost.kind).toBe('transition');
      if (lost.kind !== 'transition') continue;
      const back = step(lost.context, 'comm.restored');
      expect(back.kind === 'transition' && back.to).toBe(s);
    }
  });
});

describe('activation policy (locked bits)', () => {
  it('activation locked: closing the handle keeps M1 and remembers it; clearing the lock requests activation', () => {
    const ctx = initialHotSwapContext(1, { handleClosed: false, activationLocked: true });
    const r = step(ctx, 'handle.close');
    expect(r.kind).toBe('unchanged');
    if (r.kind !== 'unchanged') return;
    expect(r.blockedBy).toBe('activationUnlocked');
    expect(r.context.handleClosed).toBe(true);
    expect(r.context.activationPending).toBe(true);
    const p = setPolicy(r.context, { activationLocked: false });
    expect(p.requestActivation).toBe(true);
    const a = step(p.context, 'fru.activate.request');
    expect(a.kind === 'transition' && a.to).toBe(2);
  });

  it('activation locked: a programmatic request is held too, the shelf manager may still activate', () => {
    const ctx = initialHotSwapContext(1, { activationLocked: true });
    expect(step(ctx, 'fru.activate.request')).toMatchObject({ kind: 'unchanged', blockedBy: 'activationUnlocked' });
    expect(step(ctx, 'shm.activate')).toMatchObject({ kind: 'transition', to: 2, cause: 'shelfManager' });
  });

  it('deactivation locked: opening the handle keeps M4 (handle open); the shelf manager can still deactivate', () => {
    const ctx = initialHotSwapContext(4, { deactivationLocked: true });
    const r = step(ctx, 'handle.open');
    expect(r).toMatchObject({ kind: 'unchanged', blockedBy: 'deactivationUnlocked' });
    if (r.kind === 'unchanged') expect(r.context.handleClosed).toBe(false);
    expect(step(ctx, 'fru.deactivate.request')).toMatchObject({ kind: 'unchanged', blockedBy: 'deactivationUnlocked' });
    expect(step(ctx, 'shm.deactivate')).toMatchObject({ kind: 'transition', to: 6, cause: 'shelfManager' });
  });

  it('clearing a lock without a pending handle close requests nothing', () => {
    const p = setPolicy(initialHotSwapContext(1, { activationLocked: true }), { activationLocked: false });
    expect(p.requestActivation).toBe(false);
    expect(p.context.activationLocked).toBe(false);
  });

  it('opening the handle cancels a pending activation', () => {
    const r = step(initialHotSwapContext(1, { activationLocked: true, handleClosed: true, activationPending: true }), 'handle.open');
    expect(r.kind === 'unchanged' && r.context.activationPending).toBe(false);
  });

  it('the input context is never modified', () => {
    const ctx = initialHotSwapContext(4);
    const copy = { ...ctx };
    step(ctx, 'handle.open');
    step(ctx, 'extract');
    expect(ctx).toEqual(copy);
  });
});

describe('Hot Swap event data (PICMG: A0h|state, cause<<4|previous, FRU id)', () => {
  it('matches the well-formed reference record seeded in atca.emu (Node3, M3 → M4, normal)', () => {
    const emu = readFileSync(shared('ipmi', 'sim', 'atca.emu'), 'utf8');
    const line = emu.split('\n').find((l) => l.startsWith('sel_add') && l.includes(' 0xf0 '));
    expect(line, 'hot-swap seed in atca.emu').toBeDefined();
    const bytes = line!.trim().split(/\s+/).slice(2).map((x) => parseInt(x, 16));
    // sel_add <mc> <type> ts[4] gen[2] evm stype snum dir d1 d2 d3
    expect(bytes.slice(-3)).toEqual(hotSwapEventData(4, 3, 'normal', 0));
  });

  it('encodes cause and previous state', () => {
    expect(hotSwapEventData(5, 4, 'handle', 0)).toEqual([0xa5, 0x24, 0x00]);
    expect(hotSwapEventData(6, 4, 'unexpectedDeactivation', 0)).toEqual([0xa6, 0x94, 0x00]);
    expect(hotSwapEventData(7, 4, 'communication', 0)).toEqual([0xa7, 0x44, 0x00]);
    expect(hotSwapEventData(0, 4, 'surpriseExtraction', 1)).toEqual([0xa0, 0x64, 0x01]);
  });

  it('blue LED: on in M1, long blink in M2, short blink in M5/M6, off in M3/M4/M0', () => {
    expect(BLUE_LED_BY_STATE).toEqual({ 0: 'off', 1: 'on', 2: 'long-blink', 3: 'off', 4: 'off', 5: 'short-blink', 6: 'short-blink', 7: 'unchanged' });
  });
});
