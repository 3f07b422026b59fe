/**
 * Runs one IPMI request against a controller's command tables: unknown (NetFn, cmd) → C1h at
 * every privilege (research §S9: ipmitool's HPM.2 probe expects it), privilege below the command's
 * minimum → D4h, then the handler. Handler failures are answered in the protocol: IpmiError(cc) →
 * cc; a DecodeError from reading the request (ByteReader overrun) → C7h; anything else → FFh and an
 * error log entry. Nothing escapes (IPMI v2.0 §5.2; OpenIPMI bmc.c deliver_cmd_to_mc).
 */
import { DecodeError } from '../../board/common/errors.ts';
import { CompletionCode, IpmiError } from './codes.ts';
import type { CommandContext, CommandTable, RegisteredCommand } from './controller.ts';
import type { IpmiRequest } from './message.ts';

/** Largest response data (after the completion code) that fits an IPMI 1.5 message (length byte ≤ 255). */
export const MAX_RESPONSE_DATA = 245;

/** Completion code and data of a dispatched request. */
export interface DispatchResult {
  cc: number;
  data: Uint8Array;
  /** The command that ran, when one was found. */
  command?: RegisteredCommand;
}

/** Finds the first table that has (netFn, cmd). */
export function findCommand(tables: readonly CommandTable[], netFn: number, cmd: number): RegisteredCommand | undefined {
  for (const t of tables) {
    const c = t.lookup(netFn, cmd);
    if (c) return c;
  }
  return undefined;
}

/**
 * Dispatches `req` through `tables` (searched in order) with `ctx`.
 * @returns the completion code and response data (empty unless cc is 00h or the handler chose otherwise)
 */
export function dispatch(tables: readonly CommandTable[], req: IpmiRequest, ctx: CommandContext): DispatchResult {
  const command = findCommand(tables, req.netFn, req.cmd);
  if (!command) return { cc: CompletionCode.InvalidCommand, data: new Uint8Array(0) };
  if (ctx.privilege < command.privilege) return { cc: CompletionCode.InsufficientPrivilege, data: new Uint8Array(0), command };
  try {
    const r = command.handler(req, ctx);
    let cc: number = CompletionCode.Ok;
    let data: Uint8Array = new Uint8Array(0);
    if (r instanceof Uint8Array) data = r;
    else if (r) {
      cc = r.cc;
      data = r.data ?? new Uint8Array(0);
    }
    if (data.length > MAX_RESPONSE_DATA) {
      ctx.log.error({ category: 'handler-bug', command: command.name, length: data.length }, 'response data too long');
      return { cc: CompletionCode.CannotReturnRequestedBytes, data: new Uint8Array(0), command };
    }
    return { cc, data, command };
  } catch (e) {
    if (e instanceof IpmiError) return { cc: e.cc & 0xff, data: new Uint8Array(0), command };
    if (e instanceof DecodeError) return { cc: CompletionCode.RequestDataLengthInvalid, data: new Uint8Array(0), command };
    ctx.log.error({ category: 'handler-error', command: command.name, err: String(e) }, 'command handler threw');
    return { cc: CompletionCode.Unspecified, data: new Uint8Array(0), command };
  }
}
