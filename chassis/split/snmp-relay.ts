/**
 * SNMP across the shelf–ShMC bus (split mode; docs/snmp.md, docs/split.md). The shelf's management
 * data — FRUs, sensors, hot-swap states — lives in the shelf process, the agent runs in the active
 * ShMC's process (which binds the SNMP port while active, as it binds the shelf's IPMI address):
 *
 * - shelf side, SnmpBusRelay (an SnmpSink for the SnmpFeed): every SnmpView goes to every registered
 *   ShMC as `snmpview` parts (so a standby holds the current rows when it takes over), the settings
 *   as `snmpconf` to each ShMC that registers, followed by the current view; each notification goes
 *   as `snmptrap` to the active ShMC only (none active, as during a failover: it is counted as dropped);
 * - ShMC side, SnmpBusReceiver: puts the parts together and hands the settings, the views and the
 *   notifications to its port (chassis/io/snmp-shmc.ts, which runs the agent).
 *
 * Pure: the bus and the agent are ports.
 */
import type { Logger } from '../../board/common/logger.ts';
import type { SnmpSettings } from '../config/types.ts';
import type { SnmpNotification, SnmpSink, SnmpView } from '../snmp/view.ts';
import type { ToShmc } from './bus-codec.ts';

/** Bytes of view JSON per `snmpview` message (escaped inside a bus line of at most 64 KiB). */
export const SNMP_VIEW_PART = 16 * 1024;

/** What a ShMC needs to run the shelf's agent. */
export interface SnmpAgentConf {
  settings: SnmpSettings;
  /** snmpEngineID, hex. */
  engineId: string;
  bind: string;
  port: number;
}

/** The bus as the relay uses it (SplitShelf implements it). */
export interface SnmpBusPorts {
  /** Sends to every registered ShMC. */
  broadcast(m: ToShmc): void;
  /** Sends to the active ShMC. @returns false when there is none */
  sendToActive(m: ToShmc): boolean;
  /** Calls `fn` with the send function of each ShMC that registers from now on. @returns unsubscribe */
  onRegistered(fn: (send: (m: ToShmc) => void) => void): () => void;
}

/** The `snmpview` messages of a view. */
export function snmpViewMessages(v: SnmpView, part = SNMP_VIEW_PART): Array<Extract<ToShmc, { t: 'snmpview' }>> {
  const text = JSON.stringify(v);
  const out: Array<Extract<ToShmc, { t: 'snmpview' }>> = [];
  for (let i = 0; i < text.length || out.length === 0; i += part) {
    out.push({ t: 'snmpview', seq: v.seq, last: i + part >= text.length, data: text.slice(i, i + part) });
  }
  return out;
}

/** Shelf side (see the module header). */
export class SnmpBusRelay implements SnmpSink {
  /** Notifications dropped because no ShMC was active. */
  dropped = 0;
  private latest: SnmpView | undefined;
  private readonly off: () => void;

  constructor(
    private readonly bus: SnmpBusPorts,
    conf: SnmpAgentConf,
  ) {
    const confMsg: ToShmc = { t: 'snmpconf', data: JSON.stringify(conf) };
    this.off = bus.onRegistered((send) => {
      send(confMsg);
      if (this.latest) for (const m of snmpViewMessages(this.latest)) send(m);
    });
  }

  view(v: SnmpView): void {
    this.latest = v;
    for (const m of snmpViewMessages(v)) this.bus.broadcast(m);
  }

  notify(n: SnmpNotification): void {
    if (!this.bus.sendToActive({ t: 'snmptrap', data: JSON.stringify(n) })) this.dropped++;
  }

  /** Stops sending to ShMCs that register later. */
  stop(): void {
    this.off();
  }
}

/** What the ShMC side hands on. */
export interface SnmpReceiverPort {
  conf(c: SnmpAgentConf): void;
  view(v: SnmpView): void;
  notify(n: SnmpNotification): void;
}

/** ShMC side (see the module header): bus messages in, settings, views and notifications out. */
export class SnmpBusReceiver {
  private parts: string[] = [];
  private partsSeq: number | undefined;

  constructor(
    private readonly port: SnmpReceiverPort,
    private readonly log: Logger,
  ) {}

  /** True for the messages this receiver takes. */
  static takes(m: ToShmc): boolean {
    return m.t === 'snmpconf' || m.t === 'snmpview' || m.t === 'snmptrap';
  }

  /** Takes one SNMP bus message (others are ignored); a part that does not fit, or bad JSON, is logged and dropped. */
  onBus(m: ToShmc): void {
    try {
      if (m.t === 'snmpconf') this.port.conf(JSON.parse(m.data) as SnmpAgentConf);
      else if (m.t === 'snmptrap') this.port.notify(JSON.parse(m.data) as SnmpNotification);
      else if (m.t === 'snmpview') this.onPart(m);
    } catch (e) {
      this.parts = [];
      this.partsSeq = undefined;
      this.log.warn({ category: 'snmp-bus', t: m.t, err: String(e) }, 'SNMP bus message refused');
    }
  }

  private onPart(m: Extract<ToShmc, { t: 'snmpview' }>): void {
    if (this.partsSeq !== m.seq) {
      this.parts = [];
      this.partsSeq = m.seq;
    }
    this.parts.push(m.data);
    if (!m.last) return;
    const text = this.parts.join('');
    this.parts = [];
    this.partsSeq = undefined;
    this.port.view(JSON.parse(text) as SnmpView);
  }
}
