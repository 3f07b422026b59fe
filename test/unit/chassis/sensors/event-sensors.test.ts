import { describe, expect, it } from 'vitest';
import { eventSensor, eventSensorName, eventSensors } from '../../../../chassis/sensors/event-sensors.ts';

const owner = (kind: string, ...numbers: number[]) => ({ kind, sensors: numbers.map((number) => ({ number })) });

describe('event-only sensors of a controller', () => {
  it('ShMCs and processor boards: watchdog FEh, HA role FDh, health FCh; other kinds health only', () => {
    expect(eventSensors(owner('shmc', 1, 2)).map((s) => [s.key, s.number, s.sensorType, s.readingType])).toEqual([
      ['watchdog', 0xfe, 0x23, 0x6f],
      ['ha-role', 0xfd, 0x28, 0x0a],
      ['health', 0xfc, 0x15, 0x07],
    ]);
    expect(eventSensor(owner('processor', 1, 2, 3, 4), 'ha-role')).toMatchObject({ number: 0xfd, sensorType: 0x15, readingType: 0x0a });
    for (const kind of ['hub', 'fan', 'pem']) expect(eventSensors(owner(kind, 1, 2)).map((s) => s.key)).toEqual(['health']);
    expect(eventSensor(owner('fan', 1), 'watchdog')).toBeUndefined();
  });

  it('a number the configuration uses is skipped: the next lower free one is taken', () => {
    expect(eventSensors(owner('processor', 0xfe, 0xfc, 0xfb)).map((s) => s.number)).toEqual([0xfd, 0xfa, 0xf9]);
    const all = Array.from({ length: 254 }, (_, i) => i + 1);
    expect(() => eventSensors(owner('pem', ...all))).toThrow(/no free sensor number for the health sensor/);
  });

  it('names fit the 16-byte ID string: the label is shortened, never the suffix', () => {
    const [wd] = eventSensors(owner('shmc'));
    expect(eventSensorName('ShMC-A', wd!)).toBe('ShMC-A Watchdog');
    expect(eventSensorName('A very long label', wd!)).toBe('A very Watchdog');
    expect(eventSensorName('A very long label', wd!).length).toBeLessThanOrEqual(16);
  });
});
