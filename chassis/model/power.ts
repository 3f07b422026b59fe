/**
 * FRU power levels as PICMG 3.0 §3.9 describes them (Get Power Level 2Ch/12h response: properties
 * byte with b7 dynamic reconfiguration and b4:0 level, delay to stable power in 0.1 s, power
 * multiplier in 0.1 W, then one byte per level: draw = byte × multiplier × 0.1 W).
 */
import type { PowerConfig } from '../config/types.ts';

/** Get Power Level request types (byte 3). */
export type PowerLevelType = 'steady' | 'desired-steady' | 'early' | 'desired-early';

/** Numbers behind a Get Power Level response. */
export interface PowerLevelInfo {
  dynamic: boolean;
  /** Present level for 'steady'/'early', desired level for the 'desired-*' types (0 = off). */
  level: number;
  /** Delay to stable power, 0.1 s units. */
  delayTenths: number;
  /** Power multiplier, 0.1 W units. */
  multiplierTenthW: number;
  /** Draw of levels 1..n in multiplier units. */
  levelBytes: number[];
  /** Draw of levels 1..n in W (as the bytes encode them). */
  levelsW: number[];
}

/**
 * Picks the smallest multiplier (0.1 W units, 1..255) for which every level fits in a byte, and
 * encodes the levels. @throws RangeError when a level cannot be encoded (> 6502 W).
 */
export function encodePowerLevels(levelsW: readonly number[]): { multiplierTenthW: number; levelBytes: number[] } {
  const max = Math.max(0, ...levelsW);
  const mult = Math.max(1, Math.ceil((max * 10) / 255));
  if (mult > 255) throw new RangeError(`power level ${max} W is too large to encode`);
  return { multiplierTenthW: mult, levelBytes: levelsW.map((w) => Math.min(255, Math.round((w * 10) / mult))) };
}

/** The Get Power Level numbers of a FRU. */
export function powerLevelInfo(cfg: PowerConfig, presentLevel: number, type: PowerLevelType): PowerLevelInfo {
  const { multiplierTenthW, levelBytes } = encodePowerLevels(cfg.levelsW);
  const desired = type === 'desired-steady' || type === 'desired-early';
  return {
    dynamic: cfg.dynamic,
    level: desired ? cfg.desiredLevel : presentLevel,
    delayTenths: Math.min(255, Math.round(cfg.delayMs / 100)),
    multiplierTenthW,
    levelBytes,
    levelsW: levelBytes.map((b) => (b * multiplierTenthW) / 10),
  };
}

/** Draw in W at `level` (0 = off). */
export function drawAt(cfg: PowerConfig, level: number): number {
  if (level <= 0) return 0;
  return cfg.levelsW[Math.min(level, cfg.levelsW.length) - 1] ?? 0;
}
