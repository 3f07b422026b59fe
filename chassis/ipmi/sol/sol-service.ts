/**
 * Serial over LAN in the LAN server (IPMI v2.0 §15, §24): which RMCP+ session holds which
 * console's SOL payload, the channels carrying the characters, and the SOL configuration.
 *
 * - Activation (Activate Payload 06h/48h, chassis/ipmi/commands/payload.ts) binds the session to
 *   the console behind the controller the request was addressed to: the shelf-manager address
 *   (20h, the active ShMC) or — bridged with `ipmitool -t 0x86 -b 0` — a board's IPMC. A console
 *   has at most one SOL session (80h otherwise); a session carries at most one SOL payload (82h),
 *   because SOL packets carry no instance number.
 * - SOL packets (payload type 01h) of that session reach `handlePayload` once the LAN server has
 *   checked them; the channel acknowledges them and feeds the console. Output produced while a
 *   packet of the session is being handled (the echo, a command's answer) goes back in the same
 *   reply, in order; output at other times (a banner after a reboot, a retransmission, the PTY
 *   user typing) leaves through the server's transport (`LanServer.sendPayload`).
 * - Deactivate Payload (49h) or the end of the session (Close Session, idle timeout) ends it.
 *
 * Pure: time from the Clock port; no sockets.
 */
import type { Clock } from '../../../board/common/clock.ts';
import { DecodeError } from '../../../board/common/errors.ts';
import type { Logger } from '../../../board/common/logger.ts';
import { ConfAlg, IntegrityAlg } from '../cipher-suites.ts';
import { CompletionCode, IpmiError, PayloadType, Privilege } from '../codes.ts';
import type { PayloadServices } from '../commands/payload.ts';
import type { CommandContext } from '../controller.ts';
import type { LanServer } from '../lan-server.ts';
import type { Session } from '../session.ts';
import { canLogIn } from '../users.ts';
import { SolChannel } from './sol-channel.ts';
import { defaultSolConfig, getSolParameter, retryIntervalMs, setSolParameter, type SolConfig } from './sol-config.ts';
import { decodeSolPacket, SOL_HEADER_LENGTH } from './sol-packet.ts';

/** A console SOL can attach to (BoardConsole satisfies it). */
export interface SolConsoleTarget {
  /** Console (FRU) name. */
  readonly name: string;
  /** Receives the console's output. @returns detach */
  attach(sink: (bytes: Uint8Array) => void): () => void;
  /** Characters typed at the remote console. */
  input(bytes: Uint8Array): void;
}

/** Finds the console behind a controller and payload instance. */
export interface SolConsoleResolver {
  /** The console at IPMB `address` (20h = the shelf-manager address), payload `instance` (1..15); undefined when none. */
  resolve(address: number, instance: number): SolConsoleTarget | undefined;
  /** How many SOL instances the controller at `address` offers (1..15; 0 = none). */
  capacity(address: number): number;
}

/** Sizes of the SOL payloads (Activate Payload response). */
export const SOL_PAYLOAD_SIZES = {
  /** Largest payload the console may send (header + characters), bytes. */
  inbound: 256,
  /** Largest payload atcasim sends (header + characters), bytes. */
  outbound: 200,
} as const;

/** Options of the SOL service. */
export interface SolServiceOptions {
  server: LanServer;
  consoles: SolConsoleResolver;
  clock: Clock;
  log: Logger;
  /** Initial SOL configuration [defaultSolConfig()]. */
  config?: Partial<SolConfig>;
}

/** One active SOL payload. */
export interface SolActivation {
  session: Session;
  console: SolConsoleTarget;
  instance: number;
  /** IPMB address of the controller it was activated at. */
  address: number;
  channel: SolChannel;
  detach: () => void;
}

/** Serial over LAN of one LAN server (see the module comment). */
export class SolService implements PayloadServices {
  /** The SOL configuration parameters in force (Get/Set SOL Configuration Parameters). */
  readonly config: SolConfig;
  private readonly bySession = new Map<number, SolActivation>();
  private readonly byConsole = new Map<string, SolActivation>();
  private collecting: { session: Session; out: Uint8Array[] } | undefined;
  private readonly offs: Array<() => void> = [];
  private readonly log: Logger;

  constructor(private readonly opts: SolServiceOptions) {
    this.log = opts.log.child({ module: 'chassis.ipmi.sol' });
    this.config = { ...defaultSolConfig(), ...opts.config };
    opts.server.setPayloadHandler(PayloadType.Sol, { handlePayload: (s, p) => this.handlePayload(s, p) });
    this.offs.push(
      () => opts.server.setPayloadHandler(PayloadType.Sol, undefined),
      opts.server.onSessionEnd((s) => this.end(s, 'session ended', false)),
    );
  }

  /** The LAN channel number (SOL payload channel). */
  get channel(): number {
    return this.opts.server.channel;
  }

  /** The UDP port SOL uses (the server's; 623 when no transport is attached). */
  get port(): number {
    return this.opts.server.transport?.localPort ?? 623;
  }

  /** Active SOL payloads. */
  activations(): readonly SolActivation[] {
    return [...this.bySession.values()];
  }

  /** The activation of a console, if SOL is active on it. */
  activationOf(consoleName: string): SolActivation | undefined {
    return this.byConsole.get(consoleName);
  }

  /**
   * Activate Payload for SOL (IPMI v2.0 §24.1) in the request's session, at its controller.
   * @param aux auxiliary request byte 1 (b7 encryption, b6 authentication, …)
   * @returns the sizes and port of the Activate Payload response
   * @throws IpmiError: D5h outside a session or not RMCP+, D4h privilege below the SOL privilege,
   *   81h SOL disabled, CCh no console at this instance, 80h console already active, 82h session
   *   already holds a SOL payload, 84h encryption required but not used by the session/request
   */
  activate(ctx: CommandContext, instance: number, aux: number): { inbound: number; outbound: number; port: number } {
    const s = ctx.session;
    if (!s || s.kind !== 'rmcp+' || !s.suite) throw new IpmiError(CompletionCode.NotSupportedInPresentState, 'SOL needs an RMCP+ session');
    const c = this.config;
    if (!c.enabled) throw new IpmiError(0x81, 'SOL is disabled');
    if (ctx.privilege < Math.min(c.privilege, Privilege.Administrator)) throw new IpmiError(CompletionCode.InsufficientPrivilege, `SOL needs privilege ${c.privilege}`);
    const target = this.opts.consoles.resolve(ctx.controller.address, instance);
    if (!target) throw new IpmiError(CompletionCode.InvalidDataField, `no console at ${ctx.controller.address.toString(16)}h instance ${instance}`);
    if (this.byConsole.has(target.name)) throw new IpmiError(0x80, `SOL already active on ${target.name}`);
    if (this.bySession.has(s.id)) throw new IpmiError(0x82, 'this session already holds a SOL payload');
    const encrypted = s.suite.conf !== ConfAlg.None;
    const authenticated = s.suite.integrity !== IntegrityAlg.None;
    // payloads are protected as the session's suite says; a console asking otherwise is refused
    if ((c.forceEncryption && !encrypted) || (encrypted && (aux & 0x80) === 0)) throw new IpmiError(0x84, 'SOL payloads must be encrypted');
    if (c.forceAuthentication && !authenticated) throw new IpmiError(0x84, 'SOL payloads must be authenticated');
    const session = s;
    const channel = new SolChannel({
      clock: this.opts.clock,
      maxOutbound: SOL_PAYLOAD_SIZES.outbound - SOL_HEADER_LENGTH,
      retryCount: c.retryCount,
      retryIntervalMs: retryIntervalMs(c),
      send: (payload) => this.send(session, payload),
      deliver: (bytes) => target.input(bytes),
      onBreak: () => this.log.info({ category: 'sol', console: target.name }, 'break requested by the remote console'),
    });
    const a: SolActivation = { session, console: target, instance, address: ctx.controller.address, channel, detach: () => {} };
    a.detach = target.attach((bytes) => channel.write(bytes));
    this.bySession.set(s.id, a);
    this.byConsole.set(target.name, a);
    this.log.info({ category: 'sol', console: target.name, user: s.userName, handle: s.handle, instance }, 'SOL activated');
    return { inbound: SOL_PAYLOAD_SIZES.inbound, outbound: SOL_PAYLOAD_SIZES.outbound, port: this.port };
  }

  /**
   * Deactivate Payload for SOL (IPMI v2.0 §24.2): the console at the request's controller and
   * `instance`. Another session's payload may be deactivated by an administrator (its console is
   * told with the "SOL deactivating" status bit).
   * @throws IpmiError: CCh no console there, 80h not active, D4h someone else's payload without ADMINISTRATOR
   */
  deactivate(ctx: CommandContext, instance: number): void {
    const target = this.opts.consoles.resolve(ctx.controller.address, instance);
    if (!target) throw new IpmiError(CompletionCode.InvalidDataField, `no console at ${ctx.controller.address.toString(16)}h instance ${instance}`);
    const a = this.byConsole.get(target.name);
    if (!a) throw new IpmiError(0x80, 'SOL payload already deactivated');
    const own = ctx.session !== undefined && a.session.id === ctx.session.id;
    if (!own && ctx.privilege < Privilege.Administrator) throw new IpmiError(CompletionCode.InsufficientPrivilege, "deactivating another session's SOL needs ADMINISTRATOR");
    this.end(a.session, own ? 'deactivated' : 'deactivated by another session', !own);
  }

  /** Get Payload Activation Status for SOL at a controller: instance capacity and the active instances (1-based). */
  activationStatus(address: number): { capacity: number; active: number[] } {
    const capacity = this.opts.consoles.capacity(address);
    const active: number[] = [];
    for (let i = 1; i <= capacity; i++) {
      const t = this.opts.consoles.resolve(address, i);
      if (t && this.byConsole.has(t.name)) active.push(i);
    }
    return { capacity, active };
  }

  /** Get Payload Instance Info: the BMC session ID holding the instance (0 when inactive). @throws IpmiError(CCh) for an instance out of range */
  instanceSession(address: number, instance: number): number {
    if (instance < 1 || instance > this.opts.consoles.capacity(address)) throw new IpmiError(CompletionCode.InvalidDataField, `payload instance ${instance}`);
    const t = this.opts.consoles.resolve(address, instance);
    return (t && this.byConsole.get(t.name)?.session.id) || 0;
  }

  /**
   * Whether user `userId` may use SOL: enabled, and allowed the SOL privilege on the channel.
   * @returns undefined for an ID outside 1..63; false for an empty or disabled slot
   */
  userMaySol(userId: number): boolean | undefined {
    if (!(userId >= 1 && userId <= 63)) return undefined;
    const u = this.opts.server.users.list().find((x) => x.id === userId);
    return !!u && canLogIn(u) && u.privilege <= Privilege.Oem && u.privilege >= Math.min(this.config.privilege, Privilege.Administrator);
  }

  /** Get SOL Configuration Parameters data (without the revision byte). @throws IpmiError(80h) */
  getParameter(param: number): Uint8Array {
    return getSolParameter(this.config, param, this.channel, this.port);
  }

  /** Set SOL Configuration Parameters. @throws IpmiError (see setSolParameter) */
  setParameter(param: number, data: Uint8Array): void {
    setSolParameter(this.config, param, data);
    this.log.info({ category: 'sol', param }, 'SOL configuration parameter set');
  }

  /** Ends every SOL payload (telling the consoles) and detaches from the server. */
  close(): void {
    for (const a of [...this.bySession.values()]) this.end(a.session, 'service stopped', true);
    for (const off of this.offs.splice(0)) off();
  }

  // ------------------------------------------------------------------ packets

  private handlePayload(s: Session, payload: Uint8Array): Uint8Array[] {
    const a = this.bySession.get(s.id);
    if (!a) throw new DecodeError('sol', 'activation', 0, 'no SOL payload is active in this session');
    if (payload.length > SOL_PAYLOAD_SIZES.inbound) throw new DecodeError('sol', 'length', 0, `payload of ${payload.length} bytes exceeds ${SOL_PAYLOAD_SIZES.inbound}`);
    const pkt = decodeSolPacket(payload);
    const out: Uint8Array[] = [];
    const outer = this.collecting;
    this.collecting = { session: s, out };
    try {
      a.channel.receive(pkt);
    } finally {
      this.collecting = outer;
    }
    return out;
  }

  private send(s: Session, payload: Uint8Array): void {
    if (this.collecting && this.collecting.session === s) {
      this.collecting.out.push(payload);
      return;
    }
    this.opts.server.sendPayload(s, PayloadType.Sol, payload);
  }

  private end(s: Session, why: string, notify: boolean): void {
    const a = this.bySession.get(s.id);
    if (!a) return;
    this.bySession.delete(s.id);
    this.byConsole.delete(a.console.name);
    a.detach();
    a.channel.close(notify);
    this.log.info({ category: 'sol', console: a.console.name, user: s.userName, handle: s.handle, reason: why, stats: a.channel.stats }, 'SOL deactivated');
  }
}
