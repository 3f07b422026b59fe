/**
 * HPM.1 on the shelf's IPM controllers: one HpmUpgradeTarget per FRU with a controller, shared by
 * the controller at its IPMB-0 address and (for a ShMC) the logical shelf manager standing for it.
 *
 * Components:
 *   0 "IPMC"    — the controller's firmware: its version is Get Device ID's firmware revision;
 *                 activating it changes that revision (the controller is back at once); backup kept.
 *   1 "Payload" — (ShMCs, hubs, processor boards) the payload software. For a node of an HA pair
 *                 its version is the one the HA layer runs, and activating or rolling it back goes
 *                 through the `PayloadFirmwarePort` (the node hands its shares to its buddy,
 *                 reboots on the new version and takes its home share back; the port refuses a
 *                 version the buddy would not accept). Without a node (a hub, or no HA) the version
 *                 is recorded only: nothing reboots. Backup kept; payload cold reset.
 *   2 "Boot"    — the boot loader: version recorded only; no backup (HPM.1 allows it).
 *
 * Versions are not persisted: a restarted emulator starts from the configured IPMC revisions,
 * 1.00 for the boot loaders and the HA layer's version (1.0) for payloads.
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { Shelf } from '../../model/shelf.ts';
import { CompletionCode, IpmiError } from '../codes.ts';
import type { Controller } from '../controller.ts';
import { ccForCommandError } from '../shelf-manager/errors.ts';
import type { FirmwareVersion } from './image.ts';
import { HpmUpgradeTarget, type HpmCapabilities, type HpmComponent, type RunResult } from './upgrade-target.ts';

/** A payload software version as the HA layer counts it. */
export interface PayloadVersion {
  major: number;
  minor: number;
}

/** What the HA layer offers for installing payload software on the nodes it runs. */
export interface PayloadFirmwarePort {
  /** The version `fru`'s payload runs, or undefined when the HA layer runs no node for it. */
  version(fru: string): PayloadVersion | undefined;
  /** @throws CommandError (stable code, one-line reason) when `version` cannot be installed now; changes nothing */
  check(fru: string, version: PayloadVersion): void;
  /**
   * Installs `version` cooperatively: shares to the buddy, reboot, home share back. `done()` when
   * the node serves on it again, `done(error)` when it did not (after a refusal nothing changed).
   */
  install(fru: string, version: PayloadVersion, done: (error?: CommandError) => void): void;
}

/** Target capabilities: self-test, manual rollback, service affected (payload), deferred activation; 120 s upgrade and rollback, 10 s self-test, 20 s inaccessibility. */
export function shelfCapabilities(hasPayload: boolean): HpmCapabilities {
  return { global: 0x01 | 0x04 | 0x10 | (hasPayload ? 0x08 : 0), upgradeTimeout: 24, selfTestTimeout: 2, rollbackTimeout: 24, inaccessTimeout: 4 };
}

const PAYLOAD_KINDS: ReadonlySet<string> = new Set(['shmc', 'hub', 'processor']);

function v6(major: number, minor: number, aux: readonly number[] = [0, 0, 0, 0]): FirmwareVersion {
  return { major, minor, aux: [...aux] };
}

function refusal(e: unknown): IpmiError {
  if (e instanceof CommandError) return new IpmiError(ccForCommandError(e.code), e.message);
  throw e;
}

function ipmcComponent(controllers: () => Controller[]): HpmComponent {
  const info = () => controllers()[0]!.info;
  return {
    id: 0,
    description: 'IPMC',
    rollback: true,
    payloadColdReset: false,
    current: () => v6(info().firmwareMajor, info().firmwareMinor, [...(info().auxFirmware ?? new Uint8Array(4))]),
    check: () => {},
    run: (v, done) => {
      for (const c of controllers()) c.info = { ...c.info, firmwareMajor: v.major, firmwareMinor: v.minor, auxFirmware: Uint8Array.from(v.aux) };
      done({ ok: true });
    },
  };
}

function recordedComponent(id: number, description: string, rollback: boolean, coldReset: boolean): HpmComponent {
  let version = v6(1, 0);
  return {
    id, description, rollback, payloadColdReset: coldReset,
    current: () => version,
    check: () => {},
    run: (v, done) => {
      version = v;
      done({ ok: true });
    },
  };
}

function payloadComponent(fru: string, port: PayloadFirmwarePort): HpmComponent {
  const recorded = recordedComponent(1, 'Payload', true, true);
  const runsNode = () => port.version(fru) !== undefined;
  return {
    ...recorded,
    current: () => {
      const v = port.version(fru);
      return v ? v6(v.major, Math.min(99, v.minor)) : recorded.current();
    },
    check: (v) => {
      if (!runsNode()) return;
      try {
        port.check(fru, v);
      } catch (e) {
        throw refusal(e);
      }
    },
    run: (v, done: (r: RunResult) => void) => {
      if (!runsNode()) return recorded.run(v, done);
      try {
        port.install(fru, { major: v.major, minor: v.minor }, (err) => {
          if (!err) done({ ok: true });
          // reported by Get Upgrade Status: not D5h, which ipmitool reads as "still running"
          else done({ ok: false, cc: CompletionCode.Unspecified, reason: err.message });
        });
      } catch (e) {
        done({ ok: false, cc: refusal(e).cc, reason: String((e as Error).message) });
      }
    },
  };
}

/**
 * One upgrade target per FRU of `shelf`.
 * @param controllers the controllers answering for a FRU (its IPMB-0 controller first; for a ShMC
 *   also its logical shelf-manager controller), read when the IPMC component is activated
 * @param port the HA layer's payload installer; without it payload versions are recorded only
 */
export function shelfHpmTargets(shelf: Shelf, controllers: (fru: string) => Controller[], port?: PayloadFirmwarePort): Map<string, HpmUpgradeTarget> {
  const none: PayloadFirmwarePort = {
    version: () => undefined,
    check: () => {},
    install: () => {
      throw new IpmiError(CompletionCode.NotSupportedInPresentState, 'no payload installer');
    },
  };
  const out = new Map<string, HpmUpgradeTarget>();
  for (const fru of shelf.fruNames()) {
    const hasPayload = PAYLOAD_KINDS.has(shelf.fruConfig(fru).kind);
    const comps = [ipmcComponent(() => controllers(fru)), ...(hasPayload ? [payloadComponent(fru, port ?? none)] : []), recordedComponent(2, 'Boot', false, false)];
    out.set(fru, new HpmUpgradeTarget(comps, shelfCapabilities(hasPayload)));
  }
  return out;
}

