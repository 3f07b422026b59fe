/**
 * What `atcasim clia` asks a running shelf, as typed calls over an IpmiClient: standard IPMI and
 * PICMG 3.0 commands where they exist (SDR repository walk, Get Sensor Reading bridged to the
 * sensor's owner, SEL, Set FRU Activation, FRU Control, fan levels, Get Device ID, Get PICMG
 * Properties, Get Address Info) and atcasim's OEM commands for the rest (shelf-manager status and
 * switchover, FRU list, console paths, fault and sensor injection, handle, insert/extract;
 * layouts in chassis/ipmi/shelf-manager/oem-protocol.ts). A non-zero completion code becomes
 * RefusedError (clia exits 1), carrying the shelf's reason when the OEM response has one.
 */
import { decodeSdr, type SdrRecord } from '../sensors/sdr.ts';
import { decodeSelRecord, type SelRecord } from '../sensors/sel.ts';
import {
  ALARM_SEVERITIES,
  OEM_NETFN,
  OemCmd,
  STATUS_CODES,
  decodeFruInfo,
  decodeOemError,
  decodeShmStatus,
  getStr,
  oemReader,
  oemWriter,
  putStr,
  type OemFruInfo,
  type AlarmSeverity,
  type OemShmStatus,
} from '../ipmi/shelf-manager/oem-protocol.ts';
import type { IpmiClient } from './client.ts';

/** Completion code texts (IPMI v2.0 Table 5-2) for messages. */
export const CC_TEXT: Readonly<Record<number, string>> = {
  0xc0: 'node busy',
  0xc1: 'invalid command',
  0xc3: 'timeout',
  0xc4: 'out of space',
  0xc5: 'reservation cancelled',
  0xc7: 'request data length invalid',
  0xc9: 'parameter out of range',
  0xcb: 'requested sensor, data or record not present',
  0xcc: 'invalid data field in request',
  0xcd: 'command illegal for this sensor or record',
  0xd3: 'destination unavailable',
  0xd4: 'insufficient privilege level',
  0xd5: 'command not supported in present state',
  0x83: 'NAK on write (no controller at that address)',
  0xff: 'unspecified error',
};

/** Largest magnitude OEM Set Sensor Reading carries (engineering units): a signed 32-bit count of
 * thousandths (docs/clia.md, oem-protocol.ts 05h). */
export const OEM_SENSOR_VALUE_MAX = 2147483.647;

/** True when `value` is finite and its thousandths fit a signed 32-bit integer (no wrap on the wire). */
export function fitsOemSensorValue(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const milli = Math.round(value * 1000);
  return milli >= -0x80000000 && milli <= 0x7fffffff;
}

/** The shelf refused a command (non-zero completion code). */
export class RefusedError extends Error {
  readonly kind = 'refused' as const;
  constructor(
    readonly cc: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RefusedError';
  }
}

function refused(what: string, cc: number, data: Uint8Array): RefusedError {
  const oem = decodeOemError(data);
  if (oem) return new RefusedError(cc, oem.code, `${what}: ${oem.message}`);
  return new RefusedError(cc, `cc_${cc.toString(16).padStart(2, '0')}`, `${what}: ${CC_TEXT[cc] ?? 'error'} (completion code ${cc.toString(16).padStart(2, '0')}h)`);
}

/** A sensor reading (Get Sensor Reading, §35.14). */
export interface SensorReading {
  raw: number;
  /** b7 events enabled, b6 scanning, b5 unavailable. */
  flags: number;
  states: number;
  available: boolean;
}

/** Typed shelf operations over a connected client. */
export class ShelfApi {
  constructor(readonly client: IpmiClient) {}

  private async call(what: string, netFn: number, cmd: number, data: number[] | Uint8Array, opts: { target?: number; once?: boolean } = {}): Promise<Uint8Array> {
    const r = await this.client.request(netFn, cmd, data, opts);
    if (r.cc !== 0) throw refused(what, r.cc, r.data);
    return r.data;
  }

  private oem(what: string, cmd: number, body: (w: ReturnType<typeof oemWriter>) => void = () => {}, once = false): Promise<Uint8Array> {
    const w = oemWriter();
    body(w);
    return this.call(what, OEM_NETFN, cmd, new Uint8Array(w.toBuffer()), { once });
  }

  /** OEM Get Shelf Manager Status. */
  async shmStatus(): Promise<OemShmStatus> {
    return decodeShmStatus(await this.oem('shmstatus', OemCmd.shmStatus));
  }

  /** OEM Switchover (sent once: a lost answer must not switch back). */
  async switchover(): Promise<{ from: string; to: string }> {
    const r = oemReader(await this.oem('switchover', OemCmd.switchover, () => {}, true));
    return { from: getStr(r, 'from'), to: getStr(r, 'to') };
  }

  /** Every FRU of the shelf (OEM Get FRU Info, index 0 onwards). */
  async frus(): Promise<OemFruInfo[]> {
    const out: OemFruInfo[] = [];
    let i = 0;
    while (i !== 0xff && out.length < 255) {
      const f = decodeFruInfo(await this.oem('fru list', OemCmd.fruInfo, (w) => w.u8(i)));
      out.push(f);
      i = f.next;
    }
    return out;
  }

  /** OEM Get Console Path. */
  async consolePath(fru: string): Promise<{ fru: string; path: string; link?: string }> {
    const r = oemReader(await this.oem('console', OemCmd.consolePath, (w) => putStr(w, fru)));
    const out: { fru: string; path: string; link?: string } = { fru: getStr(r, 'fru'), path: getStr(r, 'path') };
    if (r.remaining > 0) out.link = getStr(r, 'link');
    return out;
  }

  private async stateCall(what: string, cmd: number, a: number, b: number | undefined, fru: string, once = false): Promise<number> {
    const r = oemReader(
      await this.oem(
        what,
        cmd,
        (w) => {
          w.u8(a);
          if (b !== undefined) w.u8(b);
          putStr(w, fru);
        },
        once,
      ),
    );
    return r.u8('state');
  }

  /** OEM FRU Fault: inject (kind payload/comm) or repair (kind undefined = all). @returns the M-state after */
  fault(fru: string, action: 'inject' | 'repair', kind?: 'payload' | 'comm'): Promise<number> {
    return this.stateCall(`${action} ${fru}`, OemCmd.fault, action === 'inject' ? 1 : 0, kind === 'payload' ? 0 : kind === 'comm' ? 1 : 0xff, fru, true);
  }

  /**
   * OEM Set Sensor Reading (engineering units, carried as a signed 32-bit count of thousandths).
   * @throws RangeError when `value` is not finite or does not fit (fitsOemSensorValue) — checked
   *   before anything is sent, so it never wraps
   * @throws RefusedError when the shelf refuses (e.g. C9h out_of_range: outside the sensor's range)
   */
  async sensorValue(fru: string, sensor: string, value: number): Promise<{ raw: number; status: string; value: number }> {
    if (!fitsOemSensorValue(value)) throw new RangeError(`sensor value ${value} does not fit the OEM command (±${OEM_SENSOR_VALUE_MAX})`);
    const d = await this.oem(`inject sensor ${fru} ${sensor}`, OemCmd.sensorValue, (w) => {
      w.u32le(Math.round(value * 1000) >>> 0);
      putStr(w, fru);
      putStr(w, sensor);
    });
    const r = oemReader(d);
    const raw = r.u8('raw');
    const status = STATUS_CODES[r.u8('status')] ?? 'unknown';
    return { raw, status, value: (r.u32le('value') | 0) / 1000 };
  }

  /** OEM Hot-Swap Handle (operator). @returns the M-state after */
  handle(fru: string, op: 'open' | 'close'): Promise<number> {
    return this.stateCall(`handle ${op} ${fru}`, OemCmd.handle, op === 'open' ? 0 : 1, undefined, fru, true);
  }

  /** OEM Insert / Extract. @returns the M-state after */
  insertExtract(fru: string, op: 'insert' | 'extract'): Promise<number> {
    return this.stateCall(`${op} ${fru}`, OemCmd.insertExtract, op === 'insert' ? 1 : 0, undefined, fru, true);
  }

  /** PICMG Set FRU Activation at the shelf manager, FRU device ID `fruId` (hardware address; 0 = active ShMC). */
  async setActivation(fruId: number, activate: boolean): Promise<void> {
    await this.call(activate ? 'activate' : 'deactivate', 0x2c, 0x0c, [0x00, fruId, activate ? 1 : 0], { once: true });
  }

  /** PICMG FRU Control at the shelf manager (option 0 cold reset, 1 warm reset, 2 graceful reboot, 3 diagnostic interrupt). */
  async fruControl(fruId: number, option: number): Promise<void> {
    await this.call('frucontrol', 0x2c, 0x04, [0x00, fruId, option], { once: true });
  }

  /** The SDR repository (Reserve SDR Repository, then Get SDR record by record in 16-byte parts). */
  async sdr(): Promise<SdrRecord[]> {
    const resv = await this.call('Reserve SDR Repository', 0x0a, 0x22, []);
    const out: SdrRecord[] = [];
    let id = 0;
    for (let n = 0; n < 1024 && id !== 0xffff; n++) {
      const head = await this.call('Get SDR', 0x0a, 0x23, [resv[0]!, resv[1]!, id & 0xff, id >> 8, 0, 5]);
      const next = head[0]! | (head[1]! << 8);
      const len = head[6]!;
      const rec = new Uint8Array(5 + len);
      rec.set(head.subarray(2, 7), 0);
      for (let off = 5; off < rec.length; ) {
        const part = await this.call('Get SDR', 0x0a, 0x23, [resv[0]!, resv[1]!, id & 0xff, id >> 8, off, Math.min(16, rec.length - off)]);
        const body = part.subarray(2);
        if (body.length === 0) break;
        rec.set(body.subarray(0, rec.length - off), off);
        off += body.length;
      }
      try {
        out.push(decodeSdr(rec).record);
      } catch {
        // a record type clia does not know: skip it
      }
      id = next;
    }
    return out;
  }

  /** Get Sensor Reading from the sensor's owner (bridged unless it is the shelf manager). */
  async sensorReading(owner: number, number: number): Promise<SensorReading> {
    const d = await this.call(`Get Sensor Reading ${number}`, 0x04, 0x2d, [number], { target: owner });
    const flags = d[1] ?? 0x20;
    return { raw: d[0] ?? 0, flags, states: (d[2] ?? 0) | ((d[3] ?? 0) << 8), available: (flags & 0x20) === 0 };
  }

  /** Every SEL record (Get SEL Entry from the first to the last). */
  async sel(): Promise<SelRecord[]> {
    const info = await this.call('Get SEL Info', 0x0a, 0x40, []);
    if ((info[1]! | (info[2]! << 8)) === 0) return [];
    const out: SelRecord[] = [];
    let id = 0;
    for (let n = 0; n < 0x10000 && id !== 0xffff; n++) {
      const d = await this.call('Get SEL Entry', 0x0a, 0x43, [0, 0, id & 0xff, id >> 8, 0, 0xff]);
      out.push(decodeSelRecord(d.subarray(2)));
      id = d[0]! | (d[1]! << 8);
    }
    return out;
  }

  /** Reserve SEL + Clear SEL. */
  async selClear(): Promise<void> {
    const r = await this.call('Reserve SEL', 0x0a, 0x42, []);
    await this.call('Clear SEL', 0x0a, 0x47, [r[0]!, r[1]!, 0x43, 0x4c, 0x52, 0xaa]);
  }

  /** Get Device ID of the controller at `address`. */
  async deviceId(address: number): Promise<{ deviceId: number; revision: number; firmware: string; ipmiVersion: string; manufacturerId: number; productId: number; support: number }> {
    const d = await this.call('Get Device ID', 0x06, 0x01, [], { target: address });
    const minor = d[3]!;
    return {
      deviceId: d[0]!,
      revision: d[1]! & 0x0f,
      firmware: `${d[2]! & 0x7f}.${(minor >> 4).toString()}${(minor & 0x0f).toString()}`,
      ipmiVersion: `${d[4]! & 0x0f}.${d[4]! >> 4}`,
      manufacturerId: d[6]! | (d[7]! << 8) | ((d[8]! & 0x0f) << 16),
      productId: d[9]! | (d[10]! << 8),
      support: d[5]!,
    };
  }

  /** Get PICMG Properties of the controller at `address`. */
  async picmgProperties(address: number): Promise<{ version: string; maxFruId: number; ipmcFruId: number }> {
    const d = await this.call('Get PICMG Properties', 0x2c, 0x00, [0x00], { target: address });
    return { version: `${d[1]! & 0x0f}.${d[1]! >> 4}`, maxFruId: d[2]!, ipmcFruId: d[3]! };
  }

  /** Get Fan Speed Properties + Get Fan Level of the fan tray controller at `address`. */
  async fanLevel(address: number): Promise<{ min: number; max: number; normal: number; override: number; local: number; localEnabled: boolean }> {
    const p = await this.call('Get Fan Speed Properties', 0x2c, 0x14, [0x00, 0x00], { target: address });
    const l = await this.call('Get Fan Level', 0x2c, 0x16, [0x00, 0x00], { target: address });
    return { min: p[1]!, max: p[2]!, normal: p[3]!, override: l[1]!, local: l[2] ?? l[1]!, localEnabled: (l[3] ?? 0) === 1 };
  }

  /** Set Fan Level of the fan tray controller at `address`. */
  async setFanLevel(address: number, level: number): Promise<void> {
    await this.call('Set Fan Level', 0x2c, 0x15, [0x00, 0x00, level], { target: address });
  }

  /** OEM Get Alarms, every page: the TELCO outputs (bit mask b0 minor, b1 major, b2 critical), the operator's bits, the alarms. */
  async alarms(): Promise<{ outputs: number; operator: number; alarms: Array<{ severity: AlarmSeverity; source: string; alarm: string }> }> {
    const alarms: Array<{ severity: AlarmSeverity; source: string; alarm: string }> = [];
    let outputs = 0;
    let operator = 0;
    for (let index = 0, n = 0; index !== 0xff && n < 64; n++) {
      const r = oemReader(await this.oem('alarm', OemCmd.alarms, (w) => w.u8(index)));
      outputs = r.u8('outputs');
      operator = r.u8('operator');
      const total = r.u8('total');
      const next = r.u8('next');
      while (r.remaining > 0 && alarms.length < total) alarms.push({ severity: ALARM_SEVERITIES[r.u8('severity')] ?? 'major', source: getStr(r, 'source'), alarm: getStr(r, 'alarm') });
      index = next;
    }
    return { outputs, operator, alarms };
  }

  /** OEM Set Alarm Outputs: sets (or clears) operator alarm bits. @returns the outputs and operator bits after */
  async setAlarms(set: boolean, bits: number): Promise<{ outputs: number; operator: number }> {
    const r = oemReader(await this.oem('alarm', OemCmd.setAlarms, (w) => w.u8(set ? 1 : 0).u8(bits)));
    return { outputs: r.u8('outputs'), operator: r.u8('operator') };
  }

  /** OEM Get Power Budget: watts the PEMs supply (Infinity without PEMs), watts drawn, PEMs supplying. */
  async powerBudget(): Promise<{ budgetW: number; usedW: number; pems: number }> {
    const r = oemReader(await this.oem('power budget', OemCmd.powerBudget));
    const budget = r.u32le('budget');
    return { budgetW: budget === 0xffffffff ? Infinity : budget, usedW: r.u32le('used'), pems: r.u8('pems') };
  }

  /** PICMG Get Power Level (2Ch/12h, steady state) of FRU device `fruId` at the shelf manager: present level and watts per level. */
  async powerLevel(fruId: number): Promise<{ level: number; levelsW: number[] }> {
    const d = await this.call('Get Power Level', 0x2c, 0x12, [0x00, fruId, 0x00]);
    const mult = d[3]! / 10;
    return { level: d[1]! & 0x1f, levelsW: [...d.subarray(4)].map((b) => b * mult) };
  }

  /** PICMG Get Shelf Address Info (2Ch/02h): the shelf address as text. */
  async shelfAddress(): Promise<string> {
    const d = await this.call('Get Shelf Address Info', 0x2c, 0x02, [0x00]);
    return Buffer.from(d.subarray(2, 2 + (d[1]! & 0x3f))).toString('latin1');
  }

  /** Get Sensor Thresholds (04h/27h) at the sensor's owner: readable mask (b0 LNC … b5 UNR) and raw values. */
  async thresholds(owner: number, number: number): Promise<{ mask: number; raw: number[] }> {
    const d = await this.call(`Get Sensor Thresholds ${number}`, 0x04, 0x27, [number], { target: owner });
    return { mask: d[0]! & 0x3f, raw: [...d.subarray(1, 7)] };
  }

  /** Set Sensor Thresholds (04h/26h) at the sensor's owner: `raw` in LNC, LC, LNR, UNC, UC, UNR order, those in `mask` set. */
  async setThresholds(owner: number, number: number, mask: number, raw: readonly number[]): Promise<void> {
    await this.call(`Set Sensor Thresholds ${number}`, 0x04, 0x26, [number, mask, ...raw.slice(0, 6)], { target: owner, once: true });
  }

  /** Get User Access (06h/44h) + Get User Name (06h/46h) of user `id` on LAN channel 1. */
  async user(id: number): Promise<{ id: number; max: number; name: string; enabled: boolean; privilege: number; ipmiMessaging: boolean; linkAuth: boolean; callinRestricted: boolean }> {
    const a = await this.call('Get User Access', 0x06, 0x44, [0x01, id]);
    const n = await this.call('Get User Name', 0x06, 0x46, [id]);
    const end = n.indexOf(0);
    return {
      id,
      max: a[0]! & 0x3f,
      name: Buffer.from(n.subarray(0, end < 0 ? 16 : end)).toString('latin1'),
      enabled: (a[1]! & 0xc0) === 0x40,
      privilege: a[3]! & 0x0f,
      ipmiMessaging: (a[3]! & 0x10) !== 0,
      linkAuth: (a[3]! & 0x20) !== 0,
      callinRestricted: (a[3]! & 0x40) !== 0,
    };
  }

  /** Set User Name (06h/45h). */
  async setUserName(id: number, name: string): Promise<void> {
    const b = new Uint8Array(16);
    b.set(Buffer.from(name, 'latin1').subarray(0, 16));
    await this.call('Set User Name', 0x06, 0x45, [id, ...b], { once: true });
  }

  /** Set User Password (06h/47h): op 0 disable, 1 enable, 2 set password (20-byte form). */
  async setUserPassword(id: number, op: 0 | 1 | 2, password = ''): Promise<void> {
    const pw = new Uint8Array(20);
    pw.set(Buffer.from(password, 'latin1').subarray(0, 20));
    await this.call(op === 2 ? 'Set User Password' : op === 1 ? 'enable user' : 'disable user', 0x06, 0x47, op === 2 ? [0x80 | id, op, ...pw] : [id, op], { once: true });
  }

  /** Set User Access (06h/43h) on LAN channel 1: privilege limit (1..4, 15 no access), IPMI messaging on. */
  async setUserAccess(id: number, privilege: number): Promise<void> {
    await this.call('Set User Access', 0x06, 0x43, [0x80 | 0x10 | 0x01, id, privilege, 0x00], { once: true });
  }

  /** Get LAN Configuration Parameters (0Ch/02h) of channel 1: the parameter's data (without the revision byte). */
  async lanParameter(param: number): Promise<Uint8Array> {
    const d = await this.call(`Get LAN Configuration Parameter ${param}`, 0x0c, 0x02, [0x01, param, 0x00, 0x00]);
    return d.subarray(1);
  }

  /** Set LAN Configuration Parameters (0Ch/01h) of channel 1. */
  async setLanParameter(param: number, data: readonly number[]): Promise<void> {
    await this.call(`Set LAN Configuration Parameter ${param}`, 0x0c, 0x01, [0x01, param, ...data], { once: true });
  }
}
