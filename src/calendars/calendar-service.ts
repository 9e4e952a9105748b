/**
 * Rental calendars (docs/design.md §12): an owner's iCal feed for one or more locks, whose stays
 * become door codes from check-in to check-out. This side owns the calendars and their stays: it
 * adds, changes and removes calendars for the locks' owners, refreshes each feed (every 10 minutes
 * and on demand) and records which codes should exist. Writing the codes onto the locks is the
 * door-code sync engine's (src/locks/door-code-sync.ts), as for eKeys: the API never says `set` or
 * `removed` before the lock did.
 */
import type { Clock } from '../domain/clock.js';
import { bookingState, CLOCK_TIME, CODE_HORIZON_MS, stayWindow, type BookingState } from '../domain/booking-window.js';
import { generateDoorCode, type DoorCodeRules } from '../domain/door-code.js';
import { newStayHolderId } from '../domain/door-code-holder.js';
import { doorCodeWindow } from '../domain/door-code-window.js';
import type { EKeyRole } from '../domain/ekey-permissions.js';
import { badRequest, describeError, forbidden, notFound, ServiceError } from '../domain/errors.js';
import { newId, normalizeId } from '../domain/ids.js';
import { readFeed, type FeedStay } from '../domain/ical-stays.js';
import type { Logger } from '../logger.js';
import type { BookingRecord, CalendarRecord, CalendarRepository } from '../store/calendar-repository.js';
import type { DoorCodeRepository, DoorCodeState } from '../store/door-code-repository.js';
import type { LockRecord } from '../store/lock-repository.js';
import { fetchFeed, isFeedUrl, type FeedFetchResult, type FeedValidators } from './feed-fetch.js';
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

export interface CalendarInput {
  url?: string | null;
  lock_ids?: string[] | null;
  check_in?: string | null;
  check_out?: string | null;
  door_code?: boolean | null;
}

export interface CalendarServiceDependencies {
  calendars: CalendarRepository;
  doorCodes: DoorCodeRepository;
  locks: { findById(id: string): LockRecord | undefined };
  holders: StayCodeHolders;
  /** The caller's role on a lock now (the eKey service's), null when they hold no usable key. */
  roleOn: (userId: string, lockId: string, atMs: number) => EKeyRole | null;
  /** The rules of a lock's keypad (its family's), undefined for a family that takes no codes. */
  keypadRulesOf: (lock: LockRecord) => DoorCodeRules | undefined;
  clock: Clock;
  logger: Logger;
  transaction: <T>(work: () => T) => T;
  /** Fetches a feed (tests may bound it tighter); default: {@link fetchFeed}. */
  fetch?: (url: string, validators: FeedValidators) => Promise<FeedFetchResult>;
  /** How often every calendar is refreshed, ms (default 10 minutes). */
  refreshIntervalMs?: number;
}

export const DEFAULT_CHECK_IN = '16:00';
export const DEFAULT_CHECK_OUT = '11:00';
const REFRESH_INTERVAL_MS = 10 * 60_000;
/** Recurring events are read this far ahead. */
const RECURRENCE_HORIZON_MS = 400 * 24 * 60 * 60_000;
const MAX_URL_LENGTH = 2048;
/** Stays over this long ago (and off every lock) are dropped from the list. */
const FORGET_AFTER_MS = 60 * 24 * 60 * 60_000;

export class CalendarService {
  private readonly running = new Map<string, Promise<void>>();
  private readonly listeners = new Set<(lockId: string) => void>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: CalendarServiceDependencies) {}

  /** Called with each lock whose codes should be looked at again (the door-code sync engine listens). */
  onCodesChanged(listener: (lockId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Refreshes every calendar now and every 10 minutes. Idempotent. */
  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      void this.refreshAll();
    }, this.deps.refreshIntervalMs ?? REFRESH_INTERVAL_MS);
    this.timer.unref();
    void this.refreshAll();
  }

  /** Stops the timer and waits for refreshes under way (each is bounded by the fetch's 10 s). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }

  /** Refreshes every calendar (the timer's work; tests call it after moving their clock). Never rejects. */
  async refreshAll(): Promise<void> {
    let ids: string[];
    try {
      ids = this.deps.calendars.list().map((calendar) => calendar.id);
    } catch (error) {
      this.deps.logger.error(`Bookings: could not read the calendars: ${describeError(error)}`);
      return;
    }
    await Promise.all(ids.map((id) => this.refreshNow(id)));
  }

  // ---- the API (owners of the calendar's locks) ----

  /** `GET /calendars`: the calendars of locks the caller owns. */
  list(callerId: string): CalendarView[] {
    const now = this.deps.clock.now();
    return this.deps.calendars
      .list()
      .filter((calendar) => this.visibleTo(callerId, calendar, now))
      .map((calendar) => this.view(calendar, now));
  }

  /** `GET /calendars/{id}`; 404 for a calendar of no lock the caller owns. */
  get(callerId: string, id: string): CalendarView {
    return this.view(this.visible(callerId, id), this.deps.clock.now());
  }

  /** `POST /calendars`: stores the calendar, reads its feed once, answers with what it found. */
  async create(callerId: string, input: CalendarInput): Promise<CalendarView> {
    const now = this.deps.clock.now();
    if (input.url === undefined || input.url === null) throw badRequest('validation_failed', 'The calendar link is missing.', [{ field: '/url', message: 'required' }]);
    if (input.lock_ids === undefined || input.lock_ids === null) throw badRequest('validation_failed', 'Say which locks the stays open.', [{ field: '/lock_ids', message: 'required' }]);
    const calendar: CalendarRecord = {
      id: newId(),
      url: this.checkedUrl(input.url),
      lockIds: this.checkedLocks(callerId, input.lock_ids, now),
      checkIn: checkedTime(input.check_in ?? DEFAULT_CHECK_IN, '/check_in'),
      checkOut: checkedTime(input.check_out ?? DEFAULT_CHECK_OUT, '/check_out'),
      doorCode: input.door_code ?? true,
      state: 'ok',
      lastRefreshAt: null,
      lastError: null,
      etag: null,
      lastModified: null,
      emptyFetches: 0,
      createdBy: normalizeId(callerId),
      createdAt: now,
      updatedAt: now,
    };
    this.checkKeypads(calendar);
    this.deps.transaction(() => {
      this.deps.calendars.insert(calendar);
    });
    this.deps.logger.info(`Bookings: a calendar was added for ${this.lockNames(calendar)}.`);
    await this.refreshNow(calendar.id);
    return this.get(callerId, calendar.id);
  }

  /** `PUT /calendars/{id}`: null resets a property to its default; a new link is read at once. */
  async update(callerId: string, id: string, input: CalendarInput): Promise<CalendarView> {
    const now = this.deps.clock.now();
    const before = this.visible(callerId, id);
    if (input.url === null) throw badRequest('validation_failed', 'The calendar link cannot be removed; delete the calendar instead.', [{ field: '/url', message: 'must not be null' }]);
    if (input.lock_ids === null) throw badRequest('validation_failed', 'A calendar opens at least one lock.', [{ field: '/lock_ids', message: 'must not be null' }]);
    const after: CalendarRecord = {
      ...before,
      url: input.url === undefined ? before.url : this.checkedUrl(input.url),
      lockIds: input.lock_ids === undefined ? before.lockIds : this.checkedLocks(callerId, input.lock_ids, now),
      checkIn: input.check_in === undefined ? before.checkIn : checkedTime(input.check_in ?? DEFAULT_CHECK_IN, '/check_in'),
      checkOut: input.check_out === undefined ? before.checkOut : checkedTime(input.check_out ?? DEFAULT_CHECK_OUT, '/check_out'),
      doorCode: input.door_code === undefined ? before.doorCode : (input.door_code ?? true),
      updatedAt: now,
    };
    this.checkKeypads(after);
    const newLink = after.url !== before.url;
    if (newLink) Object.assign(after, { etag: null, lastModified: null, emptyFetches: 0 });
    const timesChanged = after.checkIn !== before.checkIn || after.checkOut !== before.checkOut;
    this.deps.transaction(() => {
      this.deps.calendars.update(after);
      // New times move every stay's window: the lock must confirm the rewritten ones.
      if (timesChanged) for (const booking of this.deps.calendars.bookings(after.id)) this.rewriteWindows(booking, now);
      this.applyCodes(after, now);
    });
    this.codesChanged(new Set([...before.lockIds, ...after.lockIds]));
    if (newLink) await this.refreshNow(after.id);
    return this.get(callerId, id);
  }

  /** `DELETE /calendars/{id}`: the calendar and its stays go; every code it made comes off its lock. */
  remove(callerId: string, id: string): void {
    const calendar = this.visible(callerId, id);
    const now = this.deps.clock.now();
    this.deps.transaction(() => {
      for (const booking of this.deps.calendars.bookings(calendar.id)) {
        for (const link of this.deps.calendars.linksOf(booking.id)) this.takeOff(link.holderId, now);
      }
      this.deps.calendars.delete(calendar.id);
    });
    this.deps.logger.info(`Bookings: the calendar of ${this.lockNames(calendar)} was removed; its door codes are being taken off.`);
    this.codesChanged(new Set(calendar.lockIds));
  }

  /** `POST /calendars/{id}/refresh`: reads the feed now; answers after it. */
  async refresh(callerId: string, id: string): Promise<CalendarView> {
    this.visible(callerId, id);
    await this.refreshNow(normalizeId(id));
    return this.get(callerId, id);
  }

  /** Calendars and their states for the settings page (no links: they are secrets). */
  summaries(): { id: string; locks: string[]; state: 'ok' | 'failing'; last_refresh_at: string | null; last_error: string | null; bookings: number }[] {
    const now = this.deps.clock.now();
    return this.deps.calendars.list().map((calendar) => {
      const view = this.view(calendar, now);
      return {
        id: calendar.id,
        locks: calendar.lockIds.map((lockId) => this.deps.locks.findById(lockId)?.name ?? lockId),
        state: calendar.state,
        last_refresh_at: view.last_refresh_at,
        last_error: calendar.lastError,
        bookings: view.bookings.filter((booking) => booking.state === 'upcoming' || booking.state === 'active').length,
      };
    });
  }

  // ---- refresh ----

  /** One refresh of a calendar at a time; a second ask waits for the one under way and then runs. */
  private refreshNow(id: string): Promise<void> {
    const previous = this.running.get(id) ?? Promise.resolve();
    const run = previous.then(() => this.refreshOnce(id));
    const tracked = run.finally(() => {
      if (this.running.get(id) === tracked) this.running.delete(id);
    });
    this.running.set(id, tracked);
    return tracked;
  }

  private async refreshOnce(id: string): Promise<void> {
    const calendar = this.deps.calendars.findById(id);
    if (calendar === undefined) return;
    const fetcher = this.deps.fetch ?? ((url: string, validators: FeedValidators) => fetchFeed(url, validators));
    const result = await fetcher(calendar.url, { etag: calendar.etag, lastModified: calendar.lastModified });
    const now = this.deps.clock.now();
    let touched: Set<string> = new Set();
    try {
      touched = this.deps.transaction(() => {
        const current = this.deps.calendars.findById(id);
        // Deleted, or given another link while this one was read: this answer is not its.
        if (current === undefined || current.url !== calendar.url) return new Set<string>();
        return this.apply(current, result, now);
      });
    } catch (error) {
      this.deps.logger.error(`Bookings: the calendar of ${this.lockNames(calendar)} could not be stored: ${describeError(error)}`);
      return;
    }
    this.codesChanged(touched);
  }

  /** What a fetch means for a calendar (inside the refresh's transaction); the locks to look at again. */
  private apply(calendar: CalendarRecord, result: FeedFetchResult, now: number): Set<string> {
    const locks = new Set(calendar.lockIds);
    if (result.kind === 'failed') {
      this.fail(calendar, result.error, now);
      return locks;
    }
    if (result.kind === 'not_modified') {
      this.deps.calendars.update({ ...calendar, state: 'ok', lastError: null, lastRefreshAt: now, updatedAt: now });
      this.applyCodes(calendar, now);
      return locks;
    }
    const zone = this.deps.locks.findById(calendar.lockIds[0] ?? '')?.timeZone ?? 'UTC';
    const reading = readFeed(result.text, { fallbackZone: zone, fromMs: now - RECURRENCE_HORIZON_MS, untilMs: now + RECURRENCE_HORIZON_MS });
    if (!reading.ok) {
      this.fail(calendar, reading.error, now);
      return locks;
    }
    const bookings = this.deps.calendars.bookings(calendar.id);
    const live = bookings.some((booking) => booking.cancelledAt === null && this.windowOf(booking, calendar).endsAt > now);
    if (reading.events === 0 && live && calendar.emptyFetches === 0) {
      // Feeds sometimes come back empty: believed only on the second refresh in a row (validators not kept, so the next read is whole).
      this.deps.calendars.update({ ...calendar, state: 'ok', lastError: null, lastRefreshAt: now, emptyFetches: 1, updatedAt: now });
      this.deps.logger.warn(`Bookings: the calendar of ${this.lockNames(calendar)} came back empty; its stays are kept until the next refresh says the same.`);
      return new Set();
    }
    this.reconcile(calendar, bookings, reading.stays, now);
    const next: CalendarRecord = {
      ...calendar,
      state: 'ok',
      lastError: null,
      lastRefreshAt: now,
      etag: result.validators.etag,
      lastModified: result.validators.lastModified,
      emptyFetches: reading.events === 0 ? calendar.emptyFetches + 1 : 0,
      updatedAt: now,
    };
    this.deps.calendars.update(next);
    this.applyCodes(next, now);
    return locks;
  }

  private fail(calendar: CalendarRecord, error: string, now: number): void {
    this.deps.calendars.update({ ...calendar, state: 'failing', lastError: error, lastRefreshAt: now, updatedAt: now });
    this.deps.logger.warn(`Bookings: the calendar of ${this.lockNames(calendar)} could not be refreshed: ${error}`);
  }

  /** Stays of a good feed: new ones stored, moved ones rewritten (same code), missing ones cancelled unless already over. */
  private reconcile(calendar: CalendarRecord, bookings: BookingRecord[], stays: FeedStay[], now: number): void {
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
        if (this.windowOf(booking, calendar).endsAt <= now) continue;
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
      if (this.windowOf(booking, calendar).endsAt <= now) continue;
      this.deps.calendars.updateBookingRecord({ ...booking, cancelledAt: now, updatedAt: now });
      for (const link of this.deps.calendars.linksOf(booking.id)) this.takeOff(link.holderId, now);
    }
  }

  /** A stay over (or cancelled) for more than 60 days whose codes are all off the locks: no longer listed. */
  private forgettable(booking: BookingRecord, calendar: CalendarRecord, now: number): boolean {
    const over = booking.cancelledAt ?? this.windowOf(booking, calendar).endsAt;
    if (now - over < FORGET_AFTER_MS) return false;
    return this.deps.calendars.linksOf(booking.id).every((link) => {
      const state = this.deps.doorCodes.currentFor(link.holderId)?.state;
      return state === undefined || state === 'removed';
    });
  }

  /** Every stay that should hold a code on a lock gets one (a fresh code; `waiting` while the stay is more than 30 days away). */
  private applyCodes(calendar: CalendarRecord, now: number): void {
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
  private rewriteWindows(booking: BookingRecord, now: number): void {
    for (const link of this.deps.calendars.linksOf(booking.id)) {
      const current = this.deps.doorCodes.currentFor(link.holderId);
      if (current !== undefined && (current.state === 'set' || current.state === 'failed')) {
        this.deps.doorCodes.update({ ...current, state: 'setting', failureReason: null, updatedAt: now });
      }
    }
  }

  /** The stay's code on a lock comes off (or, never written, is done with). */
  private takeOff(holderId: string, now: number): void {
    const current = this.deps.doorCodes.currentFor(holderId);
    if (current === undefined) return;
    if (current.state === 'waiting') this.deps.doorCodes.update({ ...current, state: 'removed', code: null, failureReason: null, updatedAt: now });
    else if (current.state === 'setting' || current.state === 'set' || current.state === 'failed') {
      this.deps.doorCodes.update({ ...current, state: 'removing', failureReason: null, updatedAt: now });
    }
  }

  private codesChanged(lockIds: Iterable<string>): void {
    for (const lockId of lockIds) {
      for (const listener of this.listeners) {
        try {
          listener(lockId);
        } catch (error) {
          this.deps.logger.error(`Bookings: a listener failed: ${describeError(error)}`);
        }
      }
    }
  }

  // ---- views and checks ----

  private view(calendar: CalendarRecord, now: number): CalendarView {
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
      bookings: this.deps.calendars.bookings(calendar.id).map((booking) => this.bookingView(calendar, booking, now)),
    };
  }

  private bookingView(calendar: CalendarRecord, booking: BookingRecord, now: number): BookingView {
    const window = this.windowOf(booking, calendar);
    const codes: BookingDoorCodeView[] = [];
    for (const link of this.deps.calendars.linksOf(booking.id)) {
      // A lock taken out of the calendar is no longer its (its code comes off all the same).
      if (!calendar.lockIds.includes(link.lockId)) continue;
      const row = this.deps.doorCodes.currentFor(link.holderId);
      if (row === undefined) continue;
      const holder = this.deps.holders.findById(link.holderId);
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

  /** A stay's window on the clock of the calendar's first lock (each lock's code uses its own lock's zone). */
  private windowOf(booking: BookingRecord, calendar: CalendarRecord): { startsAt: number; endsAt: number } {
    const zone = this.deps.locks.findById(calendar.lockIds[0] ?? '')?.timeZone ?? 'UTC';
    return stayWindow(booking, calendar.checkIn, calendar.checkOut, zone);
  }

  private visibleTo(callerId: string, calendar: CalendarRecord, now: number): boolean {
    return calendar.lockIds.some((lockId) => this.deps.roleOn(callerId, lockId, now) === 'owner');
  }

  private visible(callerId: string, id: string): CalendarRecord {
    const calendar = this.deps.calendars.findById(normalizeId(id));
    if (calendar === undefined || !this.visibleTo(callerId, calendar, this.deps.clock.now())) throw notFound('calendar');
    return calendar;
  }

  private checkedUrl(url: string): string {
    const trimmed = url.trim();
    if (trimmed.length > MAX_URL_LENGTH || !isFeedUrl(trimmed)) {
      throw badRequest('invalid_calendar_url', 'The calendar link must be a full http:// or https:// address.', [{ field: '/url', message: 'not an http or https link' }]);
    }
    return trimmed;
  }

  /** Locks the caller owns, each once: 404 for a lock they cannot see, 403 for one they hold but do not own. */
  private checkedLocks(callerId: string, lockIds: readonly string[], now: number): string[] {
    const ids = [...new Set(lockIds.map(normalizeId))];
    if (ids.length === 0) throw badRequest('validation_failed', 'A calendar opens at least one lock.', [{ field: '/lock_ids', message: 'must hold at least one lock' }]);
    for (const lockId of ids) {
      const role = this.deps.locks.findById(lockId) === undefined ? null : this.deps.roleOn(callerId, lockId, now);
      if (role === null) throw notFound('lock');
      if (role !== 'owner') throw forbidden('not_lock_owner', 'Only an owner of the lock can connect a calendar to it.');
    }
    return ids;
  }

  /** 400 `lock_has_no_keypad` for door codes on a lock that takes none. */
  private checkKeypads(calendar: CalendarRecord): void {
    if (!calendar.doorCode) return;
    for (const lockId of calendar.lockIds) {
      const lock = this.deps.locks.findById(lockId);
      if (lock !== undefined && (!lock.keypad || this.deps.keypadRulesOf(lock) === undefined)) {
        throw new ServiceError(400, 'lock_has_no_keypad', `${lock.name} has no keypad, so its stays cannot get door codes.`, [{ field: '/door_code', message: `${lock.name} has no keypad` }]);
      }
    }
  }

  private lockNames(calendar: CalendarRecord): string {
    return calendar.lockIds.map((lockId) => this.deps.locks.findById(lockId)?.name ?? lockId).join(', ');
  }
}

function checkedTime(value: string, field: string): string {
  if (!CLOCK_TIME.test(value)) throw badRequest('validation_failed', 'Times are written as HH:MM, 24-hour (e.g. 16:00).', [{ field, message: 'not a time of day HH:MM' }]);
  return value;
}
