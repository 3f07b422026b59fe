/**
 * Management controllers behind the LAN server and their command tables.
 *
 * The LAN server fronts several controllers by IPMB address — the shelf manager at 20h and the
 * board IPMCs at 82h, 84h, 86h… (PICMG 3.0 §3.2.1: IPMB address = 2 × hardware address). Each
 * `Controller` has its own identity (`ControllerInfo`, Get Device ID / GUID) and its own
 * `CommandTable`: NetFn → cmd → handler, one registration per command with its minimum
 * privilege (from privilege-table.ts unless given). Command families register themselves from one
 * file each (commands/app.ts, commands/transport.ts, …), as OpenIPMI splits bmc_<netfn>.c.
 */
import type { Logger } from '../../board/common/logger.ts';
import type { IpmiRequest } from './message.ts';
import { commandKey, minimumPrivilege } from './privilege-table.ts';
import type { Session } from './session.ts';

/** Identity of a controller, as Get Device ID (IPMI v2.0 §20.1) and Get System GUID report it. */
export interface ControllerInfo {
  /** Device ID byte. */
  deviceId: number;
  /** Device revision 0..15. */
  deviceRevision: number;
  /** Device revision b7: the controller provides device SDRs. */
  providesDeviceSdrs: boolean;
  /** Firmware major revision 0..127. */
  firmwareMajor: number;
  /** Firmware minor revision 0..99 (sent as BCD: 10 → "2.10"). */
  firmwareMinor: number;
  /** IPMI version byte, BCD minor.major nibbles swapped as on the wire: 02h = 2.0, 51h = 1.5. Default 02h. */
  ipmiVersion?: number;
  /**
   * Additional device support bitmap: b7 chassis, b6 bridge, b5 IPMB event generator, b4 IPMB
   * event receiver, b3 FRU inventory, b2 SEL, b1 SDR repository, b0 sensor device.
   */
  deviceSupport: number;
  /** IANA manufacturer ID (20 bits), e.g. 0x00315A = PICMG. */
  manufacturerId: number;
  /** Product ID (16 bits). */
  productId: number;
  /** Auxiliary firmware revision (4 bytes), optional. */
  auxFirmware?: Uint8Array;
  /** System GUID in IPMI byte order (16 bytes): Get System GUID 06h/37h and RAKP 2. See guid.ts. */
  guid: Uint8Array;
  /** Device GUID in IPMI byte order; when absent Get Device GUID 06h/08h is not implemented (C1h). */
  deviceGuid?: Uint8Array;
  /** Self-test result bytes (Get Self Test Results); default 55h 00h (passed). */
  selfTest?: readonly [number, number];
}

/** What a handler returns: a completion code and data, or just data (CC 00h), or nothing (CC 00h, no data). */
export type CommandResult = { cc: number; data?: Uint8Array } | Uint8Array | void;

/** Per-request context handed to a command handler. */
export interface CommandContext {
  /** The controller the request is addressed to. */
  readonly controller: Controller;
  /** Time of the request (ms, from the Clock the LAN server is driven with). */
  readonly now: number;
  /** Channel the request arrived on: the LAN channel (1) or IPMB-0 (0) for bridged requests. */
  readonly channel: number;
  /** Effective privilege: the session's current level (1..4), 0 outside a session. */
  readonly privilege: number;
  /** The LAN session the request came through (also for bridged requests); undefined outside a session. */
  readonly session: Session | undefined;
  /** Logger of the LAN server (child per controller). */
  readonly log: Logger;
  /**
   * Queues a raw IPMI message to send to the remote console after this response, in the same
   * session (used for the response of a tracked bridged request, IPMI v2.0 §6.13.2).
   */
  emit(message: Uint8Array): void;
}

/** A command handler: request data in, result out; throws IpmiError(cc) to fail with a code. */
export type CommandHandler = (req: IpmiRequest, ctx: CommandContext) => CommandResult;

/** One command registration. */
export interface CommandDef {
  /** Request NetFn (even). */
  netFn: number;
  cmd: number;
  /** Name for logs and docs, e.g. "Get Device ID". */
  name: string;
  /** Minimum session privilege (0 = allowed outside a session, 1..4); default from privilege-table.ts. */
  privilege?: number;
  handler: CommandHandler;
}

/** A registered command with its resolved privilege. */
export interface RegisteredCommand extends CommandDef {
  privilege: number;
}

/** NetFn → cmd → handler table of one controller. */
export class CommandTable {
  private readonly commands = new Map<number, RegisteredCommand>();

  /**
   * Registers a command.
   * @throws TypeError when the command is already registered, the NetFn is odd or out of range,
   *         or no privilege is given and privilege-table.ts has no entry for it
   */
  register(def: CommandDef): void {
    if (!Number.isInteger(def.netFn) || def.netFn < 0 || def.netFn > 0x3e || def.netFn % 2 !== 0) {
      throw new TypeError(`${def.name}: request NetFn must be even 00h..3Eh, got ${def.netFn}`);
    }
    const key = commandKey(def.netFn, def.cmd);
    if (this.commands.has(key)) throw new TypeError(`${def.name}: NetFn ${hex(def.netFn)} cmd ${hex(def.cmd)} already registered`);
    const privilege = def.privilege ?? minimumPrivilege(def.netFn, def.cmd);
    if (privilege === undefined || privilege < 0 || privilege > 4) {
      throw new TypeError(`${def.name}: no privilege level for NetFn ${hex(def.netFn)} cmd ${hex(def.cmd)}; pass one`);
    }
    this.commands.set(key, { ...def, privilege });
  }

  /** Registers several commands. */
  registerAll(defs: readonly CommandDef[]): void {
    for (const d of defs) this.register(d);
  }

  /** Removes a registration (returns whether it existed). */
  unregister(netFn: number, cmd: number): boolean {
    return this.commands.delete(commandKey(netFn, cmd));
  }

  /** The registration for (netFn, cmd), if any. */
  lookup(netFn: number, cmd: number): RegisteredCommand | undefined {
    return this.commands.get(commandKey(netFn, cmd));
  }

  /** All registrations, ordered by NetFn then cmd. */
  list(): RegisteredCommand[] {
    return [...this.commands.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
  }
}

/** A management controller at one IPMB address. */
export class Controller {
  /** BMC Global Enables byte (Get/Set BMC Global Enables); default 08h (System Event Logging on). */
  globalEnables = 0x08;

  /**
   * @param address  IPMB slave address (even, e.g. 20h, 82h)
   * @param info     identity for Get Device ID / GUID
   * @param commands the controller's command table (empty by default; families register into it)
   * @throws TypeError for an odd or out-of-range address, or a GUID that is not 16 bytes
   */
  constructor(
    readonly address: number,
    public info: ControllerInfo,
    readonly commands: CommandTable = new CommandTable(),
  ) {
    if (!Number.isInteger(address) || address < 0x02 || address > 0xfe || address % 2 !== 0) {
      throw new TypeError(`controller address must be an even IPMB address, got ${address}`);
    }
    if (info.guid.length !== 16) throw new TypeError('controller GUID must be 16 bytes');
    if (info.deviceGuid && info.deviceGuid.length !== 16) throw new TypeError('device GUID must be 16 bytes');
  }
}

function hex(n: number): string {
  return `${n.toString(16).padStart(2, '0')}h`;
}
