/**
 * App NetFn (06h) device commands every controller answers from its `ControllerInfo` and state
 * (IPMI v2.0 §20, §22.1–§22.2): Get Device ID, Get Self Test Results, Get Device GUID, Get System
 * GUID, Get/Set BMC Global Enables. Register with `registerAppCommands(controller.commands)`;
 * the watchdog commands live in watchdog.ts, the LAN-channel ones in session/channel/user/bridge.ts.
 *
 * Get System Info Parameters (06h/59h) is deliberately not registered: it answers C1h at every
 * privilege, which FreeIPMI bmc-info tolerates (D4h made it fail against ipmi_sim, research §S9).
 */
import { CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandContext, CommandDef, CommandTable } from '../controller.ts';
import type { IpmiRequest } from '../message.ts';

/** BCD byte of 0..99. */
function bcd(n: number): number {
  const v = Math.max(0, Math.min(99, Math.floor(n)));
  return ((Math.floor(v / 10) & 0x0f) << 4) | (v % 10);
}

/** Get Device ID (06h/01h) response data: 11 bytes, or 15 with the auxiliary firmware revision. */
export function deviceIdData(ctx: CommandContext): Uint8Array {
  const i = ctx.controller.info;
  const aux = i.auxFirmware;
  const out = new Uint8Array(aux ? 15 : 11);
  out[0] = i.deviceId & 0xff;
  out[1] = (i.providesDeviceSdrs ? 0x80 : 0) | (i.deviceRevision & 0x0f);
  out[2] = i.firmwareMajor & 0x7f; // b7 = 0: device available (normal operation)
  out[3] = bcd(i.firmwareMinor);
  out[4] = i.ipmiVersion ?? 0x02;
  out[5] = i.deviceSupport & 0xff;
  out[6] = i.manufacturerId & 0xff;
  out[7] = (i.manufacturerId >> 8) & 0xff;
  out[8] = (i.manufacturerId >> 16) & 0x0f;
  out[9] = i.productId & 0xff;
  out[10] = (i.productId >> 8) & 0xff;
  if (aux) out.set(aux.subarray(0, 4), 11);
  return out;
}

const noData = (req: IpmiRequest) => expectLength(req.data, 0);

/** The App device command definitions (one per command). */
export const appCommands: readonly CommandDef[] = [
  {
    netFn: NetFn.App,
    cmd: 0x01,
    name: 'Get Device ID',
    handler: (req, ctx) => {
      noData(req);
      return deviceIdData(ctx);
    },
  },
  {
    netFn: NetFn.App,
    cmd: 0x04,
    name: 'Get Self Test Results',
    handler: (req, ctx) => {
      noData(req);
      const [a, b] = ctx.controller.info.selfTest ?? [0x55, 0x00];
      return Uint8Array.of(a, b);
    },
  },
  {
    netFn: NetFn.App,
    cmd: 0x08,
    name: 'Get Device GUID',
    handler: (req, ctx) => {
      noData(req);
      const g = ctx.controller.info.deviceGuid;
      if (!g) throw new IpmiError(CompletionCode.InvalidCommand, 'no device GUID configured');
      return g.slice();
    },
  },
  {
    netFn: NetFn.App,
    cmd: 0x37,
    name: 'Get System GUID',
    handler: (req, ctx) => {
      noData(req);
      return ctx.controller.info.guid.slice();
    },
  },
  {
    netFn: NetFn.App,
    cmd: 0x2e,
    name: 'Set BMC Global Enables',
    handler: (req, ctx) => {
      expectLength(req.data, 1);
      const v = req.data[0]!;
      if (v & 0x10) throw new IpmiError(CompletionCode.InvalidDataField, 'reserved bit 4 set');
      ctx.controller.globalEnables = v;
    },
  },
  {
    netFn: NetFn.App,
    cmd: 0x2f,
    name: 'Get BMC Global Enables',
    handler: (req, ctx) => {
      noData(req);
      return Uint8Array.of(ctx.controller.globalEnables & 0xff);
    },
  },
];

/** Registers the App device commands into a controller's table. @throws TypeError on duplicates */
export function registerAppCommands(table: CommandTable): void {
  table.registerAll(appCommands);
}
