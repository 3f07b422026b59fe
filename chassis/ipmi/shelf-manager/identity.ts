/**
 * Identity of the shelf's management controllers as Get Device ID (IPMI v2.0 §20.1), Get Device
 * GUID (§20.8) and Get System GUID (§22.14) report it, built from the shelf configuration
 * (`device` keys of each FRU, docs/shelf.md):
 *
 * - the logical shelf manager (20h): the active ShMC's identity, device support BFh (chassis,
 *   IPMB event generator and receiver, FRU inventory, SEL, SDR repository, sensors — what the
 *   reference ShMC reports), "provides device SDRs" off (it has the SDR repository);
 * - every other IPM controller (boards, fan trays, PEMs, and the ShMCs at their own addresses):
 *   device support 29h (sensor device, FRU inventory, IPMB event generator) and device SDRs.
 *
 * GUIDs are RFC 4122 version 1 GUIDs in IPMI byte order (guid.ts), deterministic per shelf: the
 * timestamp is the FRU's manufacturing date (a plausible past time), the clock sequence and the
 * node ID a hash of the shelf serial and the FRU name (multicast bit set: not a real MAC, RFC 4122
 * §4.5). The system GUID is the shelf's (the same whichever ShMC is active). Get Device GUID
 * (06h/08h) is left unimplemented (C1h), as on the reference shelf, so FreeIPMI `bmc-info` prints
 * the same fields.
 */
import type { FruConfig, ShelfConfig } from '../../config/types.ts';
import { FRU_EPOCH_MS } from '../../sensors/fru.ts';
import type { ControllerInfo } from '../controller.ts';
import { ipmiGuidV1 } from '../guid.ts';

/** Device support of the logical shelf manager (ipmitool `mc info` "Additional Device Support"). */
export const SHELF_MANAGER_DEVICE_SUPPORT = 0xbf;
/** Device support of an IPM controller: sensor device, FRU inventory, IPMB event generator. */
export const IPMC_DEVICE_SUPPORT = 0x29;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(text, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A deterministic v1 GUID (IPMI byte order) for `key` within `shelf`, stamped `timeMs`. */
export function shelfGuid(shelf: ShelfConfig, key: string, timeMs: number): Uint8Array {
  const a = fnv1a(`${shelf.chassisFru.serial}/${key}`);
  const b = fnv1a(`${key}/${shelf.name}`);
  const node = Uint8Array.of(0x03 | ((a >>> 24) & 0xfc), (a >>> 16) & 0xff, (a >>> 8) & 0xff, a & 0xff, (b >>> 8) & 0xff, b & 0xff);
  return ipmiGuidV1({ timeMs, clockSeq: (b >>> 16) & 0x3fff, node });
}

/** Manufacturing time of a FRU (ms since 1970), or 2024-01-15 when its inventory has none. */
function mfgTimeMs(fru: FruConfig): number {
  const min = fru.inventory.board?.mfgMinutes;
  if (min !== undefined && min > 0) return FRU_EPOCH_MS + min * 60_000;
  return Date.UTC(2024, 0, 15, 12, 0, 0);
}

/**
 * Controller identity of `fru`.
 * @param logical true for the logical shelf manager at 20h (the active ShMC's face)
 */
export function controllerInfo(shelf: ShelfConfig, fru: FruConfig, logical: boolean): ControllerInfo {
  const d = fru.device;
  const t = mfgTimeMs(fru);
  return {
    deviceId: d.deviceId,
    deviceRevision: d.revision,
    providesDeviceSdrs: !logical,
    firmwareMajor: d.firmwareMajor,
    firmwareMinor: d.firmwareMinor,
    ipmiVersion: 0x02,
    deviceSupport: logical ? SHELF_MANAGER_DEVICE_SUPPORT : IPMC_DEVICE_SUPPORT,
    manufacturerId: d.manufacturerId,
    productId: d.productId,
    auxFirmware: new Uint8Array(4),
    guid: logical ? shelfGuid(shelf, 'system', t) : shelfGuid(shelf, fru.name, t),
  };
}
