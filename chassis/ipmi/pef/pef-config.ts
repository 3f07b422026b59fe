/**
 * The shelf manager's Platform Event Filtering configuration (IPMI v2.0 §17, §30): the parameters
 * Set/Get PEF Configuration Parameters (04h/12h, 04h/13h; Table 30-6) write and read, kept in
 * memory (a restart starts from the defaults, as a BMC without non-volatile PEF storage would).
 *
 * | # | parameter | data (after the revision byte in Get) |
 * |---|---|---|
 * | 0 | set in progress | b1:0 00 complete, 01 in progress, 10 commit write |
 * | 1 | PEF control | b3 alert startup delay on, b2 startup delay on, b1 event messages for PEF actions, b0 PEF on |
 * | 2 | action global control | b5 diagnostic interrupt, b4 OEM, b3 power cycle, b2 reset, b1 power down, b0 alert |
 * | 3, 4 | PEF startup delay, alert startup delay | seconds |
 * | 5 | number of event filters | read only: FILTER_COUNT |
 * | 6 | event filter table | set selector 1..FILTER_COUNT, 20 bytes (Table 17-2) |
 * | 7 | event filter table data 1 | set selector, the filter configuration byte |
 * | 8 | number of alert policy entries | read only: POLICY_COUNT |
 * | 9 | alert policy table | set selector 1..POLICY_COUNT, policy, channel/destination, alert string key |
 * | 10 | system GUID | b0 use the GUID below in PETs, 16 bytes |
 * | 11 | number of alert strings | read only: STRING_COUNT |
 * | 12 | alert string keys | set selector 0..STRING_COUNT, event filter, alert string set |
 * | 13 | alert strings | set selector, block selector 1.., 16 bytes per block (NUL-terminated text) |
 *
 * Refusals (the command's completion codes, §30.3): an unknown parameter 80h; a write to a
 * read-only one 82h; a set selector outside the table, a reserved bit, a wrong length or a
 * senseless value (filter type "manufacturer pre-configured", alert policy number 0, an action
 * other than alert, an alert channel other than the LAN channel 1) CCh or C9h;
 * nothing is changed by a refused write.
 */
import { CompletionCode, IpmiError } from '../codes.ts';

/** Parameter revision byte of Get PEF Configuration Parameters. */
export const PEF_PARAM_REVISION = 0x11;
/** Event filter table entries. */
export const FILTER_COUNT = 16;
/** Alert policy table entries. */
export const POLICY_COUNT = 16;
/** Non-volatile alert strings (selectors 1..STRING_COUNT; selector 0 is the volatile string). */
export const STRING_COUNT = 4;
/** Bytes of one event filter entry (Table 17-2). */
export const FILTER_BYTES = 20;
/** Alert string length, bytes (with the terminating NUL). */
const STRING_BYTES = 64;

/** Completion codes of the PEF/LAN configuration commands (IPMI v2.0 §30.3, §23.1). */
export const ConfigCc = { NotSupported: 0x80, SetInProgress: 0x81, ReadOnly: 0x82 } as const;

/** One decoded event filter (the fields the PEF engine matches on). */
export interface EventFilter {
  enabled: boolean;
  /** Action bits (param 2 layout): b0 alert, b1 power down, b2 reset, b3 power cycle, b4 OEM, b5 diagnostic interrupt. */
  action: number;
  /** Alert policy number 1..15 (b3:0 of byte 3). */
  policy: number;
  /** The raw 20 bytes. */
  bytes: Uint8Array;
}

/** One alert policy entry. */
export interface AlertPolicy {
  /** Policy number 1..15 (0 = unused entry). */
  number: number;
  enabled: boolean;
  /** b2:0 policy: 0 always send, 1 to next only if this fails, 2 stop after this, 3 next channel, 4 next type. */
  policy: number;
  channel: number;
  destination: number;
  /** Alert string key byte. */
  stringKey: number;
}

const bad = (msg: string) => new IpmiError(CompletionCode.InvalidDataField, msg);
const range = (msg: string) => new IpmiError(CompletionCode.ParameterOutOfRange, msg);
const len = (data: Uint8Array, n: number, what: string) => {
  if (data.length !== n) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, `${what}: ${data.length} data bytes, ${n} expected`);
};

/** PEF configuration (`PefConfig`): parameters in, parameters out, and the tables the engine reads. */
export class PefConfig {
  setInProgress = 0;
  control = 0x00;
  actionControl = 0x00;
  startupDelay = 60;
  alertStartupDelay = 60;
  useGuid = false;
  guid = new Uint8Array(16);
  private readonly filters: Uint8Array[] = Array.from({ length: FILTER_COUNT }, () => new Uint8Array(FILTER_BYTES));
  private readonly policies: Uint8Array[] = Array.from({ length: POLICY_COUNT }, () => new Uint8Array(3));
  private readonly stringKeys: Uint8Array[] = Array.from({ length: STRING_COUNT + 1 }, () => new Uint8Array(2));
  private readonly strings: Uint8Array[] = Array.from({ length: STRING_COUNT + 1 }, () => new Uint8Array(STRING_BYTES));

  constructor() {
    // software-configurable filters, disabled (b6:5 = 10b)
    for (const f of this.filters) f[0] = 0x40;
  }

  /** PEF on (param 1 b0). */
  get enabled(): boolean {
    return (this.control & 0x01) !== 0;
  }

  /** Event filter `n` (1-based). */
  filter(n: number): EventFilter {
    const b = this.filters[n - 1]!;
    return { enabled: (b[0]! & 0x80) !== 0, action: b[1]! & 0x3f, policy: b[2]! & 0x0f, bytes: b.slice() };
  }

  /** Every alert policy entry, in table order. */
  policyEntries(): AlertPolicy[] {
    return this.policies.map((p) => ({ number: p[0]! >> 4, enabled: (p[0]! & 0x08) !== 0, policy: p[0]! & 0x07, channel: p[1]! >> 4, destination: p[1]! & 0x0f, stringKey: p[2]! }));
  }

  /** Alert string `n` as text (up to the first NUL). */
  alertString(n: number): string {
    const s = this.strings[n];
    if (!s) return '';
    const end = s.indexOf(0);
    return Buffer.from(s.subarray(0, end < 0 ? s.length : end)).toString('latin1');
  }

  /**
   * Get PEF Configuration Parameters data (without the revision byte).
   * @throws IpmiError(80h) unknown parameter, IpmiError(C9h) set selector out of range
   */
  get(param: number, set: number, block: number): number[] {
    switch (param) {
      case 0:
        return [this.setInProgress];
      case 1:
        return [this.control];
      case 2:
        return [this.actionControl];
      case 3:
        return [this.startupDelay];
      case 4:
        return [this.alertStartupDelay];
      case 5:
        return [FILTER_COUNT];
      case 6:
        return [set, ...this.table(this.filters, set, 1, 'event filter')];
      case 7:
        return [set, this.table(this.filters, set, 1, 'event filter')[0]!];
      case 8:
        return [POLICY_COUNT];
      case 9:
        return [set, ...this.table(this.policies, set, 1, 'alert policy entry')];
      case 10:
        return [this.useGuid ? 1 : 0, ...this.guid];
      case 11:
        return [STRING_COUNT];
      case 12:
        return [set, ...this.table(this.stringKeys, set, 0, 'alert string')];
      case 13: {
        const s = this.table(this.strings, set, 0, 'alert string');
        if (block < 1 || (block - 1) * 16 >= s.length) throw range(`alert string block ${block} (1..${s.length / 16})`);
        return [set, block, ...s.subarray((block - 1) * 16, block * 16)];
      }
      default:
        throw new IpmiError(ConfigCc.NotSupported, `PEF parameter ${param} not supported`);
    }
  }

  private table(t: Uint8Array[], set: number, first: number, what: string): Uint8Array {
    const e = t[set - first];
    if (!e) throw range(`${what} ${set} out of range ${first}..${t.length - 1 + first}`);
    return e;
  }

  /**
   * Set PEF Configuration Parameters: `data` after the parameter selector byte. Validates the whole
   * write before changing anything.
   * @throws IpmiError 80h unknown, 82h read only, C7h length, C9h selector, CCh reserved bits or senseless values
   */
  set(param: number, data: Uint8Array): void {
    const byte = () => {
      len(data, 1, `PEF parameter ${param}`);
      return data[0]!;
    };
    switch (param) {
      case 0: {
        const v = byte();
        if (v & 0xfc || (v & 0x03) === 3) throw bad(`set in progress value ${v}`);
        if ((v & 3) === 1 && this.setInProgress === 1) throw new IpmiError(ConfigCc.SetInProgress, 'a set is already in progress');
        this.setInProgress = (v & 3) === 2 ? 0 : v & 3;
        return;
      }
      case 1: {
        const v = byte();
        if (v & 0xf0) throw bad(`PEF control reserved bits ${v.toString(16)}h`);
        this.control = v;
        return;
      }
      case 2: {
        const v = byte();
        if (v & 0xc0) throw bad(`PEF action control reserved bits ${v.toString(16)}h`);
        if (v & 0x3e) throw bad(`PEF action control ${v.toString(16)}h: this PEF can only alert (Get PEF Capabilities)`);
        this.actionControl = v;
        return;
      }
      case 3:
        this.startupDelay = byte();
        return;
      case 4:
        this.alertStartupDelay = byte();
        return;
      case 5:
      case 8:
      case 11:
        throw new IpmiError(ConfigCc.ReadOnly, `PEF parameter ${param} is read only`);
      case 6:
        return this.setFilter(data);
      case 7: {
        len(data, 2, 'event filter data 1');
        const f = this.table(this.filters, data[0]!, 1, 'event filter');
        checkFilterConfig(data[1]!);
        f[0] = data[1]!;
        return;
      }
      case 9:
        return this.setPolicy(data);
      case 10:
        len(data, 17, 'system GUID');
        if (data[0]! & 0xfe) throw bad('system GUID reserved bits');
        this.useGuid = (data[0]! & 1) !== 0;
        this.guid = data.slice(1);
        return;
      case 12: {
        len(data, 3, 'alert string keys');
        const k = this.table(this.stringKeys, data[0]!, 0, 'alert string');
        if (data[1]! & 0x80 || data[2]! & 0x80) throw bad('alert string key reserved bits');
        if (data[1]! > FILTER_COUNT) throw range(`event filter ${data[1]} out of range 0..${FILTER_COUNT}`);
        k.set(data.subarray(1, 3));
        return;
      }
      case 13: {
        if (data.length < 3 || data.length > 18) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'alert string: set, block and 1..16 bytes');
        const s = this.table(this.strings, data[0]!, 0, 'alert string');
        const block = data[1]!;
        if (block < 1 || (block - 1) * 16 + (data.length - 2) > s.length) throw range(`alert string block ${block} (1..${s.length / 16})`);
        s.set(data.subarray(2), (block - 1) * 16);
        return;
      }
      default:
        throw new IpmiError(ConfigCc.NotSupported, `PEF parameter ${param} not supported`);
    }
  }

  private setFilter(data: Uint8Array): void {
    len(data, 1 + FILTER_BYTES, 'event filter');
    const f = this.table(this.filters, data[0]!, 1, 'event filter');
    const e = data.subarray(1);
    checkFilterConfig(e[0]!);
    if (e[1]! & 0xc0) throw bad('event filter action reserved bits');
    if (e[1]! & 0x3e) throw bad(`event filter action ${e[1]!.toString(16)}h: this PEF can only alert (Get PEF Capabilities)`);
    if (e[2]! & 0x80) throw bad('alert policy number reserved bit');
    if (e[1]! & 0x01 && (e[2]! & 0x0f) === 0) throw bad('an alert filter needs an alert policy number 1..15');
    const severity = e[3]!;
    if (![0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20].includes(severity)) throw bad(`event severity ${severity.toString(16)}h`);
    f.set(e);
  }

  private setPolicy(data: Uint8Array): void {
    len(data, 4, 'alert policy entry');
    const p = this.table(this.policies, data[0]!, 1, 'alert policy entry');
    const [pol, chanDest, key] = [data[1]!, data[2]!, data[3]!];
    if ((pol & 0x07) > 4) throw bad(`alert policy ${pol & 0x07}`);
    if (pol & 0x08 && pol >> 4 === 0) throw bad('an enabled alert policy entry needs a policy number 1..15');
    const channel = chanDest >> 4;
    if (pol & 0x08 && channel !== 1) throw bad(`alert channel ${channel}: the shelf's LAN channel is 1`);
    if ((key & 0x7f) > STRING_COUNT) throw range(`alert string ${key & 0x7f} out of range 0..${STRING_COUNT}`);
    p.set(data.subarray(1));
  }
}

function checkFilterConfig(v: number): void {
  if (v & 0x1f) throw bad('event filter configuration reserved bits');
  if (((v >> 5) & 3) !== 2) throw bad('only software-configurable filters (type 10b) can be written');
}
