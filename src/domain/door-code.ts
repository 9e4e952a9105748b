/**
 * Door codes (docs/design.md §4c): six digits 1–9 drawn from a CSPRNG, never starting with `12`
 * (the Nuki Keypad refuses those), unique on their lock. A code is a key: it is never logged.
 */
import { randomInt } from 'node:crypto';

/** Six digits 1–9. */
const DOOR_CODE_PATTERN = /^[1-9]{6}$/;

/** How many draws {@link generateDoorCode} makes before it gives up on a lock this full. */
const MAX_DRAWS = 10_000;

/** True for a code the keypad accepts: six digits 1–9 that do not start with `12`. */
export function isValidDoorCode(code: string): boolean {
  return DOOR_CODE_PATTERN.test(code) && !code.startsWith('12');
}

/**
 * A fresh door code that is not in `taken` (the codes already on the lock, ours and others').
 * `randomBelow(n)` draws a uniform integer in [0, n); it defaults to node:crypto's CSPRNG and is
 * injected only by tests.
 *
 * @throws Error when no free code was found (a lock holds at most a few hundred codes, so this
 *   means a broken random source).
 * @example generateDoorCode(new Set(['482913'])) // e.g. '739154'
 */
export function generateDoorCode(taken: ReadonlySet<string>, randomBelow: (n: number) => number = randomInt): string {
  for (let draw = 0; draw < MAX_DRAWS; draw += 1) {
    let code = '';
    for (let digit = 0; digit < 6; digit += 1) code += String(1 + randomBelow(9));
    if (isValidDoorCode(code) && !taken.has(code)) return code;
  }
  throw new Error('no free door code was found');
}
