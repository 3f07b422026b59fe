/**
 * PICMG 3.0 commands (NetFn 2Ch, group extension identifier 00h; research/ipmi.md §C) against the
 * Shelf, answered by every controller for its FRU devices (shelf-manager/target.ts: FRU 0 = the
 * controller's FRU; at the logical shelf manager 20h FRU 0 = the active ShMC and FRU n = the FRU
 * with hardware address n):
 *
 *   00 Get PICMG Properties · 01 Get Address Info · 02 Get Shelf Address Info (20h) · 04 FRU Control
 *   05 Get FRU LED Properties · 06 Get LED Color Capabilities · 07/08 Set/Get FRU LED State
 *   0A/0B Set/Get FRU Activation Policy · 0C Set FRU Activation · 0D Get Device Locator Record ID
 *   0E/0F Set/Get Port State · 10 Compute Power Properties · 11/12 Set/Get Power Level
 *   14 Get Fan Speed Properties · 15/16 Set/Get Fan Level · 17 Bused Resource
 *   19/1A Set/Get AMC Port State · 1E FRU Control Capabilities · 2C/2D Set/Get Clock State
 *
 * Every request starts with the PICMG identifier 00h: an empty request answers C7h, another group
 * identifier (VITA 03h, …) C1h; every successful response starts with 00h. The HPM.1 commands
 * (2Eh–38h) are registered from chassis/ipmi/hpm/commands.ts. HPM.2 (3Eh) and the commands not
 * listed are not registered and answer C1h at every privilege.
 *
 * The active ShMC is FRU 0 at 20h: Set FRU Activation (deactivate) or FRU Control (cold reset) of
 * it switches the shelf-manager role over to the peer first (ShelfServices.switchover), then acts
 * on the old one; the shelf address keeps answering (the peer now). Without a healthy standby the
 * command is refused with D5h.
 */
import type { FruControlOption } from '../../model/events.ts';
import { LED_COLOR, STANDARD_LEDS, decodeLedFunction, encodeLedFunction, type LedColorName } from '../../model/leds.ts';
import type { PowerLevelType } from '../../model/power.ts';
import { CompletionCode, IpmiError, NetFn } from '../codes.ts';
import type { CommandDef, CommandHandler } from '../controller.ts';
import type { IpmiRequest } from '../message.ts';
import { shelfCall } from '../shelf-manager/errors.ts';
import type { ShelfTarget } from '../shelf-manager/target.ts';

/** PICMG extension version reported: 2.2 (PICMG 3.0 R2.0 ATCA; what ipmitool discovers as ATCA). */
export const PICMG_EXTENSION_VERSION = 0x22;
/** Hardware address of the logical shelf manager (IPMB 20h = 2 × 10h). */
export const SHELF_MANAGER_HARDWARE_ADDRESS = 0x10;

const FRU_CONTROL_OPTIONS: readonly FruControlOption[] = ['cold-reset', 'warm-reset', 'graceful-reboot', 'diagnostic-interrupt'];
const POWER_TYPES: readonly PowerLevelType[] = ['steady', 'desired-steady', 'early', 'desired-early'];
const IFACE_NAMES = ['base', 'fabric', 'update'] as const;

function bad(detail: string): IpmiError {
  return new IpmiError(CompletionCode.InvalidDataField, detail);
}

/**
 * Wraps a PICMG handler: checks the identifier byte and the request length (min..max bytes,
 * identifier included), and prefixes the response with the identifier.
 */
function picmg(min: number, max: number, fn: (req: IpmiRequest, d: Uint8Array) => number[] | Uint8Array | void): CommandHandler {
  return (req) => {
    const d = req.data;
    if (d.length === 0) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'no group extension identifier');
    if (d[0] !== 0x00) throw new IpmiError(CompletionCode.InvalidCommand, `group extension ${d[0]} is not PICMG`);
    if (d.length < min || d.length > max) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, `request data length ${d.length}, expected ${min}..${max}`);
    const out = fn(req, d);
    return Uint8Array.from([0x00, ...(out ?? [])]);
  };
}

function ledDef(led: number) {
  const d = STANDARD_LEDS[led];
  if (!d) throw bad(`LED ${led} does not exist (0..${STANDARD_LEDS.length - 1})`);
  return d;
}

function colorBitmap(colors: readonly LedColorName[]): number {
  return colors.reduce((m, c) => m | (1 << LED_COLOR[c]), 0);
}

/** Encodes a link descriptor (PICMG 3.0 Table 3-59) as 4 bytes. */
export function encodeLinkInfo(l: { interface: string; channel: number; portFlags: number; linkType: number; linkTypeExtension: number; groupingId: number }): number[] {
  const iface = IFACE_NAMES.indexOf(l.interface as (typeof IFACE_NAMES)[number]);
  return [
    (l.channel & 0x3f) | ((iface & 3) << 6),
    (l.portFlags & 0x0f) | ((l.linkType & 0x0f) << 4),
    ((l.linkType >> 4) & 0x0f) | ((l.linkTypeExtension & 0x0f) << 4),
    l.groupingId & 0xff,
  ];
}

/** One PICMG command: NetFn 2Ch, the identifier byte checked and echoed (see `picmg`). */
function def(cmd: number, name: string, min: number, max: number, fn: (req: IpmiRequest, d: Uint8Array) => number[] | Uint8Array | void): CommandDef {
  return { netFn: NetFn.GroupExtension, cmd, name, handler: picmg(min, max, fn) };
}

/** PICMG commands: Get PICMG Properties and Get Address Info. */
function picmgAddressCommands(t: ShelfTarget): CommandDef[] {
  const shelf = t.shelf;
  /** Address information of FRU `fru` reported as FRU device `fruId`. */
  const addressInfo = (fru: string, fruId: number, logicalFace: boolean): number[] => {
    const c = shelf.fruConfig(fru);
    if (logicalFace) return [SHELF_MANAGER_HARDWARE_ADDRESS, shelf.shelfManagerAddress, 0xff, fruId, c.siteNumber, c.siteType];
    return [c.hardwareAddress, c.ipmbAddress, 0xff, fruId, c.siteNumber, c.siteType];
  };
  return [
  def(0x00, 'Get PICMG Properties', 1, 1, () => [PICMG_EXTENSION_VERSION, t.maxFruId, 0x00]),
  def(0x01, 'Get Address Info', 1, 5, (_req, d) => {
    if (d.length <= 2) {
      const id = d.length === 2 ? d[1]! : 0;
      const fru = t.fruById(id);
      return addressInfo(fru, id, t.logical && id === 0);
    }
    // lookup by key (shelf manager only): 0 hardware address, 1 IPMB-0 address, 3 physical site
    if (!t.logical) throw bad('address lookups by key are answered by the shelf manager');
    if (d.length < 4) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'key type without key');
    const keyType = d[2]!;
    const key = d[3]!;
    const names = shelf.fruNames();
    let fru: string | undefined;
    if (keyType === 0) fru = names.find((n) => shelf.fruConfig(n).hardwareAddress === key);
    else if (keyType === 1) {
      if (key === shelf.shelfManagerAddress) return addressInfo(t.fru, 0, true);
      fru = names.find((n) => shelf.fruConfig(n).ipmbAddress === key);
    } else if (keyType === 3) {
      if (d.length < 5) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'physical address key needs a site type');
      fru = names.find((n) => shelf.fruConfig(n).siteNumber === key && shelf.fruConfig(n).siteType === d[4]);
    } else throw bad(`address key type ${keyType}`);
    if (!fru) throw new IpmiError(CompletionCode.DestinationUnavailable, 'no FRU with that address');
    return addressInfo(fru, 0, false);
  }),
  ];
}

/** PICMG commands: FRU Control, the FRU LEDs, activation policy and activation, the device locator record. */
function picmgFruCommands(t: ShelfTarget): CommandDef[] {
  const shelf = t.shelf;
  const services = t.services;
  /** True when `fru` is the ShMC answering the shelf address: its deactivation or cold reset is a switchover. */
  const isActiveShmc = (fru: string) => shelf.fruConfig(fru).kind === 'shmc' && shelf.activeShmc() === fru;
  return [
  def(0x04, 'FRU Control', 3, 3, (_req, d) => {
    const fru = t.fruById(d[1]!);
    const option = FRU_CONTROL_OPTIONS[d[2]!];
    if (!option || !shelfCall(() => shelf.payload.controlCapabilities(fru)).includes(option)) throw bad(`FRU control option ${d[2]} not supported by ${fru}`);
    if (option === 'cold-reset' && isActiveShmc(fru)) services.switchover('cold-reset');
    shelfCall(() => shelf.payload.control(fru, option));
  }),
  def(0x05, 'Get FRU LED Properties', 2, 2, (_req, d) => {
    const p = shelfCall(() => shelf.leds.properties(t.fruById(d[1]!)));
    return [p.statusLeds, p.applicationLeds];
  }),
  def(0x06, 'Get LED Color Capabilities', 3, 3, (_req, d) => {
    const fru = t.fruById(d[1]!);
    ledDef(d[2]!);
    const c = shelfCall(() => shelf.leds.colors(fru, d[2]!));
    return [colorBitmap(c.colors), LED_COLOR[c.defaultLocal], LED_COLOR[c.defaultOverride]];
  }),
  def(0x07, 'Set FRU LED State', 6, 6, (_req, d) => {
    const fru = t.fruById(d[1]!);
    const led = d[2]!;
    const ids = led === 0xff ? STANDARD_LEDS.map((x) => x.id) : [ledDef(led).id];
    const fn = decodeLedFunction(d[3]!, d[4]!);
    if (!fn) throw bad(`LED function ${d[3]} is reserved`);
    const colorByte = d[5]! & 0x0f;
    for (const id of ids) {
      let color: LedColorName | undefined;
      if (colorByte >= 1 && colorByte <= 6) {
        color = (Object.keys(LED_COLOR) as LedColorName[]).find((k) => LED_COLOR[k] === colorByte)!;
        if (!STANDARD_LEDS[id]!.colors.includes(color)) throw bad(`LED ${id} cannot show ${color}`);
      } else if (colorByte === 0x0e) {
        color = shelfCall(() => shelf.leds.state(fru, id)).override?.color;
      } else if (colorByte !== 0x0f) throw bad(`LED colour ${colorByte}`);
      shelfCall(() => shelf.leds.set(fru, id, fn, color));
    }
  }),
  def(0x08, 'Get FRU LED State', 3, 3, (_req, d) => {
    const fru = t.fruById(d[1]!);
    ledDef(d[2]!);
    const v = shelfCall(() => shelf.leds.state(fru, d[2]!));
    const [lf, ld] = encodeLedFunction(v.local.fn);
    const out = [0x01, lf, ld, LED_COLOR[v.local.color]];
    if (v.lampTest) {
      out[0]! |= 0x06;
      out.push(0xff, 0x00, LED_COLOR[v.override!.color], Math.min(0x7f, Math.round(v.override!.fn.onMs / 100)));
    } else if (v.override) {
      out[0]! |= 0x02;
      const [of, od] = encodeLedFunction(v.override.fn);
      out.push(of, od, LED_COLOR[v.override.color]);
    }
    return out;
  }),
  def(0x0a, 'Set FRU Activation Policy', 4, 4, (_req, d) => {
    const fru = t.fruById(d[1]!);
    const mask = d[2]!;
    const bits = d[3]!;
    if (mask & 0xfc || bits & 0xfc) throw bad('reserved policy bits');
    const p: { activationLocked?: boolean; deactivationLocked?: boolean } = {};
    if (mask & 0x01) p.activationLocked = (bits & 0x01) !== 0;
    if (mask & 0x02) p.deactivationLocked = (bits & 0x02) !== 0;
    shelfCall(() => shelf.hotSwap.setActivationPolicy(fru, p));
  }),
  def(0x0b, 'Get FRU Activation Policy', 2, 2, (_req, d) => {
    const p = shelfCall(() => shelf.hotSwap.activationPolicy(t.fruById(d[1]!)));
    return [(p.activationLocked ? 0x01 : 0) | (p.deactivationLocked ? 0x02 : 0)];
  }),
  def(0x0c, 'Set FRU Activation', 3, 3, (_req, d) => {
    const fru = t.fruById(d[1]!);
    const op = d[2]!;
    if (op === 0x01) shelfCall(() => shelf.hotSwap.activate(fru));
    else if (op === 0x00) {
      if (isActiveShmc(fru)) services.switchover('deactivate');
      shelfCall(() => shelf.hotSwap.deactivate(fru));
    } else throw bad(`FRU activation ${op} is neither activate (1) nor deactivate (0)`);
  }),
  def(0x0d, 'Get Device Locator Record ID', 2, 2, (_req, d) => {
    const fru = t.fruById(d[1]!);
    const owner = t.logical && d[1] === 0 ? shelf.shelfManagerAddress : shelf.fruConfig(fru).ipmbAddress;
    const i = shelf.sdr.records().findIndex((r) => r.type === 'mc-locator' && r.slaveAddress === owner);
    if (i < 0) throw new IpmiError(CompletionCode.NotPresent, `no device locator record for ${fru}`);
    return [(i + 1) & 0xff, (i + 1) >> 8];
  }),
  ];
}

/** PICMG commands: Port state and power levels. */
function picmgPortPowerCommands(t: ShelfTarget): CommandDef[] {
  const shelf = t.shelf;
  const services = t.services;
  return [
  def(0x0e, 'Set Port State', 6, 6, (_req, d) => {
    const iface = d[1]! >> 6;
    const channel = d[1]! & 0x3f;
    const state = d[5]!;
    if (state > 1) throw bad(`port state ${state}`);
    if (shelf.fruConfig(t.fru).kind === 'shmc') shelfCall(() => services.extras.setShmcPort(t.fru, iface, channel, state === 1));
    else shelfCall(() => shelf.ports.set(t.fru, iface, channel, state === 1));
  }),
  def(0x0f, 'Get Port State', 2, 2, (_req, d) => {
    const iface = d[1]! >> 6;
    const channel = d[1]! & 0x3f;
    if (iface > 2) throw bad(`interface ${iface} is reserved`);
    const links =
      shelf.fruConfig(t.fru).kind === 'shmc'
        ? iface === 0
          ? services.extras.shmcLinks(t.fru, channel)
          : []
        : shelfCall(() => shelf.ports.states(t.fru, IFACE_NAMES[iface], channel));
    if (links.length === 0) throw bad(`${t.fru} has no link on interface ${iface} channel ${channel}`);
    return links.slice(0, 4).flatMap((l) => [...encodeLinkInfo(l), l.enabled ? 1 : 0]);
  }),
  def(0x10, 'Compute Power Properties', 2, 2, (_req, d) => {
    const p = shelfCall(() => shelf.power.computeProperties(t.fruById(d[1]!)));
    return [p.spannedSlots, p.ipmcLocation];
  }),
  def(0x11, 'Set Power Level', 4, 4, (_req, d) => {
    const fru = t.fruById(d[1]!);
    const level = d[2]!;
    if (level > 0x14 && level !== 0xff) throw bad(`power level ${level}`);
    if (d[3]! > 1) throw bad(`present-to-desired ${d[3]}`);
    shelfCall(() => shelf.power.setLevel(fru, level === 0xff ? 'no-change' : level, d[3] === 1));
  }),
  def(0x12, 'Get Power Level', 3, 3, (_req, d) => {
    const fru = t.fruById(d[1]!);
    const type = POWER_TYPES[d[2]!];
    if (!type) throw bad(`power type ${d[2]}`);
    const p = shelfCall(() => shelf.power.level(fru, type));
    return [(p.dynamic ? 0x80 : 0) | (p.level & 0x1f), p.delayTenths & 0xff, p.multiplierTenthW & 0xff, ...p.levelBytes.slice(0, 20)];
  }),
  ];
}

/** PICMG commands: Fans, bused resources, AMC ports, FRU control capabilities and clocks. */
function picmgFanClockCommands(t: ShelfTarget): CommandDef[] {
  const shelf = t.shelf;
  const services = t.services;
  return [
  def(0x14, 'Get Fan Speed Properties', 2, 2, (_req, d) => {
    const p = shelfCall(() => shelf.fans.properties(t.fruById(d[1]!)));
    return [p.minLevel, p.maxLevel, p.normalLevel, p.localControl ? 0x80 : 0x00];
  }),
  def(0x15, 'Set Fan Level', 3, 4, (_req, d) => {
    const fru = t.fruById(d[1]!);
    const level = d[2]!;
    const local = d.length === 4 ? d[3]! === 1 : undefined;
    if (d.length === 4 && d[3]! > 1) throw bad(`local control ${d[3]}`);
    // PICMG 3.0 Set Fan Level byte 3: FFh = local control, FEh = emergency shut down
    if (level === 0xff) {
      const cur = shelfCall(() => shelf.fans.level(fru));
      shelfCall(() => shelf.fans.setLevel(fru, cur.level, true));
    } else if (level === 0xfe) throw bad('emergency shut down is not supported');
    else shelfCall(() => shelf.fans.setLevel(fru, level, local));
  }),
  def(0x16, 'Get Fan Level', 2, 2, (_req, d) => {
    const f = shelfCall(() => shelf.fans.level(t.fruById(d[1]!)));
    return [f.local ? 0xff : f.level, f.level, f.local ? 0x01 : 0x00]; // override level FFh = local control
  }),
  def(0x17, 'Bused Resource', 3, 3, (_req, d) => [shelfCall(() => services.extras.busResource(t.fru, d[1]!, d[2]!))]),
  def(0x19, 'Set AMC Port State', 6, 7, (_req, d) => {
    const state = d[5]!;
    if (state > 1) throw bad(`port state ${state}`);
    if (shelf.state(t.fru) === 0) throw new IpmiError(CompletionCode.DestinationUnavailable, `${t.fru} is not installed`);
    shelfCall(() => services.extras.setAmcPort(t.fru, d[1]!, d.length === 7 ? d[6] : undefined, state === 1));
  }),
  def(0x1a, 'Get AMC Port State', 2, 3, (_req, d) => {
    const links = services.extras.amcPorts(t.fru, d[1]!, d.length === 3 ? d[2] : undefined);
    if (links.length === 0) throw bad(`${t.fru} has no AMC channel ${d[1]}`);
    return links.flatMap((l) => [(l.portFlags & 0x0f) | ((l.linkType & 0x0f) << 4), ((l.linkType >> 4) & 0x0f) | ((l.linkTypeExtension & 0x0f) << 4), l.groupingId, l.enabled ? 1 : 0]);
  }),
  def(0x1e, 'FRU Control Capabilities', 2, 2, (_req, d) => {
    const caps = shelfCall(() => shelf.payload.controlCapabilities(t.fruById(d[1]!)));
    return [(caps.includes('warm-reset') ? 0x02 : 0) | (caps.includes('graceful-reboot') ? 0x04 : 0) | (caps.includes('diagnostic-interrupt') ? 0x08 : 0)];
  }),
  def(0x2c, 'Set Clock State', 10, 11, (_req, d) => {
    const freq = (d[6]! | (d[7]! << 8) | (d[8]! << 16) | (d[9]! << 24)) >>> 0;
    shelfCall(() =>
      services.extras.setClock(t.fru, d[1]!, { index: d[2]!, setting: d[3]!, family: d[4]!, accuracy: d[5]!, frequencyHz: freq }),
    );
  }),
  def(0x2d, 'Get Clock State', 2, 3, (_req, d) => {
    const c = shelfCall(() => services.extras.clock(t.fru, d[1]!));
    if (!(c.setting & 0x08)) return [c.setting];
    const f = c.frequencyHz >>> 0;
    return [c.setting, c.index, c.family, c.accuracy, f & 0xff, (f >>> 8) & 0xff, (f >>> 16) & 0xff, (f >>> 24) & 0xff];
  }),
  ];
}

/** The PICMG command definitions of one controller. */
export function picmgCommands(t: ShelfTarget): CommandDef[] {
  const shelf = t.shelf;
  const defs: CommandDef[] = [...picmgAddressCommands(t), ...picmgFruCommands(t), ...picmgPortPowerCommands(t), ...picmgFanClockCommands(t)];
  if (t.logical) {
    defs.push(
      def(0x02, 'Get Shelf Address Info', 1, 1, () => {
        const name = Buffer.from(shelf.config.name, 'latin1').subarray(0, 20);
        return [0xc0 | name.length, ...name];
      }),
    );
  }
  return defs;
}
