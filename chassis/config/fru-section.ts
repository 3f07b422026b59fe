/**
 * One FRU's entry in the shelf YAML (a shelf manager unit, a board, a fan tray or a PEM) → FruConfig:
 * its IPMB address (unique in the shelf), FRU inventory (board and product areas, the shelf's
 * chassis area), power levels, FRU Control options, device identity, console line and fan levels,
 * each with the defaults of its kind.
 *
 * Sources: PICMG 3.0 §3.2.1 (IPMB-0 address = 2 × hardware address), §3.9 (power levels); FRU
 * Information Storage Definition v1.0 (field encodability); IPMI v2.0 §20.1 (Get Device ID fields).
 */
import type { Node } from 'yaml';
import { ENTITY_ID, ENTITY_INSTANCE_DEVICE_RELATIVE } from '../sensors/sensor-types.ts';
import { encodeField, fruMinutesFromIso, type FruInventory } from '../sensors/fru.ts';
import {
  DEFAULT_CONSOLE,
  type ConsoleConfig,
  type DeviceIdentity,
  type FruConfig,
  type FruControlConfig,
  type FruKind,
  type PowerConfig,
  type SensorConfig,
} from './types.ts';
import type { MapReader, Value, YamlSource } from './yaml-reader.ts';

const BAUD_RATES = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600];
const KIND_TITLE: Record<FruKind, string> = {
  shmc: 'Shelf Manager',
  hub: 'Switch Hub',
  processor: 'Processor Node',
  fan: 'Fan Tray',
  pem: 'Power Entry Module',
};
const KIND_PART: Record<FruKind, string> = { shmc: 'SHM-100', hub: 'HUB-200', processor: 'CPU-300', fan: 'FAN-400', pem: 'PEM-500' };
const KIND_POWER_W: Record<FruKind, number[]> = { shmc: [20], hub: [90, 150], processor: [120, 200], fan: [30, 60], pem: [5] };
const KIND_PRODUCT_ID: Record<FruKind, number> = { shmc: 1, hub: 2, processor: 3, fan: 4, pem: 5 };
const KIND_ENTITY: Record<FruKind, number> = {
  shmc: ENTITY_ID.shmc,
  hub: ENTITY_ID.frontBoard,
  processor: ENTITY_ID.frontBoard,
  fan: ENTITY_ID.coolingUnit,
  pem: ENTITY_ID.powerModule,
};

/**
 * Parses and validates a shelf YAML document.
 * @param text the YAML text
 * @param file name used in error messages (e.g. the path, or `default-shelf.yaml`)
 * @returns the fully defaulted configuration

/** What reading a FRU needs from the whole file. */
export interface FruContext {
  src: YamlSource;
  /** The shelf's chassis FRU area (shelf.chassis), copied into every FRU that has one. */
  chassisFru: { type: number; partNumber: string; serial: string };
  /** IPMB address → FRU name. */
  addresses: Map<number, string>;
}

/** What the caller already knows about the FRU from where it stands in the file. */
export interface FruBase {
  name: string;
  kind: FruKind;
  label: string;
  siteType: number;
  siteNumber: number;
  hardwareAddress: number;
  sensors: SensorConfig[];
  keyNode: Node;
  slot?: number;
  physicalSlot?: number;
}

/**
 * A FRU text field (≤ 63 characters, encodable in a FRU area).
 * @throws ConfigError at `v` when the text cannot be encoded
 */
export function fruText(v: Value | undefined, dflt: string): string {
  const s = v ? v.text({ max: 63 }) : dflt;
  try {
    encodeField(s);
  } catch (e) {
    if (v) v.fail((e as Error).message);
    throw e;
  }
  return s;
}

const FRU_KEYS = [
  'type',
  'label',
  'site',
  'hardware_address',
  'inventory',
  'sensors',
  'power',
  'fru_control',
  'device',
  'console',
  'fan',
  'capacity_w',
  'fru_size',
  'front_port',
  'back_port',
];

/**
 * Reads the rest of a FRU's entry (the keys FRU_KEYS lists; `type` only for boards).
 * @throws ConfigError at the offending key (an IPMB address already used, a key the FRU's kind
 *   does not have, values out of range)
 */
export function readFru(m: MapReader, ctx: FruContext, base: FruBase): FruConfig {
  const ipmb = base.hardwareAddress * 2;
  const clash = ctx.addresses.get(ipmb);
  if (clash) ctx.src.fail(m.keyNode('hardware_address') ?? base.keyNode, `${base.name}: IPMB address 0x${ipmb.toString(16)} is already used by ${clash}`);
  ctx.addresses.set(ipmb, base.name);
  const inventory = readInventory(m.opt('inventory'), base, ctx);
  const power = readPower(m.opt('power'), base.kind);
  const fruControl = readFruControl(m.opt('fru_control'));
  const device = readDevice(m.opt('device'), base.kind);
  const hasConsole = base.kind === 'shmc' || base.kind === 'hub' || base.kind === 'processor';
  const consoleV = m.opt('console');
  if (consoleV && !hasConsole) consoleV.fail('only shelf managers and boards have a console');
  const console = hasConsole ? readConsole(consoleV) : undefined;
  const fanV = m.opt('fan');
  if (fanV && base.kind !== 'fan') fanV.fail('only fan trays have fan levels');
  const fan = base.kind === 'fan' ? readFan(fanV) : undefined;
  const capV = m.opt('capacity_w');
  if (capV && base.kind !== 'pem') capV.fail('only PEMs have a capacity');
  const capacityW = base.kind === 'pem' ? (capV?.num({ min: 0, max: 100_000 }) ?? 1500) : undefined;
  const fruSize = m.opt('fru_size')?.int({ min: 64, max: 65535 }) ?? 1024;
  m.done(FRU_KEYS.filter((k) => k !== 'type' || base.kind === 'hub' || base.kind === 'processor'));
  const cfg: FruConfig = {
    name: base.name,
    kind: base.kind,
    label: base.label,
    siteType: base.siteType,
    siteNumber: base.siteNumber,
    hardwareAddress: base.hardwareAddress,
    ipmbAddress: ipmb,
    entityId: KIND_ENTITY[base.kind],
    entityInstance: ENTITY_INSTANCE_DEVICE_RELATIVE,
    inventory,
    fruSize,
    sensors: base.sensors,
    power,
    fruControl,
    device,
  };
  if (base.slot !== undefined) cfg.slot = base.slot;
  if (base.physicalSlot !== undefined) cfg.physicalSlot = base.physicalSlot;
  if (console) cfg.console = console;
  if (fan) cfg.fan = fan;
  if (capacityW !== undefined) cfg.capacityW = capacityW;
  return cfg;
}

function readInventory(v: Value | undefined, base: FruBase, ctx: FruContext): FruInventory {
  const title = KIND_TITLE[base.kind];
  const part = KIND_PART[base.kind];
  const serialDefault = `${base.label.toUpperCase().replace(/[^A-Z0-9]/g, '')}0001`;
  const m = v?.map();
  const chassisOn = m?.opt('chassis')?.bool() ?? true;
  const bV = m?.opt('board');
  const bm = bV?.map();
  const dateV = bm?.opt('mfg_date');
  let mfgMinutes = fruMinutesFromIso('2024-01-15T12:00:00Z');
  if (dateV) {
    const s = dateV.str();
    try {
      mfgMinutes = fruMinutesFromIso(s);
    } catch (e) {
      dateV.fail(`${(e as Error).message} (write e.g. 2024-01-15T12:00:00Z)`);
    }
  }
  const board = {
    language: 0,
    mfgMinutes,
    manufacturer: fruText(bm?.opt('manufacturer'), 'atcasim'),
    product: fruText(bm?.opt('product'), title),
    serial: fruText(bm?.opt('serial'), serialDefault),
    partNumber: fruText(bm?.opt('part_number'), part),
    fileId: fruText(bm?.opt('file_id'), 'fru.bin'),
  };
  bm?.done(['manufacturer', 'product', 'serial', 'part_number', 'mfg_date', 'file_id']);
  const pm = m?.opt('product')?.map();
  const product = {
    language: 0,
    manufacturer: fruText(pm?.opt('manufacturer'), board.manufacturer),
    name: fruText(pm?.opt('name'), board.product),
    partNumber: fruText(pm?.opt('part_number'), board.partNumber),
    version: fruText(pm?.opt('version'), '1.0'),
    serial: fruText(pm?.opt('serial'), board.serial),
    assetTag: fruText(pm?.opt('asset_tag'), `ASSET-${board.serial}`.slice(0, 63)),
    fileId: fruText(pm?.opt('file_id'), board.fileId),
  };
  pm?.done(['manufacturer', 'name', 'part_number', 'version', 'serial', 'asset_tag', 'file_id']);
  m?.done(['chassis', 'board', 'product']);
  const inv: FruInventory = { board, product };
  if (chassisOn) inv.chassis = { ...ctx.chassisFru };
  return inv;
}

function readPower(v: Value | undefined, kind: FruKind): PowerConfig {
  const d: PowerConfig = { levelsW: [...KIND_POWER_W[kind]], desiredLevel: KIND_POWER_W[kind].length, dynamic: false, delayMs: 0 };
  if (!v) return d;
  const m = v.map();
  const lv = m.opt('levels_w');
  let levelsW = d.levelsW;
  if (lv) {
    const items = lv.list();
    if (items.length < 1 || items.length > 20) lv.fail('give 1 to 20 power levels (W)');
    levelsW = items.map((x) => x.num({ min: 0, max: 2550 }));
    for (let i = 1; i < levelsW.length; i++) if (levelsW[i]! < levelsW[i - 1]!) items[i]!.fail('power levels must not decrease');
  }
  const desiredV = m.opt('desired_level');
  const desiredLevel = desiredV?.int({ min: 1, max: levelsW.length }) ?? levelsW.length;
  const out: PowerConfig = {
    levelsW,
    desiredLevel,
    dynamic: m.opt('dynamic')?.bool() ?? false,
    delayMs: m.opt('delay')?.duration({ min: 0, max: 25_500 }) ?? 0,
  };
  m.done(['levels_w', 'desired_level', 'dynamic', 'delay']);
  return out;
}

function readFruControl(v: Value | undefined): FruControlConfig {
  const d: FruControlConfig = { warmReset: true, gracefulReboot: true, diagnosticInterrupt: true };
  if (!v) return d;
  const m = v.map();
  const out = {
    warmReset: m.opt('warm_reset')?.bool() ?? d.warmReset,
    gracefulReboot: m.opt('graceful_reboot')?.bool() ?? d.gracefulReboot,
    diagnosticInterrupt: m.opt('diagnostic_interrupt')?.bool() ?? d.diagnosticInterrupt,
  };
  m.done(['warm_reset', 'graceful_reboot', 'diagnostic_interrupt']);
  return out;
}

function readDevice(v: Value | undefined, kind: FruKind): DeviceIdentity {
  const d: DeviceIdentity = {
    deviceId: 0,
    revision: 1,
    firmwareMajor: kind === 'shmc' ? 2 : 1,
    firmwareMinor: kind === 'shmc' ? 10 : 5,
    manufacturerId: 0x00315a,
    productId: KIND_PRODUCT_ID[kind],
  };
  if (!v) return d;
  const m = v.map();
  const out = { ...d };
  out.deviceId = m.opt('device_id')?.int({ min: 0, max: 0xff, hex: true }) ?? d.deviceId;
  out.revision = m.opt('revision')?.int({ min: 0, max: 0xf }) ?? d.revision;
  const fw: Value | undefined = m.opt('firmware');
  if (fw) {
    const t = fw.text();
    const mm = /^(\d{1,3})\.(\d{2})$/.exec(t);
    if (!mm || Number(mm[1]) > 127) return fw.fail(`"${t}" is not a firmware revision (major.minor, minor two digits, e.g. 1.05)`);
    out.firmwareMajor = Number(mm[1]);
    out.firmwareMinor = Number(mm[2]);
  }
  out.manufacturerId = m.opt('manufacturer_id')?.int({ min: 0, max: 0xfffff, hex: true }) ?? d.manufacturerId;
  out.productId = m.opt('product_id')?.int({ min: 0, max: 0xffff, hex: true }) ?? d.productId;
  m.done(['device_id', 'revision', 'firmware', 'manufacturer_id', 'product_id']);
  return out;
}

function readConsole(v: Value | undefined): ConsoleConfig {
  if (!v) return { ...DEFAULT_CONSOLE };
  const m = v.map();
  const bV = m.opt('baud');
  const baud = bV ? bV.int() : DEFAULT_CONSOLE.baud;
  if (bV && !BAUD_RATES.includes(baud)) bV.fail(`${baud} is not a standard baud rate (${BAUD_RATES.join(', ')})`);
  const fV: Value | undefined = m.opt('framing');
  const framing = fV ? fV.text() : DEFAULT_CONSOLE.framing;
  const mm = /^([5-8])([NEOMS])([12])$/.exec(framing);
  if (!mm) return (fV ?? v!).fail(`"${framing}" is not a framing (data bits 5-8, parity N/E/O/M/S, stop bits 1-2, e.g. 8N1)`);
  m.done(['baud', 'framing']);
  const parity = ({ N: 'none', E: 'even', O: 'odd', M: 'mark', S: 'space' } as const)[mm[2] as 'N' | 'E' | 'O' | 'M' | 'S'];
  return { baud, framing, dataBits: Number(mm[1]) as 5 | 6 | 7 | 8, parity, stopBits: Number(mm[3]) as 1 | 2 };
}

function readFan(v: Value | undefined): { minLevel: number; maxLevel: number; normalLevel: number } {
  const d = { minLevel: 0, maxLevel: 15, normalLevel: 8 };
  if (!v) return d;
  const m = v.map();
  const out = {
    minLevel: m.opt('min_level')?.int({ min: 0, max: 0xfd }) ?? d.minLevel,
    maxLevel: m.opt('max_level')?.int({ min: 1, max: 0xfd }) ?? d.maxLevel,
    normalLevel: m.opt('normal_level')?.int({ min: 0, max: 0xfd }) ?? d.normalLevel,
  };
  if (out.minLevel > out.maxLevel || out.normalLevel < out.minLevel || out.normalLevel > out.maxLevel) {
    v.fail(`need min_level ≤ normal_level ≤ max_level, got ${out.minLevel} / ${out.normalLevel} / ${out.maxLevel}`);
  }
  m.done(['min_level', 'max_level', 'normal_level']);
  return out;
}

