/**
 * The Nuki Keypad's own guard against guessing, as the vendor describes it (Nuki developer forum,
 * "Keypad: Increase time between entries after entering wrong code", answered by Nuki: from the
 * 5th wrong code in a row the keypad waits 30 seconds, its LEDs 3 and 4 blinking; still more wrong
 * codes make it wait longer). While it waits it takes no code at all — not even a right one — and
 * nothing reaches the lock, so nothing is logged. A right code starts the count afresh.
 *
 * Simulated: 30 s after the 5th wrong code in a row and after every wrong code after it, on the
 * lock's clock. The longer waits the real keypad adds from the 15th wrong code on are not
 * simulated (their lengths are not published); docs/door-codes.md says so.
 */

/** Wrong codes in a row after which the keypad waits. */
export const KEYPAD_WRONG_CODES_BEFORE_LOCKOUT = 5;
/** How long it then takes no code (ms). */
export const KEYPAD_LOCKOUT_MS = 30_000;

export class NukiKeypadLockout {
  private wrongInARow = 0;
  private lockedUntil = 0;

  /** Whether the keypad takes a code at `now` (false: it is waiting out a lockout). */
  accepts(now: number): boolean {
    return now >= this.lockedUntil;
  }

  /** A code the lock refused, typed at `now`: counts it, and from the 5th in a row the keypad waits. */
  wrong(now: number): void {
    this.wrongInARow += 1;
    if (this.wrongInARow >= KEYPAD_WRONG_CODES_BEFORE_LOCKOUT) this.lockedUntil = now + KEYPAD_LOCKOUT_MS;
  }

  /** A code the lock took: the count starts afresh. */
  right(): void {
    this.wrongInARow = 0;
  }
}
