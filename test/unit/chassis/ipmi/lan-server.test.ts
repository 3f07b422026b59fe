/**
 * LanServer in-process: RMCP/ASF, pre-session commands, RMCP+ and IPMI 1.5 logins, the phase-1
 * commands, bridging, close and idle timeout. Requests that mirror real client traffic are taken
 * from ../shared/ipmi/captures; security rules are in lan-server.security.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { decodeResponse, encodeRequest } from '../../../../chassis/ipmi/message.ts';
import { decodeRmcpPlus } from '../../../../chassis/ipmi/rmcpplus.ts';
import { decodeSession15 } from '../../../../chassis/ipmi/session15.ts';
import { InMemoryUserStore, utf8 } from '../../../../chassis/ipmi/users.ts';
import { LanServer } from '../../../../chassis/ipmi/lan-server.ts';
import { Ipmi15Client, RmcpPlusClient, decodeSessionlessReply, send, sessionless15, sessionlessRmcpPlus } from '../../../support/ipmi-client.ts';
import type { Wire } from '../../../support/ipmi-client.ts';
import { readIpmiCapture, toHex } from '../../../support/ipmi-captures.ts';
import { makeTestServer, testControllers, FakeWatchdog, seededBytes } from '../../../support/ipmi-test-server.ts';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { IpmiWatchdog } from '../../../../chassis/model/ipmi-watchdog.ts';
import { registerAppCommands } from '../../../../chassis/ipmi/commands/app.ts';
import { registerWatchdogCommands } from '../../../../chassis/ipmi/commands/watchdog.ts';
import { Controller } from '../../../../chassis/ipmi/controller.ts';
import type { WatchdogPort } from '../../../../chassis/ipmi/watchdog-port.ts';
import { controllerInfo } from '../../../support/ipmi-test-server.ts';

function setup(overrides = {}) {
  const t = makeTestServer(overrides);
  const wire: Wire = { server: t.server, peer: { address: '127.0.0.1', port: 40000 }, now: () => t.clock.now() };
  const admin = () => {
    const c = new RmcpPlusClient(wire, 'admin', 'adminpass', 3);
    expect(c.login()).toMatchObject({ ok: true });
    return c;
  };
  return { ...t, wire, admin };
}

describe('RMCP / ASF presence ping', () => {
  it('answers the captured ping with exactly the captured pong', () => {
    const { wire } = setup();
    const frames = readIpmiCapture('lan15_bridged_picmg');
    const [pong] = send(wire, frames[0]!.payload);
    expect(toHex(pong!)).toBe(toHex(frames[1]!.payload));
  });

  it('echoes the tag and ignores pings to another IANA', () => {
    const { wire, records } = setup();
    const ping = Uint8Array.of(0x06, 0x00, 0xff, 0x06, 0x00, 0x00, 0x11, 0xbe, 0x80, 0x5a, 0x00, 0x00);
    expect(send(wire, ping)[0]![9]).toBe(0x5a);
    const wrong = ping.slice();
    wrong[7] = 0xbf;
    expect(send(wire, wrong)).toEqual([]);
    expect(records.filter((r) => (r.obj as { category?: string }).category === 'asf')).toHaveLength(1);
  });
});

describe('pre-session commands', () => {
  it('answers the captured Get Channel Authentication Capabilities (v2 data) with MD5 and IPMI 2.0 + 1.5', () => {
    const { wire } = setup();
    const frames = readIpmiCapture('lanplus_C3_session');
    const [reply] = send(wire, frames[0]!.payload);
    const r = decodeSessionlessReply(reply!);
    expect(r.cc).toBe(0);
    // channel 1; b7 v2 data + b2 MD5; non-null users; ext caps 2.0 + 1.5; no OEM
    expect(toHex(r.data)).toBe('0184040300000000');
    // same length and header as ipmi_sim's answer
    expect(reply!.length).toBe(frames[1]!.payload.length);
  });

  it('answers the session-less RMCP+ Get Channel Cipher Suites ipmitool sends without -C: suites 3 and 17 only', () => {
    const { wire } = setup();
    const frames = readIpmiCapture('lanplus_default_cipher');
    const [reply] = send(wire, frames[2]!.payload);
    const pkt = decodeRmcpPlus(reply!);
    expect([pkt.sessionId, pkt.sequence, pkt.authenticated, pkt.encrypted]).toEqual([0, 0, false, false]);
    const r = decodeResponse(pkt.payload);
    expect(r.cc).toBe(0);
    expect(toHex(r.data)).toBe('01' + 'c0030141' + '81' + 'c0110344' + '81');
    // the next list index returns only the channel number
    const [next] = send(wire, sessionlessRmcpPlus(0x06, 0x54, [0x0e, 0x00, 0x81]));
    expect(toHex(decodeSessionlessReply(next!).data)).toBe('01');
    // "supported algorithms" list
    const [algs] = send(wire, sessionlessRmcpPlus(0x06, 0x54, [0x0e, 0x00, 0x00]));
    expect(toHex(decodeSessionlessReply(algs!).data)).toBe('01' + '0103' + '4144' + '81');
  });

  it('with IPMI 1.5 off: no 1.5 auth types, no 1.5 support bit, Get Session Challenge refused', () => {
    const { wire } = setup({ ipmi15: false });
    const r = decodeSessionlessReply(send(wire, sessionless15(0x06, 0x38, [0x8e, 0x04]))[0]!);
    expect(toHex(r.data)).toBe('0180040200000000');
    const c = new Ipmi15Client(wire, 'admin', 'adminpass');
    expect(c.login()).toMatchObject({ ok: false, failedAt: 'challenge', cc: 0xcc });
  });

  it('answers anything else before login with D5h and no data, in both framings', () => {
    const { wire } = setup();
    for (const pkt of [sessionless15(0x06, 0x01, []), sessionlessRmcpPlus(0x06, 0x01, []), sessionless15(0x06, 0x47, [0x02, 0x02, ...new Uint8Array(16)]), sessionless15(0x06, 0xfe, [])]) {
      const r = decodeSessionlessReply(send(wire, pkt)[0]!);
      expect(r.cc).toBe(0xd5);
      expect(r.data.length).toBe(0);
    }
  });
});

describe('RMCP+ login', () => {
  it.each([3, 17])('logs in with suite %i and answers Get Device ID from the controller info', (suite) => {
    const { wire } = setup();
    const c = new RmcpPlusClient(wire, 'admin', 'adminpass', suite);
    const res = c.login();
    expect(res.ok).toBe(true);
    expect(res.open!.maxPrivilege).toBe(4); // granted privilege, not an echo of the requested 0
    const r = c.request(0x06, 0x01)!;
    expect(r.cc).toBe(0);
    // the same identity as ipmi_sim's ShMC gives the same 15 bytes (decodes/ipmitool-lan.compact.txt, 01_mc_info)
    expect(toHex(r.data)).toBe('0001021002bf5a3100010000000000');
  });

  it('grants min(requested, channel limit) in the Open Session Response', () => {
    const { wire } = setup({ channelPrivilegeLimit: 3 });
    expect(new RmcpPlusClient(wire, 'admin', 'adminpass', 3, 0x13, 0).login().open!.maxPrivilege).toBe(3);
    expect(new RmcpPlusClient(wire, 'admin', 'adminpass', 3, 0x12, 2).login().open!.maxPrivilege).toBe(2);
  });

  it('offers suites 1, 2, 15, 16 only when configured', () => {
    const def = setup();
    for (const s of [1, 2, 15, 16]) expect(new RmcpPlusClient(def.wire, 'admin', 'adminpass', s).login()).toMatchObject({ ok: false, failedAt: 'open', status: 0x11 });
    const conf = setup({ cipherSuites: [1, 2, 3, 15, 16, 17] });
    for (const s of [1, 2, 15, 16]) {
      const c = new RmcpPlusClient(conf.wire, 'admin', 'adminpass', s);
      expect(c.login().ok).toBe(true);
      expect(c.request(0x06, 0x04)!.data).toEqual(Uint8Array.of(0x55, 0x00));
    }
  });

  it('rejects bad options at construction', () => {
    const base = { users: new InMemoryUserStore(), controllers: testControllers(new FakeWatchdog(() => 0)), log: nullLogger, randomBytes: seededBytes(1) };
    expect(() => new LanServer(base)).toThrow(CommandError);
    const users = makeTestServer().users;
    expect(() => new LanServer({ ...base, users, cipherSuites: [0] })).toThrow(/insecure/);
    expect(() => new LanServer({ ...base, users, cipherSuites: [7] })).toThrow(/not implemented/);
    expect(() => new LanServer({ ...base, users, frontAddress: 0x30 })).toThrow(/front address/);
    expect(() => new LanServer({ ...base, users, limits: { maxSessions: 0 } })).toThrow(/positive/);
  });
});

describe('App device commands', () => {
  it('Get System GUID returns the controller GUID; Get Device GUID is C1h unless configured', () => {
    const { admin, server } = setup();
    const c = admin();
    expect(c.request(0x06, 0x37)!.data).toEqual(server.frontController().info.guid);
    expect(c.request(0x06, 0x08)!.cc).toBe(0xc1);
    server.frontController().info = { ...server.frontController().info, deviceGuid: new Uint8Array(16).fill(7) };
    expect(c.request(0x06, 0x08)!.data).toEqual(new Uint8Array(16).fill(7));
  });

  it('Get Self Test Results 55h 00h; malformed requests get C7h', () => {
    const c = setup().admin();
    expect(toHex(c.request(0x06, 0x04)!.data)).toBe('5500');
    expect(c.request(0x06, 0x04, [1])!.cc).toBe(0xc7);
    expect(c.request(0x06, 0x01, [1, 2])!.cc).toBe(0xc7);
  });

  it('BMC Global Enables: 08h by default, settable by an administrator, reserved bit refused', () => {
    const c = setup().admin();
    expect(toHex(c.request(0x06, 0x2f)!.data)).toBe('08');
    expect(c.request(0x06, 0x2e, [0x0c])!.cc).toBe(0);
    expect(toHex(c.request(0x06, 0x2f)!.data)).toBe('0c');
    expect(c.request(0x06, 0x2e, [0x10])!.cc).toBe(0xcc);
  });

  it('watchdog: 8-byte Get, Reset before Set → 80h, Set/Reset refused with D5h while HA owns the timer', () => {
    const { admin, watchdog, clock } = setup();
    const c = admin();
    expect(c.request(0x06, 0x25)!.data.length).toBe(8);
    expect(c.request(0x06, 0x22)!.cc).toBe(0x80);
    // timer use SMS/OS, hard reset, pre-timeout 0, clear flags, countdown 100 × 100 ms
    expect(c.request(0x06, 0x24, [0x04, 0x01, 0x00, 0x10, 100, 0])!.cc).toBe(0);
    expect(c.request(0x06, 0x22)!.cc).toBe(0);
    clock.advance(2500);
    const g = c.request(0x06, 0x25)!.data;
    // running + SMS/OS, hard reset, no pre-timeout, no flags, initial 100 (×100 ms)
    expect(toHex(g.subarray(0, 6))).toBe('440100006400');
    expect(g[6]! | (g[7]! << 8)).toBe(75);
    expect(c.request(0x06, 0x24, [0x00, 0x01, 0, 0, 1, 0])!.cc).toBe(0xcc);
    watchdog.ownedByHa = true;
    expect(c.request(0x06, 0x24, [0x04, 0x01, 0x00, 0x10, 100, 0])!.cc).toBe(0xd5);
    expect(c.request(0x06, 0x22)!.cc).toBe(0xd5);
    expect(c.request(0x06, 0x25)!.cc).toBe(0);
    expect(watchdog.calls).toEqual(['reset', 'set', 'reset']);
  });
});

describe('the HA part\'s IpmiWatchdog as the WatchdogPort', () => {
  it('Set, Reset and Get over the LAN drive the real watchdog model on the simulated clock', () => {
    const clock = new SimClock(0);
    const port: WatchdogPort = Object.assign(new IpmiWatchdog(clock), { ownedByHa: false });
    const shmc = new Controller(0x20, controllerInfo(1, 0x20));
    registerAppCommands(shmc.commands);
    registerWatchdogCommands(shmc.commands, port);
    const server = new LanServer({ users: makeTestServer().users, controllers: [shmc], log: nullLogger, randomBytes: seededBytes(5) });
    const c = new RmcpPlusClient({ server, peer: { address: '127.0.0.1', port: 1 }, now: () => clock.now() }, 'admin', 'adminpass', 17);
    expect(c.login().ok).toBe(true);
    expect(c.request(0x06, 0x22)!.cc).toBe(0x80); // uninitialized
    expect(c.request(0x06, 0x24, [0x04, 0x00, 0x00, 0x00, 0x64, 0x00])!.cc).toBe(0); // SMS/OS, no action, 10 s
    expect(c.request(0x06, 0x22)!.cc).toBe(0);
    clock.advance(2500);
    const g = c.request(0x06, 0x25)!.data;
    expect([g[0], g[4]! | (g[5]! << 8), g[6]! | (g[7]! << 8)]).toEqual([0x44, 100, 75]);
  });
});

describe('session, channel and user commands', () => {
  it('Get Session Info: full LAN form for the current session, short form past the active ones', () => {
    const c = setup().admin();
    const cur = c.request(0x06, 0x3d, [0x00])!.data;
    expect(cur.length).toBe(18);
    expect([cur[1], cur[2], cur[3], cur[4], cur[5]]).toEqual([8, 1, 2, 4, 0x11]);
    expect(toHex(cur.subarray(6, 10))).toBe('7f000001');
    expect(cur[16]! | (cur[17]! << 8)).toBe(40000);
    expect(c.request(0x06, 0x3d, [0x01])!.data).toEqual(cur);
    expect(toHex(c.request(0x06, 0x3d, [0x02])!.data)).toBe('000801');
    expect(c.request(0x06, 0x3d, [0x09])!.cc).toBe(0xcc);
    expect(c.request(0x06, 0x3d, [0xfe, cur[0]!])!.data).toEqual(cur);
  });

  it('Get Channel Info / Access, and Get Channel Authentication Capabilities inside a session', () => {
    const c = setup().admin();
    expect(toHex(c.request(0x06, 0x42, [0x01])!.data)).toBe('01040181f21b000000');
    expect(toHex(c.request(0x06, 0x42, [0x0e])!.data)).toBe('01040181f21b000000');
    expect(toHex(c.request(0x06, 0x42, [0x00])!.data)).toBe('00010100f21b000000');
    expect(c.request(0x06, 0x42, [0x05])!.cc).toBe(0xcb);
    expect(toHex(c.request(0x06, 0x41, [0x01, 0x80])!.data)).toBe('2204');
    expect(toHex(c.request(0x06, 0x41, [0x01, 0x40])!.data)).toBe('2204');
    const ac = c.request(0x06, 0x38, [0x81, 0x04])!;
    expect([ac.cc, toHex(ac.data)]).toEqual([0, '0184040300000000']);
    expect(c.request(0x06, 0x38, [0x03, 0x04])!.cc).toBe(0xcc);
  });

  it('user commands: list, rename, set password, enable, limit, and the new user logs in', () => {
    const { admin, wire } = setup();
    const c = admin();
    expect(toHex(c.request(0x06, 0x44, [0x01, 0x02])!.data)).toBe('0f' + '43' + '00' + '14');
    expect(toHex(c.request(0x06, 0x44, [0x01, 0x05])!.data)).toBe('0f' + '83' + '00' + '0f');
    expect(Buffer.from(c.request(0x06, 0x46, [0x02])!.data).toString('latin1').replace(/\0+$/, '')).toBe('admin');
    expect(c.request(0x06, 0x46, [0x00])!.cc).toBe(0xcc);
    expect(c.request(0x06, 0x46, [0x10])!.cc).toBe(0xcc);
    const name = new Uint8Array(16);
    name.set(utf8('newop'));
    expect(c.request(0x06, 0x45, [0x05, ...name])!.cc).toBe(0);
    const dup = new Uint8Array(16);
    dup.set(utf8('admin'));
    expect(c.request(0x06, 0x45, [0x06, ...dup])!.cc).toBe(0xcc);
    const pw = new Uint8Array(16);
    pw.set(utf8('newop-pass'));
    expect(c.request(0x06, 0x47, [0x05, 0x02, ...pw])!.cc).toBe(0);
    expect(c.request(0x06, 0x47, [0x05, 0x01])!.cc).toBe(0);
    expect(c.request(0x06, 0x43, [0x91, 0x05, 0x03])!.cc).toBe(0);
    expect(c.request(0x06, 0x47, [0x05, 0x03, ...pw])!.cc).toBe(0);
    const wrong = pw.slice();
    wrong[0] = 0x4e;
    expect(c.request(0x06, 0x47, [0x05, 0x03, ...wrong])!.cc).toBe(0x80);
    const op = new RmcpPlusClient(wire, 'newop', 'newop-pass', 17, 0x13);
    expect(op.login().ok).toBe(true);
    expect(op.request(0x06, 0x3d, [0])!.data[4]).toBe(3);
  });

  it('Get LAN Configuration Parameters reports the offered suites and the real auth types', () => {
    const c = setup().admin();
    const p = (n: number) => c.request(0x0c, 0x02, [0x01, n, 0, 0])!;
    expect(toHex(p(22).data)).toBe('1102');
    expect(toHex(p(23).data)).toBe('11000311');
    expect(toHex(p(24).data)).toBe('11' + '00' + '44' + '00'.repeat(7));
    expect(toHex(p(1).data)).toBe('1104');
    expect(toHex(p(2).data)).toBe('110404040400');
    expect(toHex(p(16).data).slice(0, 14)).toBe('11' + toHex(utf8('public')));
    expect(p(26).cc).toBe(0x80);
    expect(p(10).cc).toBe(0x80);
    expect(toHex(c.request(0x0c, 0x02, [0x81, 3, 0, 0])!.data)).toBe('11');
    expect(c.request(0x0c, 0x02, [0x02, 3, 0, 0])!.cc).toBe(0xcc);
  });

  it('unknown commands answer C1h (also the HPM.2 probe and NetFn 3Eh)', () => {
    const c = setup().admin();
    expect(c.request(0x06, 0xfe)!.cc).toBe(0xc1);
    expect(c.request(0x3e, 0x01)!.cc).toBe(0xc1);
    expect(c.request(0x2c, 0x3e, [0x00, 0x02])!.cc).toBe(0xc1);
    expect(c.request(0x06, 0x59, [0x00, 0x01, 0x00, 0x00])!.cc).toBe(0xc1); // Get System Info Parameters: not implemented
  });

  it('Set Session Privilege Level: 0 reports the current level, OEM refused', () => {
    const c = setup().admin();
    expect(toHex(c.request(0x06, 0x3b, [0x00])!.data)).toBe('04');
    expect(c.request(0x06, 0x3b, [0x05])!.cc).toBe(0x80);
    expect(toHex(c.request(0x06, 0x3b, [0x02])!.data)).toBe('02');
    expect(c.request(0x06, 0x47, [0x04, 0x01])!.cc).toBe(0xd4); // now only USER
  });

  it('Close Session answers, then the session is gone; closing another needs ADMINISTRATOR', () => {
    const { admin, wire, server } = setup();
    const a = admin();
    const b = new RmcpPlusClient(wire, 'oper', 'operpass', 3, 0x13);
    expect(b.login().ok).toBe(true);
    const bId = new Uint8Array(4);
    new DataView(bId.buffer).setUint32(0, b.bmcSid, true);
    const aId = new Uint8Array(4);
    new DataView(aId.buffer).setUint32(0, a.bmcSid, true);
    expect(b.request(0x06, 0x3c, aId)!.cc).toBe(0xd4);
    expect(a.request(0x06, 0x3c, [0, 0, 0, 0])!.cc).toBe(0xc7);
    expect(a.request(0x06, 0x3c, [1, 2, 3, 4])!.cc).toBe(0x87);
    expect(a.request(0x06, 0x3c, bId)!.cc).toBe(0);
    expect(b.request(0x06, 0x01)).toBeUndefined();
    expect(a.request(0x06, 0x3c, aId)!.cc).toBe(0);
    expect(a.request(0x06, 0x01)).toBeUndefined();
    expect(server.stats().activeSessions).toBe(0);
  });

  it('endAllSessions (a split shelf failover) ends every session and half-open login; clients log in again', () => {
    const { admin, wire, server } = setup();
    const a = admin();
    const b = new Ipmi15Client(wire, 'admin', 'adminpass');
    expect(b.login().ok).toBe(true);
    const ended: string[] = [];
    server.onSessionEnd((s, why) => ended.push(`${s.kind} ${why}`));
    expect(server.endAllSessions()).toBe(2);
    expect(ended.sort()).toEqual(['ipmi15 failover', 'rmcp+ failover']);
    expect(a.request(0x06, 0x01)).toBeUndefined();
    expect(b.request(0x06, 0x01)).toBeUndefined();
    expect(server.stats().activeSessions).toBe(0);
    expect(admin().request(0x06, 0x01)!.cc).toBe(0);
  });
});

describe('responses are built from explicit lengths', () => {
  it('every registered command answers malformed lengths with a well-formed response, and reads repeat byte for byte', () => {
    const { admin, server } = setup();
    const c = admin();
    const all = [...server.lanCommands.list(), ...server.frontController().commands.list()];
    expect(all.length).toBeGreaterThan(20);
    for (const cmd of all) {
      if (cmd.netFn === 0x06 && (cmd.cmd === 0x3c || cmd.cmd === 0x3b)) continue; // keep the session and its privilege
      for (const len of [0, 1, 3, 30]) {
        const r = c.request(cmd.netFn, cmd.cmd, new Uint8Array(len).fill(0x01))!;
        expect([cmd.netFn + 1, cmd.cmd]).toEqual([r.netFn, r.cmd]);
        if (r.cc !== 0) expect(r.data.length).toBe(0);
      }
    }
    const reads: Array<[number, number, number[]]> = [[0x06, 0x01, []], [0x06, 0x25, []], [0x06, 0x3d, [0]], [0x06, 0x42, [1]], [0x0c, 0x02, [1, 24, 0, 0]], [0x06, 0x44, [1, 2]], [0x06, 0x46, [3]], [0x06, 0x54, [0x0e, 0, 0x80]]];
    for (const [n, cmd, d] of reads) {
      const a = c.request(n, cmd, d)!;
      expect(a.cc).toBe(0);
      expect(toHex(c.request(n, cmd, d)!.data)).toBe(toHex(a.data));
    }
  });
});

describe('IPMI 1.5 sessions', () => {
  it('challenge, activate (MD5), commands, Get Session Info says IPMI 1.5, close', () => {
    const { wire, server } = setup();
    const c = new Ipmi15Client(wire, 'admin', 'adminpass');
    expect(c.login(4)).toEqual({ ok: true });
    expect(c.request(0x06, 0x04)!.data).toEqual(Uint8Array.of(0x55, 0));
    const info = c.request(0x06, 0x3d, [0])!.data;
    expect([info[4], info[5]]).toEqual([4, 0x01]);
    const id = new Uint8Array(4);
    new DataView(id.buffer).setUint32(0, c.sessionId, true);
    expect(c.request(0x06, 0x3c, id)!.cc).toBe(0);
    expect(server.stats().activeSessions).toBe(0);
  });

  it('the BMC counts its sequence numbers on from the console-chosen initial outbound number (never repeating it)', () => {
    const { wire } = setup();
    const c = new Ipmi15Client(wire, 'admin', 'adminpass');
    expect(c.login(2).ok).toBe(true); // the Activate Session reply carried initialOutbound
    const seqs = [0, 1, 2].map(() => decodeSession15(send(wire, c.packet(0x06, 0x01, []))[0]!).sequence);
    expect(seqs).toEqual([c.initialOutbound + 1, c.initialOutbound + 2, c.initialOutbound + 3]);
  });

  it('refuses an Activate Session above the user limit with 86h, unknown users with 81h, the null user with 82h', () => {
    const { wire } = setup();
    expect(new Ipmi15Client(wire, 'viewer', 'viewpass').login(4)).toMatchObject({ ok: false, failedAt: 'activate', cc: 0x86 });
    expect(new Ipmi15Client(wire, 'nobody', 'whatever1').login(2)).toMatchObject({ ok: false, failedAt: 'challenge', cc: 0x81 });
    expect(new Ipmi15Client(wire, '', 'whatever1').login(2)).toMatchObject({ ok: false, failedAt: 'challenge', cc: 0x82 });
    expect(new Ipmi15Client(wire, 'viewer', 'viewpass').login(2)).toEqual({ ok: true });
  });
});

describe('bridging (Send Message / Get Message)', () => {
  it('tracked request: CC 00h with no data, then the raw IPMB response of the target (as in lan15_bridged_picmg)', () => {
    const c = setup().admin();
    // ipmitool's embedded request from the capture, but Get Device ID to the node at 86h
    const inner = encodeRequest({ rsSA: 0x86, netFn: 0x06, rsLUN: 0, rqSA: 0x20, rqSeq: 9, rqLUN: 0, cmd: 0x01, data: new Uint8Array(0) });
    const [first, second] = c.requestAll(0x06, 0x34, [0x40, ...inner]);
    expect([first!.netFn, first!.cmd, first!.cc, first!.data.length]).toEqual([0x07, 0x34, 0, 0]);
    expect([second!.rqSA, second!.netFn, second!.rsSA, second!.rqSeq, second!.cmd, second!.cc]).toEqual([0x20, 0x07, 0x86, 9, 0x01, 0]);
    expect(second!.data[9]).toBe(3); // product ID of the node board
  });

  it('passes the captured embedded PICMG request through unchanged (C1h from an IPMC without PICMG handlers)', () => {
    const c = setup().admin();
    const inner = Uint8Array.of(0x86, 0xb0, 0xca, 0x20, 0x24, 0x01, 0x00, 0xbb); // frame 19 of lan15_bridged_picmg
    const rs = c.requestAll(0x06, 0x34, [0x40, ...inner]);
    expect(rs).toHaveLength(2);
    expect([rs[1]!.rqSA, rs[1]!.netFn, rs[1]!.rsSA, rs[1]!.rqSeq, rs[1]!.cmd, rs[1]!.cc]).toEqual([0x20, 0x2d, 0x86, 9, 0x01, 0xc1]);
  });

  it("keeps FreeIPMI's requester LUN 2 in the bridged response", () => {
    const c = setup().admin();
    const inner = encodeRequest({ rsSA: 0x82, netFn: 0x06, rsLUN: 0, rqSA: 0x20, rqSeq: 33, rqLUN: 2, cmd: 0x01, data: new Uint8Array(0) });
    const rs = c.requestAll(0x06, 0x34, [0x40, ...inner]);
    expect([rs[1]!.rqLUN, rs[1]!.rqSeq, rs[1]!.data[9]]).toEqual([2, 33, 2]);
  });

  it('untracked request: response queued for Get Message; empty queue → 80h', () => {
    const c = setup().admin();
    expect(c.request(0x06, 0x33)!.cc).toBe(0x80);
    const inner = encodeRequest({ rsSA: 0x86, netFn: 0x06, rsLUN: 0, rqSA: 0x20, rqSeq: 5, rqLUN: 2, cmd: 0x04, data: new Uint8Array(0) });
    expect(c.requestAll(0x06, 0x34, [0x00, ...inner])).toHaveLength(1);
    const m = c.request(0x06, 0x33)!;
    expect(m.cc).toBe(0);
    expect(m.data[0]).toBe(0x40); // ADMINISTRATOR, channel 0
    // the IPMB response without its destination address: netFn/LUN, chk, rsSA, seq/LUN, cmd, cc, data, chk
    expect(toHex(m.data.subarray(1, 2))).toBe('1e');
    expect(toHex(m.data.subarray(3, 9))).toBe('861404005500');
    expect(c.request(0x06, 0x33)!.cc).toBe(0x80);
  });

  it('refuses bad targets, channels and embedded checksums; checks the bridged command with the session privilege', () => {
    const { admin, wire } = setup();
    const c = admin();
    const to = (sa: number, cmd = 0x01, data: number[] = []) => encodeRequest({ rsSA: sa, netFn: 0x06, rsLUN: 0, rqSA: 0x20, rqSeq: 1, rqLUN: 0, cmd, data: Uint8Array.from(data) });
    expect(c.request(0x06, 0x34, [0x40, ...to(0x9a)])!.cc).toBe(0x83);
    expect(c.request(0x06, 0x34, [0x47, ...to(0x86)])!.cc).toBe(0xcc);
    const bad = to(0x86);
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    expect(c.request(0x06, 0x34, [0x40, ...bad])!.cc).toBe(0xcc);
    const v = new RmcpPlusClient(wire, 'viewer', 'viewpass', 3, 0x12);
    expect(v.login().ok).toBe(true);
    const rs = v.requestAll(0x06, 0x34, [0x40, ...to(0x86, 0x2e, [0x00])]);
    expect(rs[0]!.cc).toBe(0);
    expect(rs[1]!.cc).toBe(0xd4);
  });
});

describe('timeouts', () => {
  it('an idle session expires on tick; tick reports the next deadline', () => {
    const { admin, server, clock } = setup({ limits: { idleTimeoutMs: 30_000 } });
    const c = admin();
    const next = server.tick(clock.now());
    expect(next).toBe(clock.now() + 30_000);
    clock.advance(29_000);
    expect(c.request(0x06, 0x01)!.cc).toBe(0); // activity resets the timer
    clock.advance(29_000);
    server.tick(clock.now());
    expect(server.stats().activeSessions).toBe(1);
    clock.advance(1_001);
    server.tick(clock.now());
    expect(server.stats().activeSessions).toBe(0);
    expect(c.request(0x06, 0x01)).toBeUndefined();
  });
});
