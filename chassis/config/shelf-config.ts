/**
 * Shelf YAML → ShelfConfig: parsing, validation with file:line:column errors (ConfigError), and
 * defaults. The format is documented key by key in docs/shelf.md; the shipped default is
 * ./default-shelf.yaml. Pure: the caller reads the file (chassis/io/data-dir.ts, chassis/cli).
 *
 * Sources: PICMG 3.0 §3.2.1 (logical/physical slots, hardware address 40h + slot, IPMB-0 = 2 × HA),
 * IPMI v2.0 §43 (sensor ID strings ≤ 16 bytes, linearisation ranges), FRU Information Storage
 * Definition v1.0 (field encodability), issue 3 (data-plane keys), issue 6 (HA timings, pairs).
 */
import type { Node } from 'yaml';
import { DEFAULT_ECMP, type EcmpConfig, type EcmpMember } from '../../board/switch/switch-config.ts';
import {
  DEFAULT_HEALTH,
  DEFAULT_SESSION_TABLE,
  DEFAULT_TIMEOUTS,
  type AclRuleConfig,
  type HealthCheckConfig,
  type ProcessorConfig,
  type RealServerConfig,
  type VirtualServiceConfig,
} from '../../board/processor/processor-config.ts';
import { cipherSuiteIdProblem } from '../ipmi/cipher-suites.ts';
import { DEFAULT_HA, type HaConfig, type PairConfig } from './ha.ts';
import { encodeField, fruMinutesFromIso, type FruInventory } from '../sensors/fru.ts';
import { representable, type Linearization, type ThresholdName, type ThresholdValues } from '../sensors/sensor.ts';
import { ENTITY_ID, ENTITY_INSTANCE_DEVICE_RELATIVE, SENSOR_KINDS, UNIT_CODES, isSensorKind, isUnitName } from '../sensors/sensor-types.ts';
import { DEFAULT_SEL_CAPACITY } from '../sensors/sel.ts';
import { SDR_ID_MAX } from '../sensors/sdr.ts';
import { thresholdOrderProblem } from '../sensors/threshold-order.ts';
import {
  DEFAULT_CONSOLE,
  DEFAULT_IPMI,
  PICMG_14_SLOT_ORDER,
  SITE_TYPE,
  boardHardwareAddress,
  type ConsoleConfig,
  type DeviceIdentity,
  type FruConfig,
  type FruControlConfig,
  type FruKind,
  type HotSwapConfig,
  type IpmiSettings,
  type PowerConfig,
  type SensorConfig,
  type ShelfConfig,
  type ThresholdSensorConfig,
} from './types.ts';
import { MapReader, Value, YamlSource } from './yaml-reader.ts';

const THRESHOLD_KEYS: readonly ThresholdName[] = ['lnr', 'lc', 'lnc', 'unc', 'uc', 'unr'];
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
 * @throws ConfigError (`file:line:column: path: message`) for YAML syntax errors, unknown keys,
 *   wrong types, out-of-range values and cross-reference errors (HA pair members, duplicate names)
 */
export function parseShelfConfig(text: string, file: string): ShelfConfig {
  const src: YamlSource = new YamlSource(text, file);
  const root = src.root();
  if (root.isNull) src.fail(null, 'the shelf file is empty');
  const top = root.map();

  const shelfV = top.req('shelf').map();
  const name = shelfV.req('name').str({ min: 1, max: 64 });
  const slotCount = shelfV.opt('slots')?.int({ min: 2, max: 16 }) ?? 14;
  const physicalOrder = readPhysicalOrder(shelfV.opt('physical_order'), slotCount, src, shelfV);
  const hotSwap = readHotSwap(shelfV.opt('hot_swap'));
  const selCapacity = (() => {
    const s = shelfV.opt('sel');
    if (!s) return DEFAULT_SEL_CAPACITY;
    const m = s.map();
    const c = m.opt('capacity')?.int({ min: 1, max: 65534 }) ?? DEFAULT_SEL_CAPACITY;
    m.done();
    return c;
  })();
  const powerCycleIntervalMs = shelfV.opt('power_cycle_interval')?.duration({ min: 0, max: 600_000 }) ?? 1000;
  const chassisFru = (() => {
    const c = shelfV.opt('chassis');
    const d = { type: 0x17, partNumber: 'ATCA-SHELF', serial: 'SHELF0001' };
    if (!c) return d;
    const m = c.map();
    const out = {
      type: m.opt('type')?.int({ min: 0, max: 0xff, hex: true }) ?? d.type,
      partNumber: fruText(m.opt('part_number'), d.partNumber),
      serial: fruText(m.opt('serial'), d.serial),
    };
    m.done();
    return out;
  })();
  shelfV.done();

  const frus: FruConfig[] = [];
  const ctx: Ctx = { src, chassisFru, sensorNames: new Map(), addresses: new Map() };

  // Shelf managers.
  const smV = top.req('shelf_managers').map();
  const smAddress = smV.opt('address')?.int({ min: 0x10, max: 0xfe, hex: true }) ?? 0x20;
  if (smAddress % 2) smV.req('address').fail('an IPMB address is even (8-bit form)');
  const smLabel = smV.opt('label')?.str({ min: 1, max: SDR_ID_MAX }) ?? 'ShMC';
  const smSensorsV = smV.opt('sensors');
  const unitsV = smV.req('units').map();
  const unitNames = unitsV.keys();
  if (unitNames.length === 0 || unitNames.length > 2) src.fail(unitsV.node, 'shelf_managers.units: give one or two shelf managers (shmc-a, shmc-b)');
  let shmcSensors: SensorConfig[] | undefined;
  for (const [key, v, keyNode] of unitsV.entries()) {
    if (key !== 'shmc-a' && key !== 'shmc-b') src.fail(keyNode, `shelf_managers.units: "${key}" is not a shelf-manager name (use shmc-a, shmc-b)`);
    const m = v.map();
    const site = m.opt('site')?.int({ min: 1, max: 2 }) ?? (key === 'shmc-a' ? 1 : 2);
    const ha = m.opt('hardware_address')?.int({ min: 0x01, max: 0x7f, hex: true }) ?? (key === 'shmc-a' ? 0x08 : 0x09);
    const label = m.opt('label')?.str({ min: 1, max: SDR_ID_MAX }) ?? (key === 'shmc-a' ? 'ShMC-A' : 'ShMC-B');
    if (!shmcSensors) shmcSensors = readSensors(smSensorsV, smLabel, ctx, true);
    frus.push(readFru(m, ctx, { name: key, kind: 'shmc', label, siteType: SITE_TYPE.shmc, siteNumber: site, hardwareAddress: ha, sensors: shmcSensors, keyNode }));
  }
  smV.done();

  // Boards by logical slot.
  const boardsV = top.req('boards').map();
  const boardFrus: FruConfig[] = [];
  for (const [key, v, keyNode] of boardsV.entries()) {
    const mm = /^slot([1-9]\d?)$/.exec(key);
    if (!mm) src.fail(keyNode, `boards: "${key}" is not a slot name (write slot1 … slot${slotCount})`);
    const slot = Number(mm[1]);
    if (slot > slotCount) src.fail(keyNode, `boards: ${key} is beyond the shelf's ${slotCount} slots`);
    const m = v.map();
    const kind = m.req('type').oneOf(['hub', 'processor'] as const);
    if (kind === 'hub' && slot > 2) m.req('type').fail(`hub boards sit in the hub slots (slot1, slot2), not ${key}`);
    if (kind === 'processor' && slot <= 2) m.req('type').fail(`${key} is a hub slot; processor boards go in slot3 … slot${slotCount}`);
    const ha = m.opt('hardware_address')?.int({ min: 0x41, max: 0x7f, hex: true }) ?? boardHardwareAddress(slot);
    if (ha !== boardHardwareAddress(slot)) {
      m.req('hardware_address').fail(`a board in logical slot ${slot} has hardware address 0x${boardHardwareAddress(slot).toString(16)} (40h + slot, PICMG 3.0)`);
    }
    const label = m.opt('label')?.str({ min: 1, max: SDR_ID_MAX }) ?? (kind === 'hub' ? `Hub${slot}` : `Node${slot}`);
    const sensors = readSensors(m.opt('sensors'), label, ctx, false);
    const physicalSlot = physicalOrder.indexOf(slot) + 1;
    boardFrus.push(
      readFru(m, ctx, { name: key, kind, label, siteType: SITE_TYPE.board, siteNumber: slot, hardwareAddress: ha, sensors, keyNode, slot, physicalSlot }),
    );
  }
  boardsV.done();
  boardFrus.sort((a, b) => a.slot! - b.slot!);
  frus.push(...boardFrus);

  // Fan trays and PEMs.
  for (const [section, kind, prefix, siteType, baseHa] of [
    ['fan_trays', 'fan', 'fan', SITE_TYPE.fanTray, 0x29],
    ['pems', 'pem', 'pem', SITE_TYPE.pem, 0x2c],
  ] as const) {
    const sv = top.opt(section);
    if (!sv) continue;
    const sm = sv.map();
    let i = 0;
    for (const [key, v, keyNode] of sm.entries()) {
      const mm = new RegExp(`^${prefix}([1-9])$`).exec(key);
      if (!mm) src.fail(keyNode, `${section}: "${key}" is not a ${kind === 'fan' ? 'fan tray' : 'PEM'} name (write ${prefix}1, ${prefix}2, …)`);
      const n = Number(mm[1]);
      const m = v.map();
      const site = m.opt('site')?.int({ min: 1, max: 15 }) ?? n;
      const ha = m.opt('hardware_address')?.int({ min: 0x01, max: 0x7f, hex: true }) ?? baseHa + i;
      const label = m.opt('label')?.str({ min: 1, max: SDR_ID_MAX }) ?? `${kind === 'fan' ? 'Fan' : 'PEM'}${n}`;
      const sensors = readSensors(m.opt('sensors'), label, ctx, false);
      frus.push(readFru(m, ctx, { name: key, kind, label, siteType, siteNumber: site, hardwareAddress: ha, sensors, keyNode }));
      i++;
    }
  }

  // Unique addresses.
  for (const f of frus) {
    if (f.ipmbAddress === smAddress) src.fail(null, `${f.name}: IPMB address 0x${f.ipmbAddress.toString(16)} is the shelf-manager address`);
  }

  const dataplane = readDataplane(top.opt('dataplane'), frus.filter((f) => f.kind === 'processor').length);
  const ha = readHa(top.opt('ha'), frus, src);
  const ipmi = readIpmi(top.opt('ipmi'));
  top.done(['shelf', 'shelf_managers', 'boards', 'fan_trays', 'pems', 'dataplane', 'ha', 'ipmi']);

  return {
    name,
    slotCount,
    physicalOrder,
    hotSwap,
    selCapacity,
    powerCycleIntervalMs,
    chassisFru,
    shelfManager: { address: smAddress, label: smLabel },
    frus,
    dataplane,
    ha,
    ipmi,
    source: file,
  };
}

interface Ctx {
  src: YamlSource;
  chassisFru: { type: number; partNumber: string; serial: string };
  /** Sensor name → where it was defined (names are unique in the shelf, except the ShMC template). */
  sensorNames: Map<string, string>;
  /** IPMB address → FRU name. */
  addresses: Map<number, string>;
}

function readPhysicalOrder(v: Value | undefined, slots: number, src: YamlSource, shelf: MapReader): number[] {
  if (!v) {
    if (slots === 14) return [...PICMG_14_SLOT_ORDER];
    return Array.from({ length: slots }, (_, i) => i + 1);
  }
  const items = v.list();
  if (items.length !== slots) v.fail(`must list ${slots} logical slots (one per physical position), got ${items.length}`);
  const order = items.map((x) => x.int({ min: 1, max: slots }));
  const seen = new Set<number>();
  order.forEach((s, i) => {
    if (seen.has(s)) items[i]!.fail(`logical slot ${s} appears twice`);
    seen.add(s);
  });
  void src;
  void shelf;
  return order;
}

function readHotSwap(v: Value | undefined): HotSwapConfig {
  const d: HotSwapConfig = { stepMs: 1000, autoActivate: true, autoDeactivate: true };
  if (!v) return d;
  const m = v.map();
  const out: HotSwapConfig = {
    stepMs: m.opt('step')?.duration({ min: 0, max: 600_000 }) ?? d.stepMs,
    autoActivate: m.opt('auto_activate')?.bool() ?? d.autoActivate,
    autoDeactivate: m.opt('auto_deactivate')?.bool() ?? d.autoDeactivate,
  };
  m.done();
  return out;
}

function fruText(v: Value | undefined, dflt: string): string {
  const s = v ? v.text({ max: 63 }) : dflt;
  try {
    encodeField(s);
  } catch (e) {
    if (v) v.fail((e as Error).message);
    throw e;
  }
  return s;
}

/** Picks a linearisation for an analog reading: the finest resolution m·10^r (m ∈ {1, 2, 5})
 * whose 8-bit range covers 1.25 × the largest configured value. */
function autoScale(maxValue: number): Linearization {
  const need = Math.max(1e-9, maxValue * 1.25);
  for (let r = -3; r <= 3; r++) {
    for (const m of [1, 2, 5]) {
      if (255 * m * 10 ** r >= need) return { m, b: 0, bExp: 0, rExp: r };
    }
  }
  return { m: 1, b: 0, bExp: 0, rExp: 4 };
}

function readSensors(v: Value | undefined, label: string, ctx: Ctx, shared: boolean): SensorConfig[] {
  const out: SensorConfig[] = [];
  const used = new Set<number>();
  const pending: Array<{ item: Value; m: MapReader; explicit?: number }> = [];
  const items = v ? v.list() : [];
  for (const item of items) {
    const m = item.map();
    const explicit = m.opt('number')?.int({ min: 1, max: 254 });
    if (explicit !== undefined) {
      if (used.has(explicit)) m.req('number').fail(`sensor number ${explicit} is used twice in this controller`);
      used.add(explicit);
    }
    pending.push({ item, m, explicit });
  }
  let next = 1;
  const nextFree = () => {
    while (used.has(next)) next++;
    used.add(next);
    return next;
  };
  let hotswaps = 0;
  for (const { item, m, explicit } of pending) {
    const nameV = m.req('name');
    const name = nameV.str({ min: 1, max: SDR_ID_MAX });
    if ([...name].some((c) => c.charCodeAt(0) > 0xff)) nameV.fail('sensor names are Latin-1 text');
    const where = ctx.sensorNames.get(name);
    if (where && !(shared && where === 'shmc')) nameV.fail(`sensor name "${name}" is already used (${where}); names are unique in the shelf`);
    ctx.sensorNames.set(name, shared ? 'shmc' : `${label}`);
    const typeV: Value = m.req('type');
    const type = typeV.str();
    if (!isSensorKind(type)) typeV.fail(`"${type}" is not a sensor type (one of ${Object.keys(SENSOR_KINDS).join(', ')})`);
    const number = explicit ?? nextFree();
    if (type === 'hotswap') {
      hotswaps++;
      if (hotswaps > 1) typeV.fail('a controller has exactly one Hot Swap sensor');
      out.push({ kind: 'hotswap', name, number, sensorType: 0xf0 });
      m.done(['name', 'type', 'number']);
      continue;
    }
    const kind = SENSOR_KINDS[type];
    const unitV: Value | undefined = m.opt('unit');
    const unit = unitV ? unitV.str() : kind.unit;
    if (!isUnitName(unit)) return unitV!.fail(`"${unit}" is not a unit (one of ${Object.keys(UNIT_CODES).join(', ')})`);
    const nominalV = m.req('nominal');
    const nominal = nominalV.num();
    const thresholds: ThresholdValues = {};
    const tV = m.opt('thresholds');
    const tNodes: Partial<Record<ThresholdName, Value>> = {};
    if (tV) {
      const tm = tV.map();
      for (const k of THRESHOLD_KEYS) {
        const x = tm.opt(k);
        if (x) {
          thresholds[k] = x.num();
          tNodes[k] = x;
        }
      }
      tm.done(THRESHOLD_KEYS);
    }
    let hysteresis = { positive: 0, negative: 0 };
    const hV = m.opt('hysteresis');
    if (hV) {
      if (hV.isMap) {
        const hm = hV.map();
        hysteresis = { positive: hm.opt('positive')?.num({ min: 0 }) ?? 0, negative: hm.opt('negative')?.num({ min: 0 }) ?? 0 };
        hm.done(['positive', 'negative']);
      } else {
        const h = hV.num({ min: 0 });
        hysteresis = { positive: h, negative: h };
      }
    }
    let linearization: Linearization;
    const sV = m.opt('scale');
    if (sV) {
      const sm = sV.map();
      linearization = {
        m: sm.opt('m')?.int({ min: -512, max: 511 }) ?? 1,
        b: sm.opt('b')?.int({ min: -512, max: 511 }) ?? 0,
        bExp: sm.opt('b_exp')?.int({ min: -8, max: 7 }) ?? 0,
        rExp: sm.opt('r_exp')?.int({ min: -8, max: 7 }) ?? 0,
      };
      if (linearization.m === 0) sm.req('m').fail('M must not be 0');
      sm.done(['m', 'b', 'b_exp', 'r_exp']);
    } else if (type === 'temperature') {
      linearization = { m: 1, b: 0, bExp: 0, rExp: 0 };
    } else {
      linearization = autoScale(Math.max(Math.abs(nominal), ...Object.values(thresholds).map((x) => Math.abs(x!))));
    }
    if (!representable(nominal, linearization)) nominalV.fail(`${nominal} is outside the sensor's 8-bit range with this scale`);
    for (const k of THRESHOLD_KEYS) {
      const t = thresholds[k];
      if (t !== undefined && !representable(t, linearization)) tNodes[k]!.fail(`${t} is outside the sensor's 8-bit range with this scale`);
    }
    // the same rule as Set Sensor Thresholds: lnr ≤ lc ≤ lnc ≤ unc ≤ uc ≤ unr in raw-reading order
    const disorder = thresholdOrderProblem(thresholds, linearization);
    if (disorder) tNodes[disorder.threshold]!.fail(disorder.message);
    const s: ThresholdSensorConfig = {
      kind: 'threshold',
      name,
      number,
      type,
      sensorType: kind.sensorType,
      unitCode: UNIT_CODES[unit],
      unit,
      linearization,
      thresholds,
      hysteresis,
      nominal,
    };
    out.push(s);
    m.done(['name', 'type', 'number', 'unit', 'nominal', 'thresholds', 'hysteresis', 'scale']);
    void item;
  }
  if (hotswaps === 0) {
    const name = `${label} HotSwap`;
    if (name.length > SDR_ID_MAX) {
      (v ?? ctx.src.root()).fail(`add a sensor of type hotswap: the default name "${name}" is longer than ${SDR_ID_MAX} characters`);
    }
    if (!(shared && ctx.sensorNames.get(name) === 'shmc') && ctx.sensorNames.has(name)) {
      (v ?? ctx.src.root()).fail(`the default Hot Swap sensor name "${name}" is already used`);
    }
    ctx.sensorNames.set(name, shared ? 'shmc' : label);
    out.push({ kind: 'hotswap', name, number: nextFree(), sensorType: 0xf0 });
  }
  return out;
}

interface FruBase {
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
];

function readFru(m: MapReader, ctx: Ctx, base: FruBase): FruConfig {
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

function readInventory(v: Value | undefined, base: FruBase, ctx: Ctx): FruInventory {
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

// ---------------------------------------------------------------- data plane

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** True for an IPv4 or IPv6 address in text form (no prefix, no port). */
export function isIpAddress(s: string): boolean {
  if (IPV4.test(s)) return true;
  return isIpv6(s);
}

function isIpv6(s: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || s.includes(':::')) return false;
  let groups = s.split(':');
  const last = groups[groups.length - 1]!;
  let extra = 0;
  if (last.includes('.')) {
    if (!IPV4.test(last)) return false;
    groups = groups.slice(0, -1);
    extra = 2;
  }
  const dbl = s.indexOf('::');
  if (dbl !== s.lastIndexOf('::')) return false;
  const parts = groups.filter((g, i) => !(g === '' && (dbl >= 0 || i === 0 || i === groups.length - 1)));
  if (parts.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  const count = parts.length + extra;
  return dbl >= 0 ? count <= 7 : count === 8;
}

function readPrefix(v: Value): string {
  const s = v.str();
  const [addr, len, more] = s.split('/');
  if (more !== undefined || !addr || !isIpAddress(addr)) v.fail(`"${s}" is not an IP address or prefix (e.g. 10.0.0.1, 0.0.0.0/0, ::/0)`);
  if (len !== undefined) {
    const max = IPV4.test(addr) ? 32 : 128;
    if (!/^\d+$/.test(len) || Number(len) > max) v.fail(`prefix length in "${s}" must be 0..${max}`);
  }
  return s;
}

/** The `dataplane` section; `ecmpMembers` = the hubs' ECMP group size (one member per processor
 * board, as ecmpMembers() builds it), which a resilient table must not have fewer buckets than. */
function readDataplane(v: Value | undefined, ecmpMemberCount: number): { ecmp: EcmpConfig; processor: ProcessorConfig } {
  const ecmp: EcmpConfig = { ...DEFAULT_ECMP };
  const processor: ProcessorConfig = { sessions: { ...DEFAULT_SESSION_TABLE }, timeouts: { ...DEFAULT_TIMEOUTS }, services: [], acl: [] };
  if (!v) return { ecmp, processor };
  const m = v.map();
  const eV = m.opt('ecmp');
  if (eV) {
    const e = eV.map();
    ecmp.fields = e.opt('fields')?.oneOf(['l2', 'l3', 'l3l4'] as const) ?? ecmp.fields;
    ecmp.hash = e.opt('hash')?.oneOf(['pearson', 'crc32', 'crc16', 'toeplitz'] as const) ?? ecmp.hash;
    ecmp.symmetric = e.opt('symmetric')?.bool() ?? ecmp.symmetric;
    ecmp.mapping = e.opt('mapping')?.oneOf(['modulo', 'resilient'] as const) ?? ecmp.mapping;
    const bV = e.opt('buckets');
    ecmp.buckets = bV?.int({ min: 1, max: 1 << 20 }) ?? ecmp.buckets;
    if (ecmp.mapping === 'resilient' && ecmp.buckets < ecmpMemberCount) {
      // fewer buckets than members leaves a board without any share of the traffic
      (bV ?? eV).fail(`${ecmp.buckets} buckets cannot give each of the ${ecmpMemberCount} ECMP members (one per processor board) a share; give at least ${ecmpMemberCount}`);
    }
    ecmp.tunnel = e.opt('tunnel')?.oneOf(['outer', 'inner'] as const) ?? ecmp.tunnel;
    const kV = e.opt('toeplitz_key');
    if (kV) ecmp.toeplitzKey = kV.str({ pattern: /^[0-9a-fA-F]{80}$/, hint: '40 bytes as 80 hex digits' }).toLowerCase();
    e.done(['fields', 'hash', 'symmetric', 'mapping', 'buckets', 'tunnel', 'toeplitz_key']);
  }
  const sV = m.opt('sessions');
  if (sV) {
    const s = sV.map();
    const t = processor.sessions;
    t.capacity = s.opt('capacity')?.int({ min: 1, max: 100_000_000 }) ?? t.capacity;
    t.hotCapacity = s.opt('hot_capacity')?.int({ min: 0, max: 100_000_000 }) ?? Math.min(t.hotCapacity, t.capacity);
    t.promoteAfterHits = s.opt('promote_after_hits')?.int({ min: 1, max: 1_000_000 }) ?? t.promoteAfterHits;
    t.aclCapacity = s.opt('acl_capacity')?.int({ min: 1, max: 1_000_000 }) ?? t.aclCapacity;
    t.persistenceCapacity = s.opt('persistence_capacity')?.int({ min: 1, max: 100_000_000 }) ?? t.persistenceCapacity;
    if (t.hotCapacity > t.capacity) s.req('hot_capacity').fail(`must not exceed capacity (${t.capacity})`);
    s.done(['capacity', 'hot_capacity', 'promote_after_hits', 'acl_capacity', 'persistence_capacity']);
  }
  const tV = m.opt('timeouts');
  if (tV) {
    const t = tV.map();
    const o = processor.timeouts;
    const d = (k: string, cur: number) => t.opt(k)?.duration({ min: 1 }) ?? cur;
    o.tcpSynRecv = d('tcp_syn_recv', o.tcpSynRecv);
    o.tcpEstablished = d('tcp_established', o.tcpEstablished);
    o.tcpFinWait = d('tcp_fin_wait', o.tcpFinWait);
    o.tcpClose = d('tcp_close', o.tcpClose);
    o.udp = d('udp', o.udp);
    o.other = d('other', o.other);
    o.tcpTimeWait = d('tcp_time_wait', o.tcpTimeWait ?? DEFAULT_TIMEOUTS.tcpTimeWait!);
    t.done(['tcp_syn_recv', 'tcp_established', 'tcp_fin_wait', 'tcp_close', 'udp', 'other', 'tcp_time_wait']);
  }
  const svcV = m.opt('services');
  if (svcV) {
    const names = new Set<string>();
    for (const item of svcV.list()) {
      const svc = readService(item);
      if (names.has(svc.name)) item.map().req('name').fail(`service name "${svc.name}" is used twice`);
      names.add(svc.name);
      processor.services.push(svc);
    }
  }
  const aclV = m.opt('acl');
  if (aclV) {
    const rules = aclV.list();
    if (rules.length > processor.sessions.aclCapacity) aclV.fail(`${rules.length} rules exceed acl_capacity ${processor.sessions.aclCapacity}`);
    for (const item of rules) processor.acl.push(readAcl(item));
  }
  const mp = m.opt('midstream_pickup');
  if (mp) processor.midstreamPickup = mp.bool();
  const hs = m.opt('hash_seed');
  if (hs) processor.hashSeed = hs.int({ min: 0, max: 0xffffffff, hex: true });
  m.done(['ecmp', 'sessions', 'timeouts', 'services', 'acl', 'midstream_pickup', 'hash_seed']);
  return { ecmp, processor };
}

function readService(item: Value): VirtualServiceConfig {
  const m = item.map();
  const svc: VirtualServiceConfig = {
    name: m.req('name').str({ min: 1, max: 64 }),
    vip: readPrefix(m.req('vip')),
    port: m.opt('port')?.int({ min: 0, max: 65535 }) ?? 0,
    protocol: m.opt('protocol')?.oneOf(['tcp', 'udp', 'sctp', 'any'] as const) ?? 'any',
    scheduler: m.opt('scheduler')?.oneOf(['rr', 'wrr', 'lc', 'wlc', 'sh', 'maglev', 'dynamic'] as const) ?? 'wrr',
    persistenceMs: m.opt('persistence')?.duration({ min: 0 }) ?? 0,
    encapsulation: m.opt('encapsulation')?.oneOf(['ipip', 'gre'] as const) ?? 'gre',
    pool: [],
    health: { ...DEFAULT_HEALTH },
    alarmBelow: m.opt('alarm_below')?.num({ min: 0, max: 1 }) ?? 0.5,
  };
  const mt = m.opt('maglev_table_size');
  if (mt) {
    const n = mt.int({ min: 3, max: 10_000_019 });
    if (!isPrime(n)) mt.fail(`${n} is not a prime (Maglev needs a prime table size, e.g. 65537)`);
    svc.maglevTableSize = n;
  }
  const hV = m.opt('health');
  if (hV) svc.health = readHealth(hV);
  const poolV = m.req('pool');
  const names = new Set<string>();
  for (const rv of poolV.list()) {
    const rs = readRealServer(rv);
    if (names.has(rs.name)) rv.map().req('name').fail(`real server name "${rs.name}" is used twice in this pool`);
    names.add(rs.name);
    svc.pool.push(rs);
  }
  if (svc.pool.length === 0) poolV.fail('a virtual service needs at least one real server');
  m.done(['name', 'vip', 'port', 'protocol', 'scheduler', 'persistence', 'encapsulation', 'maglev_table_size', 'health', 'pool', 'alarm_below']);
  return svc;
}

function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let i = 2; i * i <= n; i++) if (n % i === 0) return false;
  return true;
}

function readHealth(v: Value): HealthCheckConfig {
  const m = v.map();
  const h: HealthCheckConfig = {
    kind: m.opt('kind')?.oneOf(['icmp', 'tcp', 'http', 'udp'] as const) ?? DEFAULT_HEALTH.kind,
    intervalMs: m.opt('interval')?.duration({ min: 10 }) ?? DEFAULT_HEALTH.intervalMs,
    timeoutMs: m.opt('timeout')?.duration({ min: 1 }) ?? DEFAULT_HEALTH.timeoutMs,
    rise: m.opt('rise')?.int({ min: 1, max: 100 }) ?? DEFAULT_HEALTH.rise,
    fall: m.opt('fall')?.int({ min: 1, max: 100 }) ?? DEFAULT_HEALTH.fall,
  };
  const p = m.opt('path');
  if (p) h.path = p.str({ pattern: /^\//, hint: 'an HTTP path starting with /' });
  else if (h.kind === 'http') h.path = '/';
  m.done(['kind', 'interval', 'timeout', 'rise', 'fall', 'path']);
  return h;
}

function readRealServer(v: Value): RealServerConfig {
  const m = v.map();
  const aV = m.req('address');
  const text = aV.str();
  let address = text;
  let port: number | undefined;
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  const v4 = /^([^:]+):(\d+)$/.exec(text);
  if (v6) {
    address = v6[1]!;
    port = Number(v6[2]);
  } else if (v4) {
    address = v4[1]!;
    port = Number(v4[2]);
  }
  if (!isIpAddress(address)) aV.fail(`"${text}" is not an address (a.b.c.d, a.b.c.d:PORT, IPv6, or [IPv6]:PORT)`);
  if (port !== undefined && (port < 1 || port > 65535)) aV.fail(`port ${port} out of range 1..65535`);
  const rs: RealServerConfig = {
    name: m.req('name').str({ min: 1, max: 64 }),
    address,
    weight: m.opt('weight')?.int({ min: 0, max: 65535 }) ?? 1,
  };
  if (port !== undefined) rs.port = port;
  const sV = m.opt('sim');
  if (sV) {
    const s = sV.map();
    const sim: NonNullable<RealServerConfig['sim']> = {};
    const c = s.opt('capacity')?.int({ min: 1, max: 100_000_000 });
    if (c !== undefined) sim.capacity = c;
    for (const k of ['cpu', 'mem', 'queue'] as const) {
      const x = s.opt(k)?.num({ min: 0, max: 1 });
      if (x !== undefined) sim[k] = x;
    }
    const dV = s.opt('down');
    if (dV) {
      sim.down = dV.list().map((w) => {
        const wm = w.map();
        const from = wm.req('from').duration({ min: 0 });
        const toV = wm.req('to');
        const to = toV.duration({ min: 0 });
        if (to <= from) toV.fail('must be later than from');
        wm.done(['from', 'to']);
        return { from, to };
      });
    }
    s.done(['capacity', 'cpu', 'mem', 'queue', 'down']);
    rs.sim = sim;
  }
  m.done(['name', 'address', 'weight', 'sim']);
  return rs;
}

function readAcl(v: Value): AclRuleConfig {
  const m = v.map();
  const r: AclRuleConfig = {
    priority: m.req('priority').int({ min: 0, max: 1_000_000 }),
    action: m.req('action').oneOf(['drop', 'permit'] as const),
  };
  const src = m.opt('src');
  if (src) r.src = readPrefix(src);
  const dst = m.opt('dst');
  if (dst) r.dst = readPrefix(dst);
  const p = m.opt('protocol');
  if (p) r.protocol = p.oneOf(['tcp', 'udp', 'sctp', 'any'] as const);
  const dp = m.opt('dport');
  if (dp) r.dport = dp.int({ min: 0, max: 65535 });
  m.done(['src', 'dst', 'protocol', 'dport', 'priority', 'action']);
  return r;
}

// ---------------------------------------------------------------- HA, IPMI

function readHa(v: Value | undefined, frus: FruConfig[], src: YamlSource): { timing: HaConfig; pairs: PairConfig[] } {
  const timing: HaConfig = { ...DEFAULT_HA };
  const m = v?.map();
  if (m) {
    const d = (k: string, cur: number, min = 1) => m.opt(k)?.duration({ min }) ?? cur;
    timing.heartbeatMs = d('heartbeat', timing.heartbeatMs);
    timing.missedHeartbeats = m.opt('missed_heartbeats')?.int({ min: 1, max: 100 }) ?? timing.missedHeartbeats;
    timing.watchdogTimeoutMs = d('watchdog_timeout', timing.watchdogTimeoutMs, 100);
    timing.watchdogPretimeoutMs = d('watchdog_pretimeout', timing.watchdogPretimeoutMs, 0);
    timing.watchdogKickMs = m.opt('watchdog_kick')?.duration({ min: 1 }) ?? timing.heartbeatMs;
    timing.resetMs = d('reset_time', timing.resetMs, 0);
    timing.bootMs = d('boot_time', timing.bootMs, 0);
    timing.syncMinAgeMs = d('sync_min_age', timing.syncMinAgeMs, 0);
    timing.syncBatchMs = d('sync_batch', timing.syncBatchMs);
    timing.syncMtu = m.opt('sync_mtu')?.int({ min: 576, max: 65535 }) ?? timing.syncMtu;
    timing.syncFullResyncMs = d('sync_full_resync', timing.syncFullResyncMs);
    timing.globalStallMs = d('global_stall', timing.globalStallMs);
    if (timing.watchdogPretimeoutMs >= timing.watchdogTimeoutMs && timing.watchdogPretimeoutMs > 0) {
      m.req('watchdog_pretimeout').fail('must be shorter than watchdog_timeout');
    }
  }
  const byName = new Map(frus.map((f) => [f.name, f]));
  const pairs: PairConfig[] = [];
  const pV = m?.opt('pairs');
  if (pV) {
    const pm = pV.map();
    const inPair = new Map<string, string>();
    for (const [name, item, keyNode] of pm.entries()) {
      if (!/^[a-z][a-z0-9_-]{0,31}$/.test(name)) src.fail(keyNode, `ha.pairs: "${name}" is not a pair name (lower-case letters, digits, - and _)`);
      const im = item.map();
      const membersV = im.req('members');
      const items = membersV.list();
      if (items.length !== 2) membersV.fail('a pair has exactly two members');
      const members = items.map((x) => x.str()) as [string, string];
      if (members[0] === members[1]) items[1]!.fail('the two members must differ');
      const kinds = members.map((mm, i) => {
        const f = byName.get(mm);
        const item: Value = items[i]!;
        if (!f) return item.fail(`"${mm}" is not a shelf manager or board of this shelf`);
        if (f.kind !== 'shmc' && f.kind !== 'processor') item.fail(`${mm} is a ${f.kind}; pairs are made of shelf managers or processor boards`);
        const other = inPair.get(mm);
        if (other) item.fail(`${mm} is already a member of pair ${other}`);
        inPair.set(mm, name);
        return f.kind;
      });
      if (kinds[0] !== kinds[1]) membersV.fail('both members must be shelf managers or both processor boards');
      const kind = kinds[0] === 'shmc' ? 'shmc' : 'processor';
      const kindV = im.opt('kind');
      if (kindV && kindV.oneOf(['shmc', 'processor'] as const) !== kind) kindV.fail(`the members make this a ${kind} pair`);
      im.done(['members', 'kind']);
      pairs.push({ name, kind, members });
    }
  } else {
    const shmcs = frus.filter((f) => f.kind === 'shmc');
    if (shmcs.length === 2) pairs.push({ name: 'shmc', kind: 'shmc', members: [shmcs[0]!.name, shmcs[1]!.name] });
    const procs = frus.filter((f) => f.kind === 'processor');
    for (let i = 0; i + 1 < procs.length; i += 2) {
      pairs.push({ name: `lb${i / 2 + 1}`, kind: 'processor', members: [procs[i]!.name, procs[i + 1]!.name] });
    }
  }
  m?.done([
    'heartbeat',
    'missed_heartbeats',
    'watchdog_timeout',
    'watchdog_pretimeout',
    'watchdog_kick',
    'reset_time',
    'boot_time',
    'sync_min_age',
    'sync_batch',
    'sync_mtu',
    'sync_full_resync',
    'global_stall',
    'pairs',
  ]);
  return { timing, pairs };
}

function readIpmi(v: Value | undefined): IpmiSettings {
  const out: IpmiSettings = { ...DEFAULT_IPMI, cipherSuites: [...DEFAULT_IPMI.cipherSuites] };
  if (!v) return out;
  const m = v.map();
  const b = m.opt('bind');
  if (b) {
    out.bind = b.str();
    if (!isIpAddress(out.bind)) b.fail(`"${out.bind}" is not an IP address`);
  }
  out.port = m.opt('port')?.int({ min: 0, max: 65535 }) ?? out.port;
  out.ipmi15 = m.opt('ipmi15')?.bool() ?? out.ipmi15;
  const cs = m.opt('cipher_suites');
  if (cs) {
    const items = cs.list();
    out.cipherSuites = [];
    for (const x of items) {
      const n = x.int({ min: 0, max: 255 });
      // the same rule and words as --ipmi-cipher-suites (suite 0 only through the command-line option)
      const problem = cipherSuiteIdProblem(n, false);
      if (problem) x.fail(problem);
      if (out.cipherSuites.includes(n)) x.fail(`cipher suite ${n} listed twice`);
      out.cipherSuites.push(n);
    }
    if (out.cipherSuites.length === 0) cs.fail('offer at least one cipher suite');
  }
  out.idleTimeoutMs = m.opt('idle_timeout')?.duration({ min: 1000, max: 3_600_000 }) ?? out.idleTimeoutMs;
  m.done(['bind', 'port', 'ipmi15', 'cipher_suites', 'idle_timeout']);
  return out;
}

// ---------------------------------------------------------------- helpers for consumers

/** Logical slots of the processor boards, ascending. */
export function processorSlots(c: ShelfConfig): number[] {
  return c.frus.filter((f) => f.kind === 'processor').map((f) => f.slot!);
}

/** Logical slots of the hub boards, ascending. */
export function hubSlots(c: ShelfConfig): number[] {
  return c.frus.filter((f) => f.kind === 'hub').map((f) => f.slot!);
}

/**
 * The hubs' ECMP group: one member per processor board; hub port number = the board's logical
 * slot (port 3 leads to slot3). With `buddyFailover` (the HA issue), a member's buckets go to its
 * pair buddy when it goes down (`failoverPort`); without it they are spread over the others.
 */
export function ecmpMembers(c: ShelfConfig, opts: { buddyFailover?: boolean } = {}): EcmpMember[] {
  const buddy = new Map<string, string>();
  if (opts.buddyFailover) {
    for (const p of c.ha.pairs) {
      if (p.kind !== 'processor') continue;
      buddy.set(p.members[0], p.members[1]);
      buddy.set(p.members[1], p.members[0]);
    }
  }
  return c.frus
    .filter((f) => f.kind === 'processor')
    .map((f) => {
      const m: EcmpMember = { port: f.slot!, slot: f.slot! };
      const b = buddy.get(f.name);
      if (b) m.failoverPort = Number(b.slice(4));
      return m;
    });
}

/** One-line summary for `atcasim config check`. */
export function summarizeShelf(c: ShelfConfig): string {
  const count = (k: FruKind) => c.frus.filter((f) => f.kind === k).length;
  const boards = count('hub') + count('processor');
  const sensors = c.frus.reduce((n, f) => n + f.sensors.length, 0);
  return (
    `shelf "${c.name}": ${c.slotCount} slots (${count('hub')} hubs, ${count('processor')} processor boards, ${c.slotCount - boards} empty), ` +
    `${count('shmc')} ShMCs, ${count('fan')} fan trays, ${count('pem')} PEMs, ${sensors} sensors, ` +
    `${c.dataplane.processor.services.length} virtual services, HA pairs ${c.ha.pairs.map((p) => p.name).join(', ') || 'none'}`
  );
}
