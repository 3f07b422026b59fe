/**
 * The shelf's SNMP agent (chassis/io/snmp-agent.ts) on a real UDP socket, fed hand-built BER
 * GetBulk requests: a max-repetitions of 0x7fffffff (which makes an unclamped net-snmp agent loop
 * and grow without bound) is answered with at most 64 varbinds, counted and logged once; the agent
 * still answers a normal GetBulk afterwards, unclamped.
 */
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../../board/common/logger.ts';
import { SystemClock } from '../../../chassis/io/system-clock.ts';
import { BULK_LIMITS } from '../../../chassis/io/snmp-bulk-cap.ts';
import { SnmpAgent } from '../../../chassis/io/snmp-agent.ts';

const COMMUNITY = 'cap-test';
const log = captureLogger();
let agent: SnmpAgent | undefined;

beforeAll(async () => {
  agent = await SnmpAgent.start({
    settings: { bind: '127.0.0.1', port: 0, communities: [COMMUNITY], users: [], notify: [], enterpriseOid: '1.3.6.1.4.1.32473', contact: '', location: '' },
    engineId: '8000000001020304', bind: '127.0.0.1', port: 0, clock: new SystemClock(), log,
  });
});

afterAll(async () => {
  await agent?.stop();
});

/** A TLV with a definite length (short or long form). */
function tlv(tag: number, body: Buffer): Buffer {
  const n = body.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

/** SNMPv2c GetBulkRequest (RFC 3416 §3: PDU tag a5) for 1.3.6.1.2.1.1, built octet by octet. */
function getBulk(id: number, nonRepeaters: number, maxRepetitions: Buffer): Buffer {
  const varbind = tlv(0x30, Buffer.concat([tlv(0x06, Buffer.from([0x2b, 6, 1, 2, 1, 1])), Buffer.from([0x05, 0x00])]));
  const pdu = tlv(0xa5, Buffer.concat([tlv(0x02, Buffer.from([id])), tlv(0x02, Buffer.from([nonRepeaters])), tlv(0x02, maxRepetitions), tlv(0x30, varbind)]));
  return tlv(0x30, Buffer.concat([tlv(0x02, Buffer.from([1])), tlv(0x04, Buffer.from(COMMUNITY)), pdu]));
}

/** Reads one TLV at `at`: [tag, body start, body end]. */
function read(b: Buffer, at: number): [number, number, number] {
  const first = b[at + 1]!;
  if (first < 0x80) return [b[at]!, at + 2, at + 2 + first];
  const k = first & 0x7f;
  let n = 0;
  for (let i = 0; i < k; i++) n = n * 256 + b[at + 2 + i]!;
  return [b[at]!, at + 2 + k, at + 2 + k + n];
}

/** The response's PDU tag, request id and number of varbinds. */
function decode(b: Buffer): { tag: number; id: number; varbinds: number } {
  const [, s] = read(b, 0);
  const [, , vEnd] = read(b, s); // version
  const [, , cEnd] = read(b, vEnd); // community
  const [tag, p] = read(b, cEnd);
  const [, idS] = read(b, p);
  const [, , idEnd] = read(b, p);
  const [, , e1] = read(b, idEnd);
  const [, , e2] = read(b, e1);
  const [, l, lEnd] = read(b, e2);
  let varbinds = 0;
  for (let i = l; i < lEnd; i = read(b, i)[2]) varbinds++;
  return { tag, id: b[idS]!, varbinds };
}

/** Sends `req` and waits (at most 5 s) for one answer. */
function ask(req: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = createSocket('udp4');
    const timer = setTimeout(() => (s.close(), reject(new Error('no answer within 5 s'))), 5000);
    s.on('message', (m) => (clearTimeout(timer), s.close(), resolve(m)));
    s.send(req, agent!.address.port, '127.0.0.1');
  });
}

describe('SNMP GetBulk cap (hand-built BER over UDP)', () => {
  it('max-repetitions 0x7fffffff: answered with at most 64 varbinds, counted, one warn line', async () => {
    const r = decode(await ask(getBulk(7, 0, Buffer.from([0x7f, 0xff, 0xff, 0xff]))));
    expect(r.tag).toBe(0xa2); // GetResponse
    expect(r.id).toBe(7);
    expect(r.varbinds).toBe(BULK_LIMITS.maxRepetitions);
    expect(agent!.counters.capped).toBe(1);
    const warns = log.records.filter((x) => (x.obj as { category?: string }).category === 'snmp-bulk-cap');
    expect(warns).toHaveLength(1);
    expect(warns[0]!.obj).toMatchObject({ count: 1, last: { maxRepetitions: 0x7fffffff, nonRepeaters: 0, varbinds: 1 } });
  });

  it('a second clamped request within 10 s is counted, not logged; a GetBulk within bounds is answered unclamped', async () => {
    expect(decode(await ask(getBulk(8, 0, Buffer.from([0x0f, 0x42, 0x40])))).varbinds).toBe(BULK_LIMITS.maxRepetitions); // 1000000
    expect(agent!.counters.capped).toBe(2);
    const r = decode(await ask(getBulk(9, 0, Buffer.from([3]))));
    expect([r.tag, r.id, r.varbinds]).toEqual([0xa2, 9, 3]);
    expect(agent!.counters.capped).toBe(2);
    expect(log.records.filter((x) => (x.obj as { category?: string }).category === 'snmp-bulk-cap')).toHaveLength(1);
  });
});
