/**
 * Bridging from the LAN to the controllers on IPMB-0 (IPMI v2.0 §6.13, §22.6–§22.7): Send
 * Message (06h/34h) carrying an IPMB request for the IPMC at its address, and Get Message
 * (06h/33h) for responses of untracked requests.
 *
 * Tracked requests (b7:6 = 01b, what ipmitool `-t 0x86 -b 0` and FreeIPMI --bridge-sensors send):
 * Send Message answers CC 00h with no data, then the raw IPMB response of the target goes to the
 * console as a second message in the same session —
 *   rqSA | netFn+1<<2|rqLUN | chk | target | rqSeq<<2|rsLUN | cmd | cc | data | chk
 * exactly as in ../shared/ipmi/captures/lan15_bridged_picmg (research §A.8). Untracked requests
 * queue that response for Get Message (per session, bounded, oldest dropped).
 *
 * The bridged command is checked against the target's privilege table with the privilege of the
 * originating session, so bridging cannot raise a user's rights.
 */
import { DecodeError } from '../../../board/common/errors.ts';
import { CompletionCode, IpmiError, NetFn } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import { dispatch } from '../dispatcher.ts';
import type { LanServices } from '../lan-services.ts';
import { decodeRequest, encodeResponse, responseTo } from '../message.ts';

/** Responses kept per session for Get Message. */
export const RECEIVE_QUEUE_LIMIT = 8;
/** Send Message completion code when nobody answers at the target address ("NAK on write"). */
export const CC_NAK_ON_WRITE = 0x83;

/** The bridging command definitions bound to the LAN server. */
export function bridgeCommands(lan: LanServices): CommandDef[] {
  return [
    {
      netFn: NetFn.App,
      cmd: 0x34,
      name: 'Send Message',
      handler: (req, ctx) => {
        if (req.data.length < 1 + 7) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'no IPMB message');
        const b0 = req.data[0]!;
        const channel = b0 & 0x0f;
        const tracking = b0 >> 6;
        if (channel !== 0) throw new IpmiError(CompletionCode.InvalidDataField, `bridging only to IPMB-0, not channel ${channel}`);
        if (tracking !== 0 && tracking !== 1) throw new IpmiError(CompletionCode.InvalidDataField, `tracking mode ${tracking} not supported`);
        let inner;
        try {
          inner = decodeRequest(req.data.subarray(1));
        } catch (e) {
          if (e instanceof DecodeError) throw new IpmiError(CompletionCode.InvalidDataField, `embedded message: ${e.message}`);
          throw e;
        }
        const target = lan.controllerAt(inner.rsSA);
        if (!target) throw new IpmiError(CC_NAK_ON_WRITE, `no controller at IPMB address ${inner.rsSA.toString(16)}h`);
        const result = dispatch([target.commands], inner, {
          controller: target,
          now: ctx.now,
          channel: 0,
          privilege: ctx.privilege,
          session: ctx.session,
          log: ctx.log,
          emit: () => {}, // no nested bridging
        });
        const response = encodeResponse(responseTo(inner, result.cc, result.data));
        if (tracking === 1) {
          ctx.emit(response);
        } else if (ctx.session) {
          const q = ctx.session.receiveQueue;
          if (q.length >= RECEIVE_QUEUE_LIMIT) q.shift();
          q.push(response);
        }
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x33,
      name: 'Get Message',
      handler: (req, ctx) => {
        if (req.data.length !== 0) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'no data expected');
        const msg = ctx.session?.receiveQueue.shift();
        if (!msg) throw new IpmiError(0x80, 'receive message queue empty');
        const out = new Uint8Array(msg.length);
        out[0] = ((ctx.privilege & 0x0f) << 4) | 0; // privilege, channel 0 (IPMB-0)
        out.set(msg.subarray(1), 1); // the message without its destination address
        return out;
      },
    },
  ];
}
