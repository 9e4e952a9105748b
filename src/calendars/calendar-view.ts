/**
 * A rental calendar as the API shows it (docs/design.md §12): its stays by check-in, each with its
 * door code per lock read against the stay now — a waiting code of a stay within 30 days is
 * `setting`, a code of a cancelled or ended stay that the engine has not reached yet `removing`;
 * the digits never while removing or once removed.
 */
import { bookingState, type BookingState } from '../domain/booking-window.js';
import type { BookingRecord, CalendarRecord, CalendarRepository } from '../store/calendar-repository.js';
import type { DoorCodeRepository, DoorCodeState } from '../store/door-code-repository.js';
import type { LockRecord } from '../store/lock-repository.js';
import { stayWindowOf } from './stay-codes.js';
import type { StayCodeHolders } from './stay-code-holders.js';

/** A stay's door code on one lock (a door code object of docs/design.md §4c, with its lock). */
export interface BookingDoorCodeView {
  lock_id: string;
  code: string | null;
  state: DoorCodeState;
  enforced_by: 'lock' | 'service';
  failure_reason: string | null;
  updated_at: string;
}

export interface BookingView {
  uid: string;
  summary: string;
  starts_at: string;
  ends_at: string;
  state: BookingState;
  door_codes: BookingDoorCodeView[];
}

export interface CalendarView {
  id: string;
  url: string;
  lock_ids: string[];
  check_in: string;
  check_out: string;
  door_code: boolean;
  state: 'ok' | 'failing';
  last_refresh_at: string | null;
  last_error: string | null;
  bookings: BookingView[];
}

export interface CalendarViewDependencies {
  calendars: CalendarRepository;
  doorCodes: Pick<DoorCodeRepository, 'currentFor'>;
  locks: { findById(id: string): LockRecord | undefined };
  holders: Pick<StayCodeHolders, 'findById'>;
}

/** The calendar object of the API at `now`. */
export function calendarView(calendar: CalendarRecord, now: number, deps: CalendarViewDependencies): CalendarView {
  return {
    id: calendar.id,
    url: calendar.url,
    lock_ids: calendar.lockIds,
    check_in: calendar.checkIn,
    check_out: calendar.checkOut,
    door_code: calendar.doorCode,
    state: calendar.state,
    last_refresh_at: calendar.lastRefreshAt === null ? null : new Date(calendar.lastRefreshAt).toISOString(),
    last_error: calendar.lastError,
    bookings: deps.calendars.bookings(calendar.id).map((booking) => bookingView(calendar, booking, now, deps)),
  };
}

/** One stay with its code on each lock of the calendar (in the calendar's lock order). */
function bookingView(calendar: CalendarRecord, booking: BookingRecord, now: number, deps: CalendarViewDependencies): BookingView {
  const window = stayWindowOf(booking, calendar, deps.locks);
  const codes: BookingDoorCodeView[] = [];
  for (const link of deps.calendars.linksOf(booking.id)) {
    // A lock taken out of the calendar is no longer its (its code comes off all the same).
    if (!calendar.lockIds.includes(link.lockId)) continue;
    const row = deps.doorCodes.currentFor(link.holderId);
    if (row === undefined) continue;
    const holder = deps.holders.findById(link.holderId);
    const ended = holder === undefined || holder.status === 'revoked' || (holder.valid_to !== null && holder.valid_to <= now);
    let state = row.state;
    if (state === 'waiting' && holder?.status === 'accepted' && !ended) state = 'setting';
    else if (ended && state === 'waiting') state = 'removed';
    else if (ended && (state === 'setting' || state === 'set' || state === 'failed')) state = 'removing';
    codes.push({
      lock_id: link.lockId,
      code: state === 'removing' || state === 'removed' ? null : row.code,
      state,
      enforced_by: row.enforcedBy,
      failure_reason: state === 'failed' ? row.failureReason : null,
      updated_at: new Date(row.updatedAt).toISOString(),
    });
  }
  // In the calendar's lock order.
  codes.sort((a, b) => calendar.lockIds.indexOf(a.lock_id) - calendar.lockIds.indexOf(b.lock_id));
  return {
    uid: booking.uid,
    summary: booking.summary,
    starts_at: new Date(window.startsAt).toISOString(),
    ends_at: new Date(window.endsAt).toISOString(),
    state: bookingState(window, booking.cancelledAt !== null, now),
    door_codes: codes,
  };
}
