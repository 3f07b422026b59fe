/**
 * Real ipmitool (-I lanplus -C 3, -C 17, without -C, -I lan) and real FreeIPMI (bmc-info, ipmi-raw;
 * LAN_2_0 without the opensesspriv workaround, suite 17, LAN) against the LAN server on a free UDP port
 * in this process, for the session-level and App commands (docs/ipmi.md "What works"). Outputs are
 * compared by shape with ../shared/ipmi/golden (test/support/ipmi-golden.ts); where ipmi_sim fails for
 * lack of a feature (self test, in-session auth caps, suite 17, FreeIPMI without -W opensesspriv or at
 * USER privilege) atcasim must succeed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../board/common/logger.ts';
import type { LogRecord } from '../../board/common/logger.ts';
import { firstTwoChannels, loadGolden, runAgainstGolden, runClient } from '../support/ipmi-golden.ts';
import type { GoldenExpectations } from '../support/ipmi-golden.ts';
import { startUdpTestServer } from '../support/ipmi-test-server.ts';

let srv: Awaited<ReturnType<typeof startUdpTestServer>>;
const records: LogRecord[] = [];

beforeAll(async () => {
  srv = await startUdpTestServer({}, captureLogger(records));
});
afterAll(async () => {
  await srv?.stop();
});

/** What ipmitool prints for a successful `channel authcap 1 4` (ipmi_sim answered D5h, so no transcript has it). */
const AUTHCAP_OUTPUT = `Channel number             : 1
IPMI v1.5  auth types      : MD5 
KG status                  : default (all zeroes)
Per message authentication : enabled
User level authentication  : enabled
Non-null user names exist  : yes
Null user names exist      : no
Anonymous login enabled    : no
Channel supports IPMI v1.5 : yes
Channel supports IPMI v2.0 : yes
`;

interface Case {
  name: string;
  exp?: GoldenExpectations;
  check?: (stdout: string) => void;
}

const CASES: Case[] = [
  { name: '01_mc_info' },
  { name: '02_mc_guid', check: (o) => expect(o).toMatch(/^GUID Encoding : IPMI$/m) },
  { name: '03_mc_selftest', exp: { exitCode: 0, stdout: 'Selftest: passed\n', stderr: '' }, check: (o) => expect(o).toBe('Selftest: passed\n') },
  { name: '04_mc_getenables', check: (o) => expect(o).toMatch(/^System Event Logging\s+: enabled$/m) },
  { name: '05_mc_watchdog_get' },
  { name: '32_user_list', check: (o) => expect(o).toMatch(/^4\s+viewer\s+true\s+false\s+true\s+USER$/m) },
  { name: '33_channel_info', check: (o) => expect(o).toMatch(/Session Support\s+: multi-session/) },
  { name: '34_channel_getaccess', check: (o) => expect(o).toMatch(/^Maximum User IDs\s+: 15$/m) },
  { name: '35_channel_authcap', exp: { exitCode: 0, stdout: AUTHCAP_OUTPUT, stderr: '' } },
  {
    name: '36_lan_print',
    check: (o) => {
      expect(o).toMatch(/^RMCP\+ Cipher Suites\s+: 3,17$/m);
      expect(o).toMatch(/^Cipher Suite Priv Max\s+: aaXXXXXXXXXXXXX$/m);
      expect(o).toMatch(/^IP Address\s+: 127\.0\.0\.1$/m);
    },
  },
  {
    name: '38_session_info_all',
    exp: { ignoreLabels: ['console ip', 'console mac', 'console port'] },
    check: (o) => {
      expect(o).toMatch(/^slot count\s+: 8$/m);
      expect(o).toMatch(/^console ip\s+: 127\.0\.0\.1$/m);
    },
  },
  { name: '39_raw_get_device_id', check: (o) => expect(o.trim()).toBe('00 01 02 10 02 bf 5a 31 00 01 00 00 00 00 00') },
  { name: '42_raw_unknown_cmd' },
  { name: '43_raw_bad_netfn' },
  { name: '90_bridged_mc_info', check: (o) => expect(o).toMatch(/^Product ID\s+: 3 \(0x0003\)$/m) },
];

const C3 = 'ipmitool-lanplus-C3';

describe.each([C3, 'ipmitool-lanplus-C17', 'ipmitool-lan'])('%s transcripts', (folder) => {
  it.each(CASES)('$name', async (c) => {
    // -C 17 must print what -C 3 prints (ipmi_sim refused every -C 17 run)
    const base = loadGolden(`${C3}/${c.name}.txt`);
    const exp: GoldenExpectations = folder === C3 ? { ...c.exp } : { exitCode: base.exitCode, stdout: base.stdout, stderr: base.stderr, ...c.exp };
    const r = await runAgainstGolden(`${folder}/${c.name}.txt`, srv.port, exp);
    expect(r.problems).toEqual([]);
    c.check?.(r.result.stdout);
  });
});

describe('ipmitool -I lanplus without -C', () => {
  const noSuite = (argv: string[]) => argv.filter((a, i) => a !== '-C' && argv[i - 1] !== '-C');

  it.each(['01_mc_info', '38_session_info_all', '36_lan_print'])('%s: answers Get Channel Cipher Suites, so no retries and suite 17 is chosen', async (name) => {
    const before = records.length;
    const r = await runAgainstGolden(`${C3}/${name}.txt`, srv.port, { argv: noSuite, ignoreLabels: ['console ip', 'console mac', 'console port'] });
    expect(r.result.argv).not.toContain('-C');
    expect(r.problems).toEqual([]); // includes: stderr empty (no "Unable to Get Channel Cipher Suites")
    const login = records.slice(before).find((x) => (x.obj as { category?: string }).category === 'login');
    expect((login!.obj as { suite: number }).suite).toBe(17);
  });
});

describe('FreeIPMI', () => {
  const bmcInfo04 = loadGolden('freeipmi/04_bmc-info_lan20_C3_admin.txt').stdout;
  const bmcInfo05 = loadGolden('freeipmi/05_bmc-info_lan15.txt').stdout;
  const cut = { transform: firstTwoChannels };
  const noWorkaround = (argv: string[]) => argv.filter((a, i) => a !== '-W' && argv[i - 1] !== '-W');

  it.each<[string, GoldenExpectations]>([
    ['04_bmc-info_lan20_C3_admin', cut],
    // ipmi_sim needed -W opensesspriv; atcasim returns the granted privilege in Open Session
    ['01_bmc-info_lan20_noworkaround', { ...cut, exitCode: 0, stdout: bmcInfo04, stderr: '' }],
    ['03_bmc-info_lan20_C17', { ...cut, exitCode: 0, stdout: bmcInfo04, stderr: '', argv: noWorkaround }],
    ['05_bmc-info_lan15', cut],
    // USER privilege: Get System Info Parameters answers C1h (not D4h), so bmc-info completes
    ['06_bmc-info_lan15_user_priv', { ...cut, exitCode: 0, stdout: bmcInfo05, stderr: '' }],
    ['07_bmc-info_lan15_md5', { ...cut, exitCode: 0, stdout: bmcInfo05, stderr: '' }],
    ['08_bmc-info_lan15_none', {}],
    ['29_ipmi-raw_get_device_id', { argv: noWorkaround }],
  ])('%s', async (name, exp) => {
    const r = await runAgainstGolden(`freeipmi/${name}.txt`, srv.port, exp);
    expect(r.problems).toEqual([]);
    if (name.startsWith('0') && name !== '08_bmc-info_lan15_none') expect(r.result.stdout).toMatch(/^Channel Number\s+: 1$/m);
  });

  it('bmc-info -D LAN_2_0 -I 17 at the default privilege, without any workaround', async () => {
    const r = await runClient(['bmc-info', '-h', `127.0.0.1:${srv.port}`, '-u', 'admin', '-p', 'adminpass', '-D', 'LAN_2_0', '-I', '17']);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^Manufacturer ID\s+: PICMG \(12634\)$/m);
  });

  it.each(['LAN_2_0', 'LAN'])('ipmi-raw bridges to the node IPMC at 86h over %s (Send Message + the raw IPMB response)', async (driver) => {
    const r = await runClient(['ipmi-raw', '-h', `127.0.0.1:${srv.port}`, '-u', 'admin', '-p', 'adminpass', '-D', driver, '--target-channel-number=0', '--target-slave-address=0x86', '0', '0x06', '0x01']);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    // rcvd: cmd, cc, device ID, revision, fw 1.05, IPMI 2.0, support, PICMG, product 3
    expect(r.stdout.trim()).toBe('rcvd: 01 00 00 01 01 05 02 29 5A 31 00 03 00 00 00 00 00');
  });
});

describe('user set password, then log in with the new one', () => {
  it('ipmitool changes oper\'s password; the new one works over lanplus, lan and FreeIPMI, the old one does not', async () => {
    const s = await startUdpTestServer();
    try {
      const at = (user: string, pw: string, ...rest: string[]) => ['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(s.port), '-U', user, '-P', pw, ...rest];
      const set = await runClient(at('admin', 'adminpass', '-C', '17', 'user', 'set', 'password', '3', 'oper-newpass'));
      expect([set.exitCode, set.stdout, set.stderr]).toEqual([0, 'Set User Password command successful (user 3)\n', '']);
      const ok = await runClient(at('oper', 'oper-newpass', '-C', '3', '-L', 'OPERATOR', 'mc', 'info'));
      expect([ok.exitCode, ok.stderr]).toEqual([0, '']);
      const lan = await runClient(['ipmitool', '-I', 'lan', '-H', '127.0.0.1', '-p', String(s.port), '-U', 'oper', '-P', 'oper-newpass', '-L', 'OPERATOR', 'mc', 'selftest']);
      expect([lan.exitCode, lan.stdout]).toEqual([0, 'Selftest: passed\n']);
      const fi = await runClient(['bmc-info', '-h', `127.0.0.1:${s.port}`, '-u', 'oper', '-p', 'oper-newpass', '-D', 'LAN_2_0', '--get-device-id']);
      expect(fi.exitCode).toBe(0);
      const old = await runClient(at('oper', 'operpass', '-C', '3', '-L', 'OPERATOR', 'mc', 'info'));
      expect([old.exitCode, old.stderr]).toEqual([1, 'Error: Unable to establish IPMI v2 / RMCP+ session\n']);
      const weak = await runClient(at('admin', 'adminpass', 'user', 'set', 'password', '3', 'short'));
      expect(weak.exitCode).toBe(1);
      expect(weak.stderr).toMatch(/Invalid data field in request/);
      // the user-creation recipe of docs/ipmi.md
      for (const step of [
        ['user', 'set', 'name', '5', 'alice'],
        ['user', 'set', 'password', '5', 'alice-password'],
        ['channel', 'setaccess', '1', '5', 'ipmi=on', 'privilege=3'],
        ['user', 'enable', '5'],
      ]) {
        expect((await runClient(at('admin', 'adminpass', ...step))).exitCode).toBe(0);
      }
      const alice = await runClient(at('alice', 'alice-password', '-L', 'OPERATOR', 'session', 'info', 'active'));
      expect(alice.exitCode).toBe(0);
      expect(alice.stdout).toMatch(/^privilege level\s+: OPERATOR$/m);
      expect((await runClient(at('admin', 'adminpass', 'user', 'disable', '5'))).exitCode).toBe(0);
      expect((await runClient(at('alice', 'alice-password', '-L', 'OPERATOR', 'mc', 'info'))).exitCode).toBe(1);
    } finally {
      await s.stop();
    }
  });
});
