/**
 * The LAN channel's session table: active sessions (bounded in total and per user) and half-open
 * logins (RMCP+ after Open Session / RAKP2, IPMI 1.5 temp sessions after Get Session Challenge),
 * bounded separately in total and per source address with the oldest evicted first — so floods of
 * unauthenticated Open Session requests can neither exhaust memory nor lock valid users out
 * (research §S4, §S5). Expiry is driven by `expire(now)` (half-open timeout, idle timeout).
 * (`RmcpSessionTable`, IPMI 1.5 sessions included; the processor boards' connection table is the
 * TCAM's `SessionTable`, board/processor/tcam/.)
 */
import { Session } from './session.ts';
import type { Peer } from './session.ts';

/** Limits and timeouts of the table. */
export interface SessionLimits {
  /** Active sessions on the channel (also the "slot count" of Get Session Info). Default 8. */
  maxSessions: number;
  /** Active sessions per user. Default 4. */
  maxSessionsPerUser: number;
  /** Half-open logins in total. Default 64. */
  maxHalfOpen: number;
  /** Half-open logins per source address. Default 4. */
  maxHalfOpenPerSource: number;
  /** A half-open login is dropped after this many ms. Default 5000. */
  halfOpenTimeoutMs: number;
  /** An active session is closed after this many ms without an authenticated packet. Default 60000. */
  idleTimeoutMs: number;
}

/** Defaults of `SessionLimits`. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: 8,
  maxSessionsPerUser: 4,
  maxHalfOpen: 64,
  maxHalfOpenPerSource: 4,
  halfOpenTimeoutMs: 5000,
  idleTimeoutMs: 60000,
};

/** Why a session left the table. */
export type RemovalReason = 'closed' | 'idle' | 'half-open-timeout' | 'evicted' | 'failed' | 'failover';

/** Sessions of the LAN channel with their limits (see the module comment). */
export class RmcpSessionTable {
  private readonly byId = new Map<number, Session>();

  /**
   * @param limits     sizes and timeouts
   * @param newId      source of random non-zero u32 session IDs
   * @param onRemove   called for every session that leaves the table (for logging)
   * @throws TypeError for non-positive limits
   */
  constructor(
    readonly limits: SessionLimits,
    private readonly newId: () => number,
    private readonly onRemove: (s: Session, why: RemovalReason) => void = () => {},
  ) {
    for (const [k, v] of Object.entries(limits)) {
      if (!(Number.isInteger(v) && v > 0)) throw new TypeError(`session limit ${k} must be a positive integer, got ${v}`);
    }
    if (limits.maxSessions > 63) throw new TypeError('maxSessions must be at most 63 (6-bit fields in Get Session Info)');
  }

  /** The session with BMC session ID `id` (any state). */
  get(id: number): Session | undefined {
    return this.byId.get(id >>> 0);
  }

  /** Active sessions in handle order. */
  active(): Session[] {
    return [...this.byId.values()].filter((s) => s.active).sort((a, b) => a.handle - b.handle);
  }

  /** Number of half-open logins. */
  halfOpenCount(): number {
    let n = 0;
    for (const s of this.byId.values()) if (!s.active) n++;
    return n;
  }

  /** Total entries (active + half-open). */
  get size(): number {
    return this.byId.size;
  }

  /** Active sessions of user `userId`. */
  activeForUser(userId: number): number {
    let n = 0;
    for (const s of this.byId.values()) if (s.active && s.userId === userId) n++;
    return n;
  }

  /** True when another active session fits (total limit). */
  hasActiveRoom(): boolean {
    return this.active().length < this.limits.maxSessions;
  }

  /** True when user `userId` may hold one more active session. */
  hasRoomForUser(userId: number): boolean {
    return this.hasActiveRoom() && this.activeForUser(userId) < this.limits.maxSessionsPerUser;
  }

  /**
   * Adds a half-open login for `peer`, evicting the oldest half-open login of the same source when
   * that source is at its limit, else the globally oldest when the table is at its limit.
   */
  addHalfOpen(kind: 'rmcp+' | 'ipmi15', peer: Peer, now: number): Session {
    const halfOpen = [...this.byId.values()].filter((s) => !s.active).sort((a, b) => a.createdAt - b.createdAt);
    const fromPeer = halfOpen.filter((s) => s.peer.address === peer.address);
    if (fromPeer.length >= this.limits.maxHalfOpenPerSource) this.remove(fromPeer[0]!, 'evicted');
    else if (halfOpen.length >= this.limits.maxHalfOpen) this.remove(halfOpen[0]!, 'evicted');
    const s = new Session(this.uniqueId(), kind, peer, now, 0);
    this.byId.set(s.id, s);
    return s;
  }

  /** Turns a half-open RMCP+ login into an active session in place (assigns a handle). */
  activate(s: Session, now: number): Session {
    s.handle = this.freeHandle();
    s.state = 'active';
    s.lastActivity = now;
    return s;
  }

  /**
   * Creates an active session under a fresh session ID (IPMI 1.5 Activate Session hands out a new
   * ID; the temp session is removed by the caller). The caller checks the limits first.
   */
  addActive(kind: 'rmcp+' | 'ipmi15', peer: Peer, now: number): Session {
    const s = new Session(this.uniqueId(), kind, peer, now, this.freeHandle(), 'active');
    this.byId.set(s.id, s);
    return s;
  }

  /** Removes a session (no-op when absent). */
  remove(s: Session, why: RemovalReason): void {
    if (this.byId.get(s.id) === s) {
      this.byId.delete(s.id);
      this.onRemove(s, why);
    }
  }

  /** Removes every session, half-open logins included. @returns how many active sessions ended */
  removeAll(why: RemovalReason): number {
    let n = 0;
    for (const s of [...this.byId.values()]) {
      if (s.active) n++;
      this.remove(s, why);
    }
    return n;
  }

  /**
   * Drops half-open logins older than the half-open timeout and active sessions idle longer than
   * the idle timeout. @returns the next time (ms) something may expire, or undefined when empty
   */
  expire(now: number): number | undefined {
    let next: number | undefined;
    for (const s of [...this.byId.values()]) {
      const due = s.active ? s.lastActivity + this.limits.idleTimeoutMs : s.createdAt + this.limits.halfOpenTimeoutMs;
      if (now >= due) this.remove(s, s.active ? 'idle' : 'half-open-timeout');
      else next = next === undefined ? due : Math.min(next, due);
    }
    return next;
  }

  private uniqueId(): number {
    for (;;) {
      const id = this.newId() >>> 0;
      if (id !== 0 && !this.byId.has(id)) return id;
    }
  }

  private freeHandle(): number {
    const used = new Set([...this.byId.values()].filter((s) => s.active).map((s) => s.handle));
    for (let h = 1; h <= 255; h++) if (!used.has(h)) return h;
    return 255;
  }
}
