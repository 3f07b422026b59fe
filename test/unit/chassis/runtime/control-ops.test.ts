/** The control-socket protocol and op registry (chassis/runtime/control-ops.ts), without a socket. */
import { describe, expect, it } from 'vitest';
import { ControlOps, controlSocketPath, oneLine } from '../../../../chassis/runtime/control-ops.ts';

describe('ControlOps', () => {
  it('dispatches by op with the args object, echoing the id', async () => {
    const ops = new ControlOps();
    ops.register('add', (a) => Number(a.a) + Number(a.b));
    ops.register('lb.show', async () => ({ vips: [] }));
    expect(JSON.parse(await ops.handleLine('{"id":3,"op":"add","args":{"a":2,"b":5}}'))).toEqual({ id: 3, ok: true, result: 7 });
    expect(await ops.handle({ id: 'x', op: 'lb.show' })).toEqual({ id: 'x', ok: true, result: { vips: [] } });
    expect(await ops.handle({ id: 1, op: 'ops' })).toEqual({ id: 1, ok: true, result: ['add', 'lb.show', 'ops'] });
  });

  it('refuses in one line: bad JSON, wrong shapes, unknown op, a throwing or unserialisable handler', async () => {
    const ops = new ControlOps();
    ops.register('throw', () => {
      throw new Error('first\nsecond');
    });
    ops.register('cycle', () => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    });
    const ans = async (line: string) => JSON.parse(await ops.handleLine(line)) as Record<string, unknown>;
    expect(await ans('{oops')).toMatchObject({ id: null, ok: false, error: expect.stringMatching(/^bad request: not JSON/) });
    expect(await ans('"str"')).toMatchObject({ id: null, ok: false });
    expect(await ans('{"id":2}')).toEqual({ id: 2, ok: false, error: 'bad request: "op" must be a string' });
    expect(await ans('{"id":2,"op":"throw","args":[]}')).toEqual({ id: 2, ok: false, error: 'bad request: "args" must be an object' });
    expect(await ans('{"id":4,"op":"nah"}')).toEqual({ id: 4, ok: false, error: 'unknown op "nah" (known: cycle, ops, throw)' });
    expect(await ans('{"id":5,"op":"throw"}')).toEqual({ id: 5, ok: false, error: 'first' });
    expect(await ans('{"id":6,"op":"cycle"}')).toMatchObject({ id: 6, ok: false, error: expect.stringMatching(/not serialisable/) });
    for (const line of ['{oops', '{"id":4,"op":"nah"}', '{"id":6,"op":"cycle"}']) expect((await ops.handleLine(line)).includes('\n')).toBe(false);
  });

  it('refuses malformed and duplicate names', () => {
    const ops = new ControlOps();
    expect(() => ops.register('Status', () => 1)).toThrow(TypeError);
    expect(() => ops.register('ops', () => 1)).toThrow(/already registered/);
    expect(ops.has('ops')).toBe(true);
  });

  it('names the socket beside the database; one-line messages', () => {
    expect(controlSocketPath('/var/lib/x/atcasim.db')).toBe('/var/lib/x/atcasim.db.ctl');
    expect(oneLine(new Error('a\nb'))).toBe('a');
    expect(oneLine('plain')).toBe('plain');
  });
});
