#!/usr/bin/env node
// The live lab's real server: a small HTTP/1.1 keep-alive server that `atcasim net up` starts in
// each real server's network namespace. It answers every request with the server's name and logs
// one JSON line per request, naming who connected, so tests can check the client's address under
// dr/nat (the client) and fullnat (the board's local address).
//
// Plain JavaScript (no TypeScript loader) so the lab's servers start in a few tens of ms each.
//
// Usage: rs-http-server.mjs --name NAME --port 80[,8080…] [--log FILE] [--ready FILE]
//   Listens on [::]:PORT (IPv4 and IPv6) for each port. When a front proxy (HAProxy/nginx with
//   PROXY protocol, for the client's address under fullnat) sits before it, the address it passes
//   in X-Forwarded-For is logged as `client`; otherwise `client` is the TCP peer.
// Log line: {"t":ms,"rs":NAME,"client":A,"peer":A,"peerPort":P,"local":A,"localPort":P,
//            "xff":A|null,"conn":N,"req":N,"method":M,"path":U}
// SIGTERM/SIGINT: closes the listeners and every connection, then exits 0.
import { createServer } from 'node:http';
import { appendFileSync, writeFileSync } from 'node:fs';

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}

const name = arg('name');
const ports = String(arg('port', '80')).split(',').map(Number);
const log = arg('log');
const ready = arg('ready');
if (!name || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
  process.stderr.write('usage: rs-http-server.mjs --name NAME --port 80[,8080…] [--log FILE] [--ready FILE]\n');
  process.exit(2);
}

const plain = (a) => (typeof a === 'string' && a.startsWith('::ffff:') ? a.slice(7) : a ?? null);
let connections = 0;
const sockets = new Set();
const body = `${name}\n`;

function handle(req, res) {
  const s = req.socket;
  s.atcasimReq = (s.atcasimReq ?? 0) + 1;
  const xff = typeof req.headers['x-forwarded-for'] === 'string' ? req.headers['x-forwarded-for'].split(',')[0].trim() : null;
  const peer = plain(s.remoteAddress);
  if (log) {
    const line = {
      t: Date.now(), rs: name, client: xff ?? peer, peer, peerPort: s.remotePort, local: plain(s.localAddress),
      localPort: s.localPort, xff, conn: s.atcasimConn, req: s.atcasimReq, method: req.method, path: req.url,
    };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  }
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body), 'x-atcasim-rs': name });
  res.end(body);
}

const servers = ports.map((port) => {
  const srv = createServer({ keepAlive: true, keepAliveTimeout: 60_000 }, handle);
  srv.on('connection', (s) => {
    s.atcasimConn = ++connections;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen({ port, host: '::', ipv6Only: false }, () => resolve(srv));
  });
});

Promise.all(servers).then((list) => {
  if (ready) writeFileSync(ready, `${JSON.stringify({ rs: name, ports, pid: process.pid })}\n`);
  const stop = () => {
    for (const s of list) s.close();
    for (const s of sockets) s.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}, (err) => {
  process.stderr.write(`rs-http-server ${name}: ${err.message}\n`);
  process.exit(1);
});
