/**
 * The door-code bookkeeping of rental stays (docs/design.md §12): a good feed's stays reconciled
 * with the stored ones (new, moved, cancelled, forgotten), and the door-code rows each stay should
 * have on each lock of its calendar. Runs inside the refresh's (or the API call's) transaction and
 * only records what should happen: the sync engine (src/locks/door-code-sync.ts) writes the locks.
 */
import { CODE_HORIZON_MS, stayWindow } from '../domain/booking-window.js';
import { generateDoorCode, type DoorCodeRules } from '../domain/door-code.js';
import { newStayHolderId } from '../domain/door-code-holder.js';
import { doorCodeWindow } from '../domain/door-code-window.js';
import { newId } from '../domain/ids.js';
import type { FeedStay } from '../domain/ical-stays.js';
import type { BookingRecord, CalendarRecord, CalendarRepository } from '../store/calendar-repository.js';
import type { DoorCodeRepository } from '../store/door-code-repository.js';
import type { LockRecord } from '../store/lock-repository.js';

export interface StayCodesDependencies {
  calendars: CalendarRepository;
  doorCodes: DoorCodeRepository;
  locks: { findById(id: string): LockRecord | undefined };
  /** The rules of a lock's keypad (its family's), undefined for a family that takes no codes. */
  keypadRulesOf: (lock: LockRecord) => DoorCodeRules | undefined;
}

/** Stays over this long ago (and off every lock) are dropped from the list. */
const FORGET_AFTER_MS = 60 * 24 * 60 * 60_000;

/** A stay's window on the clock of its calendar's first lock (each lock's code uses its own lock's zone). */
export function stayWindowOf(booking: BookingRecord, calendar: CalendarRecord, locks: StayCodesDependencies['locks']): { startsAt: number; endsAt: number } {
  const zone = locks.findById(calendar.lockIds[0] ?? '')?.timeZone ?? 'UTC';
  return stayWindow(booking, calendar.checkIn, calendar.checkOut, zone);
}

export class StayCodes {
  constructor(private readonly deps: StayCodesDependencies) {}

  /** Stays of a good feed: new ones stored, moved ones rewritten (same code), missing ones cancelled unless already over. */
  reconcile(calendar: CalendarRecord, bookings: BookingRecord[], stays: FeedStay[], now: number): void {
    const known = new Map(bookings.map((booking) => [booking.uid, booking]));
    const seen = new Set<string>();
    for (const stay of stays) {
      if (seen.has(stay.uid)) continue;
      seen.add(stay.uid);
      const dates = stay.kind === 'days'
        ? { startDate: stay.startDate, endDate: stay.endDate, startsAt: null, endsAt: null }
        : { startDate: null, endDate: null, startsAt: stay.startsAt, endsAt: stay.endsAt };
      const existing = known.get(stay.uid);
      if (existing === undefined) {
        const booking: BookingRecord = { id: newId(), calendarId: calendar.id, uid: stay.uid, summary: stay.summary, ...dates, cancelledAt: null, createdAt: now, updatedAt: now };
        // A stay that was over before the calendar first saw it never holds a code: not kept.
        if (stayWindowOf(booking, calendar, this.deps.locks).endsAt <= now) continue;
        this.deps.calendars.insertBookingRecord(booking);
        continue;
      }
      const moved = existing.startDate !== dates.startDate || existing.endDate !== dates.endDate || existing.startsAt !== dates.startsAt || existing.endsAt !== dates.endsAt;
      if (!moved && existing.summary === stay.summary && existing.cancelledAt === null) continue;
      const updated: BookingRecord = { ...existing, ...dates, summary: stay.summary, cancelledAt: null, updatedAt: now };
      this.deps.calendars.updateBookingRecord(updated);
      if (moved) this.rewriteWindows(updated, now);
    }
    for (const booking of bookings) {
      if (this.forgettable(booking, calendar, now)) {
        this.deps.calendars.deleteBooking(booking.id);
        continue;
      }
      if (seen.has(booking.uid) || booking.cancelledAt !== null) continue;
      // Platforms drop stays from the feed a day or so after they end: an ended stay stays ended.
      if (stayWindowOf(booking, calendar, this.deps.locks).endsAt <= now) continue;
      this.deps.calendars.updateBookingRecord({ ...booking, cancelledAt: now, updatedAt: now });
      for (const link of this.deps.calendars.linksOf(booking.id)) this.takeOff(link.holderId, now);
    }
  }

  /** A stay over (or cancelled) for more than 60 days whose codes are all off the locks: no longer listed. */
  private forgettable(booking: BookingRecord, calendar: CalendarRecord, now: number): boolean {
    const over = booking.cancelledAt ?? stayWindowOf(booking, calendar, this.deps.locks).endsAt;
    if (now - over < FORGET_AFTER_MS) return false;
    return this.deps.calendars.linksOf(booking.id).every((link) => {
      const state = this.deps.doorCodes.currentFor(link.holderId)?.state;
      return state === undefined || state === 'removed';
    });
  }

  /** Every stay that should hold a code on a lock gets one (a fresh code; `waiting` while the stay is more than 30 days away). */
  applyCodes(calendar: CalendarRecord, now: number): void {
    if (!calendar.doorCode) return;
    for (const booking of this.deps.calendars.bookings(calendar.id)) {
      if (booking.cancelledAt !== null) continue;
      for (const lockId of calendar.lockIds) {
        const lock = this.deps.locks.findById(lockId);
        const rules = lock === undefined || !lock.keypad ? undefined : this.deps.keypadRulesOf(lock);
        if (lock === undefined || rules === undefined) continue;
        const window = stayWindow(booking, calendar.checkIn, calendar.checkOut, lock.timeZone);
        if (window.endsAt <= now) continue;
        const holderId = this.deps.calendars.holderFor(booking.id, lock.id, newStayHolderId);
        const current = this.deps.doorCodes.currentFor(holderId);
        if (current !== undefined && current.state !== 'removing' && current.state !== 'removed') continue;
        const code = generateDoorCode(this.deps.doorCodes.codesOnLock(lock.id), rules);
        this.deps.doorCodes.insert({
          ekeyId: holderId,
          lockId: lock.id,
          code,
          state: window.startsAt - now > CODE_HORIZON_MS ? 'waiting' : 'setting',
          enforcedBy: doorCodeWindow({ valid_from: window.startsAt, valid_to: window.endsAt, schedule_start: null, schedule_end: null }, rules).enforcedBy,
          failureReason: null,
          lockCodeId: null,
          written: null,
          createdAt: now,
          updatedAt: now,
        });
      }
    }
  }

  /** A stay's window moved: its codes keep their digits, and each lock must confirm the new window. */
  rewriteWindows(booking: BookingRecord, now: number): void {
    for (const link of this.deps.calendars.linksOf(booking.id)) {
      const current = this.deps.doorCodes.currentFor(link.holderId);
      if (current !== undefined && (current.state === 'set' || current.state === 'failed')) {
        this.deps.doorCodes.update({ ...current, state: 'setting', failureReason: null, updatedAt: now });
      }
    }
  }

  /** The stay's code on a lock comes off (or, never written, is done with). */
  takeOff(holderId: string, now: number): void {
    const current = this.deps.doorCodes.currentFor(holderId);
    if (current === undefined) return;
    if (current.state === 'waiting') this.deps.doorCodes.update({ ...current, state: 'removed', code: null, failureReason: null, updatedAt: now });
    else if (current.state === 'setting' || current.state === 'set' || current.state === 'failed') {
      this.deps.doorCodes.update({ ...current, state: 'removing', failureReason: null, updatedAt: now });
    }
  }
}
