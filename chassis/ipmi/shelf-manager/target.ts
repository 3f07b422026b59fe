/**
 * What a command handler of the shelf's controllers works against: the Shelf, the FRU behind the
 * controller, the FRU device IDs it exposes, and the services shared by all controllers (the PICMG
 * extras, shelf-manager switchover and status, console paths).
 *
 * Addressing (PICMG 3.0 §3.2.1; research/ipmi.md §E.1):
 * - every IPM controller at its IPMB-0 address (boards 82h…, fan trays 52h…, PEMs 58h…, ShMCs at
 *   10h/12h) exposes FRU device 0 = its own FRU;
 * - the logical shelf manager at 20h stands for the active ShMC: FRU device 0 is that ShMC, and
 *   FRU device ID n ≠ 0 addresses the shelf FRU whose hardware address is n (e.g. 43h = slot3,
 *   08h = shmc-a), so `ipmitool picmg deactivate 0x43` at 20h equals `-t 0x86 picmg deactivate 0`.
 *   IDs with no FRU answer D3h, as a controller without that FRU does (ipmi_sim: `picmg addrinfo 1`).
 */
import type { Logger } from '../../../board/common/logger.ts';
import type { HaRoleName } from '../../model/events.ts';
import type { Shelf } from '../../model/shelf.ts';
import { CompletionCode, IpmiError } from '../codes.ts';
import type { PicmgExtras } from './extras.ts';

/** Why the active ShMC is switched over. */
export type SwitchoverReason = 'command' | 'deactivate' | 'cold-reset';

/** Shelf-manager redundancy status as `clia shmstatus` shows it. */
export interface ShmStatus {
  /** FRU name of the ShMC answering the shelf-manager address (e.g. 'shmc-a'). */
  self: string;
  /** Its HA role (full role name of the HA layer: 'active', 'standby.hot', …). */
  role: HaRoleName;
  /** FRU name of the other ShMC, when one is configured. */
  peer?: string;
  /** The peer's HA role, or 'absent' when there is no peer (not configured or not installed). */
  peerRole: HaRoleName | 'absent';
  /** Activation epoch of the active role (0 when unknown). */
  epoch: number;
}

/** An alarm raised by the HA layer on one pair member (docs/ha.md "Alarms"). */
export interface HaAlarm {
  /** Node that raised it (`shmc-a`, `slot3`). */
  node: string;
  /** Share or pair (`shmc`, `lb1/slot3`). */
  share: string;
  /** Alarm name, e.g. `REDUNDANCY_LOST`. */
  alarm: string;
}

/** Services shared by the controllers of one shelf. */
export interface ShelfServices {
  readonly shelf: Shelf;
  readonly extras: PicmgExtras;
  readonly log: Logger;
  /**
   * Hands the active ShMC's role to its peer (planned switchover). When it returns, the shelf
   * address (20h) is answered by the new active ShMC.
   * @returns the ShMC that was active and the one that is now
   * @throws ShelfRefusal (IpmiError D5h) when there is no healthy standby or the HA layer refuses
   */
  switchover(reason: SwitchoverReason): { from: string; to: string };
  /** The shelf-manager status seen from the shelf address. */
  shmStatus(): ShmStatus;
  /** Serial-console path of a FRU (a PTY or device path), if the runtime provides one. */
  consolePath(fru: string): string | undefined;
  /** The stable link to that console, when the runtime made one. */
  consoleLink(fru: string): string | undefined;
  /** Alarms the HA layer has raised now (empty without HA). */
  haAlarms(): readonly HaAlarm[];
  /** TELCO alarm outputs set by an operator (`clia alarm major`): bit mask b0 minor, b1 major, b2 critical. */
  alarmPanel: { operator: number };
}

/** One controller's view for its command handlers. */
export interface ShelfTarget {
  readonly services: ShelfServices;
  readonly shelf: Shelf;
  /** IPMB address the controller answers (20h for the logical shelf manager). */
  readonly address: number;
  /** True for the logical shelf manager at 20h: shelf-wide commands and the FRU-ID mapping. */
  readonly logical: boolean;
  /** FRU name of FRU device 0 (at 20h: the ShMC this controller stands for). */
  readonly fru: string;
  /** Highest FRU device ID (Get PICMG Properties). */
  readonly maxFruId: number;
  /** FRU name of FRU device `id`. @throws IpmiError(D3h) when the controller has no such FRU */
  fruById(id: number): string;
}

/**
 * A target for the controller of `fru` at `address`.
 * @param logical the logical shelf manager (20h): FRU IDs ≠ 0 map to hardware addresses
 */
export function makeTarget(services: ShelfServices, fru: string, address: number, logical: boolean): ShelfTarget {
  const shelf = services.shelf;
  const byHa = new Map<number, string>();
  if (logical) for (const name of shelf.fruNames()) byHa.set(shelf.fruConfig(name).hardwareAddress, name);
  const maxFruId = logical ? Math.max(0, ...byHa.keys()) : 0;
  return {
    services,
    shelf,
    address,
    logical,
    fru,
    maxFruId,
    fruById(id: number): string {
      if (id === 0) return fru;
      const f = logical ? byHa.get(id) : undefined;
      if (!f) throw new IpmiError(CompletionCode.DestinationUnavailable, `no FRU device ${id} at ${address.toString(16)}h`);
      return f;
    },
  };
}
