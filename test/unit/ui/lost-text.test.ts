/** The lost split's forms and the one on-screen name of a shelf manager (ui/lost-text.ts). */
import { describe, expect, it } from 'vitest';
import { lostSplitForms, narrowEventText, shmcName, shmcNamesIn } from '../../../ui/lost-text.ts';

describe('lostSplitForms', () => {
  it('gives the long then the short form, exact below 10,000', () => {
    expect(lostSplitForms({ young: 12, established: 0, establishedMs: 1500 })).toEqual(['lost 12 young / 0 est', 'lost 12y/0e']);
    expect(lostSplitForms({ young: 130_400, established: 9999, establishedMs: 1500 })).toEqual(['lost 130k young / 9999 est', 'lost 130ky/9999e']);
    expect(lostSplitForms({ young: 2_500_000, established: 0, establishedMs: 1500 })[1]).toBe('lost 2.5My/0e');
  });
  it('says n/a without HA session sync', () => {
    expect(lostSplitForms(undefined)).toEqual(['lost n/a']);
  });
});

describe('shmcName', () => {
  it('names shelf managers ShMC-A / ShMC-B and leaves other names alone', () => {
    expect(shmcName('shmc-a')).toBe('ShMC-A');
    expect(shmcName('shmc-b')).toBe('ShMC-B');
    expect(shmcName('slot3')).toBe('slot3');
  });
});

describe('shmcNamesIn', () => {
  it('renames shelf managers inside a text without moving its columns', () => {
    const row = 'shmc       shmc-a shmc-a active            3';
    expect(shmcNamesIn(row)).toBe('shmc       ShMC-A ShMC-A active            3');
    expect(shmcNamesIn(row).length).toBe(row.length);
    expect(shmcNamesIn('lb1/slot3  slot3  shmcx')).toBe('lb1/slot3  slot3  shmcx');
  });
});

describe('narrowEventText', () => {
  it('shortens sensor-type words so the new state fits a narrow event pane', () => {
    expect(narrowEventText('slot3 Module/Board → Off Duty')).toBe('slot3 Board → Off Duty');
    expect(narrowEventText('Node3 HotSwap → M5 (deasserted)')).toBe('Node3 HotSwap → M5 (deass.)');
  });
});
