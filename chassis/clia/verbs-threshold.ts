/**
 * clia verbs for sensor thresholds (Pigeon Point `getthreshold` / `threshold` and `setthreshold`):
 * Get / Set Sensor Thresholds (IPMI v2.0 §35.8–§35.9) at the sensor's controller (bridged unless
 * it is the shelf manager), the sensor found in the SDR repository by FRU and name or number.
 *
 *   getthreshold FRU SENSOR
 *   setthreshold FRU SENSOR unr|uc|unc|lnr|lc|lnc [-r] VALUE      (-r: VALUE is the raw byte)
 *
 * Values are engineering units through the SDR's linearisation (§36.3); a value the 8-bit reading
 * cannot represent is refused before anything is sent (exit 2). A threshold the sensor does not
 * have, or a discrete sensor, is refused by the controller (exit 1).
 */
import type { FullSensorRecord, SdrRecord } from '../sensors/sdr.ts';
import { rawToValue, representable, valueToRaw } from '../sensors/linearization.ts';
import { BMC_ADDRESS } from './client.ts';
import { RefusedError, type ShelfApi } from './shelf-api.ts';
import { UNIT_BY_CODE, UsageError, hex2, oneFru, type Verb } from './verb-kit.ts';

/** Threshold names in Get/Set Sensor Thresholds order (mask bits 0..5). */
export const THRESHOLDS = ['lnc', 'lc', 'lnr', 'unc', 'uc', 'unr'] as const;
const THRESHOLD_TEXT: Record<(typeof THRESHOLDS)[number], string> = {
  lnc: 'Lower Non-Critical',
  lc: 'Lower Critical',
  lnr: 'Lower Non-Recoverable',
  unc: 'Upper Non-Critical',
  uc: 'Upper Critical',
  unr: 'Upper Non-Recoverable',
};

/** The threshold sensor `words` name at the FRU, with the address its controller answers. */
async function findSensor(api: ShelfApi, args: string[], verb: string, keep: number): Promise<{ fru: string; owner: number; rec: FullSensorRecord; rest: string[] }> {
  const { fru, rest } = await oneFru(api, args);
  const words = rest.slice(0, rest.length - keep);
  if (!words.length) throw new UsageError(`${verb}: a sensor name or number is required`);
  const want = words.join(' ');
  const status = await api.shmStatus();
  const owners = fru.name === status.self ? [BMC_ADDRESS, fru.ipmbAddress] : [fru.ipmbAddress];
  const byNumber = /^\d+$/.test(want) ? Number(want) : undefined;
  const sdr: SdrRecord[] = await api.sdr();
  const rec = sdr.find((s) => (s.type === 'full' || s.type === 'compact') && owners.includes(s.ownerId) && (byNumber !== undefined ? s.sensorNumber === byNumber : s.idString === want));
  if (!rec) throw new RefusedError(0xcb, 'no_such_sensor', `${fru.name} has no sensor "${want}"`);
  if (rec.type !== 'full') throw new RefusedError(0xcd, 'not_threshold', `${fru.name} "${rec.idString}" is a discrete sensor: it has no thresholds`);
  return { fru: fru.name, owner: rec.ownerId, rec, rest: rest.slice(rest.length - keep) };
}

const unitOf = (rec: FullSensorRecord) => {
  const u = UNIT_BY_CODE.get(rec.unitCode) ?? 'unspecified';
  return u === 'unspecified' ? '' : ` ${u}`;
};

/** The verbs of this file. */
export const THRESHOLD_VERBS: Readonly<Record<string, Verb>> = {
  getthreshold: {
    usage: 'getthreshold FRU SENSOR',
    summary: 'a threshold sensor\'s thresholds (Get Sensor Thresholds at its controller)',
    run: async (api, args) => {
      const { fru, owner, rec } = await findSensor(api, args, 'getthreshold', 0);
      const t = await api.thresholds(owner, rec.sensorNumber);
      let text = `${owner.toString(16)}: LUN: 0, Sensor # ${rec.sensorNumber} ("${rec.idString}")\n    Type: Threshold (0x01)\n`;
      const json: Record<string, unknown> = { fru, owner, number: rec.sensorNumber, name: rec.idString, unit: (UNIT_BY_CODE.get(rec.unitCode) ?? 'unspecified') };
      const th: Record<string, { raw: number; value: number } | null> = {};
      // listed upper first, as Pigeon Point and ipmitool do
      for (const i of [5, 4, 3, 0, 1, 2]) {
        const n = THRESHOLDS[i]!;
        if (!(t.mask & (1 << i))) {
          text += `    ${THRESHOLD_TEXT[n]} Threshold: not readable\n`;
          th[n] = null;
          continue;
        }
        const value = rawToValue(t.raw[i]!, rec.linearization);
        text += `    ${THRESHOLD_TEXT[n]} Threshold, Raw Data: ${hex2(t.raw[i]!)}, Processed Data: ${value}${unitOf(rec)}\n`;
        th[n] = { raw: t.raw[i]!, value };
      }
      return { text, json: { ...json, thresholds: th } };
    },
  },
  setthreshold: {
    usage: 'setthreshold FRU SENSOR unr|uc|unc|lnr|lc|lnc [-r] VALUE',
    summary: 'set one threshold (engineering units; -r: the raw byte) with Set Sensor Thresholds',
    run: async (api, args) => {
      const raw = args.includes('-r');
      const a = args.filter((x) => x !== '-r');
      if (a.length < 4) throw new UsageError('setthreshold FRU SENSOR unr|uc|unc|lnr|lc|lnc [-r] VALUE');
      const name = a[a.length - 2]!.toLowerCase() as (typeof THRESHOLDS)[number];
      const index = THRESHOLDS.indexOf(name);
      if (index < 0) throw new UsageError(`setthreshold: "${a[a.length - 2]}" is not one of ${[...THRESHOLDS].reverse().join(', ')}`);
      const text = a[a.length - 1]!;
      const v = Number(text);
      if (text.trim() === '' || !Number.isFinite(v) || (raw && (!Number.isInteger(v) || v < 0 || v > 255))) {
        throw new UsageError(`setthreshold: "${text}" is not ${raw ? 'a raw byte 0..255' : 'a number in engineering units'}`);
      }
      const { fru, owner, rec } = await findSensor(api, a, 'setthreshold', 2);
      const l = rec.linearization;
      if (!raw && !representable(v, l)) {
        const ends = [rawToValue(0, l), rawToValue(255, l)].sort((x, y) => x - y);
        throw new UsageError(`setthreshold: ${text} is outside the range of ${fru} "${rec.idString}": ${ends[0]} to ${ends[1]}${unitOf(rec)} (8-bit reading)`);
      }
      const readable = await api.thresholds(owner, rec.sensorNumber);
      if (!(readable.mask & (1 << index))) throw new RefusedError(0xcc, 'not_settable', `${fru} "${rec.idString}" has no ${THRESHOLD_TEXT[name]} threshold (getthreshold lists those it has)`);
      const rawByte = raw ? v : valueToRaw(v, l);
      const bytes = [0, 0, 0, 0, 0, 0];
      bytes[index] = rawByte;
      await api.setThresholds(owner, rec.sensorNumber, 1 << index, bytes);
      const value = rawToValue(rawByte, l);
      return {
        text: `${fru} "${rec.idString}": ${THRESHOLD_TEXT[name]} Threshold set to ${value}${unitOf(rec)} (raw ${hex2(rawByte)})\n`,
        json: { fru, owner, number: rec.sensorNumber, name: rec.idString, threshold: name, raw: rawByte, value },
      };
    },
  },
};
