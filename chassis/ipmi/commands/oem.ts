/**
 * atcasim's OEM commands (NetFn 2Eh, IANA 0FFFF0h; layouts in shelf-manager/oem-protocol.ts and
 * docs/clia.md), answered by the logical shelf manager: shelf-manager status and switchover,
 * console paths, fault and sensor injection, the ejector handle, FRU listing, insert/extract.
 * `atcasim clia` uses them for what standard IPMI and PICMG have no command for.
 *
 * Privileges: status, console path and FRU listing need USER; the handle (an operator's action)
 * OPERATOR; switchover, fault and sensor injection, insert/extract ADMINISTRATOR.
 * A refused command answers its completion code plus IANA, the shelf's reason code and message.
 */
import { DecodeError } from '../../../board/common/errors.ts';
import type { FaultKind } from '../../model/events.ts';
import { HOT_SWAP_CAUSE } from '../../model/hot-swap.ts';
import { CompletionCode, IpmiError, NetFn, Privilege } from '../codes.ts';
import type { CommandDef, CommandResult } from '../controller.ts';
import type { IpmiRequest } from '../message.ts';
import { ShelfRefusal, shelfCall } from '../shelf-manager/errors.ts';
import {
  FRU_FLAG,
  OemCmd,
  SHM_FLAG,
  STATUS_CODES,
  encodeFruInfo,
  encodeOemError,
  encodeShmStatus,
  getStr,
  hasOemIana,
  oemReader,
  oemWriter,
  putStr,
} from '../shelf-manager/oem-protocol.ts';
import type { ByteReader } from '../../../board/common/bytes.ts';
import { rawToValue, representable, valueToRaw } from '../../sensors/linearization.ts';
import type { ShelfTarget } from '../shelf-manager/target.ts';

type OemHandler = (r: ByteReader, req: IpmiRequest) => Uint8Array;

/** Wraps an OEM handler: IANA check (C1h for another), decode errors → C7h, refusals → cc + reason. */
function oem(fn: OemHandler): (req: IpmiRequest) => CommandResult {
  return (req) => {
    if (!hasOemIana(req.data)) throw new IpmiError(CompletionCode.InvalidCommand, 'not atcasim\'s IANA');
    try {
      return fn(oemReader(req.data), req);
    } catch (e) {
      if (e instanceof DecodeError) return { cc: CompletionCode.RequestDataLengthInvalid, data: encodeOemError('bad_request', e.message) };
      if (e instanceof ShelfRefusal) return { cc: e.cc, data: encodeOemError(e.code, e.message) };
      if (e instanceof IpmiError) return { cc: e.cc, data: encodeOemError('refused', e.message) };
      throw e;
    }
  };
}

function stateOnly(state: number): Uint8Array {
  const w = oemWriter();
  w.u8(state);
  return new Uint8Array(w.toBuffer());
}

/** The OEM command definitions of the logical shelf manager. */
export function oemCommands(t: ShelfTarget): CommandDef[] {
  const shelf = t.shelf;
  const services = t.services;
  const def = (cmd: number, name: string, privilege: number, fn: OemHandler): CommandDef => ({ netFn: NetFn.OemGroup, cmd, name, privilege, handler: oem(fn) });
  return [
    def(OemCmd.shmStatus, 'atcasim Get Shelf Manager Status', Privilege.User, () => {
      const s = services.shmStatus();
      const site = shelf.fruConfig(s.self).siteNumber;
      const peerCfg = s.peer ? shelf.fruConfig(s.peer) : undefined;
      const peerState = s.peer ? shelf.state(s.peer) : 0;
      const flags = SHM_FLAG.answering | (s.peer && peerState !== 0 ? SHM_FLAG.peerPresent : 0) | (s.peer && peerState === 4 ? SHM_FLAG.peerActive : 0);
      return encodeShmStatus({ role: s.role, peerRole: s.peerRole, epoch: s.epoch, site, peerSite: peerCfg?.siteNumber ?? 0, flags, self: s.self, peer: s.peer ?? '' });
    }),
    def(OemCmd.switchover, 'atcasim Switchover', Privilege.Administrator, () => {
      const r = services.switchover('command');
      const w = oemWriter();
      putStr(w, r.from);
      putStr(w, r.to);
      return new Uint8Array(w.toBuffer());
    }),
    def(OemCmd.consolePath, 'atcasim Get Console Path', Privilege.User, (r) => {
      const fru = shelfCall(() => shelf.resolve(getStr(r, 'fru')));
      const path = services.consolePath(fru);
      if (path === undefined) throw new ShelfRefusal(CompletionCode.NotPresent, 'no_console', `${fru} has no serial console in this run`);
      const w = oemWriter();
      putStr(w, fru);
      putStr(w, path, 200);
      const link = services.consoleLink(fru);
      if (link !== undefined) putStr(w, link, 200);
      return new Uint8Array(w.toBuffer());
    }),
    def(OemCmd.fault, 'atcasim FRU Fault', Privilege.Administrator, (r) => {
      const action = r.u8('action');
      const kindCode = r.u8('kind');
      const fru = shelfCall(() => shelf.resolve(getStr(r, 'fru')));
      const kind: FaultKind | undefined = kindCode === 0 ? 'payload' : kindCode === 1 ? 'comm' : undefined;
      if (action === 1) {
        if (!kind) throw new ShelfRefusal(CompletionCode.InvalidDataField, 'bad_value', `fault kind ${kindCode} (0 payload, 1 comm)`);
        return stateOnly(shelfCall(() => shelf.hotSwap.injectFault(fru, kind)).state);
      }
      if (action !== 0) throw new ShelfRefusal(CompletionCode.InvalidDataField, 'bad_value', `fault action ${action} (1 inject, 0 repair)`);
      if (kindCode !== 0xff && !kind) throw new ShelfRefusal(CompletionCode.InvalidDataField, 'bad_value', `fault kind ${kindCode}`);
      return stateOnly(shelfCall(() => shelf.hotSwap.repair(fru, kind)).state);
    }),
    def(OemCmd.sensorValue, 'atcasim Set Sensor Reading', Privilege.Administrator, (r) => {
      const milli = r.u32le('value') | 0; // signed: the wire carries −2147483.648 … 2147483.647
      const fru = shelfCall(() => shelf.resolve(getStr(r, 'fru')));
      const name = getStr(r, 'sensor');
      const ref = /^\d+$/.test(name) ? Number(name) : name;
      const value = milli / 1000;
      // a reading the sensor's 8-bit conversion cannot represent is refused, never clamped
      const cfg = shelf.fruConfig(fru).sensors.find((s) => (typeof ref === 'number' ? s.number === ref : s.name === ref));
      if (cfg?.kind === 'threshold') {
        const l = cfg.linearization;
        const [lo, hi] = [rawToValue(0, l), rawToValue(255, l)].sort((a, b) => a - b);
        const shown = rawToValue(valueToRaw(value, l), l);
        if (!representable(value, l) || Math.abs(Math.round(shown * 1000)) > 0x7fffffff) {
          throw new ShelfRefusal(CompletionCode.ParameterOutOfRange, 'out_of_range', `${cfg.name}: ${value} is outside the sensor's range ${lo} to ${hi}`);
        }
      }
      const v = shelfCall(() => shelf.sensors.setValue(fru, ref, value));
      const w = oemWriter();
      w.u8(v.raw & 0xff).u8(STATUS_CODES.indexOf(v.status));
      w.u32le(Math.round(v.value * 1000) >>> 0);
      return new Uint8Array(w.toBuffer());
    }),
    def(OemCmd.handle, 'atcasim Hot-Swap Handle', Privilege.Operator, (r) => {
      const op = r.u8('op');
      const fru = shelfCall(() => shelf.resolve(getStr(r, 'fru')));
      if (op === 0) return stateOnly(shelfCall(() => shelf.hotSwap.openHandle(fru)).state);
      if (op === 1) return stateOnly(shelfCall(() => shelf.hotSwap.closeHandle(fru)).state);
      throw new ShelfRefusal(CompletionCode.InvalidDataField, 'bad_value', `handle op ${op} (0 open, 1 close)`);
    }),
    def(OemCmd.insertExtract, 'atcasim Insert/Extract', Privilege.Administrator, (r) => {
      const op = r.u8('op');
      const fru = shelfCall(() => shelf.resolve(getStr(r, 'fru')));
      if (op === 0) return stateOnly(shelfCall(() => shelf.hotSwap.extract(fru)).state);
      if (op === 1) return stateOnly(shelfCall(() => shelf.hotSwap.insert(fru)).state);
      throw new ShelfRefusal(CompletionCode.InvalidDataField, 'bad_value', `insert/extract op ${op} (1 insert, 0 extract)`);
    }),
    def(OemCmd.fruInfo, 'atcasim Get FRU Info', Privilege.User, (r) => {
      const index = r.u8('index');
      const names = shelf.fruNames();
      const name = names[index];
      if (!name) throw new ShelfRefusal(CompletionCode.ParameterOutOfRange, 'out_of_range', `FRU index ${index} (0..${names.length - 1})`);
      const c = shelf.fruConfig(name);
      const snap = shelf.snapshot().frus.find((f) => f.name === name)!;
      const flags =
        (snap.handleClosed ? FRU_FLAG.handleClosed : 0) |
        (snap.activationLocked ? FRU_FLAG.activationLocked : 0) |
        (snap.deactivationLocked ? FRU_FLAG.deactivationLocked : 0) |
        (snap.inService ? FRU_FLAG.inService : 0) |
        (snap.transitioning ? FRU_FLAG.transitioning : 0) |
        (snap.faults.includes('payload') ? FRU_FLAG.payloadFault : 0) |
        (snap.faults.includes('comm') ? FRU_FLAG.commFault : 0);
      return encodeFruInfo({
        next: index + 1 < names.length ? index + 1 : 0xff,
        kind: c.kind,
        slot: c.slot ?? 0,
        physicalSlot: c.physicalSlot ?? 0,
        siteType: c.siteType,
        siteNumber: c.siteNumber,
        hardwareAddress: c.hardwareAddress,
        ipmbAddress: c.ipmbAddress,
        state: snap.state,
        previous: snap.previous,
        cause: HOT_SWAP_CAUSE[snap.lastCause],
        flags,
        powerLevel: snap.powerLevel,
        name,
        label: c.label,
      });
    }),
  ];
}
