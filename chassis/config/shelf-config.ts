/**
 * Shelf YAML → ShelfConfig: parsing, validation with file:line:column errors (ConfigError), and
 * defaults. The format is documented key by key in docs/shelf.md; the shipped default is
 * ./default-shelf.yaml. Pure: the caller reads the file (chassis/io/data-dir.ts, chassis/cli).
 *
 * This file reads the top level and the `shelf` section and places the FRUs (shelf managers, boards
 * by logical slot, fan trays, PEMs); each FRU's entry is ./fru-section.ts, its sensors
 * ./sensor-section.ts, and the `dataplane`, `ha`, `ipmi` and `snmp` sections have files of their own.
 * Queries over the result (slots, the hubs' ECMP group) are in ./slots.ts.
 *
 * Sources: PICMG 3.0 §3.2.1 (logical/physical slots, hardware address 40h + slot, IPMB-0 = 2 × HA).
 */
import { DEFAULT_SEL_CAPACITY } from '../sensors/sel.ts';
import { SDR_ID_MAX } from '../sensors/sdr.ts';
import { readDataplane } from './dataplane-section.ts';
import { fruText, readFru, type FruContext } from './fru-section.ts';
import { readHa } from './ha-section.ts';
import { readIpmi } from './ipmi-section.ts';
import { readSensors, type SensorContext } from './sensor-section.ts';
import { readSnmp } from './snmp-section.ts';
import { PICMG_14_SLOT_ORDER, SITE_TYPE, boardHardwareAddress, type FruConfig, type FruKind, type HotSwapConfig, type SensorConfig, type ShelfConfig } from './types.ts';
import { checkLive, readBackPort, readFrontPort } from './live-section.ts';
import { YamlSource, type MapReader, type Value } from './yaml-reader.ts';

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

  const shelf = readShelfSection(top.req('shelf').map());
  const ctx: SensorContext & FruContext = { src, chassisFru: shelf.chassisFru, sensorNames: new Map(), addresses: new Map() };
  const managers = readShelfManagers(top.req('shelf_managers').map(), ctx);
  const frus: FruConfig[] = [...managers.frus, ...readBoards(top.req('boards').map(), ctx, shelf), ...readTrays(top, ctx)];

  // Unique addresses.
  for (const f of frus) {
    if (f.ipmbAddress === managers.address) src.fail(null, `${f.name}: IPMB address 0x${f.ipmbAddress.toString(16)} is the shelf-manager address`);
  }

  const dataplane = readDataplane(top.opt('dataplane'), frus.filter((f) => f.kind === 'processor').length);
  checkLiveKeys(top, frus, dataplane.processor.services);
  const ha = readHa(top.opt('ha'), frus, src);
  const ipmi = readIpmi(top.opt('ipmi'));
  const snmp = readSnmp(top.opt('snmp'));
  top.done(['shelf', 'shelf_managers', 'boards', 'fan_trays', 'pems', 'dataplane', 'ha', 'ipmi', 'snmp']);

  return {
    name: shelf.name,
    slotCount: shelf.slotCount,
    physicalOrder: shelf.physicalOrder,
    hotSwap: shelf.hotSwap,
    selCapacity: shelf.selCapacity,
    powerCycleIntervalMs: shelf.powerCycleIntervalMs,
    chassisFru: shelf.chassisFru,
    shelfManager: { address: managers.address, label: managers.label },
    frus,
    dataplane,
    ha,
    ipmi,
    snmp,
    source: file,
  };
}

/** The `shelf` section: name, slots and their physical order, hot-swap timing, SEL capacity, the power-cycle interval, the chassis FRU area. */
function readShelfSection(shelfV: MapReader) {
  const name = shelfV.req('name').str({ min: 1, max: 64 });
  const slotCount = shelfV.opt('slots')?.int({ min: 2, max: 16 }) ?? 14;
  const physicalOrder = readPhysicalOrder(shelfV.opt('physical_order'), slotCount);
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
  return { name, slotCount, physicalOrder, hotSwap, selCapacity, powerCycleIntervalMs, chassisFru };
}

/** The `shelf_managers` section: the logical shelf-manager address and label, one or two ShMC units sharing one sensor template. */
function readShelfManagers(smV: MapReader, ctx: SensorContext & FruContext): { frus: FruConfig[]; address: number; label: string } {
  const src: YamlSource = ctx.src;
  const frus: FruConfig[] = [];
  const address = smV.opt('address')?.int({ min: 0x10, max: 0xfe, hex: true }) ?? 0x20;
  if (address % 2) smV.req('address').fail('an IPMB address is even (8-bit form)');
  const label = smV.opt('label')?.str({ min: 1, max: SDR_ID_MAX }) ?? 'ShMC';
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
    const unitLabel = m.opt('label')?.str({ min: 1, max: SDR_ID_MAX }) ?? (key === 'shmc-a' ? 'ShMC-A' : 'ShMC-B');
    if (!shmcSensors) shmcSensors = readSensors(smSensorsV, label, ctx, true);
    frus.push(readFru(m, ctx, { name: key, kind: 'shmc', label: unitLabel, siteType: SITE_TYPE.shmc, siteNumber: site, hardwareAddress: ha, sensors: shmcSensors, keyNode }));
  }
  smV.done();
  return { frus, address, label };
}

/** The live keys against the services (live-section.ts): the failure at the key it concerns. */
function checkLiveKeys(top: MapReader, frus: readonly FruConfig[], services: Parameters<typeof checkLive>[0]): void {
  const backs = frus.filter((f) => f.backPort !== undefined).map((f) => ({ slot: f.slot!, port: f.backPort! }));
  const bad = checkLive(services, backs);
  if (bad === null) return;
  if (bad.kind === 'rs-outside') {
    const svc = top.req('dataplane').map().req('services').list()[bad.service]!.map();
    return svc.req('pool').list()[bad.member]!.map().req('address').fail(bad.message);
  }
  const bp = top.req('boards').map().req(`slot${bad.slot}`).map().req('back_port').map();
  const item = bp.req('local_addresses').list().find((v) => v.str() === bad.address);
  (item ?? bp.req('local_addresses')).fail(bad.message);
}

/** The `boards` section, by logical slot: hubs in slot1/slot2, processor boards in the others; sorted by slot. */
function readBoards(boardsV: MapReader, ctx: SensorContext & FruContext, shelf: { slotCount: number; physicalOrder: number[] }): FruConfig[] {
  const { slotCount, physicalOrder } = shelf;
  const src: YamlSource = ctx.src;
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
    const fpV = m.opt('front_port');
    const bpV = m.opt('back_port');
    if (fpV && kind !== 'hub') fpV.fail('only hubs have a front_port (processor boards have a back_port)');
    if (bpV && kind !== 'processor') bpV.fail('only processor boards have a back_port (hubs have a front_port)');
    const fru = readFru(m, ctx, { name: key, kind, label, siteType: SITE_TYPE.board, siteNumber: slot, hardwareAddress: ha, sensors, keyNode, slot, physicalSlot });
    if (fpV) fru.frontPort = readFrontPort(fpV);
    if (bpV) fru.backPort = readBackPort(bpV);
    boardFrus.push(fru);
  }
  boardsV.done();
  boardFrus.sort((a, b) => a.slot! - b.slot!);
  return boardFrus;
}

/** The `fan_trays` and `pems` sections (fan1…, pem1…). */
function readTrays(top: MapReader, ctx: SensorContext & FruContext): FruConfig[] {
  const src: YamlSource = ctx.src;
  const frus: FruConfig[] = [];
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
  return frus;
}

function readPhysicalOrder(v: Value | undefined, slots: number): number[] {
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
