import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { formatAction, formatDuration, parseAction, parseDuration } from '../../../../chassis/sim/sim-actions.ts';

describe('simulation actions (the scenario action list of docs/scenarios.md)', () => {
  it('parses and formats every action form round-trip', () => {
    const texts = [
      'crash shmc-a', 'power-off slot3', 'power-on slot3', 'hang shmc-a', 'heal shmc-a', 'pause slot3 1.5s', 'stall-control slot3',
      'cut heartbeat lb1', 'cut heartbeat lb1/slot3 one-way slot3->slot4', 'restore heartbeat lb1', 'delay heartbeat shmc 250ms',
      'jitter sync lb1 20ms', 'flap heartbeat lb1 200ms', 'cut sync lb1', 'restore sync lb1', 'lossy sync lb1 5%',
      'cut uplink slot3', 'restore uplink slot3', 'stick-healthy slot3 low', 'stick-healthy slot3 off', 'interlock off', 'interlock on',
      'clock-jump shmc-a +1h', 'clock-jump shmc-b -30s', 'ntp-slew slot4 500', 'switchover shmc', 'shift lb1 10', 'upgrade slot4 2.0.1',
      'deactivate slot5', 'activate slot5', 'extract slot5', 'insert slot5', 'fail slot6', 'repair slot6',
    ];
    for (const t of texts) {
      const a = parseAction(t);
      expect(parseAction(formatAction(a))).toEqual(a);
    }
    expect(parseAction('cut heartbeat lb1 one-way slot3->slot4')).toEqual({ op: 'cut', link: 'heartbeat', pair: 'lb1', from: 'slot3', to: 'slot4' });
    expect(parseAction('clock-jump shmc-b -1h')).toEqual({ op: 'clock-jump', node: 'shmc-b', ms: -3_600_000 });
    expect(parseAction('cut uplink slot3')).toEqual({ op: 'cut-uplink', node: 'slot3' });
  });

  it('parses durations with units and formats them back', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('2m')).toBe(120_000);
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(120_000)).toBe('2m');
    expect(formatDuration(250)).toBe('250ms');
    expect(() => parseDuration('250')).toThrow(/expected e.g. 250ms/);
  });

  it('rejects bad actions with a precise CommandError', () => {
    const bad: Array<[string, RegExp]> = [
      ['explode slot3', /unknown action "explode"/],
      ['crash', /crash: expected "crash NODE"/],
      ['pause slot3', /pause NODE DURATION/],
      ['pause slot3 soon', /bad duration/],
      ['cut wire lb1', /link heartbeat or sync/],
      ['cut heartbeat lb1 one-way slot3', /bad direction "slot3"/],
      ['cut heartbeat lb1 both-ways slot3->slot4', /cut heartbeat\|sync PAIR/],
      ['cut heartbeat lb1 one-way slot3-slot4', /bad direction/],
      ['lossy sync lb1 120%', /0\.\.100/],
      ['stick-healthy slot3 maybe', /low, high or off/],
      ['interlock sideways', /on or off/],
      ['clock-jump slot3 1h', /signed duration/],
      ['ntp-slew slot3 fast', /bad PPM/],
      ['upgrade slot3 latest', /bad version/],
      ['rs-down vip1 rs1', /data plane/],
    ];
    for (const [t, re] of bad) {
      expect(() => parseAction(t), t).toThrow(CommandError);
      expect(() => parseAction(t), t).toThrow(re);
    }
  });
});
