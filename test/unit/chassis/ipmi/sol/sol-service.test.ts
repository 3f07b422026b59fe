// Serial over LAN through the emulator's LAN server in simulated time, with an in-process RMCP+
// console (suites 3 and 17): payload commands byte for byte, SOL packets encrypted and
// authenticated, echo and command output in order, retransmission through the transport,
// bridged activation reaching a board, deactivation on Close Session.
import { afterEach, describe, expect, it } from 'vitest';
import type { SimClock } from '../../../../../board/common/sim-clock.ts';
import { PayloadType } from '../../../../../chassis/ipmi/codes.ts';
import { encodeRequest } from '../../../../../chassis/ipmi/message.ts';
import { decodeRmcpPlus } from '../../../../../chassis/ipmi/rmcpplus.ts';
import { SOL_PAYLOAD_SIZES } from '../../../../../chassis/ipmi/sol/sol-service.ts';
import { SolStatus } from '../../../../../chassis/ipmi/sol/sol-packet.ts';
import type { Emulator } from '../../../../../chassis/runtime/emulator.ts';
import { RmcpPlusClient, type Wire } from '../../../../support/ipmi-client.ts';
import { captureTransport, decodeSolDatagram, simEmulator, solDatagram, type SolSeen } from '../../../../support/console-rig.ts';

let em: Emulator | undefined;
afterEach(async () => {
  await em?.stop();
  em = undefined;
});

const ACTIVATE = (instance = 1, aux = 0xc6) => [0x01, instance, aux, 0, 0, 0];

async function setup(suite = 17, over: Parameters<typeof simEmulator>[0] = {}) {
  const r = await simEmulator(over);
  em = r.em;
  const server = r.em.lanServer!;
  const transport = captureTransport(server, 6230);
  const wire = (port: number): Wire => ({ server, peer: { address: '127.0.0.1', port }, now: () => r.clock.now() });
  const login = (port = 40000, s = suite) => {
    const c = new RmcpPlusClient(wire(port), 'admin', 'admin-secret-1', s);
    const l = c.login();
    if (!l.ok) throw new Error(`login failed at ${l.failedAt}`);
    return c;
  };
  return { em: r.em, clock: r.clock, server, transport, login };
}

/** Sends a SOL packet and splits the replies into SOL packets. */
function sol(c: RmcpPlusClient, p: Parameters<typeof solDatagram>[1]): SolSeen[] {
  return c.wire.server.handleDatagram(solDatagram(c, p), c.wire.peer, c.wire.now()).map((b) => decodeSolDatagram(c, b)!);
}

/** Types a line: the ACK, then the echo/output packets (each acknowledged), until nothing is pending. */
function typeLine(c: RmcpPlusClient, seq: number, text: string, sent: Uint8Array[]): { ack: SolSeen; output: string } {
  const [ack, ...data] = sol(c, { seq, text });
  let output = '';
  let pending = data;
  let inSeq = 0;
  for (let guard = 0; guard < 200; guard++) {
    if (pending.length === 0) {
      // output that was produced later leaves through the transport
      const more = sent.splice(0).map((b) => decodeSolDatagram(c, b)).filter((x): x is SolSeen => x !== undefined);
      if (more.length === 0) break;
      pending = more;
    }
    const p = pending.shift()!;
    if (p.seq === 0) continue;
    if (p.seq !== inSeq) output += p.text;
    inSeq = p.seq;
    pending.push(...sol(c, { seq: 0, ackSeq: p.seq, accepted: p.text.length }));
  }
  return { ack: ack!, output };
}

describe('SOL in the LAN server', () => {
  it('Activate Payload answers the 12-byte layout ipmitool checks (sizes, the bound UDP port, no VLAN)', async () => {
    const { login } = await setup();
    const c = login();
    const r = c.request(0x06, 0x48, ACTIVATE())!;
    expect(r.cc).toBe(0);
    // aux(4)     inbound(2 LE)                         outbound(2 LE)                                 port 6230 LE   VLAN FFFFh
    expect([...r.data]).toEqual([0, 0, 0, 0, SOL_PAYLOAD_SIZES.inbound & 0xff, SOL_PAYLOAD_SIZES.inbound >> 8, SOL_PAYLOAD_SIZES.outbound & 0xff, SOL_PAYLOAD_SIZES.outbound >> 8, 0x56, 0x18, 0xff, 0xff]);
    expect(em!.consoles!.sol!.service.activationOf('shmc-a')?.session.userName).toBe('admin');
  });

  for (const suite of [3, 17]) {
    it(`suite ${suite}: typed characters are acknowledged, echoed and answered in encrypted, authenticated SOL packets`, async () => {
      const { login, transport } = await setup(suite);
      const c = login();
      expect(c.request(0x06, 0x48, ACTIVATE())!.cc).toBe(0);
      const first = typeLine(c, 1, '\r', transport.sent);
      expect(first.ack).toMatchObject({ seq: 0, ackSeq: 1, accepted: 1 });
      expect(first.output).toBe('\r\nshmc-a> ');
      const v = typeLine(c, 2, 'show version\r', transport.sent);
      expect(v.ack).toMatchObject({ seq: 0, ackSeq: 2, accepted: 13 });
      expect(v.output).toMatch(/^show version\r\nBoard: +Shelf Manager \(shelf manager\), ShMC-A\r\n[\s\S]*Firmware: +2\.10 \(atcasim IPMC\)[\s\S]*\r\nshmc-a> $/);
    });
  }

  it('the echo comes back in the same reply as the ACK, in order; packets carry at most the outbound size', async () => {
    const { login } = await setup();
    const c = login();
    c.request(0x06, 0x48, ACTIVATE());
    const replies = sol(c, { seq: 1, text: 'show rs\r' });
    expect(replies[0]).toMatchObject({ seq: 0, ackSeq: 1 });
    expect(replies[1]).toMatchObject({ seq: 1, ackSeq: 0 });
    expect(replies[1]!.text.startsWith('show rs\r\n')).toBe(true);
    expect(replies[1]!.text.length).toBeLessThanOrEqual(SOL_PAYLOAD_SIZES.outbound - 4);
    expect(replies).toHaveLength(2); // stop-and-wait: the rest waits for the ACK
  });

  it('an unacknowledged packet is retransmitted through the transport, unchanged, at the retry interval', async () => {
    const { login, transport, clock } = await setup();
    const c = login();
    c.request(0x06, 0x48, ACTIVATE());
    const [, data] = sol(c, { seq: 1, text: '\r' });
    expect(transport.sent).toHaveLength(0);
    (clock as SimClock).advance(200);
    expect(transport.sent).toHaveLength(1);
    const again = decodeSolDatagram(c, transport.sent[0]!)!;
    expect(again).toEqual(data);
    // the session sequence number of the BMC's datagram advanced (a new datagram, same SOL packet)
    expect(decodeRmcpPlus(transport.sent[0]!).payloadType).toBe(PayloadType.Sol);
    // the ACK releases it; the prompt that follows comes in the reply and is acknowledged too
    const next = sol(c, { seq: 0, ackSeq: data!.seq, accepted: data!.text.length });
    for (const p of next) if (p.seq !== 0) sol(c, { seq: 0, ackSeq: p.seq, accepted: p.text.length });
    (clock as SimClock).advance(5000);
    expect(transport.sent).toHaveLength(1);
  });

  it('output produced later (a reboot banner) reaches the console through the transport', async () => {
    const { login, transport, clock } = await setup();
    const c = login();
    expect(c.request(0x06, 0x48, ACTIVATE(3))!.cc).toBe(0); // instance 3 at 20h = slot3 (atcasim convention)
    const r = typeLine(c, 1, 'reboot\r', transport.sent);
    expect(r.output).toContain('Cold reset: restarting system.');
    (clock as SimClock).advance(250);
    const later = typeLine(c, 2, '', transport.sent);
    expect(later.output).toMatch(/atcasim processor board firmware 1\.05 - Processor Node \(Node3\)[\s\S]*slot3> $/);
  });

  it('a duplicate SOL packet is acknowledged again but its characters reach the console once', async () => {
    const { login } = await setup();
    const c = login();
    c.request(0x06, 0x48, ACTIVATE());
    const console = em!.consoles!.mux.get('shmc-a')!;
    const before = console.counters.bytesIn;
    const a = sol(c, { seq: 5, text: 'x' });
    const b = sol(c, { seq: 5, text: 'x' });
    expect(a[0]).toMatchObject({ ackSeq: 5, accepted: 1 });
    expect(b[0]).toMatchObject({ ackSeq: 5, accepted: 1 });
    expect(console.counters.bytesIn - before).toBe(1);
  });

  it('bridged Activate Payload (Send Message to 86h, as ipmitool -t 0x86 -b 0 sends it) reaches slot3', async () => {
    const { login, transport } = await setup();
    const c = login();
    const inner = encodeRequest({ rsSA: 0x86, netFn: 0x06, rsLUN: 0, rqSA: 0x20, rqSeq: 5, rqLUN: 0, cmd: 0x48, data: Uint8Array.from(ACTIVATE()) });
    const rs = c.requestAll(0x06, 0x34, [0x40, ...inner]);
    expect(rs[0]!.cc).toBe(0);
    expect(rs).toHaveLength(2); // Send Message response, then the IPMC's response
    expect(em!.consoles!.sol!.service.activationOf('slot3')).toBeDefined();
    expect(typeLine(c, 1, '\r', transport.sent).output).toBe('\r\nslot3> ');
    // Get Payload Activation Status at 86h: capacity 1, instance 1 active
    const st = c.requestAll(0x06, 0x34, [0x40, ...encodeRequest({ rsSA: 0x86, netFn: 0x06, rsLUN: 0, rqSA: 0x20, rqSeq: 6, rqLUN: 0, cmd: 0x4a, data: Uint8Array.of(1) })]);
    expect(st[1]).toMatchObject({ rsSA: 0x86, cmd: 0x4a, cc: 0 }); // the IPMC's response
    expect([...st[1]!.data]).toEqual([1, 1, 0]);
  });

  it('one SOL session per console (80h) and one SOL payload per session (82h); status and instance info', async () => {
    const { login } = await setup();
    const a = login(40001);
    const b = login(40002);
    expect(a.request(0x06, 0x48, ACTIVATE())!.cc).toBe(0);
    expect(b.request(0x06, 0x48, ACTIVATE())!.cc).toBe(0x80);
    expect(a.request(0x06, 0x48, ACTIVATE(4))!.cc).toBe(0x82);
    const st = a.request(0x06, 0x4a, [0x01])!;
    expect([...st.data]).toEqual([15, 0x01, 0x00]);
    const info = b.request(0x06, 0x4b, [0x01, 0x01])!;
    expect(info.data.length).toBe(12);
    expect(new DataView(info.data.buffer, info.data.byteOffset).getUint32(0, true)).toBe(a.bmcSid);
    expect(b.request(0x06, 0x4b, [0x01, 0x00])!.cc).toBe(0xcc);
    // an operator-level deactivation of someone else's payload is refused; an administrator's is not
    expect(b.request(0x06, 0x49, [0x01, 0x01, 0, 0, 0, 0])!.cc).toBe(0);
    expect(em!.consoles!.sol!.service.activationOf('shmc-a')).toBeUndefined();
    expect(a.request(0x06, 0x49, [0x01, 0x01, 0, 0, 0, 0])!.cc).toBe(0x80);
  });

  it('Deactivate Payload ends it; so does Close Session; SOL packets without an activation are dropped', async () => {
    const { login, server } = await setup();
    const c = login();
    expect(sol(c, { seq: 1, text: 'x' })).toEqual([]);
    expect(server.stats().dropped.malformed).toBeGreaterThanOrEqual(1);
    c.request(0x06, 0x48, ACTIVATE());
    const console = em!.consoles!.mux.get('shmc-a')!;
    expect(console.attached).toBe(1);
    expect(c.request(0x06, 0x49, [0x01, 0x01, 0, 0, 0, 0])!.cc).toBe(0);
    expect(console.attached).toBe(0);
    expect(c.request(0x06, 0x48, ACTIVATE())!.cc).toBe(0);
    c.request(0x06, 0x3c, [c.bmcSid & 0xff, (c.bmcSid >> 8) & 0xff, (c.bmcSid >> 16) & 0xff, c.bmcSid >>> 24]);
    expect(em!.consoles!.sol!.service.activations()).toHaveLength(0);
    expect(console.attached).toBe(0);
  });

  it('an idle session ends its SOL payload when the server expires it', async () => {
    const { login, server, clock } = await setup();
    const c = login();
    c.request(0x06, 0x48, ACTIVATE());
    expect(em!.consoles!.sol!.service.activations()).toHaveLength(1);
    (clock as SimClock).advance(61_000);
    server.tick(clock.now());
    expect(em!.consoles!.sol!.service.activations()).toHaveLength(0);
    expect(em!.consoles!.mux.get('shmc-a')!.attached).toBe(0);
  });

  it('requests that cannot activate get the codes of IPMI v2.0 §24.1', async () => {
    const { login } = await setup();
    const c = login();
    expect(c.request(0x06, 0x48, [0x00, 1, 0xc6, 0, 0, 0])!.cc).toBe(0xcc); // IPMI payload type
    expect(c.request(0x06, 0x48, [0x01, 0, 0xc6, 0, 0, 0])!.cc).toBe(0xcc); // instance 0
    expect(c.request(0x06, 0x48, [0x01, 1, 0xc6])!.cc).toBe(0xc7);
    expect(c.request(0x06, 0x48, ACTIVATE(1, 0x46))!.cc).toBe(0x84); // no encryption asked in an AES session
    expect(c.request(0x06, 0x48, ACTIVATE(7))!.cc).toBe(0xcc); // slot7 is empty: no console
    expect(c.request(0x0c, 0x21, [0x0e, 0x01, 0x00])!.cc).toBe(0); // sol set enabled false
    expect(c.request(0x06, 0x48, ACTIVATE())!.cc).toBe(0x81);
  });

  it('forced encryption/authentication refuse SOL in sessions without them (suites 2 and 1)', async () => {
    const { login } = await setup(2, { ipmi: { options: { cipherSuites: [1, 2, 3, 17] } } });
    const c2 = login(40000, 2); // HMAC-SHA1-96 integrity, no confidentiality
    expect(c2.request(0x06, 0x48, ACTIVATE(1, 0x40))!.cc).toBe(0x84);
    expect(c2.request(0x0c, 0x21, [0x0e, 0x02, 0x42])!.cc).toBe(0); // force authentication only, USER
    expect(c2.request(0x06, 0x48, ACTIVATE(1, 0x40))!.cc).toBe(0);
    const c1 = login(40001, 1); // no integrity at all
    expect(c1.request(0x06, 0x48, ACTIVATE(3, 0x00))!.cc).toBe(0x84);
  });

  it('Get/Set SOL Configuration Parameters as ipmitool sol info / sol set use them', async () => {
    const { login } = await setup();
    const c = login();
    const get = (p: number, ch = 0x0e) => c.request(0x0c, 0x22, [ch, p, 0, 0])!;
    expect([...get(0).data]).toEqual([0x11, 0x00]);
    expect([...get(1).data]).toEqual([0x11, 0x01]);
    expect([...get(2).data]).toEqual([0x11, 0xc2]);
    expect([...get(3).data]).toEqual([0x11, 1, 1]);
    expect([...get(4).data]).toEqual([0x11, 7, 20]);
    expect([...get(5).data]).toEqual([0x11, 0x0a]); // 115.2 kbps, the console's baud
    expect([...get(6).data]).toEqual([0x11, 0x0a]);
    expect([...get(7, 1).data]).toEqual([0x11, 0x01]);
    expect([...get(8).data]).toEqual([0x11, 0x56, 0x18]); // 6230
    expect(get(9).cc).toBe(0x80);
    expect(get(1, 2).cc).toBe(0xcc);
    expect([...c.request(0x0c, 0x22, [0x8e, 1, 0, 0])!.data]).toEqual([0x11]); // revision only
    expect(c.request(0x0c, 0x21, [0x0e, 0x04, 0x03, 0x05])!.cc).toBe(0);
    expect([...get(4).data]).toEqual([0x11, 3, 5]);
    expect(c.request(0x0c, 0x21, [0x0e, 0x08, 0x01, 0x02])!.cc).toBe(0x82);
    expect(c.request(0x0c, 0x21, [0x0e, 0x05, 0x03])!.cc).toBe(0xcc);
    expect(c.request(0x0c, 0x21, [0x0e, 0x00, 0x01])!.cc).toBe(0);
    expect(c.request(0x0c, 0x21, [0x0e, 0x00, 0x01])!.cc).toBe(0x81);
    expect(c.request(0x0c, 0x21, [0x0e, 0x00, 0x00])!.cc).toBe(0);
  });

  it('channel payload support and version, user payload access', async () => {
    const { login } = await setup();
    const c = login();
    expect([...c.request(0x06, 0x4e, [0x0e])!.data]).toEqual([0x03, 0x3f, 0, 0, 0, 0, 0, 0]);
    expect([...c.request(0x06, 0x4f, [0x01, 0x01])!.data]).toEqual([0x10]);
    expect(c.request(0x06, 0x4f, [0x01, 0x02])!.cc).toBe(0x80);
    const admin = em!.lanServer!.users.list().find((u) => u.name === 'admin')!;
    expect([...c.request(0x06, 0x4d, [0x0e, admin.id])!.data]).toEqual([0x02, 0, 0, 0]);
    expect([...c.request(0x06, 0x4d, [0x0e, 9])!.data]).toEqual([0x00, 0, 0, 0]);
    expect(c.request(0x06, 0x4d, [0x0e, 0])!.cc).toBe(0xcc);
  });

  it('deactivating another session tells its console with the "SOL deactivating" status', async () => {
    const { login, transport } = await setup();
    const a = login(40001);
    const b = login(40002);
    a.request(0x06, 0x48, ACTIVATE());
    transport.sent.splice(0);
    expect(b.request(0x06, 0x49, [0x01, 0x01, 0, 0, 0, 0])!.cc).toBe(0);
    const last = decodeSolDatagram(a, transport.sent.at(-1)!)!;
    expect(last.flags & SolStatus.deactivating).toBe(SolStatus.deactivating);
  });
});
