import { DateTime } from 'luxon';

const DAY_MS = 86_400_000;

/**
 * The next instant after `afterMs` (within `horizonDays`) at which the zone's UTC offset changes —
 * a DST change — to the second; null when none comes. A TTLock's clock is a plain wall clock that
 * does not move with it, so the driver reads the lock again then and sets the clock (docs/ttlock.md).
 */
export function nextOffsetChange(afterMs: number, zone: string, horizonDays = 200): number | null {
  const offset = (ms: number): number => DateTime.fromMillis(ms, { zone }).offset;
  const before = offset(afterMs);
  let low = afterMs;
  let high = afterMs;
  for (let day = 1; day <= horizonDays; day += 1) {
    const probe = afterMs + day * DAY_MS;
    if (offset(probe) !== before) {
      high = probe;
      break;
    }
    low = probe;
  }
  if (high === afterMs) return null;
  // To the millisecond: the first instant with the new offset.
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    if (offset(middle) === before) low = middle;
    else high = middle;
  }
  return high;
}
