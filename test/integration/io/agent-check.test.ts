/**
 * The agent-check client (chassis/io/agent-check.ts) against small agents on loopback TCP: a
 * reply ended by LF, one ended by closing, the agent-send line received, a silent agent hitting
 * the deadline, a refused port, and a reply the protocol does not allow — each with its reason.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { queryAgent } from '../../../chassis/io/agent-check.ts';

const servers: Server[] = [];
async function agent(onConn: (s: Socket) => void): Promise<number> {
  const srv = createServer(onConn);
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return (srv.address() as { port: number }).port;
}
afterAll(() => {
  for (const s of servers) s.close();
});

describe('agent-check client', () => {
  it('reads a line ended by LF, and one ended by the agent closing', async () => {
    const a = await agent((s) => s.write('up 50%\nmore\n'));
    expect(await queryAgent({ host: '127.0.0.1', port: a })).toEqual({ state: 'up', weightPercent: 50, description: '' });
    const b = await agent((s) => s.end('DRAIN # going away'));
    expect(await queryAgent({ host: '127.0.0.1', port: b })).toEqual({ admin: 'drain', description: 'going away' });
  });

  it('sends the agent-send line first', async () => {
    const c = await agent((s) => s.once('data', (d) => s.end(String(d) === 'web/fnat1\n' ? 'maint\n' : 'up\n')));
    expect((await queryAgent({ host: '127.0.0.1', port: c, send: 'web/fnat1\n' })).admin).toBe('maint');
  });

  it('refuses with the reason: silence, a closed port, a bad word', async () => {
    const quiet = await agent(() => undefined);
    await expect(queryAgent({ host: '127.0.0.1', port: quiet, timeoutMs: 150 })).rejects.toThrow(/no reply within 150 ms/);
    const gone = await agent(() => undefined);
    servers.at(-1)!.close();
    await new Promise((r) => setTimeout(r, 50));
    await expect(queryAgent({ host: '127.0.0.1', port: gone })).rejects.toThrow(/ECONNREFUSED/);
    const bad = await agent((s) => s.end('weight=50\n'));
    await expect(queryAgent({ host: '127.0.0.1', port: bad })).rejects.toThrow(/unknown word 'weight=50'/);
  });
});
