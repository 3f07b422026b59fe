/**
 * Channel commands (IPMI v2.0 §22.22–§22.24, §22.15): Get Channel Info (IPMB-0 = channel 0, the
 * LAN = channel 1), Get Channel Access and Get Channel Cipher Suites (answered outside a session
 * too — ipmitool `-I lanplus` without `-C` asks before logging in, research §0.3).
 */
import { cipherSuiteRecords, supportedAlgorithmRecords } from '../cipher-suites.ts';
import { CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import type { LanServices } from '../lan-services.ts';
import { lanChannel } from './session.ts';

/** IANA of the IPMI forum (7154 = 1BF2h), reported as the channel protocol vendor. */
const IPMI_FORUM_IANA = [0xf2, 0x1b, 0x00] as const;

/** The channel command definitions bound to the LAN server. */
export function channelCommands(lan: LanServices): CommandDef[] {
  return [
    {
      netFn: NetFn.App,
      cmd: 0x42,
      name: 'Get Channel Info',
      handler: (req, ctx) => {
        expectLength(req.data, 1);
        const ch = req.data[0]! & 0x0f;
        const channel = ch === 0x0e ? ctx.channel : ch;
        if (channel === 0) return Uint8Array.of(0x00, 0x01, 0x01, 0x00, ...IPMI_FORUM_IANA, 0, 0); // IPMB, session-less
        if (channel === lan.channel) {
          const activeCount = lan.sessions.active().length & 0x3f;
          return Uint8Array.of(channel, 0x04, 0x01, 0x80 | activeCount, ...IPMI_FORUM_IANA, 0, 0); // 802.3 LAN, multi-session
        }
        throw new IpmiError(CompletionCode.NotPresent, `no channel ${channel}`);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x41,
      name: 'Get Channel Access',
      handler: (req, ctx) => {
        expectLength(req.data, 2);
        lanChannel(lan, ctx, req.data[0]!);
        const which = (req.data[1]! >> 6) & 3;
        if (which !== 1 && which !== 2) throw new IpmiError(CompletionCode.InvalidDataField, 'access type must be volatile or non-volatile');
        // b5 = 1: PEF alerting disabled (no alerting here); b4/b3 = 0: per-message and user-level
        // authentication enabled; b2:0 = 2: always available.
        return Uint8Array.of(0x22, lan.channelPrivilegeLimit);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x54,
      name: 'Get Channel Cipher Suites',
      handler: (req, ctx) => {
        expectLength(req.data, 3);
        const channel = lanChannel(lan, ctx, req.data[0]!);
        const payloadType = req.data[1]! & 0x3f;
        if (payloadType !== 0) throw new IpmiError(CompletionCode.InvalidDataField, `payload type ${payloadType} not supported`);
        const bySuite = (req.data[2]! & 0x80) !== 0;
        const index = req.data[2]! & 0x3f;
        const records = bySuite ? cipherSuiteRecords(lan.cipherSuites) : supportedAlgorithmRecords(lan.cipherSuites);
        const chunk = records.subarray(index * 16, index * 16 + 16);
        const out = new Uint8Array(1 + chunk.length);
        out[0] = channel;
        out.set(chunk, 1);
        return out;
      },
    },
  ];
}
