/**
 * The UDP adapter (chassis/io/udp-ipmi.ts) on a real loopback socket: reports the bound port for
 * port 0, answers a datagram through the LAN server, runs tick() from the Clock port (SimClock
 * here), refuses a taken port with an error instead of crashing, and keeps serving after garbage.
 */
import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { captureLogger } from '../../../board/common/logger.ts';
import { UdpIpmiAdapter } from '../../../chassis/io/udp-ipmi.ts';
import { encodeAsfPing } from '../../../chassis/ipmi/rmcp.ts';
import { RmcpPlusClient } from '../../support/ipmi-client.ts';
import { makeTestServer } from '../../support/ipmi-test-server.ts';

function roundTrip(port: number, bytes: Uint8Array, timeoutMs = 2000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    const t = setTimeout(() => {
      s.close();
      resolve(undefined);
    }, timeoutMs);
    s.on('message', (m) => {
      clearTimeout(t);
      s.close();
      resolve(m);
    });
    s.send(bytes, port, '127.0.0.1');
  });
}

describe('UdpIpmiAdapter', () => {
  it('binds port 0 on 127.0.0.1, reports the port, answers a ping, fills the LAN IP address', async () => {
    const { server, clock, log } = makeTestServer();
    const a = new UdpIpmiAdapter(server, { port: 0, clock, log });
    const bound = await a.start();
    try {
      expect(bound.address).toBe('127.0.0.1');
      expect(bound.port).toBeGreaterThan(0);
      expect(server.lanConfig.ipAddress).toBe('127.0.0.1');
      expect(await roundTrip(bound.port, Uint8Array.from([1, 2, 3]), 300)).toBeUndefined(); // garbage: silence
      const pong = await roundTrip(bound.port, encodeAsfPing(0x42));
      expect(pong!.length).toBe(28);
      expect(pong![9]).toBe(0x42);
    } finally {
      await a.stop();
    }
  });

  it('runs LanServer.tick from the Clock: an idle session expires as simulated time passes', async () => {
    const t = makeTestServer({ limits: { idleTimeoutMs: 5000 } });
    const a = new UdpIpmiAdapter(t.server, { port: 0, clock: t.clock, log: t.log, maxTickMs: 1000 });
    await a.start();
    try {
      const c = new RmcpPlusClient({ server: t.server, peer: { address: '127.0.0.1', port: 9 }, now: () => t.clock.now() }, 'admin', 'adminpass', 3);
      expect(c.login().ok).toBe(true);
      t.clock.advance(4000);
      expect(t.server.stats().activeSessions).toBe(1);
      t.clock.advance(2000);
      expect(t.server.stats().activeSessions).toBe(0);
    } finally {
      await a.stop();
    }
    expect(t.clock.pending()).toBe(0); // stop() cancels the tick timer
  });

  it('rejects a port that is already bound (no crash), and stop() is idempotent', async () => {
    const { server, clock } = makeTestServer();
    const log = captureLogger();
    const a = new UdpIpmiAdapter(server, { port: 0, clock, log });
    const { port } = await a.start();
    const b = new UdpIpmiAdapter(server, { port, clock, log });
    await expect(b.start()).rejects.toThrow(/EADDRINUSE/);
    await b.stop();
    await a.stop();
    await a.stop();
    expect(() => new UdpIpmiAdapter(server, { port: 70000, clock, log })).toThrow(TypeError);
  });
});
