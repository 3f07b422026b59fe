/**
 * Real health probes for real servers (RS configured as `address: 127.0.0.1:PORT` with health
 * kind tcp or http): the OS-facing implementation of the processor board's ProbePort
 * (board/processor/health/probe-port.ts). Each probe reports back once, asynchronously.
 *
 * - tcp: open a TCP connection (node:net) and close it at once; success = connected
 *   (keepalived TCP_CHECK).
 * - http: GET `path` with a fresh connection (node:http, no keep-alive agent); success = a 2xx or
 *   3xx status (keepalived HTTP_GET's default status range is 2xx).
 * - icmp/udp: not probed for real (raw ICMP needs privileges; a UDP probe has no generic answer):
 *   the probe fails with a detail saying so. Simulated RS never reach this adapter.
 * Every probe gives up after `timeoutMs` (counted as a failure, detail 'timeout').
 */
import { connect } from 'node:net';
import { request } from 'node:http';
import type { ProbePort, ProbeRequest, ProbeResult } from '../../board/processor/health/probe-port.ts';

/** Probes over the host's TCP/IP stack. */
export class NetHealthProbe implements ProbePort {
  /** Probes in flight (for shutdown and tests). */
  inFlight = 0;

  probe(req: ProbeRequest, done: (result: ProbeResult) => void): void {
    this.inFlight++;
    let finished = false;
    const finish = (ok: boolean, detail: string): void => {
      if (finished) return;
      finished = true;
      this.inFlight--;
      done({ ok, detail });
    };
    const errText = (e: Error & { code?: string }): string => e.code ?? e.message;
    if (req.kind === 'tcp') {
      const s = connect({ host: req.host, port: req.port });
      s.setTimeout(Math.max(1, req.timeoutMs));
      s.once('connect', () => {
        finish(true, 'connected');
        s.destroy();
      });
      s.once('timeout', () => {
        finish(false, 'timeout');
        s.destroy();
      });
      s.once('error', (e) => finish(false, errText(e)));
      return;
    }
    if (req.kind === 'http') {
      const r = request(
        { host: req.host, port: req.port, path: req.path || '/', method: 'GET', agent: false, timeout: Math.max(1, req.timeoutMs), headers: { 'user-agent': 'atcasim-health' } },
        (res) => {
          const code = res.statusCode ?? 0;
          res.resume();
          finish(code >= 200 && code < 400, `HTTP ${code}`);
          r.destroy();
        },
      );
      r.once('timeout', () => {
        finish(false, 'timeout');
        r.destroy();
      });
      r.once('error', (e) => finish(false, errText(e)));
      r.end();
      return;
    }
    queueMicrotask(() => finish(false, `kind ${req.kind} is not probed for real`));
  }
}
