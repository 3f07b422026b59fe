/**
 * What the verbs of `atcasim clia` share (chassis/clia/verbs.ts and the verbs-*.ts files): the
 * Verb shape, UsageError, FRU references (`slot3`, `3`, `board 3`, `shm 1`, `fan_tray 2`, `0x86`),
 * the text of hot-swap states and causes, FRU JSON, and engineering values of sensor readings.
 */
import { HOT_SWAP_CAUSE, HOT_SWAP_CAUSE_TEXT, M_STATE_NAME, type HotSwapCause, type MState } from '../model/hot-swap.ts';
import type { SdrRecord } from '../sensors/sdr.ts';
import { rawToValue } from '../sensors/linearization.ts';
import { UNIT_CODES } from '../sensors/sensor-types.ts';
import { FRU_FLAG, type OemFruInfo } from '../ipmi/shelf-manager/oem-protocol.ts';
import { BMC_ADDRESS } from './client.ts';
import { RefusedError, type ShelfApi } from './shelf-api.ts';

/** Bad arguments to a verb (clia exits 2). */
export class UsageError extends Error {
  readonly kind = 'usage' as const;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** What a verb produced. */
export interface VerbResult {
  /** Text output (ends with a newline, or empty). */
  text: string;
  /** JSON output value. */
  json: unknown;
}

/** Flags every verb receives. */
export interface VerbFlags {
  verbose: boolean;
  /** Reads a secret without echo (a password left off the command line); absent: none can be read. */
  readSecret?: (prompt: string) => Promise<string>;
}

/** A verb: its usage line, a summary, and its implementation. */
export interface Verb {
  usage: string;
  summary: string;
  run(api: ShelfApi, args: string[], flags: VerbFlags): Promise<VerbResult>;
}

const SITE_TYPE_TEXT: Record<number, string> = { 0x00: 'ATCA board', 0x01: 'Power Entry Module', 0x02: 'Shelf FRU', 0x03: 'Dedicated Shelf Manager', 0x04: 'Fan Tray' };
export const CAUSE_BY_CODE = new Map<number, HotSwapCause>((Object.entries(HOT_SWAP_CAUSE) as Array<[HotSwapCause, number]>).map(([k, v]) => [v, k]));
export const UNIT_BY_CODE = new Map<number, string>(Object.entries(UNIT_CODES).filter(([k]) => k !== 'percent').map(([k, v]) => [v, k]));

export const hex2 = (n: number) => `0x${n.toString(16).padStart(2, '0')}`;
export const stateText = (s: number) => `M${s} (${M_STATE_NAME[s as MState] ?? 'unknown'})`;
export const causeText = (c: number) => `${HOT_SWAP_CAUSE_TEXT[CAUSE_BY_CODE.get(c) ?? 'unknown']} (${hex2(c).replace('0x0', '0x')})`;

/** JSON form of a FRU. */
export function fruJson(f: OemFruInfo) {
  return {
    name: f.name,
    label: f.label,
    kind: f.kind,
    ...(f.slot ? { slot: f.slot, physical_slot: f.physicalSlot } : {}),
    site_type: f.siteType,
    site_number: f.siteNumber,
    hardware_address: f.hardwareAddress,
    ipmb_address: f.ipmbAddress,
    state: `M${f.state}`,
    state_name: M_STATE_NAME[f.state as MState] ?? 'unknown',
    previous: `M${f.previous}`,
    cause: CAUSE_BY_CODE.get(f.cause) ?? 'unknown',
    handle_closed: (f.flags & FRU_FLAG.handleClosed) !== 0,
    activation_locked: (f.flags & FRU_FLAG.activationLocked) !== 0,
    deactivation_locked: (f.flags & FRU_FLAG.deactivationLocked) !== 0,
    in_service: (f.flags & FRU_FLAG.inService) !== 0,
    transitioning: (f.flags & FRU_FLAG.transitioning) !== 0,
    faults: [...((f.flags & FRU_FLAG.payloadFault) !== 0 ? ['payload'] : []), ...((f.flags & FRU_FLAG.commFault) !== 0 ? ['comm'] : [])],
    power_level: f.powerLevel,
  };
}

/** Pigeon Point `fru` text of one FRU (two or three lines). */
export function fruText(f: OemFruInfo, activeShmc?: string): string {
  const where = f.slot ? `slot${f.slot} (physical slot ${f.physicalSlot})` : `${SITE_TYPE_TEXT[f.siteType] ?? 'site'} ${f.siteNumber}`;
  const addr = f.name === activeShmc ? `${BMC_ADDRESS.toString(16)}/${f.ipmbAddress.toString(16)}` : f.ipmbAddress.toString(16);
  const j = fruJson(f);
  const notes = [j.faults.length ? `faults: ${j.faults.join(', ')}` : '', j.handle_closed ? '' : 'handle open', j.activation_locked ? 'activation locked' : '', j.deactivation_locked ? 'deactivation locked' : '']
    .filter(Boolean)
    .join('; ');
  return (
    `${addr}: FRU # 0  ${f.name}  "${f.label}"  ${where}${f.name === activeShmc ? '  (active shelf manager)' : ''}\n` +
    `    Hot Swap State: ${stateText(f.state)}, Previous: ${stateText(f.previous)}, Last State Change Cause: ${causeText(f.cause)}\n` +
    (notes ? `    ${notes}\n` : '')
  );
}

/**
 * Resolves a FRU reference against the shelf's FRU list: a FRU name, a logical slot (`slot3`, `3`),
 * `board N` / `shm N` / `fan_tray N`, or an IPMB address (`0x86`).
 * @returns the FRU and the number of arguments used
 * @throws RefusedError('unknown_fru' | 'empty_slot') when nothing matches
 */
export function resolveFru(frus: readonly OemFruInfo[], args: readonly string[]): { fru: OemFruInfo; used: number } {
  const a = (args[0] ?? '').toLowerCase();
  const n = Number(args[1]);
  const pick = (f: OemFruInfo | undefined, used: number, what: string) => {
    if (!f) throw new RefusedError(0xd3, /^(slot|board)/.test(what) ? 'empty_slot' : 'unknown_fru', `${what} is not a FRU of this shelf`);
    return { fru: f, used };
  };
  // `board abc`: the word after board/shm/fan_tray is what names nothing (not the verb itself)
  if ((a === 'board' || a === 'shm' || a === 'fan_tray') && args[1] !== undefined && (!Number.isInteger(n) || args[1].trim() === '')) {
    throw new RefusedError(0xd3, 'unknown_fru', `"${args[1]}" is not a FRU of this shelf (${a} takes a number, e.g. ${a} 3)`);
  }
  if (a === 'board' && Number.isInteger(n)) return pick(frus.find((f) => f.slot === n), 2, `board ${n}`);
  if (a === 'shm' && Number.isInteger(n)) return pick(frus.find((f) => f.kind === 'shmc' && f.siteNumber === n), 2, `shm ${n}`);
  if (a === 'fan_tray' && Number.isInteger(n)) return pick(frus.find((f) => f.kind === 'fan' && f.siteNumber === n), 2, `fan_tray ${n}`);
  const byName = frus.find((f) => f.name.toLowerCase() === a);
  if (byName) return { fru: byName, used: 1 };
  const m = /^(?:slot)?(\d{1,2})$/.exec(a);
  if (m) return pick(frus.find((f) => f.slot === Number(m[1])), 1, `slot${m[1]}`);
  const h = /^0x([0-9a-f]{1,2})$/.exec(a);
  if (h) {
    const addr = parseInt(h[1]!, 16);
    return pick(frus.find((f) => f.ipmbAddress === addr), 1, `IPMB address ${a}`);
  }
  if (a === '') throw new UsageError('a FRU is required (slot3, 3, shmc-a, fan1, pem1, board 3, shm 1, 0x86)');
  throw new RefusedError(0xd3, 'unknown_fru', `"${args[0]}" is not a FRU of this shelf (slot1…slotN, shmc-a, shmc-b, fan1…, pem1…)`);
}

/** The FRU named at the start of `args`, the FRU list, and the arguments after it. @throws as resolveFru */
export async function oneFru(api: ShelfApi, args: string[]): Promise<{ fru: OemFruInfo; frus: OemFruInfo[]; rest: string[] }> {
  const frus = await api.frus();
  const { fru, used } = resolveFru(frus, args);
  return { fru, frus, rest: args.slice(used) };
}

/** @throws UsageError when `args` is not empty */
export function noArgs(args: string[], verb: string): void {
  if (args.length) throw new UsageError(`${verb}: unexpected argument "${args[0]}"`);
}

/** Engineering value of a full-record reading, with its unit name. */
export function sensorValue(rec: SdrRecord, raw: number): { value: number; unit: string } | undefined {
  if (rec.type !== 'full') return undefined;
  return { value: rawToValue(raw, rec.linearization), unit: UNIT_BY_CODE.get(rec.unitCode) ?? 'unspecified' };
}
