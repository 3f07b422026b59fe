/**
 * SOL configuration parameters of the LAN channel (IPMI v2.0 §26.2–§26.3, Table 26-5), as Get and
 * Set SOL Configuration Parameters (NetFn 0Ch, 22h/21h) read and write them — ipmitool's
 * `sol info` reads parameters 0–8, `sol set …` writes them:
 *
 *   0 Set In Progress          1 byte: 00 set complete, 01 set in progress, 02 commit write
 *   1 SOL Enable               1 byte: b0
 *   2 SOL Authentication       1 byte: b7 force encryption, b6 force authentication, b3:0 privilege (2 user … 5 OEM)
 *   3 Character interval       2 bytes: accumulate interval (5 ms units, ≥ 1), send threshold (characters, ≥ 1)
 *   4 SOL Retry                2 bytes: b2:0 retry count, retry interval (10 ms units)
 *   5 Non-volatile bit rate    1 byte: b3:0 0 = serial setting, 6 9600, 7 19.2k, 8 38.4k, 9 57.6k, 0Ah 115.2k
 *   6 Volatile bit rate        1 byte: same codes
 *   7 SOL Payload Channel      1 byte, read-only
 *   8 SOL Payload Port Number  2 bytes LS first, read-only (the UDP port the LAN server is bound to)
 *
 * Parameter revision 11h. Unknown parameters answer 80h, writing a read-only one 82h, a second
 * "set in progress" 81h (Table 26-4). Values live in memory for the emulator's run (not persisted).
 * atcasim sends each character batch at once, so it reports an accumulate interval and send
 * threshold of 1; retries and force-encryption/authentication are honoured.
 *
 * Pure: no I/O.
 */
import { CompletionCode, IpmiError } from '../codes.ts';

/** Parameter revision reported by Get SOL Configuration Parameters. */
export const SOL_PARAMETER_REVISION = 0x11;

/** Bit-rate codes of parameters 5 and 6 (0 = use the serial port's setting). */
export const SOL_BIT_RATES: Readonly<Record<number, number>> = { 6: 9600, 7: 19200, 8: 38400, 9: 57600, 10: 115200 };

/** The values of the SOL parameters (see the module comment). */
export interface SolConfig {
  setInProgress: number;
  enabled: boolean;
  forceEncryption: boolean;
  forceAuthentication: boolean;
  /** Minimum session privilege to activate SOL: 2 user, 3 operator, 4 administrator, 5 OEM. */
  privilege: number;
  /** Character accumulate interval, 5 ms units (1..255). */
  accumulateInterval: number;
  /** Character send threshold (1..255). */
  sendThreshold: number;
  /** Retransmissions of an unacknowledged packet (0..7). */
  retryCount: number;
  /** Retry interval, 10 ms units (0 = 10 ms). */
  retryInterval: number;
  nonVolatileRate: number;
  volatileRate: number;
}

/** Defaults: enabled, encryption and authentication forced, USER privilege, 7 retries every 200 ms. */
export function defaultSolConfig(baud = 115200): SolConfig {
  const rate = bitRateCode(baud);
  return {
    setInProgress: 0,
    enabled: true,
    forceEncryption: true,
    forceAuthentication: true,
    privilege: 2,
    accumulateInterval: 1,
    sendThreshold: 1,
    retryCount: 7,
    retryInterval: 20,
    nonVolatileRate: rate,
    volatileRate: rate,
  };
}

/** The bit-rate code of a baud rate (0 when the table has none). */
export function bitRateCode(baud: number): number {
  for (const [code, b] of Object.entries(SOL_BIT_RATES)) if (b === baud) return Number(code);
  return 0;
}

/** Retry interval in ms (10 ms units; 0 counts as one unit). */
export function retryIntervalMs(c: SolConfig): number {
  return Math.max(1, c.retryInterval) * 10;
}

/**
 * The data of parameter `param` (without the revision byte).
 * @param channel the SOL payload channel; @param port the payload UDP port
 * @throws IpmiError(80h) for a parameter atcasim does not support
 */
export function getSolParameter(c: SolConfig, param: number, channel: number, port: number): Uint8Array {
  switch (param) {
    case 0:
      return Uint8Array.of(c.setInProgress);
    case 1:
      return Uint8Array.of(c.enabled ? 1 : 0);
    case 2:
      return Uint8Array.of((c.forceEncryption ? 0x80 : 0) | (c.forceAuthentication ? 0x40 : 0) | (c.privilege & 0x0f));
    case 3:
      return Uint8Array.of(c.accumulateInterval, c.sendThreshold);
    case 4:
      return Uint8Array.of(c.retryCount & 0x07, c.retryInterval);
    case 5:
      return Uint8Array.of(c.nonVolatileRate);
    case 6:
      return Uint8Array.of(c.volatileRate);
    case 7:
      return Uint8Array.of(channel & 0x0f);
    case 8:
      return Uint8Array.of(port & 0xff, (port >> 8) & 0xff);
    default:
      throw new IpmiError(0x80, `SOL parameter ${param} not supported`);
  }
}

function need(data: Uint8Array, n: number): void {
  if (data.length !== n) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, `need ${n} data bytes, have ${data.length}`);
}

/**
 * Writes parameter `param` from `data` into `c` (in place).
 * @throws IpmiError: 80h unsupported parameter, 81h set already in progress, 82h read-only
 *   parameter, C7h wrong data length, CCh invalid value
 */
export function setSolParameter(c: SolConfig, param: number, data: Uint8Array): void {
  const bad = (what: string) => new IpmiError(CompletionCode.InvalidDataField, what);
  switch (param) {
    case 0: {
      need(data, 1);
      const v = data[0]! & 0x03;
      if (v === 3) throw bad('set in progress value 3 is reserved');
      if (v === 1 && c.setInProgress === 1) throw new IpmiError(0x81, 'set already in progress');
      c.setInProgress = v === 2 ? 0 : v;
      return;
    }
    case 1:
      need(data, 1);
      c.enabled = (data[0]! & 1) === 1;
      return;
    case 2: {
      need(data, 1);
      const p = data[0]! & 0x0f;
      if (p < 2 || p > 5) throw bad(`SOL privilege ${p} is not 2..5`);
      c.forceEncryption = (data[0]! & 0x80) !== 0;
      c.forceAuthentication = (data[0]! & 0x40) !== 0;
      c.privilege = p;
      return;
    }
    case 3:
      need(data, 2);
      if (data[0] === 0 || data[1] === 0) throw bad('character interval and threshold must be ≥ 1');
      c.accumulateInterval = data[0]!;
      c.sendThreshold = data[1]!;
      return;
    case 4:
      need(data, 2);
      c.retryCount = data[0]! & 0x07;
      c.retryInterval = data[1]!;
      return;
    case 5:
    case 6: {
      need(data, 1);
      const code = data[0]! & 0x0f;
      if (code !== 0 && SOL_BIT_RATES[code] === undefined) throw bad(`bit rate code ${code}`);
      if (param === 5) c.nonVolatileRate = code;
      else c.volatileRate = code;
      return;
    }
    case 7:
    case 8:
      throw new IpmiError(0x82, `SOL parameter ${param} is read-only`);
    default:
      throw new IpmiError(0x80, `SOL parameter ${param} not supported`);
  }
}
