/**
 * Sends the shelf manager's PEF alerts (chassis/ipmi/pef/pef-engine.ts `AlertPort`) as SNMPv1
 * Traps through net-snmp: enterprise 1.3.6.1.4.1.3183.1.1, generic trap 6, the PET's specific trap
 * number, agent address the shelf's LAN address, and the one PET variable binding (an OCTET STRING,
 * chassis/ipmi/pef/pet.ts). One net-snmp session (a UDP socket) per trap, closed once the trap is
 * sent, so an idle sender holds no socket and never keeps the process alive. A send that fails
 * (socket error) is counted and logged; PETs are not retried or acknowledged.
 */
import snmp, { type Session } from 'net-snmp';
import type { Logger } from '../../board/common/logger.ts';
import type { AlertPort } from '../ipmi/pef/pef-engine.ts';
import { PET_ENTERPRISE, PET_VARBIND_OID, type PetTrap } from '../ipmi/pef/pet.ts';

/** Options of the PET sender. */
export interface PetSenderOptions {
  /** UDP port the traps go to [162]. */
  trapPort?: number;
  /** Agent address carried in the trap [127.0.0.1]. */
  agentAddr?: string;
  log: Logger;
}

/** See the module header. */
export class PetSender implements AlertPort {
  readonly counters = { sent: 0, failed: 0 };
  private readonly open = new Set<Session>();

  constructor(private readonly opts: PetSenderOptions) {}

  sendPet(ip: string, community: string, trap: PetTrap): void {
    const session = snmp.createSession(ip, community, { version: snmp.Version1, trapPort: this.opts.trapPort ?? 162, transport: 'udp4' });
    session.on('error', (e) => this.opts.log.warn({ category: 'pet', ip, err: String(e) }, 'PET session error'));
    this.open.add(session);
    const done = (e: Error | null) => {
      this.open.delete(session);
      try {
        session.close();
      } catch {
        // already closed
      }
      if (e) {
        this.counters.failed++;
        this.opts.log.warn({ category: 'pet', ip, err: String(e) }, 'PET not sent');
      } else this.counters.sent++;
    };
    try {
      session.trap(`${PET_ENTERPRISE}.${trap.specific}`, [{ oid: PET_VARBIND_OID, type: snmp.ObjectType.OctetString, value: Buffer.from(trap.data) }], { agentAddr: this.opts.agentAddr ?? '127.0.0.1' }, done);
    } catch (e) {
      done(e as Error);
    }
  }

  /** Closes sessions whose trap is still being sent. Never throws. */
  close(): void {
    for (const s of this.open) {
      try {
        s.close();
      } catch {
        // already closed
      }
    }
    this.open.clear();
  }
}
