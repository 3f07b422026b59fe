/**
 * The PICMG HPM.1 r1.0 firmware upgrade commands (NetFn 2Ch, PICMG identifier 00h first, §3)
 * over one controller's HpmUpgradeTarget (upgrade-target.ts):
 *
 *   2E Get Target Upgrade Capabilities · 2F Get Component Properties · 30 Abort Firmware Upgrade ·
 *   31 Initiate Upgrade Action · 32 Upload Firmware Block · 33 Finish Firmware Upload ·
 *   34 Get Upgrade Status · 35 Activate Firmware · 36 Query Self-test Results ·
 *   37 Query Rollback Status · 38 Initiate Manual Rollback
 *
 * Reads need User privilege, the rest Administrator. An empty request answers C7h, another group
 * identifier C1h, as the other PICMG commands (commands/picmg.ts). Get Component Properties
 * selectors: 0 general properties (b1:0 rollback 01b, b2 preparation, b3 comparison (no), b4
 * deferred activation, b5 payload cold reset), 1 current version, 2 description (12 bytes), 3
 * rollback version, 4 deferred version (6 bytes each; 7Fh FFh … when there is none); others 83h.
 */
import { CompletionCode, IpmiError, NetFn, Privilege } from '../codes.ts';
import type { CommandDef, CommandResult } from '../controller.ts';
import type { Logger } from '../../../board/common/logger.ts';
import { encodeVersion, formatVersion, type FirmwareVersion } from './image.ts';
import { CC_IN_PROGRESS, type HpmUpgradeTarget } from './upgrade-target.ts';

/** The HPM.1 version a target reports (r1.0). */
export const HPM1_VERSION = 0x00;
/** Description strings are 12 bytes. */
export const DESCRIPTION_LENGTH = 12;
const NO_VERSION = [0x7f, 0xff, 0xff, 0xff, 0xff, 0xff];

function picmgDef(cmd: number, name: string, privilege: number, min: number, max: number, fn: (d: Uint8Array) => number[] | { cc: number; data: number[] }): CommandDef {
  return {
    netFn: NetFn.GroupExtension,
    cmd,
    name,
    privilege,
    handler: (req): CommandResult => {
      const d = req.data;
      if (d.length === 0) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'no group extension identifier');
      if (d[0] !== 0x00) throw new IpmiError(CompletionCode.InvalidCommand, `group extension ${d[0]} is not PICMG`);
      if (d.length < min || d.length > max) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, `request data length ${d.length}, expected ${min}..${max}`);
      const out = fn(d);
      if (Array.isArray(out)) return Uint8Array.from([0x00, ...out]);
      return { cc: out.cc, data: Uint8Array.from([0x00, ...out.data]) };
    },
  };
}

function versionBytes(v: FirmwareVersion | undefined): number[] {
  return v ? encodeVersion(v) : NO_VERSION;
}

function componentProperties(t: HpmUpgradeTarget, id: number, selector: number): number[] {
  const c = t.component(id);
  switch (selector) {
    case 0:
      return [(c.rollback ? 0x01 : 0) | 0x04 | 0x10 | (c.payloadColdReset ? 0x20 : 0)];
    case 1:
      return encodeVersion(c.current());
    case 2: {
      const b = Buffer.alloc(DESCRIPTION_LENGTH);
      Buffer.from(c.description, 'latin1').subarray(0, DESCRIPTION_LENGTH - 1).copy(b);
      return [...b];
    }
    case 3:
      if (!c.rollback) throw new IpmiError(0x83, `component ${id} keeps no rollback copy`);
      return versionBytes(t.backup(id));
    case 4:
      return versionBytes(t.deferredVersion(id));
    default:
      throw new IpmiError(0x83, `component property selector ${selector}`);
  }
}

/**
 * The HPM.1 command definitions of one controller.
 * @param name the controller, for log lines (e.g. 'slot4')
 */
export function hpmCommands(t: HpmUpgradeTarget, name: string, log: Logger): CommandDef[] {
  const user = Privilege.User;
  const admin = Privilege.Administrator;
  return [
    picmgDef(0x2e, 'Get Target Upgrade Capabilities', user, 1, 1, () => {
      const c = t.capabilities;
      return [HPM1_VERSION, c.global, c.upgradeTimeout, c.selfTestTimeout, c.rollbackTimeout, c.inaccessTimeout, t.present];
    }),
    picmgDef(0x2f, 'Get Component Properties', user, 3, 3, (d) => componentProperties(t, d[1]!, d[2]!)),
    picmgDef(0x30, 'Abort Firmware Upgrade', admin, 1, 1, () => {
      t.abort();
      return [];
    }),
    picmgDef(0x31, 'Initiate Upgrade Action', admin, 3, 3, (d) => {
      t.initiate(d[1]!, d[2]!);
      return [];
    }),
    picmgDef(0x32, 'Upload Firmware Block', admin, 3, 255, (d) => {
      t.block(d[1]!, d.subarray(2));
      return [];
    }),
    picmgDef(0x33, 'Finish Firmware Upload', admin, 6, 6, (d) => {
      const len = (d[2]! | (d[3]! << 8) | (d[4]! << 16) | (d[5]! << 24)) >>> 0;
      try {
        const v = t.finish(d[1]!, len);
        log.info({ category: 'hpm', controller: name, component: d[1], version: formatVersion(v) }, `${name}: component ${d[1]} firmware ${formatVersion(v)} uploaded (deferred)`);
      } catch (e) {
        if (e instanceof IpmiError) log.warn({ category: 'hpm', controller: name, component: d[1], cc: e.cc, reason: e.message }, `${name}: firmware upload refused: ${e.message}`);
        throw e;
      }
      return [];
    }),
    picmgDef(0x34, 'Get Upgrade Status', user, 1, 1, () => t.status()),
    picmgDef(0x35, 'Activate Firmware', admin, 1, 2, () => {
      try {
        const cc = t.activate();
        log.info({ category: 'hpm', controller: name, cc }, `${name}: firmware activation ${cc === CC_IN_PROGRESS ? 'started' : 'done'}`);
        return cc === 0 ? [] : { cc, data: [] };
      } catch (e) {
        if (e instanceof IpmiError) log.warn({ category: 'hpm', controller: name, cc: e.cc, reason: e.message }, `${name}: firmware activation refused: ${e.message}`);
        throw e;
      }
    }),
    picmgDef(0x36, 'Query Self-test Results', user, 1, 1, () => t.selfTest()),
    picmgDef(0x37, 'Query Rollback Status', user, 1, 1, () => [t.rollbackStatus()]),
    picmgDef(0x38, 'Initiate Manual Rollback', admin, 1, 1, () => {
      const cc = t.rollback();
      log.info({ category: 'hpm', controller: name, cc }, `${name}: manual rollback ${cc === CC_IN_PROGRESS ? 'started' : 'done'}`);
      return cc === 0 ? [] : { cc, data: [] };
    }),
  ];
}
