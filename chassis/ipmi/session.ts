/**
 * One LAN session (IPMI v2.0 §6.12): an IPMI 1.5 session (challenge → activate, MD5) or an RMCP+
 * session (Open Session → RAKP 1–4). Holds the negotiated algorithms and keys, the inbound
 * sequence windows, the outbound counters, the user and the privilege levels. Mutated only by the
 * LAN server and the session commands; handlers read it through `CommandContext.session`.
 */
import type { CipherSuite } from './cipher-suites.ts';
import type { SessionPrivilege } from './codes.ts';
import { SequenceWindow } from './sequence-window.ts';

/** Where a datagram came from / a reply goes to. */
export interface Peer {
  /** IPv4 or IPv6 address text. */
  address: string;
  /** UDP port. */
  port: number;
}

/** Lifecycle: 'challenge' (1.5 temp session), 'open' (RMCP+ after Open Session), 'rakp2' (RAKP2 sent), 'active'. */
export type IpmiSessionState = 'challenge' | 'open' | 'rakp2' | 'active';

/** RAKP exchange values kept between RAKP1 and RAKP3 (and to answer a repeated RAKP3). */
export interface RakpState {
  tag: number;
  consoleRandom: Uint8Array;
  bmcRandom: Uint8Array;
  role: number;
  userName: Uint8Array;
  /** Password snapshot used for the exchange. */
  password: Uint8Array;
  /** RAKP4 payload once sent (re-sent verbatim for a repeated valid RAKP3). */
  rakp4?: Uint8Array;
}

/** RMCP+ inbound window: 32 behind / 16 ahead (IPMI v2.0 §6.12.13; bitmap rejects duplicates). */
export const RMCPP_WINDOW = { behind: 32, ahead: 16 } as const;
/** IPMI 1.5 inbound window: ±8 (IPMI v2.0 §6.12.13). */
export const IPMI15_WINDOW = { behind: 8, ahead: 8 } as const;

/** A session or half-open login (fields documented inline). */
export class Session {
  /** Session handle 1..255 (Get Session Info / Close Session). */
  handle: number;
  state: IpmiSessionState;
  /** Time (ms) the session was created and last accepted an authenticated packet. */
  readonly createdAt: number;
  lastActivity: number;

  // --- who ---
  userId = 0;
  userName = '';
  /** Session privilege limit granted at login. */
  maxPrivilege: SessionPrivilege = 1;
  /** Current operating privilege (Set Session Privilege Level). */
  privilege: SessionPrivilege = 1;

  // --- RMCP+ ---
  /** Remote console session ID (RMCP+), 0 for 1.5. */
  consoleSid = 0;
  suite: CipherSuite | undefined;
  /** Maximum privilege granted in the Open Session Response. */
  openMaxPrivilege: SessionPrivilege = 4;
  rakp: RakpState | undefined;
  /** GUID sent in RAKP2 (the shelf's system GUID at Open Session time). */
  bmcGuid: Uint8Array = new Uint8Array(16);
  k1: Uint8Array = new Uint8Array(0);
  k2: Uint8Array = new Uint8Array(0);
  /** Inbound windows for authenticated and unauthenticated payloads (separate counters). */
  authWindow = new SequenceWindow(RMCPP_WINDOW.behind, RMCPP_WINDOW.ahead);
  unauthWindow = new SequenceWindow(RMCPP_WINDOW.behind, RMCPP_WINDOW.ahead);
  private outAuth = 0;
  private outUnauth = 0;

  // --- IPMI 1.5 ---
  /** 1.5 auth type of the session (2 = MD5, 0 = none when explicitly enabled). */
  authType = 0;
  /** 1.5 challenge string (temp sessions). */
  challenge: Uint8Array | undefined;
  /** Password snapshot for 1.5 auth codes. */
  password: Uint8Array = new Uint8Array(0);
  window15: SequenceWindow | undefined;
  /** Next outbound 1.5 sequence number. */
  outSeq15 = 0;

  /** Responses of bridged requests sent without tracking, for Get Message (bounded). */
  readonly receiveQueue: Uint8Array[] = [];
  /** Set by Close Session: drop the session once the reply is sent. */
  closeAfterReply = false;

  /**
   * @param id    the BMC's session ID (1.5 session ID or RMCP+ managed-system SID), non-zero
   * @param kind  protocol
   * @param peer  the remote console
   * @param now   creation time, ms
   */
  constructor(
    readonly id: number,
    readonly kind: 'rmcp+' | 'ipmi15',
    readonly peer: Peer,
    now: number,
    handle = 0,
    state: IpmiSessionState = kind === 'rmcp+' ? 'open' : 'challenge',
  ) {
    this.createdAt = now;
    this.lastActivity = now;
    this.handle = handle;
    this.state = state;
  }

  /** Next outbound RMCP+ sequence number (authenticated or not), starting at 1, skipping 0. */
  nextOutSeq(authenticated: boolean): number {
    if (authenticated) {
      this.outAuth = (this.outAuth + 1) >>> 0 || 1;
      return this.outAuth;
    }
    this.outUnauth = (this.outUnauth + 1) >>> 0 || 1;
    return this.outUnauth;
  }

  /** Next outbound IPMI 1.5 sequence number (the value to send, then advances; skips 0). */
  takeOutSeq15(): number {
    const v = this.outSeq15;
    this.outSeq15 = (this.outSeq15 + 1) >>> 0 || 1;
    return v;
  }

  /** True once the login completed. */
  get active(): boolean {
    return this.state === 'active';
  }
}
