/** The clia shell's line splitting and Tab completion (chassis/cli/clia-shell.ts). */
import { describe, expect, it } from 'vitest';
import { complete, splitWords } from '../../../../chassis/cli/clia-shell.ts';

const FRUS = ['shmc-a', 'shmc-b', 'slot1', 'slot3', 'fan1', 'pem1', 'pem2'];

describe('splitWords', () => {
  it('splits on blanks and keeps quoted words together', () => {
    expect(splitWords('  sensordata slot3 "Node3 Temp"  ')).toEqual(['sensordata', 'slot3', 'Node3 Temp']);
    expect(splitWords("getthreshold slot3 'Node3 CPU Temp'")).toEqual(['getthreshold', 'slot3', 'Node3 CPU Temp']);
    expect(splitWords('')).toEqual([]);
  });
  it('refuses an unterminated quote', () => {
    expect(() => splitWords('sensordata slot3 "Node3 Temp')).toThrow('unterminated quote');
  });
});

describe('complete', () => {
  it('completes verbs and the shell\'s own words first', () => {
    expect(complete('shmst', FRUS)).toEqual([['shmstatus'], 'shmst']);
    expect(complete('se', FRUS)[0]).toEqual(['sel', 'sensordata', 'setfanlevel', 'setlanconfig', 'setthreshold']);
    expect(complete('ex', FRUS)[0]).toEqual(['exit', 'extract']);
  });
  it('then FRU names and the verb\'s keywords', () => {
    expect(complete('fru pe', FRUS)).toEqual([['pem1', 'pem2'], 'pe']);
    expect(complete('handle o', FRUS)[0]).toEqual(['open']);
    expect(complete('setthreshold slot3 Node3 Temp u', FRUS)[0]).toEqual(['uc', 'unc', 'unr']);
    expect(complete('alarm ', FRUS)[0]).toEqual(['clear', 'critical', 'major', 'minor']);
  });
  it('offers no FRU names to verbs that take none', () => {
    expect(complete('shelf ', FRUS)[0]).toEqual(['cooling', 'info', 'power']);
    expect(complete('showunhealthy s', FRUS)[0]).toEqual([]);
  });
});
