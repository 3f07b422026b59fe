// The shelf YAML's `snmp` section (chassis/config/snmp-section.ts): a safe default (no agent
// asked for, nobody allowed in, loopback), every key read into SnmpSettings, and every broken
// entry refused with file:line:column at the offending key.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../board/common/errors.ts';
import { parseShelfConfig } from '../../../../chassis/config/shelf-config.ts';
import { DEFAULT_SNMP } from '../../../../chassis/config/types.ts';
import { readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';

const base = readDefaultShelfYaml();
const baseLines = base.split('\n').length;
/** Parses the default shelf with `section` appended (line numbers start at baseLines + 1 when `base` ends with a newline). */
const parse = (section: string) => parseShelfConfig(`${base}${section}`, 'shelf.yaml');
/** The ConfigError message `parse` throws. */
function refusal(section: string): string {
  try {
    parse(section);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('accepted');
}
/** Line number in the combined file of line `n` (1-based) of an appended section. */
const L = (n: number) => baseLines - 1 + n;

describe('snmp section', () => {
  it('absent: no port, no communities, no users, no receivers, loopback, the RFC 5612 documentation PEN', () => {
    const c = parseShelfConfig(base, 'shelf.yaml');
    expect(c.snmp).toEqual({ ...DEFAULT_SNMP, communities: [], users: [], notify: [] });
    expect(c.snmp.port).toBeUndefined();
    expect(c.snmp.bind).toBe('127.0.0.1');
    expect(c.snmp.enterpriseOid).toBe('1.3.6.1.4.1.32473');
  });

  it('reads every key (protocol names in any case, the entry position of each user)', () => {
    const c = parse(
      [
        'snmp:',
        '  bind: 0.0.0.0',
        '  port: 1161',
        '  communities: [ops-ro, "12345678"]',
        '  users:',
        '    - { name: ops, auth: SHA, auth_key: ops-auth-pass-1, priv: AES, priv_key: ops-priv-pass-1 }',
        '    - { name: viewer, auth: md5, auth_key: viewer-auth-1 }',
        '  notify:',
        '    - { host: 127.0.0.1, version: v2c, community: traps }',
        '    - { host: "::1", port: 16162, version: v3, user: ops, inform: true }',
        '  enterprise_oid: 1.3.6.1.4.1.8072.9999.9999',
        '  engine_id: 0x80007ED90561746361',
        '  contact: noc@example.net',
        '  location: lab rack 4',
        '',
      ].join('\n'),
    );
    expect(c.snmp).toEqual({
      bind: '0.0.0.0',
      port: 1161,
      communities: ['ops-ro', '12345678'],
      users: [
        { name: 'ops', auth: 'sha', authKey: 'ops-auth-pass-1', priv: 'aes', privKey: 'ops-priv-pass-1', at: `shelf.yaml:${L(6)}:7` },
        { name: 'viewer', auth: 'md5', authKey: 'viewer-auth-1', at: `shelf.yaml:${L(7)}:7` },
      ],
      notify: [
        { host: '127.0.0.1', port: 162, version: 'v2c', community: 'traps', inform: false },
        { host: '::1', port: 16162, version: 'v3', user: 'ops', inform: true },
      ],
      enterpriseOid: '1.3.6.1.4.1.8072.9999.9999',
      engineId: '80007ed90561746361',
      contact: 'noc@example.net',
      location: 'lab rack 4',
    });
  });

  it.each([
    ['snmp:\n  bind: localhost\n', `shelf.yaml:${L(2)}:9: snmp.bind: "localhost" is not an IP address`],
    ['snmp:\n  port: 70000\n', `shelf.yaml:${L(2)}:9: snmp.port: must be ≤ 65535, got 70000`],
    ['snmp:\n  communities: [a, a]\n', `shelf.yaml:${L(2)}:20: snmp.communities[1]: community "a" listed twice`],
    ['snmp:\n  users:\n    - { name: u1, auth_key: abcdefgh }\n', `shelf.yaml:${L(3)}:7: snmp.users[0]: missing required key "auth"`],
    ['snmp:\n  users:\n    - { name: u1, auth: none, auth_key: abcdefgh }\n', `shelf.yaml:${L(3)}:25: snmp.users[0].auth: "none" is not one of md5, sha, sha224, sha256, sha384, sha512 (noAuthNoPriv users are not offered)`],
    ['snmp:\n  users:\n    - { name: u1, auth: sha, auth_key: short }\n', `shelf.yaml:${L(3)}:40: snmp.users[0].auth_key: a USM passphrase has at least 8 characters (RFC 3414 §11.2), got 5`],
    ['snmp:\n  users:\n    - { name: u1, auth: sha, auth_key: abcdefgh, priv_key: abcdefgh }\n', `shelf.yaml:${L(3)}:60: snmp.users[0].priv_key: priv_key without priv: name the privacy protocol (aes or des)`],
    ['snmp:\n  users:\n    - { name: u1, auth: sha, auth_key: abcdefgh, priv: 3des, priv_key: abcdefgh }\n', `shelf.yaml:${L(3)}:56: snmp.users[0].priv: "3des" is not one of des, aes`],
    ['snmp:\n  users:\n    - { name: u1, auth: sha, auth_key: abcdefgh, priv: aes }\n', `shelf.yaml:${L(3)}:7: snmp.users[0]: missing required key "priv_key"`],
    ['snmp:\n  users:\n    - { name: u1, auth: sha, auth_key: abcdefgh }\n    - { name: u1, auth: md5, auth_key: abcdefgh }\n', `shelf.yaml:${L(4)}:15: snmp.users[1].name: user "u1" listed twice`],
    ['snmp:\n  notify:\n    - { host: 127.0.0.1, version: v3, user: ghost }\n', `shelf.yaml:${L(3)}:45: snmp.notify[0].user: no SNMPv3 user "ghost" in snmp.users (list the users before the receivers that use them)`],
    ['snmp:\n  notify:\n    - { host: 127.0.0.1, version: v2 }\n', `shelf.yaml:${L(3)}:35: snmp.notify[0].version: "v2" is not one of v2c, v3`],
    ['snmp:\n  notify:\n    - { host: 127.0.0.1, version: v2c }\n', `shelf.yaml:${L(3)}:7: snmp.notify[0]: missing required key "community"`],
    ['snmp:\n  notify:\n    - { host: traps.example.net, version: v2c, community: x }\n', `shelf.yaml:${L(3)}:15: snmp.notify[0].host: "traps.example.net" is not an IP address (receivers are given as IP literals)`],
    ['snmp:\n  enterprise_oid: 1.3.6.1.2.1.99\n', `shelf.yaml:${L(2)}:19: snmp.enterprise_oid: "1.3.6.1.2.1.99" is not an enterprise OID (write 1.3.6.1.4.1.PEN[.more], e.g. 1.3.6.1.4.1.32473)`],
    ['snmp:\n  engine_id: 0x8000\n', `shelf.yaml:${L(2)}:14: snmp.engine_id: an engine ID is 5 to 32 octets written in hex (e.g. 0x80007ed90561746361)`],
    ['snmp:\n  community: public\n', `shelf.yaml:${L(2)}:3: snmp: unknown key "community" (expected one of: bind, port, communities, users, notify, enterprise_oid, engine_id, contact, location)`],
  ])('refuses %j', (section, message) => {
    expect(refusal(section)).toBe(message);
  });
});
