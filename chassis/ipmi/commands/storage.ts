/**
 * Storage NetFn (0Ah) commands against the Shelf (IPMI v2.0 §31–§34):
 * - FRU inventory (every controller, for its FRU devices): Get FRU Inventory Area Info, Read FRU
 *   Data, Write FRU Data (persisted before the answer — a write ipmitool reported survives kill -9);
 * - SDR repository (logical shelf manager): Get SDR Repository Info, Reserve SDR Repository, Get
 *   SDR (record by ID with offset/count, as ipmitool reads it: header, then the body in chunks),
 *   Get SDR Repository Time;
 * - SEL (logical shelf manager): Get SEL Info, Reserve SEL, Get SEL Entry, Add SEL Entry, Delete
 *   SEL Entry, Clear SEL (with reservation and erasure progress), Get/Set SEL Time.
 * Timestamps are the shelf's SEL clock (Unix seconds, settable; FFFFFFFFh = none yet).
 */
import { decodeSelRecord, SEL_RECORD_BYTES } from '../../sensors/sel.ts';
import { CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import { MAX_RESPONSE_DATA } from '../dispatcher.ts';
import { shelfCall } from '../shelf-manager/errors.ts';
import type { ShelfTarget } from '../shelf-manager/target.ts';

function u16(d: Uint8Array, p: number): number {
  return d[p]! | (d[p + 1]! << 8);
}

function le32(v: number): number[] {
  const x = v >>> 0;
  return [x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff];
}

/** Largest Read FRU Data count answered in one response (count byte + data within 245 bytes). */
export const MAX_FRU_READ = MAX_RESPONSE_DATA - 1;

/** FRU inventory commands (every controller). */
export function fruCommands(t: ShelfTarget): CommandDef[] {
  return [
    {
      netFn: NetFn.Storage,
      cmd: 0x10,
      name: 'Get FRU Inventory Area Info',
      handler: (req) => {
        expectLength(req.data, 1);
        const fru = t.fruById(req.data[0]!);
        const info = shelfCall(() => t.shelf.fruData.info(fru));
        return Uint8Array.of(info.size & 0xff, (info.size >> 8) & 0xff, 0x00); // accessed by bytes
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x11,
      name: 'Read FRU Data',
      handler: (req) => {
        expectLength(req.data, 4);
        const fru = t.fruById(req.data[0]!);
        const offset = u16(req.data, 1);
        const count = Math.min(req.data[3]!, MAX_FRU_READ);
        const data = shelfCall(() => t.shelf.fruData.read(fru, offset, count));
        const out = new Uint8Array(1 + data.length);
        out[0] = data.length;
        out.set(data, 1);
        return out;
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x12,
      name: 'Write FRU Data',
      handler: (req) => {
        if (req.data.length < 4) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'Write FRU Data needs FRU, offset and data');
        const fru = t.fruById(req.data[0]!);
        const offset = u16(req.data, 1);
        const n = shelfCall(() => t.shelf.fruData.write(fru, offset, req.data.slice(3)));
        return Uint8Array.of(n & 0xff);
      },
    },
  ];
}

/** SDR repository commands (logical shelf manager). */
export function sdrRepositoryCommands(t: ShelfTarget): CommandDef[] {
  return [
    {
      netFn: NetFn.Storage,
      cmd: 0x20,
      name: 'Get SDR Repository Info',
      handler: (req) => {
        expectLength(req.data, 0);
        const i = t.shelf.sdr.info();
        return Uint8Array.of(
          i.version,
          i.recordCount & 0xff,
          (i.recordCount >> 8) & 0xff,
          i.freeBytes & 0xff,
          (i.freeBytes >> 8) & 0xff,
          ...le32(i.lastAddTime),
          ...le32(i.lastEraseTime),
          i.operationSupport & 0xff,
        );
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x22,
      name: 'Reserve SDR Repository',
      handler: (req) => {
        expectLength(req.data, 0);
        const r = t.shelf.sdr.reserve();
        return Uint8Array.of(r & 0xff, r >> 8);
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x23,
      name: 'Get SDR',
      handler: (req) => {
        expectLength(req.data, 6);
        const r = shelfCall(() => t.shelf.sdr.get(u16(req.data, 2), req.data[4]!, req.data[5]!, u16(req.data, 0)));
        if (r.data.length + 2 > MAX_RESPONSE_DATA) throw new IpmiError(CompletionCode.CannotReturnRequestedBytes, 'record part too long for one response');
        const out = new Uint8Array(2 + r.data.length);
        out[0] = r.next & 0xff;
        out[1] = r.next >> 8;
        out.set(r.data, 2);
        return out;
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x28,
      name: 'Get SDR Repository Time',
      handler: (req) => {
        expectLength(req.data, 0);
        return Uint8Array.from(le32(t.shelf.sel.time()));
      },
    },
  ];
}

/** SEL commands (logical shelf manager). */
export function selCommands(t: ShelfTarget): CommandDef[] {
  return [
    {
      netFn: NetFn.Storage,
      cmd: 0x40,
      name: 'Get SEL Info',
      handler: (req) => {
        expectLength(req.data, 0);
        const i = t.shelf.sel.info();
        return Uint8Array.of(
          i.version,
          i.entries & 0xff,
          (i.entries >> 8) & 0xff,
          i.freeBytes & 0xff,
          (i.freeBytes >> 8) & 0xff,
          ...le32(i.lastAddTime),
          ...le32(i.lastEraseTime),
          (i.overflow ? 0x80 : 0) | (i.operationSupport & 0x0f),
        );
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x42,
      name: 'Reserve SEL',
      handler: (req) => {
        expectLength(req.data, 0);
        const r = t.shelf.sel.reserve();
        return Uint8Array.of(r & 0xff, r >> 8);
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x43,
      name: 'Get SEL Entry',
      handler: (req) => {
        expectLength(req.data, 6);
        const offset = req.data[4]!;
        const count = req.data[5]!;
        if (offset >= SEL_RECORD_BYTES) throw new IpmiError(CompletionCode.ParameterOutOfRange, `offset ${offset} beyond the 16-byte record`);
        const e = shelfCall(() => t.shelf.sel.entry(u16(req.data, 2)));
        const n = count === 0xff ? SEL_RECORD_BYTES - offset : Math.min(count, SEL_RECORD_BYTES - offset);
        const out = new Uint8Array(2 + n);
        out[0] = e.next & 0xff;
        out[1] = e.next >> 8;
        out.set(e.bytes.subarray(offset, offset + n), 2);
        return out;
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x44,
      name: 'Add SEL Entry',
      handler: (req) => {
        expectLength(req.data, SEL_RECORD_BYTES);
        let rec;
        try {
          rec = decodeSelRecord(req.data);
        } catch (e) {
          throw new IpmiError(CompletionCode.InvalidDataField, String(e));
        }
        const added = shelfCall(() => t.shelf.sel.add(rec));
        return Uint8Array.of(added.recordId & 0xff, added.recordId >> 8);
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x46,
      name: 'Delete SEL Entry',
      handler: (req) => {
        expectLength(req.data, 4);
        const id = shelfCall(() => t.shelf.sel.delete(u16(req.data, 2), u16(req.data, 0)));
        return Uint8Array.of(id & 0xff, id >> 8);
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x47,
      name: 'Clear SEL',
      handler: (req) => {
        expectLength(req.data, 6);
        if (req.data[2] !== 0x43 || req.data[3] !== 0x4c || req.data[4] !== 0x52) throw new IpmiError(CompletionCode.InvalidDataField, "Clear SEL needs 'CLR'");
        const op = req.data[5]!;
        const resv = u16(req.data, 0);
        if (op === 0xaa) shelfCall(() => t.shelf.sel.clear(resv));
        else if (op !== 0x00) throw new IpmiError(CompletionCode.InvalidDataField, `Clear SEL operation ${op}`);
        return Uint8Array.of(0x01); // erasure completed (the SEL is erased at once)
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x48,
      name: 'Get SEL Time',
      handler: (req) => {
        expectLength(req.data, 0);
        return Uint8Array.from(le32(t.shelf.sel.time()));
      },
    },
    {
      netFn: NetFn.Storage,
      cmd: 0x49,
      name: 'Set SEL Time',
      handler: (req) => {
        expectLength(req.data, 4);
        const s = (req.data[0]! | (req.data[1]! << 8) | (req.data[2]! << 16) | (req.data[3]! << 24)) >>> 0;
        shelfCall(() => t.shelf.sel.setTime(s));
      },
    },
  ];
}
