/**
 * Security behaviour seen by the real clients (docs/ipmi.md "Security behaviour"): wrong password and
 * unknown user refused at RAKP (ipmitool, FreeIPMI) and at Activate Session for IPMI 1.5; cipher suite
 * 0 (and the no-integrity suite 1) and auth type NONE refused by default, accepted only with the
 * explicit insecure options; a USER account gets no ADMINISTRATOR session through ipmitool's default
 * name-only lookup and cannot run operator/administrator commands; no HPM.2 "compcode = d4" noise below
 * ADMINISTRATOR. Replay and window rules are tested in-process
 * (test/unit/chassis/ipmi/lan-server.security.test.ts): no client here can replay a packet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClient } from '../support/ipmi-golden.ts';
import { startUdpTestServer } from '../support/ipmi-test-server.ts';

let srv: Awaited<ReturnType<typeof startUdpTestServer>>;
beforeAll(async () => {
  srv = await startUdpTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

const ipmitool = (port: number, iface: string, user: string, pw: string, ...rest: string[]) =>
  runClient(['ipmitool', '-I', iface, '-H', '127.0.0.1', '-p', String(port), '-U', user, '-P', pw, ...rest]);
const bmcInfo = (port: number, user: string, pw: string, ...rest: string[]) =>
  runClient(['bmc-info', '-h', `127.0.0.1:${port}`, '-u', user, '-p', pw, ...rest]);

const NO_V2 = 'Error: Unable to establish IPMI v2 / RMCP+ session\n';

describe('wrong password, unknown user', () => {
  it.each(['3', '17'])('ipmitool -C %s refuses a wrong password and an unknown user at RAKP', async (suite) => {
    for (const user of ['admin', 'nobody']) {
      const r = await ipmitool(srv.port, 'lanplus', user, 'wrongpass1', '-C', suite, 'mc', 'info');
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([1, '', NO_V2]);
    }
    expect(srv.server.stats().activeSessions).toBe(0);
  });

  it('FreeIPMI reports "password invalid" / "username invalid" (RAKP2 auth code / status 0Dh)', async () => {
    expect((await bmcInfo(srv.port, 'admin', 'wrongpass1', '-D', 'LAN_2_0')).stderr).toBe('bmc-info: password invalid\n');
    expect((await bmcInfo(srv.port, 'nobody', 'wrongpass1', '-D', 'LAN_2_0', '-I', '17')).stderr).toBe('bmc-info: username invalid\n');
  });

  it('IPMI 1.5: Activate Session with a wrong password is dropped (ipmitool and FreeIPMI give up)', async () => {
    const r = await ipmitool(srv.port, 'lan', 'admin', 'wrongpass1', '-R', '1', '-N', '1', 'mc', 'info');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^Activate Session command failed\n/);
    const f = await bmcInfo(srv.port, 'admin', 'wrongpass1', '-D', 'LAN', '--session-timeout=2000');
    expect([f.exitCode, f.stderr]).toEqual([1, 'bmc-info: password verification timeout\n']);
    const u = await ipmitool(srv.port, 'lan', 'nobody', 'adminpass', '-R', '1', '-N', '1', 'mc', 'info');
    expect(u.exitCode).toBe(1);
    expect(srv.server.stats().activeSessions).toBe(0);
  });
});

describe('insecure algorithms are refused unless enabled', () => {
  it('cipher suites 0 and 1: "no matching cipher suite", even with the right password', async () => {
    for (const suite of ['0', '1']) {
      const r = await ipmitool(srv.port, 'lanplus', 'admin', 'adminpass', '-C', suite, 'mc', 'info');
      expect([r.exitCode, r.stderr]).toEqual([1, `Error in open session response message : no matching cipher suite\n\n${NO_V2}`]);
    }
    const f = await bmcInfo(srv.port, 'admin', 'adminpass', '-D', 'LAN_2_0', '-I', '0');
    expect([f.exitCode, f.stderr]).toEqual([1, 'bmc-info: cipher suite id unavailable\n']);
  });

  it('auth type NONE is not offered: FreeIPMI refuses it, ipmitool -A NONE fails', async () => {
    const f = await bmcInfo(srv.port, 'admin', 'adminpass', '-D', 'LAN', '-a', 'NONE');
    expect([f.exitCode, f.stderr]).toEqual([1, 'bmc-info: authentication type unavailable for attempted privilege level\n']);
    const r = await ipmitool(srv.port, 'lan', 'admin', 'adminpass', '-A', 'NONE', 'mc', 'info');
    expect(r.exitCode).toBe(1);
  });

  it('with --ipmi-insecure-cipher0 (insecureCipher0) suite 0 logs in with ANY password — the documented danger', async () => {
    const unsafe = await startUdpTestServer({ insecureCipher0: true });
    try {
      const r = await ipmitool(unsafe.port, 'lanplus', 'admin', 'not-the-password', '-C', '0', 'mc', 'selftest');
      expect([r.exitCode, r.stdout]).toEqual([0, 'Selftest: passed\n']);
      // still bounded by the user's privilege limit
      const v = await ipmitool(unsafe.port, 'lanplus', 'viewer', 'x', '-C', '0', 'mc', 'selftest');
      expect(v.exitCode).toBe(1);
    } finally {
      await unsafe.stop();
    }
  });
});

describe('privilege', () => {
  it('a USER account with ipmitool\'s default -L ADMINISTRATOR gets no session (lanplus: 81h, lan: 86h)', async () => {
    const plus = await ipmitool(srv.port, 'lanplus', 'viewer', 'viewpass', 'mc', 'info');
    expect([plus.exitCode, plus.stdout]).toEqual([1, '']);
    expect(plus.stderr).toMatch(/^Set Session Privilege Level to ADMINISTRATOR failed/);
    const lan = await ipmitool(srv.port, 'lan', 'viewer', 'viewpass', 'mc', 'info');
    expect(lan.exitCode).toBe(1);
    expect(lan.stderr).toMatch(/Requested privilege level exceeds limit/);
    const fi = await bmcInfo(srv.port, 'viewer', 'viewpass', '-D', 'LAN_2_0', '-l', 'ADMIN');
    expect([fi.exitCode, fi.stderr]).toEqual([1, 'bmc-info: privilege level cannot be obtained for this user\n']);
  });

  it('at -L USER it reads (no HPM.2 "compcode = d4" line) but cannot change passwords or the watchdog', async () => {
    const ok = await ipmitool(srv.port, 'lanplus', 'viewer', 'viewpass', '-L', 'USER', 'mc', 'info');
    expect([ok.exitCode, ok.stderr]).toEqual([0, '']);
    const pw = await ipmitool(srv.port, 'lanplus', 'viewer', 'viewpass', '-L', 'USER', 'user', 'set', 'password', '2', 'taken-over-1');
    expect(pw.exitCode).toBe(1);
    expect(pw.stderr).toMatch(/Insufficient privilege level/);
    const wd = await ipmitool(srv.port, 'lan', 'viewer', 'viewpass', '-L', 'USER', 'mc', 'watchdog', 'reset');
    expect([wd.exitCode, wd.stderr]).toEqual([1, 'Reset Watchdog Timer command failed: Insufficient privilege level\n']);
    const raw = await ipmitool(srv.port, 'lanplus', 'viewer', 'viewpass', '-L', 'USER', 'raw', '0x06', '0xfe');
    expect(raw.stderr).toMatch(/rsp=0xc1\): Invalid command/); // C1h, not D4h, below ADMINISTRATOR
  });

  it('an OPERATOR may reset the watchdog but not manage users', async () => {
    const wd = await ipmitool(srv.port, 'lanplus', 'oper', 'operpass', '-L', 'OPERATOR', '-C', '17', 'raw', '0x06', '0x24', '0x04', '0x00', '0x00', '0x00', '0x64', '0x00');
    expect(wd.exitCode).toBe(0);
    const pw = await ipmitool(srv.port, 'lanplus', 'oper', 'operpass', '-L', 'OPERATOR', 'user', 'set', 'password', '4', 'taken-over-1');
    expect(pw.exitCode).toBe(1);
  });
});
