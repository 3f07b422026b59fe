/**
 * The `snmp` section of the shelf YAML → the SNMP agent's settings (docs/snmp.md): bind address
 * and port, the SNMPv2c read-only communities, the SNMPv3 (USM) read-only users with their
 * authentication and privacy protocols and passphrases, the notification receivers, the base of
 * atcasim's enterprise objects, the engine ID, sysContact and sysLocation.
 *
 * Safe by default: without the section (or with neither `communities` nor `users`) nobody can read
 * anything, and no agent runs unless a port is given here or by `--snmp-port`; the bind address
 * defaults to loopback. A passphrase shorter than 8 characters is refused (RFC 3414 §11.2; the
 * Net-SNMP tools refuse them too). Whether DES can run is a property of the Node runtime, checked
 * where the agent starts (chassis/io/snmp-agent.ts), which names the user's `at` position.
 *
 * Sources: RFC 3411 §5 (SnmpEngineID: 5–32 octets), RFC 3414 (USM: MD5, SHA-1, CBC-DES), RFC 3826
 * (AES-128), RFC 7860 (SHA-2), RFC 5612 (PEN 32473 for documentation), RFC 3416 §4.2.6/4.2.7
 * (SNMPv2-Trap, InformRequest).
 */
import { isIpAddress } from './ip-address.ts';
import { DEFAULT_SNMP, type SnmpAuthProtocol, type SnmpPrivProtocol, type SnmpSettings, type SnmpTarget, type SnmpUser } from './types.ts';
import type { Value } from './yaml-reader.ts';

const AUTH: readonly SnmpAuthProtocol[] = ['md5', 'sha', 'sha224', 'sha256', 'sha384', 'sha512'];
const PRIV: readonly SnmpPrivProtocol[] = ['des', 'aes'];
/** RFC 3414 §11.2: passphrases of at least 8 characters. */
export const SNMP_MIN_PASSPHRASE = 8;

/**
 * Reads the `snmp` section (absent: DEFAULT_SNMP — no communities, no users, no receivers).
 * @throws ConfigError at the offending key (bind not an IP address, an empty or repeated community,
 *   a user without authentication or with a short passphrase, a privacy key without a protocol,
 *   a receiver naming an unknown user, an enterprise OID outside 1.3.6.1.4.1, a malformed engine ID)
 */
export function readSnmp(v: Value | undefined): SnmpSettings {
  const out: SnmpSettings = { ...DEFAULT_SNMP, communities: [], users: [], notify: [] };
  if (!v) return out;
  const m = v.map();
  const b = m.opt('bind');
  if (b) {
    out.bind = b.str();
    if (!isIpAddress(out.bind)) b.fail(`"${out.bind}" is not an IP address`);
  }
  const port = m.opt('port')?.int({ min: 0, max: 65535 });
  if (port !== undefined) out.port = port;
  const cs = m.opt('communities');
  if (cs) {
    for (const x of cs.list()) {
      const c = x.text({ max: 64 });
      if (c.length === 0) x.fail('a community must not be empty');
      if (out.communities.includes(c)) x.fail(`community "${c}" listed twice`);
      out.communities.push(c);
    }
  }
  const us = m.opt('users');
  if (us) for (const x of us.list()) out.users.push(readUser(x, out.users));
  const ns = m.opt('notify');
  if (ns) for (const x of ns.list()) out.notify.push(readTarget(x, out.users));
  const e = m.opt('enterprise_oid');
  if (e) {
    const oid = e.text();
    if (!/^1\.3\.6\.1\.4\.1(\.(0|[1-9]\d{0,9}))+$/.test(oid) || oid.split('.').some((a) => Number(a) > 0xffffffff)) {
      e.fail(`"${oid}" is not an enterprise OID (write 1.3.6.1.4.1.PEN[.more], e.g. ${DEFAULT_SNMP.enterpriseOid})`);
    }
    out.enterpriseOid = oid;
  }
  const id = m.opt('engine_id');
  if (id) {
    const hex = id.text().replace(/^0x/i, '');
    if (!/^([0-9a-fA-F]{2}){5,32}$/.test(hex)) id.fail('an engine ID is 5 to 32 octets written in hex (e.g. 0x80007ed90561746361)');
    out.engineId = hex.toLowerCase();
  }
  out.contact = m.opt('contact')?.str({ max: 255 }) ?? out.contact;
  out.location = m.opt('location')?.str({ max: 255 }) ?? out.location;
  m.done(['bind', 'port', 'communities', 'users', 'notify', 'enterprise_oid', 'engine_id', 'contact', 'location']);
  return out;
}

function passphrase(v: Value): string {
  const s = v.text({ max: 256 });
  if (s.length < SNMP_MIN_PASSPHRASE) v.fail(`a USM passphrase has at least ${SNMP_MIN_PASSPHRASE} characters (RFC 3414 §11.2), got ${s.length}`);
  return s;
}

function readUser(x: Value, seen: readonly SnmpUser[]): SnmpUser {
  const m = x.map();
  const nameV = m.req('name');
  const name = nameV.text({ max: 32 });
  if (name.length === 0) nameV.fail('a user name must not be empty');
  if (seen.some((u) => u.name === name)) nameV.fail(`user "${name}" listed twice`);
  const authV = m.opt('auth');
  if (!authV) m.req('auth'); // "missing required key" at the entry: read-only access is always authenticated
  const auth = authV!.str().toLowerCase();
  if (!(AUTH as readonly string[]).includes(auth)) authV!.fail(`"${authV!.str()}" is not one of ${AUTH.join(', ')} (noAuthNoPriv users are not offered)`);
  const authKey = passphrase(m.req('auth_key'));
  const pos = x.src.pos(x.node?.range?.[0] ?? 0);
  const user: SnmpUser = { name, auth: auth as SnmpAuthProtocol, authKey, at: `${x.src.file}:${pos.line}:${pos.col}` };
  const privV = m.opt('priv');
  const privKeyV = m.opt('priv_key');
  if (privV) {
    const priv = privV.str().toLowerCase();
    if (!(PRIV as readonly string[]).includes(priv)) privV.fail(`"${privV.str()}" is not one of ${PRIV.join(', ')}`);
    user.priv = priv as SnmpPrivProtocol;
    user.privKey = passphrase(m.req('priv_key'));
  } else if (privKeyV) privKeyV.fail('priv_key without priv: name the privacy protocol (aes or des)');
  m.done(['name', 'auth', 'auth_key', 'priv', 'priv_key']);
  return user;
}

function readTarget(x: Value, users: readonly SnmpUser[]): SnmpTarget {
  const m = x.map();
  const hostV = m.req('host');
  const host = hostV.str();
  if (!isIpAddress(host)) hostV.fail(`"${host}" is not an IP address (receivers are given as IP literals)`);
  const port = m.opt('port')?.int({ min: 1, max: 65535 }) ?? 162;
  const version = m.req('version').oneOf(['v2c', 'v3'] as const);
  const inform = m.opt('inform')?.bool() ?? false;
  const t: SnmpTarget = { host, port, version, inform };
  if (version === 'v2c') {
    const c = m.req('community').text({ max: 64 });
    if (c.length === 0) m.req('community').fail('a community must not be empty');
    t.community = c;
    if (m.has('user')) m.opt('user')!.fail('a v2c receiver takes a community, not a user');
  } else {
    const uV = m.req('user');
    const u = uV.text();
    if (!users.some((x) => x.name === u)) uV.fail(`no SNMPv3 user "${u}" in snmp.users (list the users before the receivers that use them)`);
    t.user = u;
    if (m.has('community')) m.opt('community')!.fail('a v3 receiver takes a user, not a community');
  }
  m.done(['host', 'port', 'version', 'community', 'user', 'inform']);
  return t;
}
