/**
 * HAProxy's agent-check text protocol, the server's side of it (HAProxy configuration manual
 * §5.2 "agent-check"): the appliance opens a TCP connection to the agent's port, the agent writes
 * one line (ended by LF or by closing) and the appliance reads it. The line is a list of words
 * separated by spaces, tabs or commas, case-insensitive; text after `#` is a free description:
 *   NN%              the server's weight as a percentage of its configured weight (0–256 %)
 *   ready            administrative state ready again (ends drain and maint)
 *   drain            no new connections; existing ones (and persistence) stay
 *   maint            maintenance: no traffic at all, as if down
 *   up               operational state up
 *   down, failed, stopped   operational state down
 *   maxconn:N        a connection limit (kept, not applied by the boards)
 * Several words may come in one line (`up 75%`, `drain,50%`); a later word of the same kind wins.
 * Pure: text in, report out.
 *
 * How the figure combines with the configuration (`effectiveAgentWeight`): the configured weight
 * times the percentage (rounded, HAProxy's rule), 0 while draining, in maintenance or down. The
 * `dynamic` scheduler then uses that figure in place of the simulated RS model's load score.
 */

/** What one agent reply says (absent fields: not said, the previous state stays). */
export interface AgentReport {
  /** Weight in % of the configured weight, 0–256. */
  weightPercent?: number;
  /** Administrative state. */
  admin?: 'ready' | 'drain' | 'maint';
  /** Operational state. */
  state?: 'up' | 'down';
  maxconn?: number;
  /** Text after `#`, trimmed ('' when none). */
  description: string;
}

/** The largest percentage an agent may report (HAProxy's limit). */
export const AGENT_MAX_PERCENT = 256;

/** The longest reply read, bytes (a line beyond it is refused). */
export const AGENT_MAX_REPLY = 1024;

/**
 * Parses one agent reply.
 * @param text the bytes read, as text (an LF ends the line; anything after it is ignored)
 * @returns the report
 * @throws TypeError with a one-line reason for an empty reply, an unknown word, a percentage
 *   outside 0–256 or a bad maxconn
 */
export function parseAgentReply(text: string): AgentReport {
  if (text.length > AGENT_MAX_REPLY) throw new TypeError(`agent reply longer than ${AGENT_MAX_REPLY} bytes`);
  let line = text.split('\n', 1)[0]!.replace(/\r$/, '');
  let description = '';
  const hash = line.indexOf('#');
  if (hash >= 0) {
    description = line.slice(hash + 1).trim();
    line = line.slice(0, hash);
  }
  const words = line.split(/[ \t,]+/).filter((w) => w !== '');
  if (words.length === 0) throw new TypeError('empty agent reply');
  const r: AgentReport = { description };
  for (const raw of words) {
    const w = raw.toLowerCase();
    const pct = /^([0-9]{1,4})%$/.exec(w);
    if (pct) {
      const v = Number(pct[1]);
      if (v > AGENT_MAX_PERCENT) throw new TypeError(`agent weight ${raw} above ${AGENT_MAX_PERCENT}%`);
      r.weightPercent = v;
    } else if (w === 'ready' || w === 'drain' || w === 'maint') {
      r.admin = w;
    } else if (w === 'up') {
      r.state = 'up';
    } else if (w === 'down' || w === 'failed' || w === 'stopped') {
      r.state = 'down';
    } else if (w.startsWith('maxconn:')) {
      const n = /^maxconn:([0-9]{1,9})$/.exec(w);
      if (!n) throw new TypeError(`agent reply: bad ${raw} (maxconn:N)`);
      r.maxconn = Number(n[1]);
    } else {
      throw new TypeError(`agent reply: unknown word '${raw.slice(0, 40)}' (NN%, ready, drain, maint, up, down, failed, stopped, maxconn:N)`);
    }
  }
  return r;
}

/** An RS's state as its agent last set it. */
export interface AgentState {
  weightPercent: number;
  admin: 'ready' | 'drain' | 'maint';
  state: 'up' | 'down';
}

/** The state before any reply: 100 %, ready, up. */
export function initialAgentState(): AgentState {
  return { weightPercent: 100, admin: 'ready', state: 'up' };
}

/** Applies a report to a state (words not said keep their value). Returns a new state. */
export function applyAgentReport(s: AgentState, r: AgentReport): AgentState {
  return { weightPercent: r.weightPercent ?? s.weightPercent, admin: r.admin ?? s.admin, state: r.state ?? s.state };
}

/**
 * The weight new connections see: configured × percentage / 100, rounded (a non-zero result is at
 * least 1); 0 when draining, in maintenance or down. Existing connections are not affected.
 * @param configured the RS's configured weight (≥ 0)
 */
export function effectiveAgentWeight(configured: number, s: AgentState): number {
  if (s.admin !== 'ready' || s.state === 'down') return 0;
  const w = Math.round((configured * s.weightPercent) / 100);
  return w === 0 && configured > 0 && s.weightPercent > 0 ? 1 : w;
}

/** True when the RS takes no traffic at all (maintenance or down): existing connections end too. */
export function agentTakesNothing(s: AgentState): boolean {
  return s.admin === 'maint' || s.state === 'down';
}
