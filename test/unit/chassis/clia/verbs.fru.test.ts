/**
 * chassis/clia/verbs.ts resolveFru: a reference that names nothing is refused with the user's own
 * word quoted (`clia board abc` quotes `abc`, not the verb).
 */
import { describe, expect, it } from 'vitest';
import { RefusedError } from '../../../../chassis/clia/shelf-api.ts';
import { resolveFru } from '../../../../chassis/clia/verbs.ts';
import type { OemFruInfo } from '../../../../chassis/ipmi/shelf-manager/oem-protocol.ts';

function fru(name: string, kind: OemFruInfo['kind'], slot: number, siteNumber: number, ipmbAddress: number): OemFruInfo {
  return { next: 0, kind, slot, physicalSlot: slot, siteType: 0, siteNumber, hardwareAddress: ipmbAddress >> 1, ipmbAddress, state: 4, previous: 3, cause: 0, flags: 0, powerLevel: 1, name, label: name };
}

const FRUS: OemFruInfo[] = [fru('shmc-a', 'shmc', 0, 1, 0x20), fru('slot3', 'processor', 3, 3, 0x86)];

function refusal(args: string[]): string {
  try {
    resolveFru(FRUS, args);
  } catch (e) {
    expect(e).toBeInstanceOf(RefusedError);
    return (e as Error).message;
  }
  throw new Error('not refused');
}

describe('resolveFru: refusals quote what the user typed', () => {
  it('board/shm/fan_tray with a word that is not a number: the word is quoted, not the verb', () => {
    expect(refusal(['board', 'abc'])).toMatch(/^"abc" is not a FRU of this shelf/);
    expect(refusal(['shm', 'x1'])).toMatch(/^"x1" is not a FRU of this shelf/);
    expect(refusal(['fan_tray', ''])).toMatch(/^"" is not a FRU of this shelf/);
  });

  it('numbers and names still resolve; an unknown name is quoted as before', () => {
    expect(resolveFru(FRUS, ['board', '3']).fru.name).toBe('slot3');
    expect(resolveFru(FRUS, ['shm', '1']).fru.name).toBe('shmc-a');
    expect(refusal(['gizmo'])).toMatch(/^"gizmo" is not a FRU of this shelf/);
    expect(refusal(['board', '9'])).toBe('board 9 is not a FRU of this shelf');
  });
});
