import { describe, expect, it } from '@jest/globals';
import { generateDoorCode, isValidDoorCode, type DoorCodeRules } from '../../../src/domain/door-code.js';
import { doorCodeRulesOf } from '../../../src/families/registry.js';

/** The Nuki Keypad's rules (its family's descriptor). */
const NUKI = doorCodeRulesOf('nuki') as DoorCodeRules;
/** A keypad of other rules: four to nine digits 0–9 are common (TTLock's passcodes), here four. */
const FOUR_DIGITS: DoorCodeRules = { length: 4, digits: '0123456789', forbiddenPrefixes: [], capacity: 150, weeklyWindow: false, canDisableCodes: false };

describe('door codes', () => {
  it('on a Nuki Keypad: six digits 1–9 that never start with 12', () => {
    expect(NUKI).toMatchObject({ length: 6, digits: '123456789', forbiddenPrefixes: ['12'] });
    expect(isValidDoorCode('482913', NUKI)).toBe(true);
    expect(isValidDoorCode('120000', NUKI)).toBe(false);
    expect(isValidDoorCode('123456', NUKI)).toBe(false);
    expect(isValidDoorCode('482910', NUKI)).toBe(false);
    expect(isValidDoorCode('48291', NUKI)).toBe(false);
    expect(isValidDoorCode('4829134', NUKI)).toBe(false);
  });

  it('follow the rules of the lock\'s keypad', () => {
    expect(isValidDoorCode('0120', FOUR_DIGITS)).toBe(true);
    expect(isValidDoorCode('01201', FOUR_DIGITS)).toBe(false);
    expect(isValidDoorCode('482913', FOUR_DIGITS)).toBe(false);
    for (let index = 0; index < 200; index += 1) expect(generateDoorCode(new Set(), FOUR_DIGITS)).toMatch(/^[0-9]{4}$/);
  });

  it('are drawn from the CSPRNG by default, each a valid code', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 2_000; index += 1) {
      const code = generateDoorCode(seen, NUKI);
      expect(isValidDoorCode(code, NUKI)).toBe(true);
      expect(seen.has(code)).toBe(false);
      seen.add(code);
    }
  });

  it('redraws a code that starts with 12 or is already on the lock', () => {
    // A source that first yields 1,2,… (a "12" code), then 4,8,2,9,1,3 twice (taken), then 5s.
    const digits = [0, 1, 3, 4, 5, 6, 3, 7, 1, 8, 0, 2, 3, 7, 1, 8, 0, 2, 4, 4, 4, 4, 4, 4];
    let next = 0;
    const source = (n: number): number => {
      expect(n).toBe(9);
      return digits[next++] ?? 4;
    };
    expect(generateDoorCode(new Set(['482913']), NUKI, source)).toBe('555555');
  });

  it('gives up on a source that never yields a free code', () => {
    expect(() => generateDoorCode(new Set(['111111']), NUKI, () => 0)).toThrow('no free door code');
  });
});
