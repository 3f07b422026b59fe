/**
 * The shelf's SNMP agent (docs/snmp.md): net-snmp (npm) on a UDP socket, read-only SNMPv2c
 * communities and SNMPv3 USM users (authentication MD5/SHA/SHA-2, privacy DES/AES) from the shelf
 * YAML, serving the system group, ENTITY-MIB's entPhysicalTable and entLastChangeTime,
 * ENTITY-SENSOR-MIB's entPhySensorTable and atcasim's hot-swap table from the SnmpViews it is
 * handed (chassis/snmp/), and sending the notifications it is handed to the configured receivers
 * (./snmp-notifier.ts). It implements SnmpSink: in one process the SnmpFeed drives it; in split
 * mode the active ShMC's process does, with the views and notifications the shelf sends on the bus.
 *
 * Robustness: the socket is guarded (./snmp-guard.ts) — a datagram that makes net-snmp throw is
 * counted and dropped; rejected datagrams (bad BER, wrong community, unknown user, bad digest) are
 * counted and logged at most once per 10 s with the counts, never one line per packet. A GetBulk
 * asking for more than 64 repetitions or 64 varbinds is clamped before net-snmp loops over it
 * (./snmp-bulk-cap.ts; v2c and v3, also encrypted), counted and logged at most once per 10 s.
 * Refused requests, per net-snmp: a wrong community or a wrong key gets no answer (the manager
 * times out; RFC 3414 would answer usmStatsWrongDigests), an unknown user gets a
 * usmStatsUnknownUserNames report, a Set gets notWritable.
 */
import { createCipheriv } from 'node:crypto';
import type { Socket } from 'node:dgram';
import snmp, { type Agent, type Mib, type TableColumn } from 'net-snmp';
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { SnmpSettings } from '../config/types.ts';
import { ENT_LAST_CHANGE_TIME, ENT_PHY_SENSOR_ENTRY, ENT_PHYSICAL_ENTRY, SYSTEM, enterpriseOids } from '../snmp/oids.ts';
import type { EntityRow, FruStateRow, SensorRow, SnmpNotification, SnmpSink, SnmpView } from '../snmp/view.ts';
import { BULK_LIMITS, installBulkCap, type BulkCapped } from './snmp-bulk-cap.ts';
import { bindUdpSocket, guardedDgram } from './snmp-guard.ts';
import { SnmpNotifier } from './snmp-notifier.ts';

/** A start-up refusal with a message for the user (a DES user where Node cannot run DES). */
export class SnmpStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnmpStartError';
  }
}

/** How an agent is started. */
export interface SnmpAgentOptions {
  settings: SnmpSettings;
  /** snmpEngineID, hex (chassis/snmp/engine-id.ts). */
  engineId: string;
  bind: string;
  /** 0 picks a free port. */
  port: number;
  clock: Clock;
  log: Logger;
}

/** Counters of what the agent received (for logs, status and tests). */
export interface SnmpAgentCounters {
  /** Datagrams net-snmp rejected (bad BER, wrong community, unknown user, bad digest, …). */
  rejected: number;
  /** Datagrams whose handling threw inside net-snmp, caught by the guard. */
  guarded: number;
  /** GetBulk requests whose max-repetitions, non-repeaters or varbind count were clamped (./snmp-bulk-cap.ts). */
  capped: number;
}

/** True when this Node runtime can run CBC-DES (OpenSSL 3 keeps it in the legacy provider). */
export function desAvailable(): boolean {
  try {
    createCipheriv('des-cbc', Buffer.alloc(8), Buffer.alloc(8));
    return true;
  } catch {
    return false;
  }
}

const RO = snmp.MaxAccess['read-only'];
const NA = snmp.MaxAccess['not-accessible'];
const T = snmp.ObjectType;
const col = (number: number, name: string, type: number, maxAccess = RO): TableColumn => ({ number, name, type, maxAccess });

const ENT_COLUMNS: TableColumn[] = [
  col(1, 'entPhysicalIndex', T.Integer, NA), col(2, 'entPhysicalDescr', T.OctetString), col(3, 'entPhysicalVendorType', T.OID),
  col(4, 'entPhysicalContainedIn', T.Integer), col(5, 'entPhysicalClass', T.Integer), col(6, 'entPhysicalParentRelPos', T.Integer),
  col(7, 'entPhysicalName', T.OctetString), col(8, 'entPhysicalHardwareRev', T.OctetString), col(9, 'entPhysicalFirmwareRev', T.OctetString),
  col(10, 'entPhysicalSoftwareRev', T.OctetString), col(11, 'entPhysicalSerialNum', T.OctetString), col(12, 'entPhysicalMfgName', T.OctetString),
  col(13, 'entPhysicalModelName', T.OctetString), col(14, 'entPhysicalAlias', T.OctetString), col(15, 'entPhysicalAssetID', T.OctetString),
  col(16, 'entPhysicalIsFRU', T.Integer), col(17, 'entPhysicalMfgDate', T.OctetString), col(18, 'entPhysicalUris', T.OctetString),
  col(19, 'entPhysicalUUID', T.OctetString),
];
const SENSOR_COLUMNS: TableColumn[] = [
  col(1, 'entPhySensorType', T.Integer), col(2, 'entPhySensorScale', T.Integer), col(3, 'entPhySensorPrecision', T.Integer),
  col(4, 'entPhySensorValue', T.Integer), col(5, 'entPhySensorOperStatus', T.Integer), col(6, 'entPhySensorUnitsDisplay', T.OctetString),
  col(7, 'entPhySensorValueTimeStamp', T.TimeTicks), col(8, 'entPhySensorValueUpdateRate', T.Gauge),
];
const FRU_COLUMNS: TableColumn[] = [
  col(1, 'atcasimFruHotSwapState', T.Integer), col(2, 'atcasimFruHotSwapStateName', T.OctetString), col(3, 'atcasimFruPreviousState', T.Integer),
  col(4, 'atcasimFruStateCause', T.Integer), col(5, 'atcasimFruStateLastChanged', T.TimeTicks), col(6, 'atcasimFruIpmbAddress', T.Integer),
  col(7, 'atcasimFruHardwareAddress', T.Integer),
];

const TABLES = { entity: 'entPhysicalTable', sensor: 'entPhySensorTable', fru: 'atcasimFruTable' } as const;
const REJECT_LOG_INTERVAL_MS = 10_000;

/** See the module header. Build with `SnmpAgent.start`. */
export class SnmpAgent implements SnmpSink {
  readonly counters: SnmpAgentCounters = { rejected: 0, guarded: 0, capped: 0 };
  private readonly rows = new Map<string, Map<number, string>>([[TABLES.entity, new Map()], [TABLES.sensor, new Map()], [TABLES.fru, new Map()]]);
  private readonly t0: number;
  private lastRejectLog = -Infinity;
  private rejectedSinceLog = 0;
  private lastReject = '';
  private lastCapLog = -Infinity;
  private cappedSinceLog = 0;
  private lastCap: BulkCapped | undefined;
  private closed = false;

  private constructor(
    private readonly o: SnmpAgentOptions,
    private readonly socket: Socket,
    private readonly agent: Agent,
    private readonly mib: Mib,
    private readonly notifier: SnmpNotifier,
    /** Where it listens. */
    readonly address: { address: string; port: number },
  ) {
    this.t0 = o.clock.now();
  }

  /**
   * Checks the users against the runtime, binds the socket, builds the MIB and the access rules.
   * @throws SnmpStartError (a DES user while Node has no DES), the bind error (EADDRINUSE …)
   */
  static async start(o: SnmpAgentOptions): Promise<SnmpAgent> {
    const des = o.settings.users.find((u) => u.priv === 'des');
    if (des && !desAvailable()) {
      throw new SnmpStartError(`${des.at}: snmp.users: user "${des.name}" uses DES, which this Node runtime cannot run (OpenSSL 3 keeps DES in its legacy provider): use priv: aes, or start Node with --openssl-legacy-provider (NODE_OPTIONS)`);
    }
    const socket = await bindUdpSocket(o.bind, o.port);
    const a = socket.address();
    let self: SnmpAgent | undefined;
    const agent = snmp.createAgent(
      {
        port: a.port,
        address: o.bind,
        transport: o.bind.includes(':') ? 'udp6' : 'udp4',
        accessControlModelType: snmp.AccessControlModelType.Simple,
        engineID: o.engineId,
        dgramModule: guardedDgram(socket, (e, d) => self?.onGuarded(e, d)),
      },
      (error) => {
        if (error) self?.onRejected(error);
      },
    );
    installBulkCap(agent, (was) => self?.onCapped(was));
    const mib = agent.getMib();
    const notifier = new SnmpNotifier(o.settings, o.engineId, o.log);
    self = new SnmpAgent(o, socket, agent, mib, notifier, { address: a.address, port: a.port });
    self.authorize();
    self.registerMib();
    notifier.upTime = () => self!.upTicks();
    return self;
  }

  /** sysUpTime in hundredths of a second. */
  upTicks(): number {
    return Math.floor((this.o.clock.now() - this.t0) / 10);
  }

  /** Serves `v` from now on (rows replaced where they changed). */
  view(v: SnmpView): void {
    if (this.closed) return;
    const now = this.upTicks();
    const stamp = (age: number | null) => (age === null ? 0 : Math.max(0, now - Math.round(age / 10)));
    this.mib.setScalarValue('sysName', v.shelfName);
    this.mib.setScalarValue('entLastChangeTime', stamp(v.lastChangeAgeMs));
    this.replace(TABLES.entity, v.entities, entityCells);
    this.replace(TABLES.sensor, v.sensors, (r) => sensorCells(r, stamp(r.valueAgeMs)));
    this.replace(TABLES.fru, v.frus, (r) => fruCells(r, stamp(r.changedAgeMs)));
  }

  /** Sends `n` to every configured receiver. */
  notify(n: SnmpNotification): void {
    if (!this.closed) this.notifier.send(n);
  }

  /** Notifications sent and failed so far. */
  get notifications(): { sent: number; failed: number } {
    return this.notifier.counters;
  }

  /** Closes the socket and the notification sessions. Never throws. */
  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.notifier.close();
    this.flushRejectLog();
    this.flushCapLog();
    await new Promise<void>((r) => {
      try {
        this.agent.close(() => r());
      } catch {
        r();
      }
    });
    void this.socket;
  }

  private authorize(): void {
    const auth = this.agent.getAuthorizer();
    const acm = auth.getAccessControlModel();
    for (const c of this.o.settings.communities) {
      auth.addCommunity(c);
      acm.setCommunityAccess(c, snmp.AccessLevel.ReadOnly);
    }
    for (const u of this.o.settings.users) {
      auth.addUser(SnmpNotifier.usmUser(u));
      acm.setUserAccess(u.name, snmp.AccessLevel.ReadOnly);
    }
  }

  private registerMib(): void {
    const s = this.o.settings;
    const scalar = (name: string, oid: string, type: number, value: unknown, handler?: () => unknown) => {
      this.mib.registerProvider({ name, type: snmp.MibProviderType.Scalar, oid, scalarType: type, maxAccess: RO, ...(handler ? { handler: (req) => ((req.instanceNode.value = handler()), req.done()) } : {}) });
      this.mib.setScalarValue(name, value);
    };
    scalar('sysDescr', `${SYSTEM}.1`, T.OctetString, 'atcasim shelf manager: emulated PICMG 3.0 ATCA shelf (ENTITY-MIB, ENTITY-SENSOR-MIB, hot-swap states)');
    scalar('sysObjectID', `${SYSTEM}.2`, T.OID, enterpriseOids(s.enterpriseOid).sysObjectId);
    scalar('sysUpTime', `${SYSTEM}.3`, T.TimeTicks, 0, () => this.upTicks());
    scalar('sysContact', `${SYSTEM}.4`, T.OctetString, s.contact);
    scalar('sysName', `${SYSTEM}.5`, T.OctetString, '');
    scalar('sysLocation', `${SYSTEM}.6`, T.OctetString, s.location);
    // applications (64) + end-to-end (8): a management application, RFC 3418 sysServices
    scalar('sysServices', `${SYSTEM}.7`, T.Integer, 72);
    scalar('entLastChangeTime', ENT_LAST_CHANGE_TIME, T.TimeTicks, 0);
    const table = (name: string, oid: string, tableColumns: TableColumn[], foreign: boolean) =>
      this.mib.registerProvider({
        name, type: snmp.MibProviderType.Table, oid, maxAccess: NA, tableColumns,
        tableIndex: [foreign ? { columnName: 'entPhysicalIndex', foreign: TABLES.entity } : { columnName: 'entPhysicalIndex' }],
      });
    table(TABLES.entity, ENT_PHYSICAL_ENTRY, ENT_COLUMNS, false);
    table(TABLES.sensor, ENT_PHY_SENSOR_ENTRY, SENSOR_COLUMNS, true);
    table(TABLES.fru, enterpriseOids(s.enterpriseOid).fruEntry, FRU_COLUMNS, true);
  }

  /** Replaces the rows of `table` that changed (by their cells), removes those that went, adds new ones. */
  private replace<R extends { index: number }>(table: string, rows: R[], cells: (r: R) => unknown[]): void {
    const have = this.rows.get(table)!;
    const next = new Map<number, unknown[]>(rows.map((r) => [r.index, cells(r)]));
    for (const [index, key] of have) {
      const c = next.get(index);
      if (c && JSON.stringify(c) === key) {
        next.delete(index);
        continue;
      }
      this.mib.deleteTableRow(table, [index]);
      have.delete(index);
    }
    for (const [index, c] of next) {
      this.mib.addTableRow(table, [index, ...c]);
      have.set(index, JSON.stringify(c));
    }
  }

  private onGuarded(e: unknown, datagram: Buffer): void {
    this.counters.guarded++;
    this.o.log.warn({ category: 'snmp-guard', err: String(e), bytes: datagram.length, count: this.counters.guarded }, 'SNMP datagram made net-snmp throw: dropped');
  }

  private onCapped(was: BulkCapped): void {
    this.counters.capped++;
    this.cappedSinceLog++;
    this.lastCap = was;
    const now = this.o.clock.now();
    if (now - this.lastCapLog >= REJECT_LOG_INTERVAL_MS) this.flushCapLog(now);
  }

  private flushCapLog(now = this.o.clock.now()): void {
    if (this.cappedSinceLog === 0) return;
    this.o.log.warn({ category: 'snmp-bulk-cap', count: this.cappedSinceLog, total: this.counters.capped, last: this.lastCap }, `SNMP: ${this.cappedSinceLog} GetBulk request(s) clamped to ${BULK_LIMITS.maxRepetitions} repetitions / ${BULK_LIMITS.maxVarbinds} varbinds`);
    this.cappedSinceLog = 0;
    this.lastCapLog = now;
  }

  private onRejected(error: Error): void {
    this.counters.rejected++;
    this.rejectedSinceLog++;
    this.lastReject = error.message;
    const now = this.o.clock.now();
    if (now - this.lastRejectLog >= REJECT_LOG_INTERVAL_MS) this.flushRejectLog(now);
  }

  private flushRejectLog(now = this.o.clock.now()): void {
    if (this.rejectedSinceLog === 0) return;
    this.o.log.info({ category: 'snmp-rejected', count: this.rejectedSinceLog, total: this.counters.rejected, last: this.lastReject }, `SNMP: ${this.rejectedSinceLog} datagram(s) rejected`);
    this.rejectedSinceLog = 0;
    this.lastRejectLog = now;
  }
}

const hex = (h: string) => Buffer.from(h, 'hex');

function entityCells(r: EntityRow): unknown[] {
  return [r.descr, r.vendorType, r.containedIn, r.class, r.parentRelPos, r.name, r.hardwareRev, r.firmwareRev, r.softwareRev, r.serialNum, r.mfgName, r.modelName, r.alias, r.assetId, r.isFru, hex(r.mfgDate), r.uris, hex(r.uuid)];
}

function sensorCells(r: SensorRow, stamp: number): unknown[] {
  return [r.type, r.scale, r.precision, r.value, r.operStatus, r.unitsDisplay, stamp, r.updateRateMs];
}

function fruCells(r: FruStateRow, stamp: number): unknown[] {
  return [r.state, r.stateName, r.previous, r.cause, stamp, r.ipmbAddress, r.hardwareAddress];
}
