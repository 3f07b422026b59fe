/**
 * Platform Event Filtering at the shelf manager (IPMI v2.0 §17): every SEL record the shelf logs is
 * matched against the enabled event filters (PefConfig); a match whose action is "alert" (and
 * alerts allowed by the action global control) sends a PET (./pet.ts) to each enabled entry of its
 * alert policy — LAN channel 1, the destination's type PET and address set — through the
 * `AlertPort` (chassis/io/pet-sender.ts over net-snmp). The last record processed is what Get Last
 * Processed Event ID reports; while the PEF postpone timer runs (Arm PEF Postpone Timer) records
 * wait, and are processed when it expires or is disarmed.
 *
 * Matching (§17.7, Table 17-2): generator ID bytes 1–2, sensor type, sensor number and event
 * trigger (event/reading type) each FFh = any; the event data 1 offset mask (bit n = offset n); for
 * each event data byte, the bits set in its AND mask and compare 1 must equal compare 2.
 * Not modelled: the PEF and alert startup delays, the policies' "next destination" chaining (every
 * enabled entry of the policy is sent), acknowledged PETs (sent unacknowledged) and actions other
 * than alert (Get PEF Capabilities reports alert only).
 */
import type { Clock, TimerId } from '../../../board/common/clock.ts';
import type { Logger } from '../../../board/common/logger.ts';
import type { SelRecord } from '../../sensors/sel.ts';
import type { LanConfig } from '../lan-services.ts';
import type { PefConfig } from './pef-config.ts';
import { FILTER_COUNT } from './pef-config.ts';
import { petTrap, type PetContext, type PetTrap } from './pet.ts';

/** Where PETs go out (implemented in chassis/io/pet-sender.ts). */
export interface AlertPort {
  /** Sends `trap` as an SNMPv1 Trap with `community` to `ip`. Never throws. */
  sendPet(ip: string, community: string, trap: PetTrap): void;
}

/** What the engine needs to build a PET for a record: entity and identity of the generator. */
export interface PetSource {
  guid(): Uint8Array;
  entity(generatorAddress: number): { entityId: number; entityInstance: number };
  manufacturerId: number;
  systemId: number;
}

/** See the module header. */
export class PefEngine {
  /** Record ID of the last record PEF processed (FFFFh: none yet). */
  lastBmcProcessed = 0xffff;
  /** Set Last Processed Event ID (software): kept for Get. */
  lastSwProcessed = 0xffff;
  private postponeUntil: number | undefined;
  private postponeTimer: TimerId | undefined;
  private readonly pending: SelRecord[] = [];
  private sequence = 0;
  readonly counters = { processed: 0, alerts: 0 };

  constructor(
    private readonly config: PefConfig,
    private readonly lan: () => LanConfig,
    private readonly source: PetSource,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly alerts: AlertPort | undefined,
  ) {}

  /** A new SEL record (called for each `sel.added`). */
  onRecord(r: SelRecord, selTime: number): void {
    if (this.postponeUntil !== undefined) {
      this.pending.push(r);
      return;
    }
    this.process(r, selTime);
  }

  /**
   * Arm PEF Postpone Timer (§30.2): 0 disarms (waiting records are processed), 1..FDh seconds,
   * FEh postpones until disarmed, FFh only reads. @returns the present countdown (seconds; FEh when indefinite)
   */
  postpone(value: number, selTime: () => number): number {
    if (value === 0xff) return this.countdown();
    if (this.postponeTimer !== undefined) this.clock.clearTimeout(this.postponeTimer);
    this.postponeTimer = undefined;
    if (value === 0) {
      this.postponeUntil = undefined;
      for (const r of this.pending.splice(0)) this.process(r, selTime());
      return 0;
    }
    this.postponeUntil = value === 0xfe ? Infinity : this.clock.now() + value * 1000;
    if (value !== 0xfe) this.postponeTimer = this.clock.setTimeout(() => this.postpone(0, selTime), value * 1000);
    return this.countdown();
  }

  private countdown(): number {
    if (this.postponeUntil === undefined) return 0;
    if (this.postponeUntil === Infinity) return 0xfe;
    return Math.max(0, Math.ceil((this.postponeUntil - this.clock.now()) / 1000));
  }

  private process(r: SelRecord, selTime: number): void {
    this.lastBmcProcessed = r.recordId;
    this.counters.processed++;
    if (!this.config.enabled || r.sensorType === undefined) return;
    const policies = new Set<number>();
    let severity = 0;
    for (let n = 1; n <= FILTER_COUNT; n++) {
      const f = this.config.filter(n);
      if (!f.enabled || !(f.action & 0x01) || !matches(f.bytes, r)) continue;
      policies.add(f.policy);
      severity = Math.max(severity, f.bytes[3]!);
    }
    if (policies.size === 0 || !(this.config.actionControl & 0x01)) return;
    const lan = this.lan();
    const gen = (r.generatorId ?? 0) & 0xff;
    const ctx: PetContext = {
      guid: this.config.useGuid ? this.config.guid : this.source.guid(),
      sequence: 0,
      unixTime: r.timestamp ?? selTime,
      severity,
      ...this.source.entity(gen),
      manufacturerId: this.source.manufacturerId,
      systemId: this.source.systemId,
    };
    for (const p of this.config.policyEntries()) {
      if (!p.enabled || !policies.has(p.number) || p.channel !== 1) continue;
      const d = lan.alertDestinations[p.destination];
      if (!d || d.type !== 0 || d.ip === '0.0.0.0') continue;
      this.sequence = (this.sequence + 1) & 0xffff;
      const trap = petTrap(r, { ...ctx, sequence: this.sequence });
      this.counters.alerts++;
      this.log.info({ category: 'pef', record: r.recordId, destination: p.destination, ip: d.ip, specific: trap.specific }, `PET for SEL record ${r.recordId} to ${d.ip}`);
      this.alerts?.sendPet(d.ip, lan.communityString, trap);
    }
  }
}

/** True when event filter `f` (20 bytes, Table 17-2) matches record `r`. */
export function matches(f: Uint8Array, r: SelRecord): boolean {
  const gen = r.generatorId ?? 0;
  const any = (b: number, v: number) => b === 0xff || b === v;
  if (!any(f[4]!, gen & 0xff) || !any(f[5]!, (gen >> 8) & 0xff)) return false;
  if (!any(f[6]!, r.sensorType ?? -1) || !any(f[7]!, r.sensorNumber ?? -1) || !any(f[8]!, (r.eventDirType ?? 0) & 0x7f)) return false;
  const data = r.eventData ?? [0, 0, 0];
  const offsetMask = f[9]! | (f[10]! << 8);
  if (!(offsetMask & (1 << (data[0]! & 0x0f)))) return false;
  for (let i = 0; i < 3; i++) {
    const [and, cmp1, cmp2] = [f[11 + i * 3]!, f[12 + i * 3]!, f[13 + i * 3]!];
    if ((data[i]! & and & cmp1) !== (cmp2 & and & cmp1)) return false;
  }
  return true;
}
