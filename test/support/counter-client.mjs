// A long-lived TCP connection exchanging a counter every 10 ms, for the live failover e2e tests:
// one HTTP/1.1 keep-alive connection to HOST:PORT, request n (path /?ctr=TAG-n) sent only after
// response n−1 arrived, for DURATION_MS. Prints one JSON line at the end: requests answered, the
// longest gap between two answers (ms), the time of that gap, and how the connection ended
// (error code, or 'closed' when the peer closed it). Usage: node counter-client.mjs HOST PORT TAG DURATION_MS
import { connect } from 'node:net';

const [host, portText, tag, durText] = process.argv.slice(2);
const port = Number(portText);
const duration = Number(durText);
const t0 = Date.now();
let n = 0;
let answered = 0;
let last = t0;
let maxGap = 0;
let maxGapAt = 0;
let buf = '';
let ended = null;
let timer = null;

const sock = connect({ host, port });
sock.setNoDelay(true);
const send = () => sock.write(`GET /?ctr=${tag}-${++n} HTTP/1.1\r\nHost: v\r\n\r\n`);
sock.on('connect', send);
sock.setEncoding('latin1');
sock.on('data', (d) => {
  buf += d;
  for (;;) {
    const h = buf.indexOf('\r\n\r\n');
    if (h < 0) return;
    const m = /content-length: *([0-9]+)/i.exec(buf.slice(0, h));
    const len = m ? Number(m[1]) : 0;
    if (buf.length < h + 4 + len) return;
    buf = buf.slice(h + 4 + len);
    answered++;
    const now = Date.now();
    if (now - last > maxGap) {
      maxGap = now - last;
      maxGapAt = now - t0;
    }
    last = now;
    if (now - t0 >= duration) return finish();
    timer = setTimeout(send, 10);
  }
});
sock.on('error', (e) => {
  ended = e.code ?? e.message;
  finish();
});
sock.on('close', () => {
  ended ??= 'closed';
  finish();
});
let done = false;
function finish() {
  if (done) return;
  done = true;
  if (timer) clearTimeout(timer);
  process.stdout.write(`${JSON.stringify({ sent: n, answered, maxGapMs: maxGap, maxGapAtMs: maxGapAt, ended, ms: Date.now() - t0 })}\n`);
  sock.destroy();
}
