// Sensor linearisation (IPMI v2.0 §36.3; chassis/sensors/linearization.ts).
import { describe, expect, it } from 'vitest';
import { rawToValue, representable, valueToRaw } from '../../../../chassis/sensors/linearization.ts';

describe('linearisation y = (M·x + B·10^Bexp)·10^Rexp', () => {
  it('converts both ways and rounds to the nearest count', () => {
    const l = { m: 2, b: 0, bExp: 0, rExp: -2 }; // 0.02 V per count
    expect(rawToValue(165, l)).toBe(3.3);
    expect(valueToRaw(3.3, l)).toBe(165);
    expect(valueToRaw(3.309, l)).toBe(165);
    expect(valueToRaw(3.311, l)).toBe(166);
    const off = { m: 5, b: -10, bExp: 1, rExp: 0 }; // y = 5x - 100
    expect(rawToValue(20, off)).toBe(0);
    expect(valueToRaw(-100, off)).toBe(0);
    expect(valueToRaw(10_000, off)).toBe(255);
    expect(representable(1175, off)).toBe(true);
    expect(representable(1200, off)).toBe(false);
  });
});
