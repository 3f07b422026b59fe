/**
 * The shelf's System Event Log and the one path by which the shelf's parts commit a change: FRU
 * state records, SEL events and any other write in one store transaction, then the events. Every
 * hot-swap transition, threshold crossing, fault and role change is logged here as an IPMI SEL
 * record; a command returns only after the store committed what it changed (so IPMI may
 * acknowledge it). The SEL clock is Unix seconds: a base (the composition root's wall-clock time,
 * or a fixed default for deterministic runs) plus the Clock's elapsed time, moved by Set SEL Time.
 *
 * Sources: IPMI v2.0 §31 (SEL commands: info, reserve, get, add, delete, clear, time), §32 (records).
 */
import { CommandError } from '../../../board/common/errors.ts';
import { describeSelRecord } from '../../sensors/sel-text.ts';
import { eventSensorName, eventSensors } from '../../sensors/event-sensors.ts';
import { SelRepository, type SelAddResult, type SelEventInput, type SelInfo, type SelRecord } from '../../sensors/sel.ts';
import type { ChassisEvent } from '../events.ts';
import type { ShelfContext } from './context.ts';
import type { FruRuntime } from './frus.ts';
import { fruStateRecord } from './records.ts';

/** SEL commands and the shelf's commit path (`shelf.sel`). */
export class ShelfSel {
  private repo: SelRepository;
  private base: number;
  private gate: (generatorId: number) => boolean = () => true;
  private readonly t0: number;

  /**
   * Loads the SEL the store holds (records beyond the configured capacity are not loaded, with a
   * warning). @param timeBase Unix seconds at the Clock's present time
   */
  constructor(
    private readonly ctx: ShelfContext,
    timeBase: number,
  ) {
    this.t0 = ctx.clock.now();
    this.base = timeBase;
    const capacity = ctx.config.selCapacity;
    const stored = ctx.store.loadSel();
    this.repo = new SelRepository(capacity, {
      records: stored.records.slice(0, capacity),
      nextRecordId: stored.nextRecordId,
      overflow: stored.overflow || stored.records.length > capacity,
      lastAddTime: stored.lastAddTime,
      lastEraseTime: stored.lastEraseTime,
    });
    if (stored.records.length > capacity) {
      ctx.log.warn({ category: 'sel', stored: stored.records.length, capacity }, 'stored SEL exceeds the configured capacity; newest records not loaded');
    }
  }

  private now(): number {
    return this.ctx.clock.now();
  }

  /** SEL clock: Unix seconds (base + elapsed Clock time + Set SEL Time adjustments). */
  time(): number {
    return Math.floor(this.base + (this.now() - this.t0) / 1000) >>> 0;
  }

  /** Set SEL Time (IPMI v2.0 §31.11): the SEL clock reads `seconds` from now on (not persisted, as on a BMC). */
  setTime(seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 0xffffffff) throw new CommandError('out_of_range', `SEL time ${seconds} out of range`);
    this.base += seconds - this.time();
    this.ctx.events.emit({ type: 'sel.time', at: this.now(), selTime: this.time() });
  }

  /**
   * Which generators' events reach the SEL: an IPM controller whose event messages are turned off
   * (Set Event Receiver FFh, ./event-receivers.ts) sends none, so its events are not logged.
   * @param gate true when events of `generatorId` (IPMI v2.0 §32.1: slave address, LUN, channel) are logged
   */
  setGate(gate: (generatorId: number) => boolean): void {
    this.gate = gate;
  }

  /**
   * The parts' commit: persists the FRUs' state records, the SEL events and `extra` writes in one
   * transaction, then emits `events` and one `sel.added` (or `sel.full`) per record. On a store
   * failure the in-memory SEL is rolled back and the error is rethrown (nothing is emitted).
   * Events of a generator the gate (setGate) refuses are left out (no result for them).
   */
  commit(frus: FruRuntime[], all: SelEventInput[], events: ChassisEvent[], extra?: () => void): SelAddResult[] {
    const sels = all.filter((ev) => this.gate(ev.generatorId));
    const before = this.repo.state();
    const results: SelAddResult[] = [];
    const t = this.time();
    const store = this.ctx.store;
    try {
      store.transaction(() => {
        extra?.();
        for (const rt of frus) store.putFruState(fruStateRecord(rt));
        for (const ev of sels) {
          const r = this.repo.addEvent(ev, t);
          results.push(r);
          const meta = this.meta();
          if (r.logged) store.appendSel(r.record.recordId, r.bytes, meta);
          else store.putSelMeta(meta);
        }
      });
    } catch (e) {
      this.repo = new SelRepository(this.ctx.config.selCapacity, before);
      throw e;
    }
    const sink = this.ctx.events;
    for (const e of events) sink.emit(e);
    for (const r of results) {
      if (r.logged) sink.emit({ type: 'sel.added', at: this.now(), selTime: t, record: r.record });
      else sink.emit({ type: 'sel.full', at: this.now(), selTime: t });
    }
    return results;
  }

  /** Persists one FRU's state record (no SEL record, no event). @throws StoreError, logged first */
  persist(rt: FruRuntime): void {
    try {
      this.ctx.store.putFruState(fruStateRecord(rt));
    } catch (e) {
      this.ctx.log.error({ category: 'store', err: String(e) }, 'persisting shelf state failed');
      throw e;
    }
  }

  private meta() {
    const s = this.repo.state();
    return { nextRecordId: s.nextRecordId, overflow: s.overflow, lastAddTime: s.lastAddTime, lastEraseTime: s.lastEraseTime };
  }

  /** Get SEL Info (§31.2). */
  info(): SelInfo {
    return this.repo.info();
  }

  /** Reserve SEL (§31.4). */
  reserve(): number {
    return this.repo.reserve();
  }

  /** Get SEL Entry (§31.5): `id` 0 = first, FFFFh = last. @throws CommandError('not_found') */
  entry(id: number): { record: SelRecord; bytes: Uint8Array; next: number } {
    const r = this.repo.get(id);
    if (!r) throw new CommandError('not_found', `no SEL record ${id}`);
    return r;
  }

  /** Every SEL record in log order. */
  records(): readonly SelRecord[] {
    return this.repo.list();
  }

  /** ipmitool-style text of a SEL record (names resolved through this shelf's sensors). */
  describe(r: SelRecord): string {
    return describeSelRecord(r, (addr, num) => this.sensorNameAt(addr, num));
  }

  private sensorNameAt(address: number, number: number): string | undefined {
    const { frus, config } = this.ctx;
    const logical = address === frus.shelfManagerAddress;
    const rt = logical ? frus.all.find((r) => r.cfg.kind === 'shmc') : frus.all.find((r) => r.cfg.ipmbAddress === address);
    if (!rt) return undefined;
    const s = rt.cfg.sensors.find((x) => x.number === number);
    if (s) return s.name;
    const e = eventSensors(rt.cfg).find((x) => x.number === number);
    return e && eventSensorName(logical ? config.shelfManager.label : rt.cfg.label, e);
  }

  /**
   * Logs a system event (any sensor type): HA watchdog events, Platform Event Message (04h/02h) from
   * IPMI. @returns the record, or undefined when the SEL is full (overflow flag set) or the
   * generator's event messages are turned off.
   * @throws CommandError('bad_value') on out-of-range fields
   */
  log(ev: SelEventInput): SelRecord | undefined {
    let r: SelAddResult[];
    try {
      r = this.commit([], [ev], []);
    } catch (e) {
      if (e instanceof RangeError) throw new CommandError('bad_value', e.message);
      throw e;
    }
    const x = r[0];
    return x?.logged ? x.record : undefined;
  }

  /**
   * Add SEL Entry (§31.6): logs a complete record (its ID is replaced; a system event's timestamp
   * is set to the SEL time). @throws CommandError('sel_full' | 'bad_value')
   */
  add(record: SelRecord): SelRecord {
    const before = this.repo.state();
    let r: SelAddResult;
    try {
      r = this.repo.addRecord(record, this.time());
    } catch (e) {
      throw new CommandError('bad_value', (e as Error).message);
    }
    try {
      if (r.logged) this.ctx.store.appendSel(r.record.recordId, r.bytes, this.meta());
      else this.ctx.store.putSelMeta(this.meta());
    } catch (e) {
      this.repo = new SelRepository(this.ctx.config.selCapacity, before);
      throw e;
    }
    if (!r.logged) {
      this.ctx.events.emit({ type: 'sel.full', at: this.now(), selTime: this.time() });
      throw new CommandError('sel_full', 'the SEL is full (overflow flag set)');
    }
    this.ctx.events.emit({ type: 'sel.added', at: this.now(), selTime: this.time(), record: r.record });
    return r.record;
  }

  /**
   * Delete SEL Entry (§31.8). @param reservation the current SEL reservation (required)
   * @throws CommandError('reservation_invalid' | 'not_found')
   */
  delete(id: number, reservation: number): number {
    const before = this.repo.state();
    const r = this.repo.delete(id, reservation);
    if (!r.ok) throw new CommandError(r.reason, r.reason === 'not_found' ? `no SEL record ${id}` : 'SEL reservation is not current');
    try {
      this.ctx.store.deleteSel(r.recordId, this.meta());
    } catch (e) {
      this.repo = new SelRepository(this.ctx.config.selCapacity, before);
      throw e;
    }
    this.ctx.events.emit({ type: 'sel.deleted', at: this.now(), recordId: r.recordId });
    return r.recordId;
  }

  /**
   * Clear SEL (§31.9). IPMI callers pass their reservation; local callers (TUI, CLI) may omit it.
   * @throws CommandError('reservation_invalid')
   */
  clear(reservation?: number): void {
    if (reservation !== undefined && !this.repo.reservationValid(reservation)) throw new CommandError('reservation_invalid', 'SEL reservation is not current');
    const before = this.repo.state();
    this.repo.clear(this.time());
    try {
      this.ctx.store.clearSel(this.meta());
    } catch (e) {
      this.repo = new SelRepository(this.ctx.config.selCapacity, before);
      throw e;
    }
    this.ctx.events.emit({ type: 'sel.cleared', at: this.now(), selTime: this.time() });
  }
}
