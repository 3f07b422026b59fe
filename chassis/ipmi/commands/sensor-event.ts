/**
 * Sensor/Event NetFn (04h) commands against the Shelf (IPMI v2.0 §29, §35): Get Sensor Reading,
 * Get/Set Sensor Thresholds, Get Sensor Hysteresis, Get Sensor Event Enable — at every
 * controller, for its own sensors (at 20h: the active ShMC's) — and, at the logical shelf manager
 * (the event receiver), Platform Event; at the board IPMCs, the device SDR commands (Get Device SDR
 * Info, Reserve Device SDR Repository, Get Device SDR, §35.2–§35.4) that FreeIPMI's bridged sensor
 * reads may use.
 *
 * Readings (§35.14): byte 1 reading (raw; the Hot Swap sensor reports its M-state number as ipmi_sim
 * did), byte 2 b7 event messages enabled, b6 scanning enabled, b5 reading unavailable (M0/M7: "ns"),
 * bytes 3–4 threshold comparison status / discrete state bits (Hot Swap: bit M).
 * Get Sensor Event Status (2Bh) is not implemented (C1h): ipmitool `sensor get` ignores its failure
 * and prints the reference layout only without it.
 */
import type { ThresholdSensorConfig } from '../../config/types.ts';
import { controllerRecords, fullSensorRecord, hotSwapSensorRecord } from '../../model/sdr-build.ts';
import { encodeSdr, SDR_LAST } from '../../sensors/sdr.ts';
import { rawToValue } from '../../sensors/linearization.ts';
import type { ThresholdName } from '../../sensors/thresholds.ts';
import { CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import { shelfCall } from '../shelf-manager/errors.ts';
import type { ShelfTarget } from '../shelf-manager/target.ts';

/** Threshold order of Get/Set Sensor Thresholds bytes 2..7 (and mask bits 0..5). */
const THRESHOLD_ORDER: readonly ThresholdName[] = ['lnc', 'lc', 'lnr', 'unc', 'uc', 'unr'];

function sensorConfig(t: ShelfTarget, number: number) {
  const cfg = t.shelf.fruConfig(t.fru).sensors.find((s) => s.number === number);
  if (!cfg) throw new IpmiError(CompletionCode.NotPresent, `${t.fru} has no sensor ${number}`);
  return cfg;
}

function view(t: ShelfTarget, number: number) {
  sensorConfig(t, number);
  return shelfCall(() => t.shelf.sensors.get(t.fru, number));
}

/** Get Sensor Reading response (4 bytes). */
export function sensorReadingData(t: ShelfTarget, number: number): Uint8Array {
  const v = view(t, number);
  const flags = 0xc0 | (v.available ? 0 : 0x20);
  if (v.kind === 'hotswap') return Uint8Array.of(v.available ? v.raw & 0xff : 0, flags, v.states & 0xff, (v.states >> 8) & 0x7f);
  return Uint8Array.of(v.available ? v.raw & 0xff : 0, flags, v.available ? v.states & 0x3f : 0, 0x00);
}

/** Get Device SDR records of a controller (its MC locator, then its sensors), record IDs 1..n. */
export function deviceSdrRecords(t: ShelfTarget): Uint8Array[] {
  const cfg = t.shelf.fruConfig(t.fru);
  return controllerRecords(cfg, t.address, cfg.label, false).map((r, i) => encodeSdr({ ...r, recordId: i + 1 }));
}

/** Sensor commands every controller answers for its own sensors. */
export function sensorCommands(t: ShelfTarget): CommandDef[] {
  return [
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x2d,
      name: 'Get Sensor Reading',
      handler: (req) => {
        expectLength(req.data, 1);
        return sensorReadingData(t, req.data[0]!);
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x27,
      name: 'Get Sensor Thresholds',
      handler: (req) => {
        expectLength(req.data, 1);
        const v = view(t, req.data[0]!);
        if (v.kind !== 'threshold') throw new IpmiError(CompletionCode.IllegalForSensorOrRecord, `${v.name} has no thresholds`);
        const out = new Uint8Array(7);
        out[0] = v.thresholdMask! & 0x3f;
        THRESHOLD_ORDER.forEach((n, i) => (out[1 + i] = v.rawThresholds![n] ?? 0));
        return out;
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x26,
      name: 'Set Sensor Thresholds',
      handler: (req) => {
        expectLength(req.data, 8);
        const number = req.data[0]!;
        const cfg = sensorConfig(t, number);
        if (cfg.kind !== 'threshold') throw new IpmiError(CompletionCode.IllegalForSensorOrRecord, `${cfg.name} has no thresholds`);
        const mask = req.data[1]!;
        if (mask & 0xc0) throw new IpmiError(CompletionCode.InvalidDataField, 'reserved bits in the threshold mask');
        const current = t.shelf.sensors.get(t.fru, number);
        const changes: Partial<Record<ThresholdName, number>> = {};
        THRESHOLD_ORDER.forEach((n, i) => {
          if (!(mask & (1 << i))) return;
          if (current.rawThresholds![n] === undefined) throw new IpmiError(CompletionCode.InvalidDataField, `${cfg.name}: threshold ${n} is not settable`);
          changes[n] = rawToValue(req.data[2 + i]!, (cfg as ThresholdSensorConfig).linearization);
        });
        shelfCall(() => t.shelf.sensors.setThresholds(t.fru, number, changes));
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x25,
      name: 'Get Sensor Hysteresis',
      handler: (req) => {
        expectLength(req.data, 2);
        const v = view(t, req.data[0]!);
        if (v.kind !== 'threshold') throw new IpmiError(CompletionCode.IllegalForSensorOrRecord, `${v.name} has no hysteresis`);
        return Uint8Array.of(v.hysteresis!.positive & 0xff, v.hysteresis!.negative & 0xff);
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x29,
      name: 'Get Sensor Event Enable',
      handler: (req) => {
        expectLength(req.data, 1);
        const cfg = sensorConfig(t, req.data[0]!);
        const rec = cfg.kind === 'threshold' ? fullSensorRecord(cfg, t.address, 0, 0) : hotSwapSensorRecord(cfg, t.address, 0, 0);
        const a = rec.assertionMask & 0x7fff;
        const d = rec.deassertionMask & 0x7fff;
        const used = cfg.kind === 'threshold' ? 0x0fff : 0x7fff;
        return Uint8Array.of(0xc0, a & used & 0xff, ((a & used) >> 8) & 0xff, d & used & 0xff, ((d & used) >> 8) & 0xff);
      },
    },
  ];
}

/** Device SDR commands of an IPM controller (not the logical shelf manager, which has the repository). */
export function deviceSdrCommands(t: ShelfTarget): CommandDef[] {
  let reservation = 0;
  return [
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x20,
      name: 'Get Device SDR Info',
      handler: (req) => {
        expectLength(req.data, 0, 1);
        const all = req.data.length === 1 && (req.data[0]! & 0x01) !== 0;
        const recs = deviceSdrRecords(t);
        return Uint8Array.of(all ? recs.length : recs.length - 1, 0x01); // static population, LUN 0 has sensors
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x22,
      name: 'Reserve Device SDR Repository',
      handler: (req) => {
        expectLength(req.data, 0);
        reservation = (reservation % 0xffff) + 1;
        return Uint8Array.of(reservation & 0xff, reservation >> 8);
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x21,
      name: 'Get Device SDR',
      handler: (req) => {
        expectLength(req.data, 6);
        const resv = req.data[0]! | (req.data[1]! << 8);
        const id = req.data[2]! | (req.data[3]! << 8);
        const offset = req.data[4]!;
        const count = req.data[5]!;
        if (offset > 0 && resv !== reservation) throw new IpmiError(CompletionCode.ReservationCanceled, 'device SDR reservation not current');
        const recs = deviceSdrRecords(t);
        const idx = id === 0 ? 0 : id - 1;
        const rec = recs[idx];
        if (!rec) throw new IpmiError(CompletionCode.NotPresent, `no device SDR ${id}`);
        if (offset >= rec.length) throw new IpmiError(CompletionCode.ParameterOutOfRange, `offset ${offset} beyond the record`);
        const n = count === 0xff ? rec.length - offset : Math.min(count, rec.length - offset);
        const next = idx + 1 < recs.length ? idx + 2 : SDR_LAST;
        const out = new Uint8Array(2 + n);
        out[0] = next & 0xff;
        out[1] = next >> 8;
        out.set(rec.subarray(offset, offset + n), 2);
        return out;
      },
    },
  ];
}

/**
 * Set/Get Event Receiver (IPMI v2.0 §29.1, §29.2) at every controller: where its event messages go
 * (the shelf model's `eventReceivers`; at 20h the active ShMC's setting). Request of Set: byte 1
 * the receiver's slave address (FFh disables event messages), byte 2 b1:0 its LUN (b7:2 reserved).
 * The shelf has one event receiver, the shelf manager at 20h LUN 0: any other address (odd, another
 * controller's, no controller's), another LUN or reserved bits set → CCh (invalid data field),
 * nothing changed. OpenHPI's ipmidirect sends Set Event Receiver 20h to every controller it finds
 * and gives up on the controller when it fails.
 */
export function eventReceiverConfigCommands(t: ShelfTarget): CommandDef[] {
  return [
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x00,
      name: 'Set Event Receiver',
      handler: (req) => {
        expectLength(req.data, 2);
        if (req.data[1]! & 0xfc) throw new IpmiError(CompletionCode.InvalidDataField, 'reserved bits 7:2 of the LUN byte are set');
        shelfCall(() => t.shelf.eventReceivers.set(t.fru, req.data[0]!, req.data[1]! & 0x03));
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x01,
      name: 'Get Event Receiver',
      handler: (req) => {
        expectLength(req.data, 0);
        const r = shelfCall(() => t.shelf.eventReceivers.get(t.fru));
        return Uint8Array.of(r.address, r.lun & 0x03);
      },
    },
  ];
}

/** Event receiver commands of the logical shelf manager: Platform Event (§29.3) logs a SEL record. */
export function eventReceiverCommands(t: ShelfTarget): CommandDef[] {
  return [
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x02,
      name: 'Platform Event',
      handler: (req, ctx) => {
        expectLength(req.data, 7, 8);
        // 7 bytes from IPMB/LAN (the generator is the requester), 8 from a system interface
        const d = req.data.length === 8 ? req.data.subarray(1) : req.data;
        const generatorId = req.data.length === 8 ? req.data[0]! : (req.rqSA & 0xff) | ((req.rqLUN & 3) << 8) | ((ctx.channel & 0x0f) << 12);
        const evmRev = d[0]!;
        if (evmRev !== 0x04 && evmRev !== 0x03) throw new IpmiError(CompletionCode.InvalidDataField, `event message revision ${evmRev}`);
        shelfCall(() =>
          t.shelf.sel.log({ generatorId, sensorType: d[1]!, sensorNumber: d[2]!, eventDirType: d[3]!, eventData: [d[4]!, d[5]!, d[6]!] }),
        );
      },
    },
  ];
}
