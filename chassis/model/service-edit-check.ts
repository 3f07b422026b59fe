/**
 * The shape check of service-table edits that arrive as JSON (the control op `lb.apply`,
 * chassis/runtime/lb-ops.ts): every edit an object of one of the ops of ServiceEdit
 * (./service-table.ts), each field of the right type and range, no unknown key. Pure; what the
 * CLI builds always passes; anything else is refused here, before the service table is touched.
 *
 * Ranges: port 0..65535, weight 0..65535, persistenceMs ≥ 0, persistenceNetmask 0..128,
 * health durations ≥ 1 ms, rise/fall 1..100, health path starting with `/`; protocol tcp|udp|sctp;
 * addresses IPv4 or IPv6 text.
 */
import { printable } from '../config/yaml-reader.ts';
import { isIpAddress } from '../config/ip-address.ts';
import type { ServiceEdit } from './service-table.ts';

/** A malformed edit list; the message is one line naming the field (`edits[2].server.weight: …`). */
export class ServiceEditShapeError extends Error {
  constructor(message: string) {
    super(printable(message));
    this.name = 'ServiceEditShapeError';
  }
}

const OPS = ['add-service', 'edit-service', 'delete-service', 'add-server', 'edit-server', 'delete-server', 'clear'];
const SCHEDULERS = ['rr', 'wrr', 'lc', 'wlc', 'sh', 'maglev', 'dynamic'];
const FORWARDING = ['tunnel', 'dr', 'nat', 'fullnat'];

type Obj = Record<string, unknown>;

function show(v: unknown): string {
  const t = JSON.stringify(v) ?? String(v);
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}

function fail(at: string, want: string, v: unknown): never {
  throw new ServiceEditShapeError(`${at}: ${want} expected, got ${show(v)}`);
}

function object(v: unknown, at: string, keys: readonly string[]): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(at, 'an object', v);
  for (const k of Object.keys(v)) if (!keys.includes(k)) throw new ServiceEditShapeError(`${at}: unknown key "${k}" (${keys.join(', ')})`);
  return v as Obj;
}

function oneOf(o: Obj, k: string, at: string, values: readonly string[], required = false): void {
  const v = o[k];
  if (v === undefined && !required) return;
  if (typeof v !== 'string' || !values.includes(v)) fail(`${at}.${k}`, `one of ${values.join('|')}`, v);
}

function int(o: Obj, k: string, at: string, min: number, max: number, required = false): void {
  const v = o[k];
  if (v === undefined && !required) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(`${at}.${k}`, `an integer ${min}..${max}`, v);
}

function address(o: Obj, k: string, at: string): void {
  const v = o[k];
  if (typeof v !== 'string' || !isIpAddress(v)) fail(`${at}.${k}`, 'an IPv4 or IPv6 address', v);
}

function serviceRef(v: unknown, at: string): void {
  const o = object(v, at, ['protocol', 'vip', 'port']);
  oneOf(o, 'protocol', at, ['tcp', 'udp', 'sctp'], true);
  address(o, 'vip', at);
  int(o, 'port', at, 0, 65535, true);
}

function health(v: unknown, at: string): void {
  const o = object(v, at, ['kind', 'intervalMs', 'timeoutMs', 'rise', 'fall', 'path']);
  oneOf(o, 'kind', at, ['icmp', 'tcp', 'http', 'udp']);
  int(o, 'intervalMs', at, 1, 86_400_000);
  int(o, 'timeoutMs', at, 1, 86_400_000);
  int(o, 'rise', at, 1, 100);
  int(o, 'fall', at, 1, 100);
  if (o.path !== undefined && (typeof o.path !== 'string' || !o.path.startsWith('/'))) fail(`${at}.path`, 'an HTTP path starting with /', o.path);
}

function settings(v: unknown, at: string): void {
  const o = object(v, at, ['scheduler', 'schedulerFlags', 'persistenceMs', 'persistenceNetmask', 'forwarding', 'clientAddress', 'health']);
  oneOf(o, 'scheduler', at, SCHEDULERS);
  const f = o.schedulerFlags;
  if (f !== undefined && (!Array.isArray(f) || !f.every((x) => x === 'sh-port' || x === 'sh-fallback'))) fail(`${at}.schedulerFlags`, 'a list of sh-fallback|sh-port', f);
  int(o, 'persistenceMs', at, 0, 31_536_000_000);
  int(o, 'persistenceNetmask', at, 0, 128);
  oneOf(o, 'forwarding', at, FORWARDING);
  oneOf(o, 'clientAddress', at, ['none', 'toa', 'proxy-protocol']);
  if (o.health !== undefined) health(o.health, `${at}.health`);
}

function server(v: unknown, at: string): void {
  const o = object(v, at, ['address', 'port', 'weight', 'forwarding']);
  address(o, 'address', at);
  int(o, 'port', at, 0, 65535);
  int(o, 'weight', at, 0, 65535);
  oneOf(o, 'forwarding', at, FORWARDING);
}

/**
 * Checks that `value` is a list of ServiceEdit.
 * @param what the name of the list in messages (e.g. `edits`)
 * @returns `value`, typed
 * @throws ServiceEditShapeError naming the first bad field
 */
export function checkServiceEdits(value: unknown, what = 'edits'): ServiceEdit[] {
  if (!Array.isArray(value)) fail(what, 'a list of edits', value);
  value.forEach((e, i) => {
    const at = `${what}[${i}]`;
    const op = (typeof e === 'object' && e !== null ? (e as Obj).op : undefined);
    if (typeof op !== 'string' || !OPS.includes(op)) {
      if (typeof e !== 'object' || e === null || Array.isArray(e)) fail(at, 'an edit object', e);
      fail(`${at}.op`, `one of ${OPS.join('|')}`, op);
    }
    if (op === 'clear') {
      object(e, at, ['op']);
      return;
    }
    const keys = op.endsWith('-server') ? ['op', 'service', 'server'] : op === 'delete-service' ? ['op', 'service'] : ['op', 'service', 'settings'];
    const o = object(e, at, keys);
    serviceRef(o.service, `${at}.service`);
    if (op.endsWith('-server')) server(o.server, `${at}.server`);
    else if (op === 'edit-service' || o.settings !== undefined) settings(o.settings, `${at}.settings`);
  });
  return value as ServiceEdit[];
}
