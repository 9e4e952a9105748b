/**
 * When a webhook delivery is tried again (docs/design.md §11, Svix's schedule): the first attempt
 * at once, then 5 s, 5 min, 30 min, 2 h, 5 h and 10 h after each failure; after the seventh attempt
 * the delivery is `failed`.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000];

/** Attempts in all: the first and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * When the next attempt is due after `attempts` attempts failed (the last at `now`), or null when
 * there is none left.
 */
export function nextAttemptAt(attempts: number, now: number): number | null {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  return delay === undefined ? null : now + delay;
}
