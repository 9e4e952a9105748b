/**
 * Rental calendars (docs/design.md §12): an owner's iCal feed for one or more locks, whose stays
 * become door codes from check-in to check-out. This side owns the calendars and their stays: it
 * adds, changes and removes calendars for the locks' owners, refreshes each feed (every 10 minutes
 * and on demand) and records which codes should exist. Writing the codes onto the locks is the
 * door-code sync engine's (src/locks/door-code-sync.ts), as for eKeys: the API never says `set` or
 * `removed` before the lock did.
 */
import type { Clock } from '../domain/clock.js';
import { CLOCK_TIME } from '../domain/booking-window.js';
import type { DoorCodeRules } from '../domain/door-code.js';
import type { EKeyRole } from '../domain/ekey-permissions.js';
import { badRequest, describeError, forbidden, notFound, ServiceError } from '../domain/errors.js';
import { newId, normalizeId } from '../domain/ids.js';
import { readFeed } from '../domain/ical-stays.js';
import type { Logger } from '../logger.js';
import type { CalendarRecord, CalendarRepository } from '../store/calendar-repository.js';
import type { DoorCodeRepository } from '../store/door-code-repository.js';
import type { LockRecord } from '../store/lock-repository.js';
import { calendarView, type CalendarView } from './calendar-view.js';
import { fetchFeed, isFeedUrl, type FeedFetchResult, type FeedValidators } from './feed-fetch.js';
import type { StayCodeHolders } from './stay-code-holders.js';
import { StayCodes, stayWindowOf } from './stay-codes.js';

export type { BookingDoorCodeView, BookingView, CalendarView } from './calendar-view.js';

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

export class CalendarService {
  private readonly running = new Map<string, Promise<void>>();
  private readonly listeners = new Set<(lockId: string) => void>();
  private timer: NodeJS.Timeout | null = null;

  private readonly codes: StayCodes;

  constructor(private readonly deps: CalendarServiceDependencies) {
    this.codes = new StayCodes(deps);
  }

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
      .map((calendar) => calendarView(calendar, now, this.deps));
  }

  /** `GET /calendars/{id}`; 404 for a calendar of no lock the caller owns. */
  get(callerId: string, id: string): CalendarView {
    return calendarView(this.visible(callerId, id), this.deps.clock.now(), this.deps);
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
      if (timesChanged) for (const booking of this.deps.calendars.bookings(after.id)) this.codes.rewriteWindows(booking, now);
      this.codes.applyCodes(after, now);
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
        for (const link of this.deps.calendars.linksOf(booking.id)) this.codes.takeOff(link.holderId, now);
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
      const view = calendarView(calendar, now, this.deps);
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
      this.codes.applyCodes(calendar, now);
      return locks;
    }
    const zone = this.deps.locks.findById(calendar.lockIds[0] ?? '')?.timeZone ?? 'UTC';
    const reading = readFeed(result.text, { fallbackZone: zone, fromMs: now - RECURRENCE_HORIZON_MS, untilMs: now + RECURRENCE_HORIZON_MS });
    if (!reading.ok) {
      this.fail(calendar, reading.error, now);
      return locks;
    }
    const bookings = this.deps.calendars.bookings(calendar.id);
    const live = bookings.some((booking) => booking.cancelledAt === null && stayWindowOf(booking, calendar, this.deps.locks).endsAt > now);
    if (reading.events === 0 && live && calendar.emptyFetches === 0) {
      // Feeds sometimes come back empty: believed only on the second refresh in a row (validators not kept, so the next read is whole).
      this.deps.calendars.update({ ...calendar, state: 'ok', lastError: null, lastRefreshAt: now, emptyFetches: 1, updatedAt: now });
      this.deps.logger.warn(`Bookings: the calendar of ${this.lockNames(calendar)} came back empty; its stays are kept until the next refresh says the same.`);
      return new Set();
    }
    this.codes.reconcile(calendar, bookings, reading.stays, now);
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
    this.codes.applyCodes(next, now);
    return locks;
  }

  private fail(calendar: CalendarRecord, error: string, now: number): void {
    this.deps.calendars.update({ ...calendar, state: 'failing', lastError: error, lastRefreshAt: now, updatedAt: now });
    this.deps.logger.warn(`Bookings: the calendar of ${this.lockNames(calendar)} could not be refreshed: ${error}`);
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
