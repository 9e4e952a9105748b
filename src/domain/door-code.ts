/**
 * Door codes (docs/design.md §4c): drawn from a CSPRNG by the rules of the lock's keypad (each
 * family's, src/families/<family>/<family>-family.ts `doorCodes`), unique on their lock. A code is
 * a key: it is never logged.
 */
import { randomInt } from 'node:crypto';

/** What a family's keypad takes. */
export interface DoorCodeRules {
  /** How many digits a code has. */
  length: number;
  /** The digits a code may hold, e.g. `123456789`. */
  digits: string;
  /** Beginnings the keypad refuses (a Nuki Keypad: `12`). */
  forbiddenPrefixes: readonly string[];
  /** How many codes the keypad holds. */
  capacity: number;
  /** The keypad holds a daily window on a set of weekdays beside the date range (else the date range only). */
  weeklyWindow: boolean;
  /**
   * The keypad can hold a code switched off (a Nuki Keypad). Where it cannot, a code the service
   * enforces is taken off the lock at each window end and put back at each start, each time with
   * the window's own end as its date range (docs/door-codes.md "Who enforces the window").
   */
  canDisableCodes: boolean;
}

/** How many draws {@link generateDoorCode} makes before it gives up on a lock this full. */
const MAX_DRAWS = 10_000;

/** True for a code the keypad takes: the right length, its digits only, no refused beginning. */
export function isValidDoorCode(code: string, rules: DoorCodeRules): boolean {
  if (code.length !== rules.length) return false;
  for (const digit of code) if (!rules.digits.includes(digit)) return false;
  return !rules.forbiddenPrefixes.some((prefix) => code.startsWith(prefix));
}

/**
 * A fresh door code by `rules` that is not in `taken` (the codes already on the lock, ours and
 * others'). `randomBelow(n)` draws a uniform integer in [0, n); it defaults to node:crypto's CSPRNG
 * and is injected only by tests.
 *
 * @throws Error when no free code was found (a lock holds at most a few hundred codes, so this
 *   means a broken random source).
 * @example generateDoorCode(new Set(['482913']), nukiRules) // e.g. '739154'
 */
export function generateDoorCode(taken: ReadonlySet<string>, rules: DoorCodeRules, randomBelow: (n: number) => number = randomInt): string {
  for (let draw = 0; draw < MAX_DRAWS; draw += 1) {
    let code = '';
    for (let digit = 0; digit < rules.length; digit += 1) code += rules.digits[randomBelow(rules.digits.length)] ?? '';
    if (isValidDoorCode(code, rules) && !taken.has(code)) return code;
  }
  throw new Error('no free door code was found');
}
