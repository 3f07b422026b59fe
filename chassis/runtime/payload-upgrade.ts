/**
 * Installing payload software on an HA node, as an HPM.1 activation (or manual rollback) of the
 * payload component asks it (chassis/ipmi/hpm/shelf-hpm.ts `PayloadFirmwarePort`): a blue/green
 * step for one node, the same operator actions as a scenario's `switchover` and `upgrade NODE
 * VERSION` (docs/scenarios.md S25):
 *
 *   1. check (nothing changes when refused): the node runs; its buddy runs a version of the same
 *      major (a different major would be refused by the buddy's version gate, `incompatible_version`,
 *      as the HA layer refuses it today); every share the node owns has a hot standby
 *      (`peer_not_hot`); no install runs on the node (`upgrade_in_progress`);
 *   2. the shares the node owns are handed to the buddy (planned switchovers: final sync, nothing
 *      lost). A switchover the owner abandons on its handover timeout (the final sync not
 *      acknowledged, or the offer not taken: docs/ha.md) is asked again, up to `handoverAttempts`
 *      times in all; then the install ends with `handover_abandoned` and the node keeps serving
 *      on its old version (so the HPM.1 activation ends failed and may be asked again);
 *   3. once the buddy owns them, `upgrade NODE VERSION` reboots the node on the new version;
 *   4. once the node is back as a hot standby of every share of its pair, its home share is switched
 *      back to it (asked again while the owner has not heard it hot yet; a ShMC has no home share:
 *      it stays standby);
 *   5. done. A step that does not finish within `timeoutMs` (default 100 s, below the HPM.1 upgrade
 *      timeout of 120 s the controllers report) ends the install with `upgrade_timeout`.
 *
 * Progress is polled every heartbeat interval on the HA clock.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { HaFabric } from '../ha/ha-fabric.ts';
import { compatible, type CompatVersion } from '../ha/heartbeat.ts';
import type { PayloadFirmwarePort } from '../ipmi/hpm/shelf-hpm.ts';
import type { HaOperatorAction } from './ha-seam.ts';

/** What the installer works with (the HA part's fabric, its clock and its operator actions). */
export interface PayloadInstallerOptions {
  fabric: HaFabric;
  clock: Clock;
  /** Runs an operator action (switchover, upgrade) the way the HA part does. @throws CommandError */
  perform(a: HaOperatorAction): void;
  log: Logger;
  /** Deadline of each install, ms [100000]. */
  timeoutMs?: number;
  /** Planned switchovers asked per owned share before an abandoned handover ends the install [3]. */
  handoverAttempts?: number;
}

const text = (v: CompatVersion) => `${v.major}.${v.minor}`;

/** See the module header. */
export class PayloadInstaller implements PayloadFirmwarePort {
  private readonly running = new Map<string, TimerId>();
  private stopped = false;

  constructor(private readonly o: PayloadInstallerOptions) {}

  version(fru: string): CompatVersion | undefined {
    return this.o.fabric.hasNode(fru) ? this.o.fabric.controller(fru).softwareVersion : undefined;
  }

  check(fru: string, version: CompatVersion): void {
    const f = this.o.fabric;
    if (!f.hasNode(fru)) throw new CommandError('not_ha_node', `${fru} is not a member of a redundant pair`);
    if (this.running.has(fru)) throw new CommandError('upgrade_in_progress', `${fru}: a payload install is in progress`);
    const c = f.controller(fru);
    if (!c.isRunning) throw new CommandError('not_running', `${fru}: its payload is not running (off, in reset or booting)`);
    const pair = f.pairOfNode(fru);
    const peer = pair.cfg.members.find((m) => m !== fru);
    if (peer === undefined) return;
    const pv = f.controller(peer).softwareVersion;
    if (!compatible(version, pv)) {
      throw new CommandError('incompatible_version', `${peer} runs ${text(pv)} and refuses ${text(version)} (another major version): ${fru} would stay standby.ready`);
    }
    for (const s of pair.shares) {
      if (f.ownerOf(s) === fru && f.roleOf(peer, s) !== 'standby.hot') throw new CommandError('peer_not_hot', `${s}: ${peer} is ${f.roleOf(peer, s)}, not a hot standby`);
    }
  }

  install(fru: string, version: CompatVersion, done: (error?: CommandError) => void): void {
    this.check(fru, version);
    const f = this.o.fabric;
    const pair = f.pairOfNode(fru);
    const peer = pair.cfg.members.find((m) => m !== fru);
    const owned = pair.shares.filter((s) => f.ownerOf(s) === fru);
    const home = pair.shares.filter((s) => s === `${pair.cfg.name}/${fru}`);
    const deadline = this.o.clock.now() + (this.o.timeoutMs ?? 100_000);
    for (const s of owned) this.o.perform({ op: 'switchover', pair: s });
    const attempts = new Map(owned.map((s) => [s, 1]));
    this.o.log.info({ category: 'hpm', node: fru, version: text(version), handed: owned }, `${fru}: installing payload ${text(version)}: ${owned.length ? `handing ${owned.join(', ')} to ${peer}` : 'no share to hand over'}`);
    const finish = (err?: CommandError) => {
      this.running.delete(fru);
      if (err) this.o.log.warn({ category: 'hpm', node: fru, code: err.code }, `${fru}: payload ${text(version)} not installed: ${err.message}`);
      else this.o.log.info({ category: 'hpm', node: fru, version: text(version) }, `${fru}: payload ${text(version)} installed, serving`);
      done(err);
    };
    let phase: 'handover' | 'reboot' | 'takeback' = 'handover';
    const step = (): void => {
      if (this.stopped) return;
      if (this.o.clock.now() > deadline) return finish(new CommandError('upgrade_timeout', `${fru}: payload install did not finish (${phase})`));
      try {
        if (phase === 'handover') this.retryAbandoned(fru, owned, attempts);
        if (phase === 'handover' && owned.every((s) => f.ownerOf(s) === peer && f.roleOf(fru, s) !== 'active.handover')) {
          phase = 'reboot';
          this.o.perform({ op: 'upgrade', node: fru, version: text(version) });
        } else if (phase === 'reboot' && f.controller(fru).isRunning && pair.shares.every((s) => f.roleOf(fru, s) === 'standby.hot')) {
          phase = 'takeback';
        }
        if (phase === 'takeback') {
          if (home.every((s) => f.ownerOf(s) === fru)) return finish();
          for (const s of home) if (f.ownerOf(s) === peer && f.roleOf(peer, s) === 'active') this.takeBack(s);
        }
      } catch (e) {
        if (!(e instanceof CommandError)) throw e;
        return finish(e);
      }
      this.running.set(fru, this.o.clock.setTimeout(step, f.cfg.heartbeatMs));
    };
    this.running.set(fru, this.o.clock.setTimeout(step, f.cfg.heartbeatMs));
  }

  /**
   * Asks again the switchover of each share whose handover `fru` abandoned (it is still the owner,
   * serving, with the abandon reason set; an accepted switchover clears the reason).
   * @throws CommandError('handover_abandoned') once a share used up its attempts; a refusal of
   *   the new switchover (e.g. 'peer_not_hot')
   */
  private retryAbandoned(fru: string, owned: readonly string[], attempts: Map<string, number>): void {
    const f = this.o.fabric;
    const max = this.o.handoverAttempts ?? 3;
    for (const s of owned) {
      if (f.ownerOf(s) !== fru || f.roleOf(fru, s) !== 'active') continue;
      const reason = f.controller(fru).snapshot(s).context.handoverAborted;
      if (reason === null) continue;
      const n = attempts.get(s) ?? 1;
      if (n >= max) {
        throw new CommandError('handover_abandoned', `${fru}: planned switchover of ${s} abandoned ${n} times (${reason}): ${fru} keeps serving its old version`);
      }
      this.o.log.warn({ category: 'hpm', node: fru, share: s, reason, attempt: n + 1 }, `${fru}: planned switchover of ${s} abandoned (${reason}), asking again (${n + 1} of ${max})`);
      attempts.set(s, n + 1);
      this.o.perform({ op: 'switchover', pair: s });
    }
  }

  /** Switches a home share back; the owner may not have heard the node hot yet (`peer_not_hot`): tried again next time. */
  private takeBack(share: string): void {
    try {
      this.o.perform({ op: 'switchover', pair: share });
    } catch (e) {
      if (!(e instanceof CommandError) || e.code !== 'peer_not_hot') throw e;
    }
  }

  /** Stops polling (the HA part stops). */
  stop(): void {
    this.stopped = true;
    for (const t of this.running.values()) this.o.clock.clearTimeout(t);
    this.running.clear();
  }
}
