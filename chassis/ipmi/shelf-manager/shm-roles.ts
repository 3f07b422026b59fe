/**
 * Shelf-manager redundancy as the IPMI side sees it: who answers the shelf address, the
 * switchover that `clia switchover` (OEM) or deactivating / cold-resetting FRU 0 at 20h performs,
 * and the status `clia shmstatus` reports.
 *
 * With an HA hook (the runtime's pair controller) the switchover is the HA layer's: the hook must
 * move the `active` role (Shelf.roles.set) before it returns, or throw CommandError to refuse.
 * Until HA is wired, a built-in fallback does it through the Shelf's ShMC roles, so the shelf
 * address keeps answering (the peer now): the peer must be installed in M4 without faults and not
 * `failed`/`resetting`/`booting`; it becomes `active` with the next epoch, the old active becomes
 * `standby.hot` (command, cold reset — it comes back at once) or `failed` (deactivated: payload
 * off). After a built-in switchover the fallback keeps the ShMC roles in step with the M-states:
 * a standby ShMC reaching M4 becomes `standby.hot`, one leaving it `failed`, and if the active one
 * leaves M4 while its peer is in M4 the peer takes over (a failover). It never sets roles before the
 * first switchover: until then the Shelf's rule (first ShMC in M4) names the active ShMC.
 *
 * Status without an HA hook: the answering ShMC's role is its recorded role, else `active`; the
 * peer's role is its recorded role, else `standby.hot` in M4, `failed` in M1–M3/M5–M7, `absent`
 * when not configured or not installed (M0).
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { Logger } from '../../../board/common/logger.ts';
import type { HaRoleName } from '../../model/events.ts';
import type { Shelf } from '../../model/shelf.ts';
import { ShelfRefusal, ccForCommandError } from './errors.ts';
import type { HaAlarm, ShmStatus, SwitchoverReason } from './target.ts';
import type { WatchdogPort } from '../watchdog-port.ts';
import type { PayloadFirmwarePort } from '../hpm/shelf-hpm.ts';

/** The HA layer's part (optional callbacks the runtime fills). */
export interface ShelfIpmiHaHooks {
  /**
   * Planned switchover of the ShMC pair requested over IPMI. Must be synchronous: when it returns,
   * `shelf.activeShmc()` must be `to`. Throw CommandError to refuse (answered D5h, the code and
   * message go back in OEM responses).
   */
  switchover?(request: { reason: SwitchoverReason; from: string; to: string }): void;
  /** Shelf-manager status for `shmstatus` (role of the answering ShMC and its peer). */
  shmStatus?(): ShmStatus;
  /** Alarms raised now on every pair member (`clia alarm`, `showunhealthy`). */
  alarms?(): readonly HaAlarm[];
  /** The IPMI watchdog of a ShMC as the HA layer owns it (createShelfIpmi uses it when no `watchdog` option is given). */
  watchdog?(shmc: string): WatchdogPort | undefined;
  /** Installs payload software on the HA nodes (HPM.1 payload component, chassis/ipmi/hpm/shelf-hpm.ts). */
  readonly payloadFirmware?: PayloadFirmwarePort;
}

const NOT_READY: ReadonlySet<HaRoleName> = new Set(['failed', 'resetting', 'booting']);

function refuse(code: string, message: string): ShelfRefusal {
  return new ShelfRefusal(ccForCommandError(code), code, message);
}

/** Shelf-manager roles, switchover and status over a Shelf. */
export class ShmRoles {
  private builtIn = false;
  private busy = false;

  constructor(
    private readonly shelf: Shelf,
    private readonly log: Logger,
    private readonly hooks: ShelfIpmiHaHooks = {},
  ) {}

  /** ShMC FRU names in configuration order. */
  shmcs(): string[] {
    return this.shelf.fruNames().filter((n) => this.shelf.fruConfig(n).kind === 'shmc');
  }

  /** The ShMC answering the shelf address: the active one, else the first configured. */
  answering(): string {
    return this.shelf.activeShmc() ?? this.shmcs()[0]!;
  }

  private peerOf(shmc: string): string | undefined {
    return this.shmcs().find((n) => n !== shmc);
  }

  private role(shmc: string): { role: HaRoleName; epoch: number } | undefined {
    const r = this.shelf.roles.of(shmc).find((x) => x.key === shmc) ?? this.shelf.roles.of(shmc)[0];
    return r && { role: r.role, epoch: r.epoch };
  }

  private epoch(): number {
    return Math.max(0, ...this.shmcs().flatMap((n) => this.shelf.roles.of(n).map((r) => r.epoch)));
  }

  /**
   * Hands the active role to the peer ShMC.
   * @throws ShelfRefusal (D5h) when there is no active ShMC, no peer able to take over, or the HA hook refuses
   */
  switchover(reason: SwitchoverReason): { from: string; to: string } {
    const from = this.shelf.activeShmc();
    if (!from) throw refuse('no_active', 'no shelf manager is active');
    const to = this.peerOf(from);
    if (!to) throw refuse('no_standby', `${from} has no peer shelf manager to take over`);
    if (this.hooks.switchover) {
      try {
        this.hooks.switchover({ reason, from, to });
      } catch (e) {
        if (e instanceof CommandError) throw refuse(e.code, e.message);
        throw e;
      }
      if (this.shelf.activeShmc() !== to) throw refuse('switchover_refused', `the HA layer did not make ${to} active`);
      this.log.info({ category: 'switchover', from, to, reason }, 'shelf-manager switchover (HA)');
      return { from, to };
    }
    const state = this.shelf.state(to);
    const snap = this.shelf.snapshot().frus.find((f) => f.name === to);
    const r = this.role(to);
    if (state !== 4 || (snap && snap.faults.length > 0) || (r && NOT_READY.has(r.role))) {
      throw refuse('no_standby', `${to} cannot take over: it is in M${state}${snap && snap.faults.length ? ` with a ${snap.faults.join('/')} fault` : ''}${r ? ` (${r.role})` : ''}`);
    }
    this.apply(from, to, reason === 'deactivate' ? 'failed' : 'standby.hot');
    this.log.info({ category: 'switchover', from, to, reason }, 'shelf-manager switchover (built-in)');
    return { from, to };
  }

  private apply(from: string, to: string, oldRole: HaRoleName): void {
    const epoch = this.epoch() + 1;
    this.busy = true;
    try {
      this.shelf.roles.set(to, 'active', epoch);
      this.shelf.roles.set(from, oldRole, epoch);
    } finally {
      this.busy = false;
    }
    this.builtIn = true;
  }

  /**
   * Built-in mode only: keeps the ShMC roles in step with a ShMC's M-state change (see the module
   * note). Call on every hot-swap event of a ShMC.
   */
  onShmcStateChange(shmc: string, to: number): void {
    if (!this.builtIn || this.hooks.switchover || this.busy) return;
    const r = this.role(shmc);
    if (!r) return;
    const epoch = this.epoch();
    this.busy = true;
    try {
      if (r.role === 'active' && to !== 4) {
        const peer = this.peerOf(shmc);
        const pr = peer ? this.role(peer) : undefined;
        if (peer && this.shelf.state(peer) === 4 && !(pr && NOT_READY.has(pr.role))) {
          this.shelf.roles.set(peer, 'active', epoch + 1);
          this.shelf.roles.set(shmc, 'failed', epoch + 1);
          this.log.warn({ category: 'failover', from: shmc, to: peer }, 'active shelf manager left M4; peer took over (built-in)');
        }
      } else if (r.role !== 'active') {
        const want: HaRoleName = to === 4 ? 'standby.hot' : 'failed';
        if (want !== r.role) this.shelf.roles.set(shmc, want, epoch);
      }
    } catch (e) {
      this.log.error({ category: 'shm-roles', err: String(e) }, 'could not update a shelf-manager role');
    } finally {
      this.busy = false;
    }
  }

  /** Shelf-manager status seen from the shelf address. */
  status(): ShmStatus {
    if (this.hooks.shmStatus) return this.hooks.shmStatus();
    const self = this.answering();
    const mine = this.role(self);
    const peer = this.peerOf(self);
    let peerRole: HaRoleName | 'absent' = 'absent';
    if (peer && this.shelf.state(peer) !== 0) {
      peerRole = this.role(peer)?.role ?? (this.shelf.state(peer) === 4 ? 'standby.hot' : 'failed');
    }
    const s: ShmStatus = { self, role: mine?.role ?? 'active', peerRole, epoch: mine?.epoch ?? 0 };
    if (peer) s.peer = peer;
    return s;
  }
}
