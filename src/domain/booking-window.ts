/**
 * When a stay's door code works (docs/design.md §12): an all-day stay from its check-in day at the
 * calendar's check-in time to its check-out day at the check-out time, on the wall clock of the
 * lock's zone (DST included: luxon moves a time that a spring-forward night skips to the first
 * instant after the jump); a timed stay keeps its own times. Pure.
 */
import { DateTime } from 'luxon';

/** A stay's dates as stored: days, or instants (ms). */
export interface StayDates {
  startDate: string | null;
  endDate: string | null;
  startsAt: number | null;
  endsAt: number | null;
}

/** A booking's state at an instant. */
export type BookingState = 'upcoming' | 'active' | 'ended' | 'cancelled';

/** Stays that start within this long from now hold codes on the lock (docs/design.md §12). */
export const CODE_HORIZON_MS = 30 * 24 * 60 * 60_000;

/** `HH:MM`, 24-hour. */
export const CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * The stay's window in ms. @throws RangeError for an invalid zone or time.
 *
 * @example stayWindow({ startDate: '2026-03-28', endDate: '2026-03-30', startsAt: null, endsAt: null }, '16:00', '11:00', 'Europe/Berlin')
 * // { startsAt: 2026-03-28T15:00Z, endsAt: 2026-03-30T09:00Z } — the clocks went forward between
 */
export function stayWindow(stay: StayDates, checkIn: string, checkOut: string, zone: string): { startsAt: number; endsAt: number } {
  if (stay.startsAt !== null && stay.endsAt !== null) return { startsAt: stay.startsAt, endsAt: stay.endsAt };
  if (stay.startDate === null || stay.endDate === null) throw new RangeError('a stay has neither days nor times');
  const startsAt = wallClock(stay.startDate, checkIn, zone);
  let endsAt = wallClock(stay.endDate, checkOut, zone);
  // A stay that checks out on its check-in day before the check-in time still lasts until the next check-out.
  if (endsAt <= startsAt) endsAt = wallClock(DateTime.fromISO(stay.endDate, { zone }).plus({ days: 1 }).toISODate() ?? stay.endDate, checkOut, zone);
  return { startsAt, endsAt };
}

function wallClock(date: string, time: string, zone: string): number {
  if (!CLOCK_TIME.test(time)) throw new RangeError(`not a time of day: ${time}`);
  const instant = DateTime.fromISO(`${date}T${time}`, { zone });
  if (!instant.isValid) throw new RangeError(`not a date in ${zone}: ${date}`);
  return instant.toMillis();
}

/** The state of a stay with this window at `now`. */
export function bookingState(window: { startsAt: number; endsAt: number }, cancelled: boolean, now: number): BookingState {
  if (cancelled) return 'cancelled';
  if (now >= window.endsAt) return 'ended';
  return now >= window.startsAt ? 'active' : 'upcoming';
}
