/**
 * Payload and SOL commands (IPMI v2.0 §24 and §26), served for Serial over LAN
 * (chassis/ipmi/sol/sol-service.ts):
 *
 *   06h/48h Activate Payload             rq: type, instance, aux(4)      rs: aux(4), inbound size(2), outbound size(2), UDP port(2), VLAN(2)
 *   06h/49h Deactivate Payload           rq: type, instance, aux(4)      rs: —
 *   06h/4Ah Get Payload Activation Status rq: type                       rs: capacity, active instances 1–8, 9–16 (bitmaps)
 *   06h/4Bh Get Payload Instance Info    rq: type, instance              rs: session ID(4), payload-specific(8)
 *   06h/4Dh Get User Payload Access      rq: channel, user ID            rs: standard payloads 1–7 (b1 = SOL), reserved, OEM(2)
 *   06h/4Eh Get Channel Payload Support  rq: channel                     rs: standard types, session-setup types, reserved(2), OEM(2), reserved(2)
 *   06h/4Fh Get Channel Payload Version  rq: channel, type               rs: version (10h = 1.0)
 *   0Ch/21h Set SOL Configuration Parameters  rq: channel, parameter, data
 *   0Ch/22h Get SOL Configuration Parameters  rq: b7 revision only | channel, parameter, set, block   rs: revision, data
 *
 * Multi-byte fields little-endian. Only payload type 01h (SOL) can be activated; the console is
 * the one behind the controller the request reached (20h directly, a board IPMC bridged with
 * `-t ADDR -b 0`). Completion codes as §24 lists them (80h already active / not active, 81h
 * disabled, 82h limit, 84h encryption required) and §26 (80h parameter not supported, 82h
 * read-only). Set User Payload Access (4Ch) is not implemented (C1h): every enabled user whose
 * privilege reaches the SOL privilege may use SOL.
 */
import { CompletionCode, IpmiError, NetFn, PayloadType, Privilege, expectLength } from '../codes.ts';
import type { CommandContext, CommandDef } from '../controller.ts';

/** What the payload commands need (SolService implements it). */
export interface PayloadServices {
  /** The LAN channel number. */
  readonly channel: number;
  activate(ctx: CommandContext, instance: number, aux: number): { inbound: number; outbound: number; port: number };
  deactivate(ctx: CommandContext, instance: number): void;
  activationStatus(address: number): { capacity: number; active: number[] };
  instanceSession(address: number, instance: number): number;
  getParameter(param: number): Uint8Array;
  setParameter(param: number, data: Uint8Array): void;
  /** Whether user `userId` may use SOL on the channel (undefined: no such user ID, 1..63). */
  userMaySol(userId: number): boolean | undefined;
}

/** Payload version reported by Get Channel Payload Version (BCD 1.0). */
export const PAYLOAD_VERSION = 0x10;
/** "No VLAN" in the Activate Payload response. */
const NO_VLAN = 0xffff;

function channelOk(p: PayloadServices, byte: number): void {
  const ch = byte & 0x0f;
  if (ch !== 0x0e && ch !== p.channel) throw new IpmiError(CompletionCode.InvalidDataField, `channel ${ch} is not the LAN channel`);
}

function solOnly(typeByte: number): void {
  const t = typeByte & 0x3f;
  if (t !== PayloadType.Sol) throw new IpmiError(CompletionCode.InvalidDataField, `payload type ${t} cannot be activated (only 01h SOL)`);
}

function instanceOf(b: number): number {
  const i = b & 0x0f;
  if (i === 0) throw new IpmiError(CompletionCode.InvalidDataField, 'payload instance 0');
  return i;
}

function u16le(out: Uint8Array, at: number, v: number): void {
  out[at] = v & 0xff;
  out[at + 1] = (v >> 8) & 0xff;
}

/** The payload commands (App NetFn) served at every controller with a console and on the LAN. */
export function payloadCommands(p: PayloadServices): CommandDef[] {
  return [
    {
      netFn: NetFn.App,
      cmd: 0x48,
      name: 'Activate Payload',
      privilege: Privilege.User,
      handler: (req, ctx) => {
        expectLength(req.data, 6);
        solOnly(req.data[0]!);
        const r = p.activate(ctx, instanceOf(req.data[1]!), req.data[2]!);
        const out = new Uint8Array(12); // aux data 0: no test mode, no special behaviour
        u16le(out, 4, r.inbound);
        u16le(out, 6, r.outbound);
        u16le(out, 8, r.port);
        u16le(out, 10, NO_VLAN);
        return out;
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x49,
      name: 'Deactivate Payload',
      privilege: Privilege.User,
      handler: (req, ctx) => {
        expectLength(req.data, 6);
        solOnly(req.data[0]!);
        p.deactivate(ctx, instanceOf(req.data[1]!));
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x4a,
      name: 'Get Payload Activation Status',
      privilege: Privilege.User,
      handler: (req, ctx) => {
        expectLength(req.data, 1);
        const t = req.data[0]! & 0x3f;
        if (t !== PayloadType.Sol) return Uint8Array.of(0, 0, 0); // no instances of other payload types
        const s = p.activationStatus(ctx.controller.address);
        let bits = 0;
        for (const i of s.active) bits |= 1 << (i - 1);
        return Uint8Array.of(s.capacity & 0x0f, bits & 0xff, (bits >> 8) & 0xff);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x4b,
      name: 'Get Payload Instance Info',
      privilege: Privilege.User,
      handler: (req, ctx) => {
        expectLength(req.data, 2);
        solOnly(req.data[0]!);
        const instance = instanceOf(req.data[1]!);
        const sid = p.instanceSession(ctx.controller.address, instance);
        const out = new Uint8Array(12);
        new DataView(out.buffer).setUint32(0, sid >>> 0, true);
        out[4] = sid !== 0 ? instance : 0; // SOL: the serial port number of the instance
        return out;
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x4d,
      name: 'Get User Payload Access',
      privilege: Privilege.Operator,
      handler: (req) => {
        expectLength(req.data, 2);
        channelOk(p, req.data[0]!);
        const uid = req.data[1]! & 0x3f;
        const may = p.userMaySol(uid);
        if (may === undefined) throw new IpmiError(CompletionCode.InvalidDataField, `user ID ${uid}`);
        return Uint8Array.of(may ? 0x02 : 0x00, 0, 0, 0);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x4e,
      name: 'Get Channel Payload Support',
      privilege: Privilege.User,
      handler: (req) => {
        expectLength(req.data, 1);
        channelOk(p, req.data[0]!);
        // b0 IPMI message, b1 SOL; session-setup payloads 10h–15h; no OEM payloads
        return Uint8Array.of(0x03, 0x3f, 0, 0, 0, 0, 0, 0);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x4f,
      name: 'Get Channel Payload Version',
      privilege: Privilege.User,
      handler: (req) => {
        expectLength(req.data, 2);
        channelOk(p, req.data[0]!);
        const t = req.data[1]! & 0x3f;
        if (t !== PayloadType.Ipmi && t !== PayloadType.Sol) throw new IpmiError(0x80, `payload type ${t} not available on the channel`);
        return Uint8Array.of(PAYLOAD_VERSION);
      },
    },
  ];
}

/** Get/Set SOL Configuration Parameters (Transport NetFn). */
export function solConfigCommands(p: PayloadServices): CommandDef[] {
  return [
    {
      netFn: NetFn.Transport,
      cmd: 0x21,
      name: 'Set SOL Configuration Parameters',
      privilege: Privilege.Administrator,
      handler: (req) => {
        if (req.data.length < 3) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'channel, parameter and data expected');
        channelOk(p, req.data[0]!);
        p.setParameter(req.data[1]!, req.data.subarray(2));
      },
    },
    {
      netFn: NetFn.Transport,
      cmd: 0x22,
      name: 'Get SOL Configuration Parameters',
      privilege: Privilege.User,
      handler: (req) => {
        expectLength(req.data, 4);
        channelOk(p, req.data[0]!);
        const revisionOnly = (req.data[0]! & 0x80) !== 0;
        const data = p.getParameter(req.data[1]!); // 80h for an unknown parameter, even revision-only
        if (revisionOnly) return Uint8Array.of(0x11);
        const out = new Uint8Array(1 + data.length);
        out[0] = 0x11;
        out.set(data, 1);
        return out;
      },
    },
  ];
}
