import { afterEach, describe, expect, it } from 'vitest';
import { createServer as createTcpServer } from 'node:net';
import type { Server as TcpServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { NetHealthProbe } from '../../../chassis/io/health-probe.ts';
import type { ProbeRequest, ProbeResult } from '../../../board/processor/health/probe-port.ts';
import { ProcessorBoard } from '../../../board/processor/processor-board.ts';
import type { ProcessorEvent } from '../../../board/processor/processor-board.ts';
import { config, service } from '../../support/processor-config.ts';

const servers: Array<TcpServer | HttpServer> = [];
const conns = new Set<Socket>();
afterEach(async () => {
  for (const c of conns) c.destroy();
  conns.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

function listen<T extends TcpServer | HttpServer>(s: T): Promise<number> {
  servers.push(s);
  s.on('connection', (c: Socket) => conns.add(c));
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
}

function probe(p: NetHealthProbe, req: Partial<ProbeRequest> & { port: number }): Promise<ProbeResult> {
  return new Promise((resolve) => p.probe({ kind: 'tcp', host: '127.0.0.1', path: '/', timeoutMs: 2000, ...req }, resolve));
}

/** A free port with nothing listening (listen on 0, then close). */
async function closedPort(): Promise<number> {
  const s = createTcpServer();
  const port = await listen(s);
  await new Promise<void>((r) => s.close(() => r()));
  servers.splice(servers.indexOf(s), 1);
  return port;
}

describe('NetHealthProbe (real probes)', () => {
  it('tcp: connected when something listens, refused otherwise', async () => {
    const p = new NetHealthProbe();
    const port = await listen(createTcpServer((c) => c.destroy()));
    expect(await probe(p, { port })).toEqual({ ok: true, detail: 'connected' });
    expect(await probe(p, { port: await closedPort() })).toEqual({ ok: false, detail: 'ECONNREFUSED' });
    expect(p.inFlight).toBe(0);
  });

  it('http: 2xx/3xx is up, 5xx is down, a silent server times out', async () => {
    const p = new NetHealthProbe();
    let status = 200;
    const seen: string[] = [];
    const port = await listen(createHttpServer((req, res) => {
      seen.push(req.url ?? '');
      res.statusCode = status;
      res.end('x');
    }));
    expect(await probe(p, { kind: 'http', port, path: '/healthz' })).toEqual({ ok: true, detail: 'HTTP 200' });
    status = 503;
    expect(await probe(p, { kind: 'http', port })).toEqual({ ok: false, detail: 'HTTP 503' });
    expect(seen).toEqual(['/healthz', '/']);
    const silent = await listen(createTcpServer(() => {}));
    expect(await probe(p, { kind: 'http', port: silent, timeoutMs: 150 })).toEqual({ ok: false, detail: 'timeout' });
  });

  it('icmp/udp are not probed for real', async () => {
    expect((await probe(new NetHealthProbe(), { kind: 'icmp', port: 1 })).ok).toBe(false);
  });
});

describe('ProcessorBoard with a real RS', () => {
  it('probes 127.0.0.1:PORT for real and marks it down when it stops answering', async () => {
    let status = 200;
    const port = await listen(createHttpServer((_req, res) => {
      res.statusCode = status;
      res.end();
    }));
    const events: ProcessorEvent[] = [];
    const net = new NetHealthProbe();
    const b = new ProcessorBoard(config([service({
      pool: [
        { name: 'real', address: `127.0.0.1:${port}`, weight: 1 },
        { name: 'sim', address: '10.1.0.2', weight: 1 },
        { name: 'real2', address: '127.0.0.1', port, weight: 1 }, // as chassis/config splits it
      ],
      health: { kind: 'http', intervalMs: 1000, timeoutMs: 1000, rise: 1, fall: 2, path: '/' },
    })]), { slot: 3, startMs: 0, probe: net, onEvent: (e) => events.push(e) });
    expect(b.realServers[0]!.real).toBe(true);
    expect(b.realServers[1]!.real).toBe(false);
    expect(b.realServers[2]!.real).toBe(true);
    // simulated board time, real probes: run the tick, then wait for the answers to come back
    const settle = async (t: number) => {
      b.tick(t);
      expect(net.inFlight).toBe(2);
      for (let i = 0; i < 500 && net.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(net.inFlight).toBe(0);
    };
    await settle(1000);
    expect(b.isUp('web', 'real')).toBe(true);
    status = 500;
    await settle(2000);
    await settle(3000);
    // two of three members down: live share 1/3 < alarm_below 0.5
    expect(events.map((e) => `${e.type}:${(e as { rs?: string }).rs ?? ''}`)).toEqual(['rs.down:real', 'rs.down:real2', 'pool.alarm.raised:']);
    expect((events[0] as { detail: string }).detail).toMatch(/HTTP 500/);
    expect(b.isUp('web', 'real')).toBe(false);
    status = 200;
    await settle(4000);
    expect(b.isUp('web', 'real')).toBe(true);
  });
});
