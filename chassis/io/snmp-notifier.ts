/**
 * Sends the agent's notifications (chassis/snmp/notifications.ts) to the receivers of the shelf
 * YAML's `snmp.notify`: SNMPv2-Trap or InformRequest (RFC 3416 §4.2.6–4.2.7), over SNMPv2c with
 * the receiver's community or over SNMPv3 as one of `snmp.users` (USM, authoritative engine = this
 * agent's engine ID for traps, RFC 3414 §3.1; the receiver's, discovered, for informs). One
 * net-snmp session per receiver, kept while the agent runs. A failed send (inform unanswered,
 * socket error) is counted and logged; nothing is queued or retried beyond net-snmp's own inform
 * retries.
 */
import snmp, { type Session, type User, type Varbind } from 'net-snmp';
import type { Logger } from '../../board/common/logger.ts';
import type { SnmpSettings, SnmpTarget, SnmpUser } from '../config/types.ts';
import type { SnmpNotification, SnmpVarbind } from '../snmp/view.ts';

const TYPES: Record<SnmpVarbind['type'], number> = {
  integer: snmp.ObjectType.Integer,
  octets: snmp.ObjectType.OctetString,
  oid: snmp.ObjectType.OID,
  timeticks: snmp.ObjectType.TimeTicks,
  gauge: snmp.ObjectType.Gauge,
};

/** See the module header. */
export class SnmpNotifier {
  readonly counters = { sent: 0, failed: 0 };
  /** sysUpTime (hundredths) carried in each notification; the agent sets it to its own. */
  upTime: () => number = () => 0;
  private readonly sessions: Array<{ target: SnmpTarget; session: Session }> = [];

  constructor(
    settings: SnmpSettings,
    engineId: string,
    private readonly log: Logger,
  ) {
    for (const target of settings.notify) {
      const common = { trapPort: target.port, transport: target.host.includes(':') ? ('udp6' as const) : ('udp4' as const), retries: 2, timeout: 2000 };
      const session =
        target.version === 'v2c'
          ? snmp.createSession(target.host, target.community!, { ...common, version: snmp.Version2c })
          : snmp.createV3Session(target.host, SnmpNotifier.usmUser(settings.users.find((u) => u.name === target.user)!), { ...common, engineID: engineId });
      session.on('error', (e) => this.log.warn({ category: 'snmp-notify', target: `${target.host}:${target.port}`, err: String(e) }, 'SNMP notification session error'));
      this.sessions.push({ target, session });
    }
  }

  /** net-snmp's form of a configured USM user. */
  static usmUser(u: SnmpUser): User {
    return {
      name: u.name,
      level: u.priv ? snmp.SecurityLevel.authPriv : snmp.SecurityLevel.authNoPriv,
      authProtocol: snmp.AuthProtocols[u.auth],
      authKey: u.authKey,
      ...(u.priv ? { privProtocol: snmp.PrivProtocols[u.priv], privKey: u.privKey! } : {}),
    };
  }

  /** Sends `n` to every receiver. Never throws. */
  send(n: SnmpNotification): void {
    const varbinds: Varbind[] = n.varbinds.map((v) => ({ oid: v.oid, type: TYPES[v.type], value: v.value }));
    for (const { target, session } of this.sessions) {
      const done = (e: Error | null) => {
        if (!e) {
          this.counters.sent++;
          return;
        }
        this.counters.failed++;
        this.log.warn({ category: 'snmp-notify', target: `${target.host}:${target.port}`, kind: n.kind, err: e.message }, 'SNMP notification not delivered');
      };
      try {
        if (target.inform) session.inform(n.trapOid, varbinds, { upTime: this.upTime() }, done);
        else session.trap(n.trapOid, varbinds, { upTime: this.upTime() }, done);
      } catch (e) {
        done(e as Error);
      }
    }
  }

  /** Closes the sessions. Never throws. */
  close(): void {
    for (const { session } of this.sessions) {
      try {
        session.close();
      } catch {
        // already closed
      }
    }
    this.sessions.length = 0;
  }
}
