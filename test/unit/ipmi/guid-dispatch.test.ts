/** GUID encoding, the command table and the dispatcher's completion-code rules. */
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../board/common/errors.ts';
import { captureLogger } from '../../../board/common/logger.ts';
import { IpmiError } from '../../../chassis/ipmi/codes.ts';
import { CommandTable, Controller } from '../../../chassis/ipmi/controller.ts';
import type { CommandContext } from '../../../chassis/ipmi/controller.ts';
import { dispatch } from '../../../chassis/ipmi/dispatcher.ts';
import { formatIpmiGuid, guidV1Rfc, ipmiGuidV1, randomIpmiGuid } from '../../../chassis/ipmi/guid.ts';
import { minimumPrivilege } from '../../../chassis/ipmi/privilege-table.ts';
import { controllerInfo, seededBytes } from './support/test-server.ts';

describe('GUIDs', () => {
  const f = { timeMs: Date.UTC(2024, 0, 15, 12, 0, 0), clockSeq: 0x1234, node: Uint8Array.of(1, 2, 3, 4, 5, 6) };

  it('builds an RFC 4122 version 1 GUID (version nibble 1, variant 10b) and sends it reversed (IPMI order)', () => {
    const rfc = guidV1Rfc(f);
    expect(rfc[6]! >> 4).toBe(1);
    expect(rfc[8]! >> 6).toBe(0b10);
    expect(Buffer.from(rfc.subarray(10)).toString('hex')).toBe('010203040506');
    expect(ipmiGuidV1(f)).toEqual(rfc.slice().reverse());
    // 100 ns ticks since 1582-10-15, time_low first
    const t = (BigInt(f.timeMs) * 10000n + 122192928000000000n) & 0xffffffffn;
    expect(new DataView(rfc.buffer).getUint32(0)).toBe(Number(t));
  });

  it('keeps clock_seq_low below 10h so SMBIOS and RFC byte orders do not decode as a valid version', () => {
    const ipmi = ipmiGuidV1(f);
    // SMBIOS order reads bytes 6..7 little-endian as time_hi_and_version: the variant bits → version 8..11
    expect(((ipmi[7]! << 8) | ipmi[6]!) >> 12).toBeGreaterThanOrEqual(8);
    // RFC order reads them big-endian: clock_seq_low's high nibble → version 0
    expect(((ipmi[6]! << 8) | ipmi[7]!) >> 12).toBe(0);
  });

  it('formats in RFC text order and draws random node IDs with the multicast bit', () => {
    expect(formatIpmiGuid(ipmiGuidV1(f))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-010203040506$/);
    const g = randomIpmiGuid(seededBytes(2), f.timeMs);
    expect(g.length).toBe(16);
    expect(g[5]! & 1).toBe(1); // node byte 0 (reversed to position 5)
  });
});

describe('CommandTable and dispatch', () => {
  const controller = new Controller(0x20, controllerInfo(1, 1));
  const records: never[] = [];
  const ctx = (privilege: number): CommandContext => ({ controller, now: 0, channel: 1, privilege, session: undefined, log: captureLogger(records), emit: () => {} });
  const req = (netFn: number, cmd: number, data: number[] = []) => ({ rsSA: 0x20, netFn, rsLUN: 0, rqSA: 0x81, rqSeq: 1, rqLUN: 0, cmd, data: Uint8Array.from(data) });

  it('takes the privilege from the table, refuses duplicates, odd NetFns and commands without a privilege', () => {
    const t = new CommandTable();
    t.register({ netFn: 0x00, cmd: 0x02, name: 'Chassis Control', handler: () => {} });
    expect(t.lookup(0x00, 0x02)!.privilege).toBe(minimumPrivilege(0x00, 0x02));
    expect(t.lookup(0x00, 0x02)!.privilege).toBe(3);
    expect(() => t.register({ netFn: 0x00, cmd: 0x02, name: 'again', handler: () => {} })).toThrow(/already registered/);
    expect(() => t.register({ netFn: 0x07, cmd: 0x01, name: 'odd', handler: () => {} })).toThrow(/even/);
    expect(() => t.register({ netFn: 0x30, cmd: 0x01, name: 'oem', handler: () => {} })).toThrow(/no privilege/);
    t.register({ netFn: 0x30, cmd: 0x01, name: 'oem', privilege: 4, handler: () => {} });
    expect(t.list().map((c) => c.name)).toEqual(['Chassis Control', 'oem']);
    expect(t.unregister(0x30, 0x01)).toBe(true);
  });

  it('C1h for unknown commands at every privilege, D4h below the minimum, then the handler', () => {
    const t = new CommandTable();
    t.register({ netFn: 0x06, cmd: 0x47, name: 'Set User Password', handler: () => Uint8Array.of(1) });
    for (const p of [0, 1, 2, 3, 4]) expect(dispatch([t], req(0x06, 0x99), ctx(p)).cc).toBe(0xc1);
    for (const p of [1, 2, 3]) expect(dispatch([t], req(0x06, 0x47), ctx(p)).cc).toBe(0xd4);
    expect(dispatch([t], req(0x06, 0x47), ctx(4))).toMatchObject({ cc: 0, data: Uint8Array.of(1) });
  });

  it('turns handler failures into completion codes: IpmiError → its code, DecodeError → C7h, anything else → FFh (logged)', () => {
    const t = new CommandTable();
    const log: { obj: object }[] = [];
    t.register({ netFn: 0x06, cmd: 0x01, name: 'a', handler: () => { throw new IpmiError(0xcb); } });
    t.register({ netFn: 0x06, cmd: 0x04, name: 'b', handler: () => { throw new DecodeError('x', 'y', 0, 'short'); } });
    t.register({ netFn: 0x06, cmd: 0x08, name: 'c', handler: () => { throw new Error('bug'); } });
    t.register({ netFn: 0x06, cmd: 0x37, name: 'd', handler: () => new Uint8Array(300) });
    t.register({ netFn: 0x06, cmd: 0x2f, name: 'e', handler: () => ({ cc: 0x80 }) });
    const c = { ...ctx(4), log: captureLogger(log as never) };
    expect(dispatch([t], req(0x06, 0x01), c).cc).toBe(0xcb);
    expect(dispatch([t], req(0x06, 0x04), c).cc).toBe(0xc7);
    expect(dispatch([t], req(0x06, 0x08), c).cc).toBe(0xff);
    expect(dispatch([t], req(0x06, 0x37), c).cc).toBe(0xca);
    expect(dispatch([t], req(0x06, 0x2f), c)).toMatchObject({ cc: 0x80, data: new Uint8Array(0) });
    expect(log.map((r) => (r.obj as { category: string }).category)).toEqual(['handler-error', 'handler-bug']);
  });

  it('validates controller addresses and GUID sizes', () => {
    expect(() => new Controller(0x21, controllerInfo(1, 1))).toThrow(/even/);
    expect(() => new Controller(0x20, { ...controllerInfo(1, 1), guid: new Uint8Array(15) })).toThrow(/16 bytes/);
  });
});
