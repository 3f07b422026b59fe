/**
 * The agent-check reply parser and how its figure combines with the configured weight
 * (board/processor/health/agent-reply.ts): every word HAProxy's protocol has, in any case and
 * separator, descriptions after '#', a later word winning; precise refusals.
 */
import { describe, expect, it } from 'vitest';
import { applyAgentReport, agentTakesNothing, effectiveAgentWeight, initialAgentState, parseAgentReply } from '../../../../../board/processor/health/agent-reply.ts';

describe('agent-check reply', () => {
  it('reads the words of the protocol', () => {
    expect(parseAgentReply('up\n')).toEqual({ state: 'up', description: '' });
    expect(parseAgentReply('DOWN # disk full\n')).toEqual({ state: 'down', description: 'disk full' });
    expect(parseAgentReply('failed').state).toBe('down');
    expect(parseAgentReply('stopped\r\n').state).toBe('down');
    expect(parseAgentReply('drain').admin).toBe('drain');
    expect(parseAgentReply('maint').admin).toBe('maint');
    expect(parseAgentReply('Ready 75%')).toEqual({ admin: 'ready', weightPercent: 75, description: '' });
    expect(parseAgentReply('up,\t50%,maxconn:30')).toEqual({ state: 'up', weightPercent: 50, maxconn: 30, description: '' });
    expect(parseAgentReply('0%').weightPercent).toBe(0);
    expect(parseAgentReply('256%').weightPercent).toBe(256);
    expect(parseAgentReply('50% 80%\nignored 10%').weightPercent).toBe(80);
  });

  it('refuses what is not the protocol, with the reason', () => {
    expect(() => parseAgentReply('')).toThrow('empty agent reply');
    expect(() => parseAgentReply(' # only a comment')).toThrow('empty agent reply');
    expect(() => parseAgentReply('257%')).toThrow('agent weight 257% above 256%');
    expect(() => parseAgentReply('up 5O%')).toThrow("unknown word '5O%'");
    expect(() => parseAgentReply('maxconn:x')).toThrow('bad maxconn:x');
    expect(() => parseAgentReply('-5%')).toThrow("unknown word '-5%'");
    expect(() => parseAgentReply('x'.repeat(2000))).toThrow('longer than 1024');
  });

  it('combines with the configured weight: percentage of it, 0 when draining, in maintenance or down', () => {
    let s = initialAgentState();
    expect(effectiveAgentWeight(3, s)).toBe(3);
    s = applyAgentReport(s, parseAgentReply('50%'));
    expect(effectiveAgentWeight(4, s)).toBe(2);
    expect(effectiveAgentWeight(1, s)).toBe(1); // rounded, never 0 while the figure is above 0
    s = applyAgentReport(s, parseAgentReply('drain'));
    expect(effectiveAgentWeight(4, s)).toBe(0);
    expect(agentTakesNothing(s)).toBe(false); // existing connections stay
    expect(s.weightPercent).toBe(50); // not said: kept
    s = applyAgentReport(s, parseAgentReply('ready'));
    expect(effectiveAgentWeight(4, s)).toBe(2);
    s = applyAgentReport(s, parseAgentReply('maint'));
    expect([effectiveAgentWeight(4, s), agentTakesNothing(s)]).toEqual([0, true]);
    s = applyAgentReport(s, parseAgentReply('ready down'));
    expect([effectiveAgentWeight(4, s), agentTakesNothing(s)]).toEqual([0, true]);
    s = applyAgentReport(s, parseAgentReply('up 200%'));
    expect(effectiveAgentWeight(4, s)).toBe(8);
    expect(effectiveAgentWeight(4, applyAgentReport(s, parseAgentReply('0%')))).toBe(0);
  });
});
