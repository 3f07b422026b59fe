/**
 * clia's IPMI client (chassis/clia/client.ts) against the shelf's LanServer in process, through an
 * in-memory datagram transport and a SimClock: RMCP+ login with suites 17 and 3 (the client checks
 * RAKP 2 and RAKP 4 itself), a wrong password and an unknown user, privilege stepping for a USER
 * account, bridging (Send Message + the second response), retries with fresh sequence numbers
 * after a lost datagram, Close Session; and the verbs' FRU name resolution.
 */
import { describe, expect, it } from 'vitest';
import { ConnectionError, IpmiClient, type DatagramTransport } from '../../../../chassis/clia/client.ts';
import { RefusedError, ShelfApi } from '../../../../chassis/clia/shelf-api.ts';
import { UsageError, resolveFru } from '../../../../chassis/clia/verbs.ts';
import { seededBytes } from '../../../support/ipmi-test-server.ts';
import { rig } from '../ipmi/shelf-manager/rig.ts';

/** Delivers datagrams to the server synchronously and its replies on the next microtask; `drop` loses chosen requests. */
function memoryTransport(r: ReturnType<typeof rig>, drop: (n: number) => boolean = () => false): DatagramTransport & { sent: number; closed: boolean } {
  let handler: ((b: Uint8Array) => void) | undefined;
  const t = {
    sent: 0,
    closed: false,
    send(b: Uint8Array) {
      const n = t.sent++;
      if (drop(n)) return;
      const replies = r.ipmi.server.handleDatagram(b, { address: '127.0.0.1', port: 50000 }, r.clock.now());
      for (const x of replies) queueMicrotask(() => handler?.(x));
    },
    onMessage(fn: (b: Uint8Array) => void) {
      handler = fn;
    },
    async close() {
      t.closed = true;
    },
  };
  return t;
}

function client(r: ReturnType<typeof rig>, user = 'admin', password = 'adminpass', extra: Partial<ConstructorParameters<typeof IpmiClient>[1]> = {}, drop?: (n: number) => boolean) {
  const transport = memoryTransport(r, drop);
  return { c: new IpmiClient(transport, { user, password, randomBytes: seededBytes(4), clock: r.clock, ...extra }), transport };
}

describe('login', () => {
  it.each([17, 3] as const)('suite %i: logs in at ADMINISTRATOR, runs commands, closes the session', async (suite) => {
    const r = rig();
    const { c, transport } = client(r, 'admin', 'adminpass', { cipherSuite: suite });
    await c.connect();
    expect(c.privilege).toBe(4);
    expect(r.ipmi.server.stats().activeSessions).toBe(1);
    const id = await c.request(0x06, 0x01);
    expect([id.cc, id.data[2]]).toEqual([0, 0x02]); // firmware 2.10
    await c.close();
    expect(r.ipmi.server.stats().activeSessions).toBe(0);
    expect(transport.closed).toBe(true);
  });

  it('a USER account: the client steps down to the highest privilege it may have', async () => {
    const r = rig();
    const { c } = client(r, 'viewer', 'viewpass');
    await c.connect();
    expect(c.privilege).toBe(2);
    expect((await c.request(0x00, 0x02, [0x00])).cc).toBe(0xd4);
    const o = client(r, 'oper', 'operpass').c;
    await o.connect();
    expect(o.privilege).toBe(3);
  });

  it('a wrong password is caught at RAKP 2 (no RAKP 3 is sent); an unknown user is refused', async () => {
    const r = rig();
    const bad = client(r, 'admin', 'not-the-password');
    await expect(bad.c.connect()).rejects.toThrow(/wrong password \(RAKP 2 auth code does not match\)/);
    expect(bad.transport.sent).toBe(2);
    await expect(client(r, 'nobody', 'whatever1').c.connect()).rejects.toThrow(/unauthorized name/);
    await expect(client(r, 'admin', 'adminpass', { privilege: 4 }).c.connect()).resolves.toBeUndefined();
  });

  it('nothing answers: ConnectionError after the attempts run out (simulated time)', async () => {
    const r = rig();
    const { c, transport } = client(r, 'admin', 'adminpass', { attempts: 2, timeoutMs: 500 }, () => true);
    const p = c.connect();
    await Promise.resolve();
    r.run(500);
    await Promise.resolve();
    r.run(500);
    await expect(p).rejects.toBeInstanceOf(ConnectionError);
    expect(transport.sent).toBe(2);
  });
});

describe('requests', () => {
  it('bridged to an IPMC: Send Message answered, then the IPMC\'s own response; NAK for nobody', async () => {
    const r = rig();
    const { c } = client(r);
    await c.connect();
    const id = await c.request(0x06, 0x01, [], { target: 0x86 });
    expect([id.cc, id.data[9]]).toEqual([0, 3]); // product ID 3 (node board)
    expect((await c.request(0x06, 0x01, [], { target: 0x9e })).cc).toBe(0x83);
  });

  it('a lost request is sent again with a new session sequence number (the server drops duplicates)', async () => {
    const r = rig();
    let losing = false;
    const { c, transport } = client(r, 'admin', 'adminpass', { timeoutMs: 300 }, () => losing && ((losing = false), true));
    await c.connect();
    losing = true;
    const before = transport.sent;
    const p = c.request(0x00, 0x01);
    await Promise.resolve();
    r.run(300);
    expect(await p).toEqual({ cc: 0, data: Uint8Array.of(0x21, 0x00, 0x00) });
    expect(transport.sent - before).toBe(2);
  });

  it('ShelfApi: refusals carry the shelf\'s reason; the SDR walk and SEL read the whole repository', async () => {
    const r = rig();
    const { c } = client(r);
    await c.connect();
    const api = new ShelfApi(c);
    await expect(api.handle('slot9', 'open')).rejects.toMatchObject({ cc: 0xd3, code: 'empty_slot', message: 'handle open slot9: slot9 is empty' });
    await expect(api.setActivation(0x4e, true)).rejects.toBeInstanceOf(RefusedError);
    const sdr = await api.sdr();
    expect(sdr).toHaveLength(r.shelf.sdr.records().length);
    expect(sdr.map((x) => ('idString' in x ? x.idString : ''))).toEqual(r.shelf.sdr.records().map((x) => x.idString));
    expect((await api.sel()).map((x) => x.recordId)).toEqual(r.shelf.sel.records().map((x) => x.recordId));
    expect(await api.sensorReading(0x86, 1)).toEqual({ raw: 48, flags: 0xc0, states: 0, available: true });
    expect(await api.switchover()).toEqual({ from: 'shmc-a', to: 'shmc-b' });
    expect((await api.shmStatus()).self).toBe('shmc-b');
  });
});

describe('FRU names in the verbs', () => {
  it('slotN, N, board N, shm N, fan_tray N, names and IPMB addresses; empty and unknown FRUs are refusals', async () => {
    const r = rig();
    const { c } = client(r);
    await c.connect();
    const frus = await new ShelfApi(c).frus();
    const name = (...a: string[]) => resolveFru(frus, a).fru.name;
    expect([name('slot3'), name('3'), name('SLOT3'), name('board', '3'), name('0x86')]).toEqual(['slot3', 'slot3', 'slot3', 'slot3', 'slot3']);
    expect([name('shm', '2'), name('fan_tray', '3'), name('pem1'), name('shmc-a')]).toEqual(['shmc-b', 'fan3', 'pem1', 'shmc-a']);
    expect(resolveFru(frus, ['board', '3', 'extra']).used).toBe(2);
    expect(() => resolveFru(frus, ['slot9'])).toThrow(RefusedError);
    expect(() => resolveFru(frus, ['gizmo'])).toThrow(/not a FRU of this shelf/);
    expect(() => resolveFru(frus, [])).toThrow(UsageError);
  });
});
