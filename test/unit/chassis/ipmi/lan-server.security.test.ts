/**
 * Security behaviour of the LAN server (docs/ipmi.md "Security behaviour"; research §S, §F, §G):
 * wrong passwords and unknown users refused at RAKP / Activate Session, cipher suite 0 and auth
 * type NONE refused unless explicitly enabled, replays and out-of-window sequence numbers dropped
 * (window advanced only after the integrity check), nothing but the pre-session commands before
 * login, privilege limits (no escalation through name-only lookup), session limits, floods of
 * unauthenticated Open Session requests, half-open expiry, and garbage datagrams.
 */
import { describe, expect, it } from 'vitest';
import { AuthType } from '../../../../chassis/ipmi/codes.ts';
import { decodeRakp2, encodeOpenSessionRequest, encodeRakp1 } from '../../../../chassis/ipmi/rakp.ts';
import { decodeRmcpPlus, encodeRmcpPlus } from '../../../../chassis/ipmi/rmcpplus.ts';
import { utf8 } from '../../../../chassis/ipmi/users.ts';
import { Ipmi15Client, RmcpPlusClient, decodeSessionlessReply, send, sessionless15, sessionlessRmcpPlus } from '../../../support/ipmi-client.ts';
import type { Wire } from '../../../support/ipmi-client.ts';
import { makeTestServer } from '../../../support/ipmi-test-server.ts';

function setup(overrides = {}) {
  const t = makeTestServer(overrides);
  const wire = (port = 40000, address = '127.0.0.1'): Wire => ({ server: t.server, peer: { address, port }, now: () => t.clock.now() });
  return { ...t, wire };
}

function categories(records: { obj: object }[], cat: string): number {
  return records.filter((r) => (r.obj as { category?: string }).category === cat).length;
}

describe('wrong password and unknown user', () => {
  it.each([3, 17])('suite %i: a wrong password fails RAKP2 at the console; a forged RAKP3 gets RAKP4 0Fh and the login is dropped', (suite) => {
    const { wire, server, records } = setup();
    expect(new RmcpPlusClient(wire(), 'admin', 'wrongpass', suite).login()).toMatchObject({ ok: false, failedAt: 'rakp2-hmac' });
    expect(new RmcpPlusClient(wire(), 'admin', 'wrongpass', suite).login({ insist: true })).toMatchObject({ ok: false, failedAt: 'rakp4', status: 0x0f });
    expect(server.stats().activeSessions).toBe(0);
    expect(categories(records, 'auth-failed')).toBeGreaterThanOrEqual(1);
  });

  it('unknown, disabled or name-less users get RAKP2 0Dh with no auth code', () => {
    const { wire, server, users } = setup();
    users.update(3, { enabled: false });
    for (const name of ['nobody', 'oper', '']) {
      const w = wire();
      const c = new RmcpPlusClient(w, name, 'whatever1', 3);
      const os = send(w, encodeRmcpPlus({ payloadType: 0x10, encrypted: false, sessionId: 0, sequence: 0, payload: encodeOpenSessionRequest({ tag: 0, maxPrivilege: 0, consoleSid: 5, auth: 1, integrity: 1, conf: 1 }) }));
      const bmcSid = new DataView(decodeRmcpPlus(os[0]!).payload.buffer, decodeRmcpPlus(os[0]!).payload.byteOffset).getUint32(8, true);
      const [r2] = send(w, encodeRmcpPlus({ payloadType: 0x12, encrypted: false, sessionId: 0, sequence: 0, payload: encodeRakp1({ tag: 1, bmcSid, consoleRandom: new Uint8Array(16), role: 0x14, userName: utf8(name) }) }));
      const payload = decodeRmcpPlus(r2!).payload;
      expect(decodeRakp2(payload).status).toBe(0x0d);
      expect(payload.length).toBe(8);
      expect(c.login()).toMatchObject({ ok: false, failedAt: 'rakp2', status: 0x0d });
    }
    expect(server.stats().halfOpenSessions).toBe(0);
  });

  it('IPMI 1.5: a wrong password makes Activate Session drop silently (and is logged); unknown users get 81h', () => {
    const { wire, server, records } = setup();
    expect(new Ipmi15Client(wire(), 'admin', 'adminpass').login(4, { password: 'adminpasx' })).toEqual({ ok: false, failedAt: 'silent' });
    expect(categories(records, 'auth-failed')).toBeGreaterThanOrEqual(1);
    expect(new Ipmi15Client(wire(), 'ghost', 'adminpass').login(4)).toMatchObject({ ok: false, cc: 0x81 });
    expect(server.stats().activeSessions).toBe(0);
    expect(server.stats().halfOpenSessions).toBe(0);
  });
});

describe('insecure modes are off unless explicitly enabled', () => {
  it('cipher suite 0 is refused (11h) and never listed; with insecureCipher0 any password logs in (documented as unsafe), still privilege-limited', () => {
    const safe = setup();
    expect(new RmcpPlusClient(safe.wire(), 'admin', 'anything', 0).login()).toMatchObject({ ok: false, failedAt: 'open', status: 0x11 });
    const list = decodeSessionlessReply(send(safe.wire(), sessionlessRmcpPlus(0x06, 0x54, [0x0e, 0x00, 0x80]))[0]!);
    expect([...list.data].filter((b, i) => i > 0 && list.data[i - 1] === 0xc0)).toEqual([3, 17]);
    const unsafe = setup({ insecureCipher0: true });
    expect(categories(unsafe.records, 'insecure-config')).toBe(1);
    const c = new RmcpPlusClient(unsafe.wire(), 'admin', 'not-the-password', 0);
    expect(c.login().ok).toBe(true);
    expect(c.request(0x06, 0x01)!.cc).toBe(0);
    const v = new RmcpPlusClient(unsafe.wire(), 'viewer', 'x', 0);
    expect(v.login()).toMatchObject({ ok: false, failedAt: 'set-privilege', status: 0x81 });
  });

  it('IPMI 1.5 auth type NONE is refused (CCh) and not advertised; with insecureAuthNone it works', () => {
    const safe = setup();
    expect(new Ipmi15Client(safe.wire(), 'admin', 'adminpass', AuthType.None).login()).toMatchObject({ ok: false, failedAt: 'challenge', cc: 0xcc });
    expect(decodeSessionlessReply(send(safe.wire(), sessionless15(0x06, 0x38, [0x0e, 0x04]))[0]!).data[1]).toBe(0x04);
    const unsafe = setup({ insecureAuthNone: true });
    expect(decodeSessionlessReply(send(unsafe.wire(), sessionless15(0x06, 0x38, [0x0e, 0x04]))[0]!).data[1]).toBe(0x05);
    const c = new Ipmi15Client(unsafe.wire(), 'admin', 'adminpass', AuthType.None);
    expect(c.login(4)).toEqual({ ok: true });
    expect(c.request(0x06, 0x04)!.cc).toBe(0);
  });

  it('straight-password and MD2 are refused at Get Session Challenge', () => {
    const { wire } = setup();
    for (const t of [AuthType.Password, AuthType.Md2]) expect(new Ipmi15Client(wire(), 'admin', 'adminpass', t).login()).toMatchObject({ ok: false, cc: 0xcc });
  });
});

describe('sequence numbers', () => {
  it('RMCP+: a replayed packet is dropped and not executed', () => {
    const { wire, server } = setup();
    const c = new RmcpPlusClient(wire(), 'admin', 'adminpass', 3);
    expect(c.login().ok).toBe(true);
    const setOff = c.packet(0x06, 0x2e, [0x00]);
    expect(send(c.wire, setOff)).toHaveLength(1);
    expect(c.request(0x06, 0x2e, [0x08])!.cc).toBe(0);
    expect(send(c.wire, setOff)).toEqual([]); // replay
    expect(c.request(0x06, 0x2f)!.data[0]).toBe(0x08);
    expect(server.stats().dropped.sequence).toBe(1);
  });

  it('RMCP+: out-of-window numbers are dropped; late unseen numbers inside the window are accepted once', () => {
    const { wire } = setup();
    const c = new RmcpPlusClient(wire(), 'admin', 'adminpass', 17);
    expect(c.login().ok).toBe(true);
    const base = c.seq;
    expect(send(c.wire, c.packet(0x06, 0x01, [], { seq: base + 1000 }))).toEqual([]);
    const late = c.packet(0x06, 0x01, [], { seq: base + 4 });
    const early = c.packet(0x06, 0x01, [], { seq: base + 5 });
    expect(send(c.wire, early)).toHaveLength(1);
    expect(send(c.wire, late)).toHaveLength(1);
    expect(send(c.wire, late)).toEqual([]);
    expect(send(c.wire, c.packet(0x06, 0x01, [], { seq: base + 5 - 40 }))).toEqual([]);
    expect(send(c.wire, c.packet(0x06, 0x01, [], { seq: 0 }))).toEqual([]);
  });

  it('RMCP+: a forged packet (bad AuthCode) does not move the window', () => {
    const { wire, server } = setup();
    const c = new RmcpPlusClient(wire(), 'admin', 'adminpass', 3);
    expect(c.login().ok).toBe(true);
    const ahead = c.packet(0x06, 0x01, [], { seq: c.seq + 16 });
    ahead[ahead.length - 1] = ahead[ahead.length - 1]! ^ 0x55;
    expect(send(c.wire, ahead)).toEqual([]);
    expect(server.stats().dropped.integrity).toBe(1);
    const next = c.packet(0x06, 0x01, [], { seq: c.seq });
    expect(send(c.wire, next)).toHaveLength(1);
  });

  it('IPMI 1.5: a replayed packet is dropped; a bad MD5 auth code is dropped', () => {
    const { wire } = setup();
    const c = new Ipmi15Client(wire(), 'admin', 'adminpass');
    expect(c.login(4).ok).toBe(true);
    const p = c.packet(0x06, 0x01, []);
    expect(send(c.wire, p)).toHaveLength(1);
    expect(send(c.wire, p)).toEqual([]);
    expect(send(c.wire, c.packet(0x06, 0x01, [], undefined, 'adminpasz'))).toEqual([]);
    expect(c.request(0x06, 0x01)!.cc).toBe(0);
  });
});

describe('nothing before login', () => {
  it('in-session packets for unknown sessions are dropped; session-less requests other than the pre-session commands get D5h and no data', () => {
    const { wire, server } = setup();
    const c = new RmcpPlusClient(wire(), 'admin', 'adminpass', 3);
    c.bmcSid = 0x12345678; // never opened
    c.k1 = new Uint8Array(20).fill(1);
    c.k2 = new Uint8Array(20).fill(2);
    expect(send(c.wire, c.packet(0x06, 0x01, []))).toEqual([]);
    for (const [netFn, cmd] of [[0x06, 0x01], [0x06, 0x37], [0x06, 0x44], [0x0c, 0x02], [0x06, 0x34]] as const) {
      const r = decodeSessionlessReply(send(c.wire, sessionlessRmcpPlus(netFn, cmd, []))[0]!);
      expect([r.cc, r.data.length]).toEqual([0xd5, 0]);
    }
    expect(server.stats().activeSessions).toBe(0);
  });

  it('RAKP messages for a session opened from another address are ignored', () => {
    const { wire } = setup();
    const a = wire(40000);
    const os = send(a, encodeRmcpPlus({ payloadType: 0x10, encrypted: false, sessionId: 0, sequence: 0, payload: encodeOpenSessionRequest({ tag: 0, maxPrivilege: 0, consoleSid: 7, auth: 1, integrity: 1, conf: 1 }) }));
    const p = decodeRmcpPlus(os[0]!).payload;
    const bmcSid = new DataView(p.buffer, p.byteOffset).getUint32(8, true);
    const rakp1 = encodeRmcpPlus({ payloadType: 0x12, encrypted: false, sessionId: 0, sequence: 0, payload: encodeRakp1({ tag: 1, bmcSid, consoleRandom: new Uint8Array(16), role: 0x14, userName: utf8('admin') }) });
    expect(send(wire(40001), rakp1)).toEqual([]);
    expect(send(a, rakp1)).toHaveLength(1);
  });
});

describe('privilege', () => {
  it('a USER cannot run operator or administrator commands (D4h); an OPERATOR runs operator ones only', () => {
    const { wire } = setup();
    const v = new RmcpPlusClient(wire(), 'viewer', 'viewpass', 3, 0x12);
    expect(v.login().ok).toBe(true);
    const pw = new Uint8Array(16);
    pw.set(utf8('takeover1'));
    expect(v.request(0x06, 0x47, [0x02, 0x02, ...pw])!.cc).toBe(0xd4); // Set User Password (ADMINISTRATOR)
    expect(v.request(0x06, 0x24, [0x04, 0x01, 0, 0, 100, 0])!.cc).toBe(0xd4); // Set Watchdog Timer (OPERATOR)
    expect(v.request(0x0c, 0x02, [0x01, 0x03, 0, 0])!.cc).toBe(0xd4); // Get LAN Config (OPERATOR)
    expect(v.request(0x06, 0x01)!.cc).toBe(0);
    expect(v.request(0x06, 0xfe)!.cc).toBe(0xc1); // unknown stays C1h below ADMINISTRATOR
    const o = new RmcpPlusClient(wire(), 'oper', 'operpass', 17, 0x13);
    expect(o.login().ok).toBe(true);
    expect(o.request(0x06, 0x47, [0x02, 0x02, ...pw])!.cc).toBe(0xd4);
    expect(o.request(0x06, 0x24, [0x04, 0x01, 0, 0, 100, 0])!.cc).toBe(0);
  });

  it('name-only lookup cannot escalate: a USER asking for ADMINISTRATOR gets a USER session and Set Session Privilege ADMIN fails 81h', () => {
    const { wire } = setup();
    const v = new RmcpPlusClient(wire(), 'viewer', 'viewpass', 3, 0x14); // ipmitool's default role byte
    expect(v.login()).toMatchObject({ ok: false, failedAt: 'set-privilege', status: 0x81 });
    const v2 = new RmcpPlusClient(wire(), 'viewer', 'viewpass', 3, 0x14);
    expect(v2.login({ setPrivilege: false }).ok).toBe(true);
    const info = v2.request(0x06, 0x3d, [0])!.data;
    expect(info[4]).toBe(2);
    expect(v2.request(0x06, 0x2e, [0x00])!.cc).toBe(0xd4);
  });

  it('role lookup (name-only bit clear) needs the user limit to reach the requested role', () => {
    const { wire } = setup();
    expect(new RmcpPlusClient(wire(), 'viewer', 'viewpass', 3, 0x04).login()).toMatchObject({ ok: false, failedAt: 'rakp2', status: 0x0d });
    expect(new RmcpPlusClient(wire(), 'viewer', 'viewpass', 3, 0x02).login().ok).toBe(true);
    expect(new RmcpPlusClient(wire(), 'admin', 'adminpass', 3, 0x04).login().ok).toBe(true);
  });

  it('bridging does not raise privilege (covered with the session privilege at the target)', () => {
    const { wire } = setup();
    const v = new RmcpPlusClient(wire(), 'viewer', 'viewpass', 3, 0x12);
    expect(v.login().ok).toBe(true);
    // Set Watchdog Timer to the shelf manager itself through Send Message
    const inner = Uint8Array.of(0x20, 0x18, 0xc8, 0x20, 0x04, 0x24, 0x04, 0x01, 0, 0, 100, 0, 0x00);
    let sum = 0;
    for (let i = 3; i < inner.length - 1; i++) sum += inner[i]!;
    inner[inner.length - 1] = (0x100 - (sum & 0xff)) & 0xff;
    const rs = v.requestAll(0x06, 0x34, [0x40, ...inner]);
    expect(rs[1]!.cc).toBe(0xd4);
  });
});

describe('session limits and floods', () => {
  it('enforces the per-user limit (RAKP2 01h) without starving other users', () => {
    const { wire, records } = setup({ limits: { maxSessionsPerUser: 2 } });
    for (let i = 0; i < 2; i++) expect(new RmcpPlusClient(wire(41000 + i), 'admin', 'adminpass', 3).login().ok).toBe(true);
    expect(records.filter((r) => (r.obj as { category?: string }).category === 'login-refused')).toEqual([]);
    expect(new RmcpPlusClient(wire(41002), 'admin', 'adminpass', 3).login()).toMatchObject({ ok: false, failedAt: 'rakp2', status: 0x01 });
    expect(new Ipmi15Client(wire(41003), 'admin', 'adminpass').login(4)).toMatchObject({ ok: false, cc: 0x82 });
    expect(new RmcpPlusClient(wire(41004), 'oper', 'operpass', 3, 0x13).login().ok).toBe(true);
    // each refusal is logged at warn with its reason, the limits and what the clients print for it
    const refused = records.filter((r) => (r.obj as { category?: string }).category === 'login-refused');
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(r.level).toBe('warn');
      expect(r.obj).toMatchObject({ reason: 'session-limit', max_sessions_per_user: 2, peer: expect.stringMatching(/^127\.0\.0\.1:4100[23]$/) });
      expect(r.msg).toMatch(/^IPMI login refused: session limit reached for user "admin" \(at most 8 sessions, 2 per user; an idle session closes after \d+ s\)\. ipmitool says "insufficient resources for session", FreeIPMI "BMC busy"/);
    }
  });

  it('enforces the total limit (Open Session 01h; Activate Session 81h)', () => {
    const { wire } = setup({ limits: { maxSessions: 3 } });
    expect(new RmcpPlusClient(wire(42000), 'admin', 'adminpass', 3).login().ok).toBe(true);
    expect(new RmcpPlusClient(wire(42001), 'oper', 'operpass', 3, 0x13).login().ok).toBe(true);
    expect(new RmcpPlusClient(wire(42002), 'viewer', 'viewpass', 3, 0x12).login().ok).toBe(true);
    expect(new RmcpPlusClient(wire(42003), 'viewer', 'viewpass', 3, 0x12).login()).toMatchObject({ ok: false, failedAt: 'open', status: 0x01 });
    expect(new Ipmi15Client(wire(42004), 'viewer', 'viewpass').login(2)).toMatchObject({ ok: false, cc: 0x81 });
  });

  it('a flood of unauthenticated Open Session requests (one source and many) stays bounded and does not lock out valid users', () => {
    const { wire, server, clock } = setup();
    const open = (w: Wire, i: number) =>
      send(w, encodeRmcpPlus({ payloadType: 0x10, encrypted: false, sessionId: 0, sequence: 0, payload: encodeOpenSessionRequest({ tag: i & 0xff, maxPrivilege: 0, consoleSid: i + 1, auth: 1, integrity: 1, conf: 1 }) }));
    for (let i = 0; i < 2000; i++) open(wire(50000), i);
    expect(server.stats().halfOpenSessions).toBe(4); // per-source cap
    for (let i = 0; i < 2000; i++) open(wire(50000 + (i % 500), `10.0.${i % 7}.${i % 250}`), i);
    expect(server.stats().halfOpenSessions).toBeLessThanOrEqual(64);
    const c = new RmcpPlusClient(wire(51000), 'admin', 'adminpass', 17);
    expect(c.login().ok).toBe(true);
    expect(c.request(0x06, 0x01)!.cc).toBe(0);
    // and the half-open ones expire
    clock.advance(6000);
    server.tick(clock.now());
    expect(server.stats()).toMatchObject({ halfOpenSessions: 0, activeSessions: 1 });
  });

  it('a half-open login expires after the half-open timeout', () => {
    const { wire, server, clock } = setup({ limits: { halfOpenTimeoutMs: 2000 } });
    const w = wire();
    const os = send(w, encodeRmcpPlus({ payloadType: 0x10, encrypted: false, sessionId: 0, sequence: 0, payload: encodeOpenSessionRequest({ tag: 0, maxPrivilege: 0, consoleSid: 9, auth: 1, integrity: 1, conf: 1 }) }));
    const p = decodeRmcpPlus(os[0]!).payload;
    const bmcSid = new DataView(p.buffer, p.byteOffset).getUint32(8, true);
    clock.advance(2001);
    server.tick(clock.now());
    const rakp1 = encodeRmcpPlus({ payloadType: 0x12, encrypted: false, sessionId: 0, sequence: 0, payload: encodeRakp1({ tag: 1, bmcSid, consoleRandom: new Uint8Array(16), role: 0x14, userName: utf8('admin') }) });
    expect(send(w, rakp1)).toEqual([]);
  });
});

describe('two-key login (KG)', () => {
  it('with a BMC key the SIK uses KG: the console needs it, and auth caps report it', () => {
    const kg = utf8('shelf-bmc-key-0001');
    const { wire } = setup({ kg });
    expect(decodeSessionlessReply(send(wire(), sessionless15(0x06, 0x38, [0x8e, 0x04]))[0]!).data[2]! & 0x20).toBe(0x20);
    expect(new RmcpPlusClient(wire(), 'admin', 'adminpass', 3).login()).toMatchObject({ ok: false, failedAt: 'rakp4-icv' });
    expect(new RmcpPlusClient(wire(), 'admin', 'adminpass', 3).login({ kg }).ok).toBe(true);
  });
});

describe('garbage datagrams', () => {
  it('get no reply, one categorised log entry each, and change nothing', () => {
    const { wire, server, records } = setup();
    const c = new RmcpPlusClient(wire(), 'admin', 'adminpass', 3);
    expect(c.login().ok).toBe(true);
    const before = server.stats();
    const logsBefore = records.length;
    const garbage = [
      Uint8Array.of(0x06),
      Uint8Array.of(0x06, 0x00, 0xff),
      Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 0xff),
      Uint8Array.of(0x05, 0x00, 0xff, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
      Uint8Array.of(0x06, 0x00, 0xff, 0x08, 1, 2, 3),
      new Uint8Array(1494).fill(6),
      sessionless15(0x06, 0x38, [0x8e, 0x04]).map((b, i, a) => (i === a.length - 1 ? b ^ 1 : b)), // bad data checksum
      Uint8Array.of(0x06, 0x00, 0xff, 0x07, 0x06, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0x00), // RMCP+ length past the end
    ];
    for (const g of garbage) expect(send(c.wire, g)).toEqual([]);
    expect(records.length - logsBefore).toBe(garbage.length);
    for (const r of records.slice(logsBefore)) expect(typeof (r.obj as { category?: unknown }).category).toBe('string');
    const after = server.stats();
    expect([after.activeSessions, after.halfOpenSessions]).toEqual([before.activeSessions, before.halfOpenSessions]);
    expect(c.request(0x06, 0x01)!.cc).toBe(0);
  });
});
