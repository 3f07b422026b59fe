// Threshold sensors (IPMI v2.0 §36; chassis/sensors/sensor.ts): assertion at the threshold (≥ upper,
// ≤ lower), deassertion only past the hysteresis, event data (§29.7) and the Get Sensor Reading comparison bits.
import { describe, expect, it } from 'vitest';
import { ThresholdSensor, type ThresholdSensorDef } from '../../../../chassis/sensors/sensor.ts';

const def = (over: Partial<ThresholdSensorDef> = {}): ThresholdSensorDef => ({
  number: 1,
  name: 'Node3 Temp',
  sensorType: 0x01,
  unitCode: 1,
  linearization: { m: 1, b: 0, bExp: 0, rExp: 0 },
  thresholds: { unc: 70, uc: 80, unr: 90 },
  hysteresis: { positive: 2, negative: 2 },
  nominal: 48,
  ...over,
});

describe('ThresholdSensor', () => {
  it('starts at the nominal reading without events and reports the raw value', () => {
    const s = new ThresholdSensor(def());
    expect(s.raw).toBe(48);
    expect(s.value).toBe(48);
    expect(s.assertedThresholds.size).toBe(0);
    expect(s.thresholdMask).toBe(0b111000);
  });

  it('asserts upper thresholds at ≥, with event data 1 = 50h | offset, 2 = reading, 3 = threshold', () => {
    const s = new ThresholdSensor(def());
    expect(s.setValue(69)).toEqual([]);
    const evs = s.setValue(80);
    expect(evs.map((e) => [e.threshold, e.asserted, e.eventData, e.eventDirType])).toEqual([
      ['unc', true, [0x57, 80, 70], 0x01],
      ['uc', true, [0x59, 80, 80], 0x01],
    ]);
    expect(s.comparisonStatus()).toBe(0b011000);
    expect(s.setValue(95).map((e) => e.threshold)).toEqual(['unr']);
  });

  it('deasserts only below threshold − hysteresis, with the deassertion bit set', () => {
    const s = new ThresholdSensor(def());
    s.setValue(82);
    expect(s.setValue(79)).toEqual([]); // below UC but within 2 counts of hysteresis
    expect(s.setValue(78)).toEqual([]); // 78 = 80 − 2: still asserted (must drop below)
    const evs = s.setValue(77);
    expect(evs.map((e) => [e.threshold, e.asserted, e.eventDirType])).toEqual([['uc', false, 0x81]]);
    expect(s.setValue(67).map((e) => e.threshold)).toEqual(['unc']);
    expect(s.assertedThresholds.size).toBe(0);
  });

  it('lower thresholds assert at ≤ and deassert above threshold + positive hysteresis', () => {
    const s = new ThresholdSensor(def({ name: 'Fan1 Speed', thresholds: { lc: 30, lnc: 50 }, hysteresis: { positive: 2, negative: 0 }, nominal: 120 }));
    expect(s.setValue(50).map((e) => [e.threshold, e.offset])).toEqual([['lnc', 0x00]]);
    expect(s.setValue(30).map((e) => [e.threshold, e.offset])).toEqual([['lc', 0x02]]);
    expect(s.comparisonStatus()).toBe(0b000011);
    expect(s.setValue(32)).toEqual([]);
    expect(s.setValue(33).map((e) => [e.threshold, e.asserted])).toEqual([['lc', false]]);
    expect(s.setValue(53).map((e) => [e.threshold, e.asserted])).toEqual([['lnc', false]]);
  });

  it('new thresholds re-evaluate the current reading; null removes a threshold', () => {
    const s = new ThresholdSensor(def());
    s.setValue(60);
    const evs = s.setThresholds({ unc: 55 });
    expect(evs.map((e) => [e.threshold, e.asserted])).toEqual([['unc', true]]);
    expect(s.thresholds).toEqual({ unc: 55, uc: 80, unr: 90 });
    s.setThresholds({ unc: null });
    expect(s.thresholds).toEqual({ uc: 80, unr: 90 });
    expect(s.assertedThresholds.has('unc')).toBe(false);
    expect(() => s.setThresholds({ uc: 300 })).toThrow(/outside the sensor's range/);
    expect(s.thresholds).toEqual({ uc: 80, unr: 90 }); // unchanged after a refused change
  });

  it('refuses thresholds out of order — the ones set merged with the ones kept — and changes nothing', () => {
    const s = new ThresholdSensor(def());
    s.setValue(80);
    // ipmitool sensor thresh … upper 95 85 75: every upper threshold set, inverted
    expect(() => s.setThresholds({ unc: 95, uc: 85, unr: 75 })).toThrow(new RangeError('sensor Node3 Temp: threshold uc (85) must not be below unc (95)'));
    // one threshold set past a kept one
    expect(() => s.setThresholds({ unc: 85 })).toThrow(/threshold uc \(80\) must not be below unc \(85\)/);
    expect(() => s.setThresholds({ unr: 79 })).toThrow(/threshold unr \(79\) must not be below uc \(80\)/);
    expect(s.thresholds).toEqual({ unc: 70, uc: 80, unr: 90 });
    expect([...s.assertedThresholds].sort()).toEqual(['uc', 'unc']);
    // equal thresholds are in order; a removed threshold leaves a gap the rule skips
    expect(s.setThresholds({ unc: 80, uc: 80 }).map((e) => e.threshold)).toEqual([]);
    s.setThresholds({ uc: null, unc: 85 });
    expect(s.thresholds).toEqual({ unc: 85, unr: 90 });
    expect(() => s.setThresholds({ lnc: 86 })).toThrow(/threshold unc \(85\) must not be below lnc \(86\)/);
    expect(() => new ThresholdSensor(def({ thresholds: { lc: 20, lnr: 30 } }))).toThrow(/threshold lc \(20\) must not be below lnr \(30\)/);
  });

  it('orders thresholds by raw reading: with a negative M the engineering values run the other way', () => {
    const l = { m: -1, b: 255, bExp: 0, rExp: 0 }; // y = 255 - x
    const s = new ThresholdSensor(def({ linearization: l, thresholds: { unc: 30, uc: 20, unr: 10 }, nominal: 200 }));
    expect(s.rawThresholds).toEqual({ unc: 225, uc: 235, unr: 245 });
    expect(() => s.setThresholds({ uc: 40 })).toThrow(/threshold uc \(40\) must not be above unc \(30\): M is negative/);
    expect(s.thresholds).toEqual({ unc: 30, uc: 20, unr: 10 });
    expect(() => new ThresholdSensor(def({ linearization: l, thresholds: { unc: 70, uc: 80 }, nominal: 200 }))).toThrow(/must not be above/);
  });

  it('clamps readings to the 8-bit range and refuses non-numbers', () => {
    const s = new ThresholdSensor(def());
    s.setValue(1000);
    expect(s.raw).toBe(255);
    expect(() => s.setValue(Number.NaN)).toThrow(RangeError);
    expect(() => s.setRaw(256)).toThrow(RangeError);
  });
});
