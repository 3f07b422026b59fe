/**
 * The shelf configuration as the rest of atcasim sees it: fully defaulted, validated, typed.
 * Produced by `parseShelfConfig` (./shelf-config.ts) from the shelf YAML (docs/shelf.md documents
 * every key); the YAML's snake_case keys become camelCase here, durations become ms.
 *
 * Naming and addressing (PICMG 3.0 §3.2.1, research/ipmi.md §E.1): boards are named by logical slot
 * (`slot1`…`slot14`); hardware address HA = 40h + logical slot; IPMB-0 address = 2 × HA. ShMCs are
 * `shmc-a`/`shmc-b` in the dedicated ShMC sites; the logical shelf-manager address (20h) follows
 * the active ShMC. Fan trays are `fan1`…, power entry modules `pem1`….
 */
import type { BackGatewayConfig, BackPortConfig, LivePortConfig } from './live-section.ts';
import type { EcmpConfig } from '../../board/switch/switch-config.ts';
import type { ProcessorConfig } from '../../board/processor/processor-config.ts';
import type { HaConfig, PairConfig } from './ha.ts';
import type { FruInventory } from '../sensors/fru.ts';
import type { Linearization } from '../sensors/linearization.ts';
import type { ThresholdValues } from '../sensors/thresholds.ts';
import type { SensorKindName } from '../sensors/sensor-types.ts';

/** What occupies a FRU position. */
export type FruKind = 'shmc' | 'hub' | 'processor' | 'fan' | 'pem';

/** PICMG site types (Get Address Info byte 7; research/ipmi.md §E.1). */
export const SITE_TYPE = {
  board: 0x00,
  pem: 0x01,
  shelfFru: 0x02,
  shmc: 0x03,
  fanTray: 0x04,
} as const;

/** A threshold sensor as configured (engineering units). */
export interface ThresholdSensorConfig {
  kind: 'threshold';
  name: string;
  /** Sensor number within its controller, 1..254. */
  number: number;
  type: Exclude<SensorKindName, 'hotswap'>;
  /** IPMI sensor type code. */
  sensorType: number;
  /** IPMI unit code and its name (e.g. 1, 'degrees C'). */
  unitCode: number;
  unit: string;
  linearization: Linearization;
  thresholds: ThresholdValues;
  hysteresis: { positive: number; negative: number };
  /** Initial reading. */
  nominal: number;
}

/** The PICMG Hot Swap sensor (type F0h, reading type 6Fh). */
export interface HotSwapSensorConfig {
  kind: 'hotswap';
  name: string;
  number: number;
  sensorType: 0xf0;
}

export type SensorConfig = ThresholdSensorConfig | HotSwapSensorConfig;

/** Power levels of a FRU (PICMG 3.0 Get/Set Power Level, §3.9.1.x). */
export interface PowerConfig {
  /** Steady-state draw of each power level 1..n, in W (ascending). */
  levelsW: number[];
  /** Level the FRU asks for (1..n), default n. */
  desiredLevel: number;
  /** Dynamic power reconfiguration supported (Get Power Level b7). */
  dynamic: boolean;
  /** Delay to stable power, in ms (reported in 0.1 s units). */
  delayMs: number;
}

/** Which FRU Control options (PICMG 2Ch/04h) the FRU supports besides cold reset. */
export interface FruControlConfig {
  warmReset: boolean;
  gracefulReboot: boolean;
  diagnosticInterrupt: boolean;
}

/** Serial console line settings (docs/consoles.md "Line settings"). */
export interface ConsoleConfig {
  /** Baud rate, default 115200. */
  baud: number;
  /** Data bits, parity, stop bits, e.g. `8N1` (default). */
  framing: string;
  dataBits: 5 | 6 | 7 | 8;
  parity: 'none' | 'even' | 'odd' | 'mark' | 'space';
  stopBits: 1 | 2;
}

/** Identity the controller reports in Get Device ID (IPMI v2.0 §20.1). */
export interface DeviceIdentity {
  deviceId: number;
  revision: number;
  firmwareMajor: number;
  /** Minor revision as two BCD digits' value, e.g. 5 for "1.05", 10 for "2.10". */
  firmwareMinor: number;
  /** IANA manufacturer ID (default 315Ah, PICMG, so ipmitool decodes PICMG sensor types). */
  manufacturerId: number;
  productId: number;
}

/** Fan tray levels (PICMG Get Fan Speed Properties, 2Ch/14h). */
export interface FanConfig {
  minLevel: number;
  maxLevel: number;
  normalLevel: number;
}

/** One managed FRU (an IPM controller and its FRU 0). */
export interface FruConfig {
  /** 'shmc-a', 'slot3', 'fan1', 'pem1'. */
  name: string;
  kind: FruKind;
  /** Device ID string (MC device locator; `fru print` description), ≤ 16 characters, e.g. 'Node3'. */
  label: string;
  /** Logical slot (boards only). */
  slot?: number;
  /** Physical (front-panel) position (boards only). */
  physicalSlot?: number;
  siteType: number;
  siteNumber: number;
  hardwareAddress: number;
  /** IPMB-0 address = 2 × hardware address. */
  ipmbAddress: number;
  entityId: number;
  entityInstance: number;
  inventory: FruInventory;
  /** FRU device size in bytes. */
  fruSize: number;
  sensors: SensorConfig[];
  power: PowerConfig;
  fruControl: FruControlConfig;
  device: DeviceIdentity;
  /** ShMC and boards only. */
  console?: ConsoleConfig;
  /** Fan trays only. */
  fan?: FanConfig;
  /** PEMs only: power the PEM can supply, W. */
  capacityW?: number;
  /** Hubs in live mode: the client-facing port (live-section.ts). */
  frontPort?: LivePortConfig;
  /** Processor boards in live mode: the server-facing port and its full-NAT pool. */
  backPort?: BackPortConfig;
}

/** Hot-swap timing and shelf-manager policy. */
export interface HotSwapConfig {
  /** Time of each automatic M-state step (M2→M3, M3→M4, M5→M6, M6→M1), ms. Default 1000. */
  stepMs: number;
  /** The shelf manager grants activation (M2→M3) by itself. Default true. */
  autoActivate: boolean;
  /** The shelf manager approves deactivation requests (M5→M6) by itself. Default true. */
  autoDeactivate: boolean;
}

/** IPMI-over-LAN settings (the IPMI helper's CLI flags override these). */
export interface IpmiSettings {
  /** Default 127.0.0.1. */
  bind: string;
  /** Default 6230. */
  port: number;
  /** IPMI 1.5 sessions (MD5 only), default true. */
  ipmi15: boolean;
  /** RMCP+ cipher suites offered, default [3, 17]. */
  cipherSuites: number[];
  /** Session idle timeout, default 60000 ms. */
  idleTimeoutMs: number;
}

/** USM authentication protocols offered (RFC 3414 MD5/SHA-1; RFC 7860 SHA-2). */
export type SnmpAuthProtocol = 'md5' | 'sha' | 'sha224' | 'sha256' | 'sha384' | 'sha512';
/** USM privacy protocols offered (RFC 3414 CBC-DES; RFC 3826 CFB128-AES-128). */
export type SnmpPrivProtocol = 'des' | 'aes';

/** An SNMPv3 (USM) user: read-only, always authenticated; privacy optional (authNoPriv without it). */
export interface SnmpUser {
  name: string;
  auth: SnmpAuthProtocol;
  /** Authentication passphrase (≥ 8 characters, RFC 3414 §11.2), localised to the engine ID. */
  authKey: string;
  priv?: SnmpPrivProtocol;
  /** Privacy passphrase (≥ 8 characters); present exactly when `priv` is. */
  privKey?: string;
  /** `file:line:column` of the user's entry, for refusals made after loading (DES unavailable). */
  at: string;
}

/** Where notifications go: an SNMPv2c trap/inform with a community, or an SNMPv3 one as a configured user. */
export interface SnmpTarget {
  /** IP literal. */
  host: string;
  /** Default 162. */
  port: number;
  version: 'v2c' | 'v3';
  /** v2c: the community the receiver accepts. */
  community?: string;
  /** v3: the name of an entry of `SnmpSettings.users` whose keys sign (and encrypt) the notification. */
  user?: string;
  /** InformRequest (acknowledged, retried) instead of a trap. Default false. */
  inform: boolean;
}

/** The SNMP agent's settings (`snmp` section; docs/snmp.md). Off unless a port is given here or by --snmp-port. */
export interface SnmpSettings {
  /** Default 127.0.0.1. */
  bind: string;
  /** UDP port; undefined = no agent unless --snmp-port; 0 picks a free one. */
  port?: number;
  /** SNMPv2c read-only communities (none by default). */
  communities: string[];
  /** SNMPv3 read-only users (none by default). */
  users: SnmpUser[];
  /** Notification receivers (none by default). */
  notify: SnmpTarget[];
  /** Base of atcasim's enterprise objects (hot-swap table, notifications), default 1.3.6.1.4.1.32473. */
  enterpriseOid: string;
  /** snmpEngineID as hex (5–32 octets); undefined = derived from the shelf's name and chassis serial. */
  engineId?: string;
  /** sysContact.0 / sysLocation.0. Default "". */
  contact: string;
  location: string;
}

/** The whole shelf. */
export interface ShelfConfig {
  name: string;
  /** Number of logical slots, default 14. */
  slotCount: number;
  /** physicalOrder[p - 1] = logical slot at physical position p. */
  physicalOrder: number[];
  hotSwap: HotSwapConfig;
  /** SEL capacity in records, default 4096. */
  selCapacity: number;
  /** Delay between off and on of a chassis power cycle, default 1000 ms. */
  powerCycleIntervalMs: number;
  /** Chassis info area written into FRUs that carry one (shelf identity). */
  chassisFru: { type: number; partNumber: string; serial: string };
  /** The logical shelf manager. */
  shelfManager: {
    /** IPMB address that follows the active ShMC, default 20h. */
    address: number;
    /** Device ID string of the logical shelf manager, default 'ShMC'. */
    label: string;
  };
  /** Every FRU: ShMCs first, then boards by logical slot, fan trays, PEMs. */
  frus: FruConfig[];
  dataplane: { ecmp: EcmpConfig; processor: ProcessorConfig; backGateway?: BackGatewayConfig };
  ha: { timing: HaConfig; pairs: PairConfig[] };
  ipmi: IpmiSettings;
  /** The SNMP agent (./snmp-section.ts; docs/snmp.md). */
  snmp: SnmpSettings;
  /** File the configuration came from (for messages). */
  source: string;
}

/** Default console line: 115200 8N1. */
export const DEFAULT_CONSOLE: Readonly<ConsoleConfig> = { baud: 115200, framing: '8N1', dataBits: 8, parity: 'none', stopBits: 1 };

/** PICMG 3.0 14-slot shelf: physical positions 1..14 hold logical slots 13, 11, …, 1, 2, …, 14
 * (hubs in the middle). */
export const PICMG_14_SLOT_ORDER: readonly number[] = [13, 11, 9, 7, 5, 3, 1, 2, 4, 6, 8, 10, 12, 14];

/** Default IPMI settings. */
export const DEFAULT_IPMI: Readonly<IpmiSettings> = {
  bind: '127.0.0.1',
  port: 6230,
  ipmi15: true,
  cipherSuites: [3, 17],
  idleTimeoutMs: 60_000,
};

/** RFC 5612's documentation PEN (32473): the default base of atcasim's enterprise objects. */
export const DEFAULT_ENTERPRISE_OID = '1.3.6.1.4.1.32473';

/** Default SNMP settings: loopback, no port (no agent unless asked for), nobody allowed in. */
export const DEFAULT_SNMP: Readonly<SnmpSettings> = {
  bind: '127.0.0.1',
  communities: [],
  users: [],
  notify: [],
  enterpriseOid: DEFAULT_ENTERPRISE_OID,
  contact: '',
  location: '',
};

/** Hardware address of a board in logical slot n (PICMG 3.0: 40h + n). */
export function boardHardwareAddress(slot: number): number {
  return 0x40 + slot;
}
