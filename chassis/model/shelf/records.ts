/**
 * A FRU's state as the store keeps it (FruStateRecord) and back: what survives an emulator restart —
 * the hot-swap context, faults, LED overrides (not lamp tests), power levels, port overrides, the
 * Chassis Control mark and the fan level — and the baselines (fingerprints of the configured FRU
 * image and thresholds) that tell whether what the store holds still applies.
 */
import type { ThresholdSensorConfig } from '../../config/types.ts';
import type { FruStateRecord } from '../../persistence/store.ts';
import { THRESHOLD_NAMES } from '../../sensors/thresholds.ts';
import { initialHotSwapContext, type HotSwapCause, type HotSwapContext, type MState } from '../hot-swap.ts';
import { LED_COLOR, LED_COLOR_NAME, type LedFunction, type LedOverride } from '../leds.ts';
import type { FruRuntime } from './frus.ts';

/** FNV-1a 32-bit fingerprint of a text or image, with its length: `fnv1a:xxxxxxxx:n`. */
export function fingerprint(text: string | Uint8Array): string {
  let h = 0x811c9dc5;
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `fnv1a:${h.toString(16).padStart(8, '0')}:${bytes.length}`;
}

/** Fingerprint of a sensor's configured thresholds: thresholds set at run time survive a restart while it holds. */
export function thresholdBaseline(s: ThresholdSensorConfig): string {
  return fingerprint(JSON.stringify(THRESHOLD_NAMES.map((n) => s.thresholds[n] ?? null)));
}

/** The record of a FRU's state to store. */
export function fruStateRecord(rt: FruRuntime): FruStateRecord {
  const c = rt.hs.context;
  const r: FruStateRecord = {
    fru: rt.cfg.name,
    state: c.state,
    previous: c.previous,
    lastCause: c.lastCause,
    handleClosed: c.handleClosed,
    activationLocked: c.activationLocked,
    deactivationLocked: c.deactivationLocked,
    activationPending: c.activationPending,
    faults: [...rt.faults],
    ledOverrides: [...rt.leds.overrides]
      .filter(([, o]) => o.fn.mode !== 'lamp-test')
      .map(([led, o]) => ({ led, mode: o.fn.mode, onMs: o.fn.onMs, offMs: o.fn.offMs, color: LED_COLOR[o.color] })),
    powerLevel: rt.power.level,
    desiredLevel: rt.power.desired,
    portOverrides: Object.fromEntries(rt.ports.overrides),
    chassisOff: rt.chassisOff,
  };
  if (rt.fan) {
    r.fanLevel = rt.fan.level;
    r.fanLocal = rt.fan.local;
  }
  return r;
}

/** The hot-swap context a stored record resumes (out-of-range values fall back to M1, cause normal). */
export function storedHotSwapContext(rec: FruStateRecord): HotSwapContext {
  return initialHotSwapContext(clampState(rec.state), {
    previous: clampState(rec.previous),
    lastCause: (rec.lastCause in CAUSES ? rec.lastCause : 'normal') as HotSwapCause,
    handleClosed: rec.handleClosed,
    activationLocked: rec.activationLocked,
    deactivationLocked: rec.deactivationLocked,
    activationPending: rec.activationPending,
  });
}

/** The LED overrides a stored record restores (lamp tests and unknown LEDs or colours dropped). */
export function storedLedOverrides(rec: FruStateRecord | undefined): Map<number, LedOverride> {
  const out = new Map<number, LedOverride>();
  for (const o of rec?.ledOverrides ?? []) {
    if (o.led < 0 || o.led > 3 || o.mode === 'lamp-test') continue;
    const color = LED_COLOR_NAME[o.color];
    if (!color) continue;
    out.set(o.led, { fn: { mode: o.mode as LedFunction['mode'], onMs: o.onMs, offMs: o.offMs }, color });
  }
  return out;
}

const CAUSES: Record<HotSwapCause, true> = {
  normal: true,
  shelfManager: true,
  handle: true,
  programmatic: true,
  communication: true,
  communicationLocal: true,
  surpriseExtraction: true,
  providedInformation: true,
  invalidHardwareAddress: true,
  unexpectedDeactivation: true,
  unknown: true,
};

function clampState(n: number): MState {
  return (Number.isInteger(n) && n >= 0 && n <= 7 ? n : 1) as MState;
}
