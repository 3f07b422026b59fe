/**
 * SnmpFeed: follows the Shelf's event sink (ChassisEvents, chassis/model/events.ts) and keeps an
 * SnmpSink (the agent, or the bus to the ShMCs in split mode) current — a fresh SnmpView after
 * every burst of events (coalesced on the clock: one rebuild per turn), and a notification per
 * hot-swap transition and threshold crossing (./notifications.ts), plus entConfigChange when a FRU
 * enters or leaves M0 (at most one per 5 s, RFC 6933; entLastChangeTime always moves). The view is
 * brought up to date before a notification goes out, so a manager that reads the tables on
 * receipt sees the change.
 *
 * Pure: time from the Clock; the sink does the I/O.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import type { ChassisEvent } from '../model/events.ts';
import { enterpriseOids, type EnterpriseOids } from './oids.ts';
import { configChangeNotification, hotSwapNotification, thresholdNotification } from './notifications.ts';
import { buildSnmpView, type SnmpSource } from './rows.ts';
import type { SnmpNotification, SnmpSink, SnmpView } from './view.ts';

/** RFC 6933: entConfigChange at most once per 5 s. */
export const CONFIG_CHANGE_MIN_INTERVAL_MS = 5000;

/** A source that also announces its events (the Shelf). */
export interface SnmpFeedSource extends SnmpSource {
  onAny(fn: (e: ChassisEvent) => void): () => void;
}

/** See the module header. */
export class SnmpFeed {
  private readonly oids: EnterpriseOids;
  private readonly fruChanged = new Map<string, number>();
  private readonly sensorRead = new Map<string, number>();
  private lastChange: number | undefined;
  private lastConfigChangeSent: number | undefined;
  private timer: TimerId | undefined;
  private latest: SnmpView;
  private readonly off: () => void;
  private stopped = false;

  /** Subscribes to `src` and hands `sink` the first view at once. */
  constructor(
    private readonly src: SnmpFeedSource,
    private readonly clock: Clock,
    private readonly sink: SnmpSink,
  ) {
    this.oids = enterpriseOids(src.config.snmp.enterpriseOid);
    this.latest = this.build();
    this.off = src.onAny((e) => this.onEvent(e));
    sink.view(this.latest);
  }

  /** The view as of the last rebuild (a ShMC that registers gets it). */
  current(): SnmpView {
    return this.latest;
  }

  /** Rebuilds now if anything changed since the last view. */
  flush(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.latest = this.build();
    this.sink.view(this.latest);
  }

  /** Unsubscribes and cancels the pending rebuild. */
  stop(): void {
    this.stopped = true;
    this.off();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private build(): SnmpView {
    return buildSnmpView(this.src, { now: this.clock.now(), fruChanged: this.fruChanged, sensorRead: this.sensorRead, ...(this.lastChange !== undefined ? { lastChange: this.lastChange } : {}) });
  }

  private onEvent(e: ChassisEvent): void {
    if (this.stopped) return;
    const out: SnmpNotification[] = [];
    const c = this.src.config;
    if (e.type === 'hotswap') {
      this.fruChanged.set(e.fru, e.at);
      const n = hotSwapNotification(c, this.oids, e);
      if (n) out.push(n);
      if (e.from === 0 || e.to === 0) {
        this.lastChange = e.at;
        if (this.lastConfigChangeSent === undefined || e.at - this.lastConfigChangeSent >= CONFIG_CHANGE_MIN_INTERVAL_MS) {
          this.lastConfigChangeSent = e.at;
          out.push(configChangeNotification());
        }
      }
    } else if (e.type === 'sensor.value') {
      this.sensorRead.set(`${e.fru}#${e.number}`, e.at);
    } else if (e.type === 'sensor.threshold') {
      const n = thresholdNotification(c, this.oids, e);
      if (n) out.push(n);
    }
    if (this.timer === undefined) this.timer = this.clock.setTimeout(() => this.flush(), 0);
    if (out.length === 0) return;
    this.flush();
    for (const n of out) this.sink.notify(n);
  }
}
