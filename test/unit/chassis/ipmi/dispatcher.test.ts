/** The command table and the dispatcher's completion-code rules (chassis/ipmi/controller.ts, dispatcher.ts). */
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../../board/common/errors.ts';
import { captureLogger } from '../../../../board/common/logger.ts';
import { IpmiError } from '../../../../chassis/ipmi/codes.ts';
import { CommandTable, Controller } from '../../../../chassis/ipmi/controller.ts';
import type { CommandContext } from '../../../../chassis/ipmi/controller.ts';
import { dispatch } from '../../../../chassis/ipmi/dispatcher.ts';
import { minimumPrivilege } from '../../../../chassis/ipmi/privilege-table.ts';
import { controllerInfo } from '../../../support/ipmi-test-server.ts';

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
