/**
 * The SNMP agent of one ShMC process in split mode (docs/snmp.md): it takes the shelf's SNMP
 * settings, rows and notifications from the bus (chassis/split/snmp-relay.ts) and runs the agent
 * (./snmp-agent.ts) only while this ShMC is active — `want(true)` when it binds the shelf address,
 * `want(false)` when it lets it go — on the same SNMP port in either ShMC, so after a failover the
 * new active serves the same address. While the previous active still holds the port (stopped,
 * being reset) the bind is retried every 25 ms; a refusal that retrying cannot cure (DES not
 * available) is logged once and the ShMC runs without SNMP.
 */
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { SnmpNotification, SnmpView } from '../snmp/view.ts';
import type { ToShmc } from '../split/bus-codec.ts';
import { SnmpBusReceiver, type SnmpAgentConf, type SnmpReceiverPort } from '../split/snmp-relay.ts';
import { SnmpAgent } from './snmp-agent.ts';

const RETRY_MS = 25;

/** See the module header. */
export class ShmcSnmpEndpoint implements SnmpReceiverPort {
  private readonly receiver: SnmpBusReceiver;
  private settings: SnmpAgentConf | undefined;
  private latest: SnmpView | undefined;
  private agent: SnmpAgent | undefined;
  private wanted = false;
  private starting = false;
  private gaveUp = false;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.receiver = new SnmpBusReceiver(this, log);
  }

  /** True for the bus messages this endpoint takes (the others go to the ShMC runtime). */
  static takes(m: ToShmc): boolean {
    return SnmpBusReceiver.takes(m);
  }

  /** One SNMP bus message. */
  onBus(m: ToShmc): void {
    this.receiver.onBus(m);
  }

  conf(c: SnmpAgentConf): void {
    this.settings = c;
    if (this.wanted) this.ensure();
  }

  view(v: SnmpView): void {
    this.latest = v;
    this.agent?.view(v);
  }

  notify(n: SnmpNotification): void {
    this.agent?.notify(n);
  }

  /** Serve (this ShMC is active) or stop serving. */
  want(active: boolean): void {
    this.wanted = active;
    if (active) this.ensure();
    else void this.release();
  }

  /** Where the agent listens, while it does. */
  get address(): string | undefined {
    const a = this.agent?.address;
    return a ? `${a.address}:${a.port}` : undefined;
  }

  /** Stops the agent. Never throws. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wanted = false;
    await this.release();
  }

  private async release(): Promise<void> {
    const a = this.agent;
    this.agent = undefined;
    if (!a) return;
    await a.stop();
    this.log.info({ category: 'snmp', port: a.address.port }, 'SNMP agent stopped (no longer active)');
  }

  private ensure(): void {
    if (this.starting || this.agent || !this.settings || this.gaveUp || this.stopped) return;
    this.starting = true;
    void this.tryStart(this.settings);
  }

  private async tryStart(c: SnmpAgentConf): Promise<void> {
    try {
      const agent = await SnmpAgent.start({ settings: c.settings, engineId: c.engineId, bind: c.bind, port: c.port, clock: this.clock, log: this.log.child({ module: 'snmp' }) });
      this.starting = false;
      if (!this.wanted || this.stopped) {
        await agent.stop();
        return;
      }
      this.agent = agent;
      if (this.latest) agent.view(this.latest);
      this.log.info({ category: 'snmp', address: this.address }, `SNMP agent on ${this.address}`);
    } catch (e) {
      this.starting = false;
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') {
        // the previous active (stopped, being reset) may still hold the port
        this.clock.setTimeout(() => this.wanted && this.ensure(), RETRY_MS);
        return;
      }
      this.gaveUp = true;
      this.log.error({ category: 'snmp', err: (e as Error).message }, 'SNMP agent cannot start: this ShMC serves no SNMP');
    }
  }
}
