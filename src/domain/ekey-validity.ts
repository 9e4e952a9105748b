/**
 * When an eKey can be used: accepted, inside its validity window, inside its daily schedule
 * (docs/design.md §3 eKeys: "usable"). Commands and taps are checked against this at the moment they happen.
 */
import { isInsideSchedule } from './ekey-schedule.js';
import type { EKey } from './ekey-types.js';

/**
 * Why a key is or is not usable at an instant, in the order the checks run.
 * - `usable`: all checks pass.
 * - `not_accepted`: status is `pending` or `revoked`.
 * - `not_yet_valid`: before `valid_from`.
 * - `expired`: at or after `valid_to`.
 * - `outside_schedule`: outside the daily window of `schedule_start`/`schedule_end`.
 */
export type EKeyUsability = 'usable' | 'not_accepted' | 'not_yet_valid' | 'expired' | 'outside_schedule';

/** The parts of an eKey that decide usability. */
export type UsabilityFields = Pick<EKey, 'status' | 'valid_from' | 'valid_to' | 'schedule_start' | 'schedule_end'>;

/**
 * Classifies a key at `instantMs` with the schedule read on the wall clock of `zone` (the lock's).
 * The window is half-open: `valid_from` ≤ t < `valid_to`, each bound only when set.
 *
 * @throws RangeError for an invalid zone or a corrupt stored schedule.
 */
export function usabilityAt(key: UsabilityFields, instantMs: number, zone: string): EKeyUsability {
  if (key.status !== 'accepted') return 'not_accepted';
  if (key.valid_from !== null && instantMs < key.valid_from) return 'not_yet_valid';
  if (key.valid_to !== null && instantMs >= key.valid_to) return 'expired';
  if (!isInsideSchedule(key.schedule_start, key.schedule_end, instantMs, zone)) return 'outside_schedule';
  return 'usable';
}

/** True when {@link usabilityAt} says `usable`. */
export function isUsableAt(key: UsabilityFields, instantMs: number, zone: string): boolean {
  return usabilityAt(key, instantMs, zone) === 'usable';
}
