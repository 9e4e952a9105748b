import { describe, expect, it } from '@jest/globals';
import { generateDoorCode, isValidDoorCode } from '../../../src/domain/door-code.js';

describe('door codes', () => {
  it('are six digits 1–9 that never start with 12', () => {
    expect(isValidDoorCode('482913')).toBe(true);
    expect(isValidDoorCode('120000')).toBe(false);
    expect(isValidDoorCode('123456')).toBe(false);
    expect(isValidDoorCode('482910')).toBe(false);
    expect(isValidDoorCode('48291')).toBe(false);
    expect(isValidDoorCode('4829134')).toBe(false);
  });

  it('are drawn from the CSPRNG by default, each a valid code', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 2_000; index += 1) {
      const code = generateDoorCode(seen);
      expect(isValidDoorCode(code)).toBe(true);
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
    expect(generateDoorCode(new Set(['482913']), source)).toBe('555555');
  });

  it('gives up on a source that never yields a free code', () => {
    expect(() => generateDoorCode(new Set(['111111']), () => 0)).toThrow('no free door code');
  });
});
