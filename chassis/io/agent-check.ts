/**
 * The agent-check client (HAProxy configuration manual §5.2 "agent-check"): connects to a real
 * server's agent over TCP, optionally sends a line (HAProxy's `agent-send`), reads one reply line
 * (up to LF, the peer closing, or AGENT_MAX_REPLY bytes) and closes. The words are parsed by the
 * pure core (board/processor/health/agent-reply.ts).
 */
import { connect } from 'node:net';
import { AGENT_MAX_REPLY, parseAgentReply, type AgentReport } from '../../board/processor/health/agent-reply.ts';

/** Where an agent listens and how long to wait for it. */
export interface AgentTarget {
  host: string;
  port: number;
  /** Sent after connecting (e.g. `backend/server\n`); nothing by default. */
  send?: string;
  /** Whole exchange deadline, ms (default 1000). */
  timeoutMs?: number;
}

/**
 * Asks the agent once.
 * @returns its report
 * @rejects Error with a one-line reason: connection refused or reset, no complete line before the
 *   deadline, or a reply the protocol does not allow (the parser's message)
 */
export function queryAgent(t: AgentTarget): Promise<AgentReport> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: t.host, port: t.port });
    let buf = '';
    let done = false;
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) return reject(err);
      try {
        resolve(parseAgentReply(buf));
      } catch (e) {
        reject(new Error(`agent ${t.host}:${t.port}: ${(e as Error).message}`));
      }
    };
    const timer = setTimeout(() => finish(new Error(`agent ${t.host}:${t.port}: no reply within ${t.timeoutMs ?? 1000} ms`)), t.timeoutMs ?? 1000);
    sock.setEncoding('latin1');
    sock.on('connect', () => {
      if (t.send !== undefined) sock.write(t.send);
    });
    sock.on('data', (d: string) => {
      buf += d;
      if (buf.includes('\n') || buf.length >= AGENT_MAX_REPLY) finish(null);
    });
    sock.on('end', () => finish(null));
    sock.on('error', (e: NodeJS.ErrnoException) => finish(new Error(`agent ${t.host}:${t.port}: ${e.code ?? e.message}`)));
  });
}
