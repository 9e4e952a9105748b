/**
 * A stay's door code on one lock, as the door-code sync engine reads a holder (docs/design.md §12):
 * an eKey-like window from check-in to check-out in the lock's zone. `accepted` while the stay
 * holds a code; `pending` while a code not yet on the lock waits for a stay more than 30 days
 * away (the row stays `waiting`); `revoked` once the stay is cancelled; none at all once its
 * calendar is gone, its codes were switched off or the lock left the calendar — each of which
 * takes the code off the lock.
 */
import type { Clock } from '../domain/clock.js';
import { CODE_HORIZON_MS, stayWindow } from '../domain/booking-window.js';
import { isStayHolder } from '../domain/door-code-holder.js';
import { describeError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { DoorCodeHolder } from '../locks/door-code-sync.js';
import type { CalendarRepository } from '../store/calendar-repository.js';
import type { DoorCodeRepository } from '../store/door-code-repository.js';
import type { LockRecord } from '../store/lock-repository.js';

export interface StayCodeHoldersDependencies {
  calendars: CalendarRepository;
  doorCodes: Pick<DoorCodeRepository, 'currentFor'>;
  locks: { findById(id: string): LockRecord | undefined };
  clock: Clock;
  logger: Logger;
}

export class StayCodeHolders {
  constructor(private readonly deps: StayCodeHoldersDependencies) {}

  /** The holder a stay's code rows belong to, or undefined (also for an eKey's id). */
  findById(holderId: string): DoorCodeHolder | undefined {
    if (!isStayHolder(holderId)) return undefined;
    const link = this.deps.calendars.linkOfHolder(holderId);
    if (link === undefined) return undefined;
    const booking = this.deps.calendars.findBooking(link.bookingId);
    const calendar = booking === undefined ? undefined : this.deps.calendars.findById(booking.calendarId);
    const lock = this.deps.locks.findById(link.lockId);
    if (booking === undefined || calendar === undefined || lock === undefined) return undefined;
    if (!calendar.doorCode || !calendar.lockIds.includes(link.lockId)) return undefined;
    let window: { startsAt: number; endsAt: number };
    try {
      window = stayWindow(booking, calendar.checkIn, calendar.checkOut, lock.timeZone);
    } catch (error) {
      this.deps.logger.error(`Bookings: a stay of a calendar could not be placed on lock ${lock.name}'s clock: ${describeError(error)}`);
      return undefined;
    }
    const base = { id: link.holderId, valid_from: window.startsAt, valid_to: window.endsAt, schedule_start: null, schedule_end: null };
    if (booking.cancelledAt !== null) return { ...base, status: 'revoked' };
    const waiting = this.deps.doorCodes.currentFor(link.holderId)?.state === 'waiting';
    const far = window.startsAt - this.deps.clock.now() > CODE_HORIZON_MS;
    return { ...base, status: waiting && far ? 'pending' : 'accepted' };
  }

  /** The stay whose code this holder id is (for the history: docs/design.md §12), or null. */
  bookingOf(holderId: string): { uid: string; summary: string } | null {
    if (!isStayHolder(holderId)) return null;
    const link = this.deps.calendars.linkOfHolder(holderId);
    const booking = link === undefined ? undefined : this.deps.calendars.findBooking(link.bookingId);
    return booking === undefined ? null : { uid: booking.uid, summary: booking.summary };
  }
}
