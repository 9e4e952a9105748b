import type { SqliteDatabase } from './database.js';

/** A rental calendar (docs/design.md §12). `url` is a secret of its owner (it opens the host's calendar): never logged. */
export interface CalendarRecord {
  id: string;
  url: string;
  lockIds: string[];
  /** `HH:MM` on each lock's clock. */
  checkIn: string;
  checkOut: string;
  doorCode: boolean;
  state: 'ok' | 'failing';
  lastRefreshAt: number | null;
  lastError: string | null;
  etag: string | null;
  lastModified: string | null;
  /** Good answers in a row that held no event at all. */
  emptyFetches: number;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A stay: check-in and check-out days (`YYYY-MM-DD`, an all-day event) or instants (a timed event). */
export interface BookingRecord {
  id: string;
  calendarId: string;
  uid: string;
  summary: string;
  startDate: string | null;
  endDate: string | null;
  startsAt: number | null;
  endsAt: number | null;
  cancelledAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A stay's door code on one lock: `holderId` is the `ekey_id` of its rows in door_codes. */
export interface BookingCodeLink {
  holderId: string;
  bookingId: string;
  lockId: string;
}

interface CalendarRow {
  id: string;
  url: string;
  check_in: string;
  check_out: string;
  door_code: number;
  state: 'ok' | 'failing';
  last_refresh_at: number | null;
  last_error: string | null;
  etag: string | null;
  last_modified: string | null;
  empty_fetches: number;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

interface BookingRow {
  id: string;
  calendar_id: string;
  uid: string;
  summary: string;
  start_date: string | null;
  end_date: string | null;
  starts_at: number | null;
  ends_at: number | null;
  cancelled_at: number | null;
  created_at: number;
  updated_at: number;
}

const toBooking = (row: BookingRow): BookingRecord => ({
  id: row.id,
  calendarId: row.calendar_id,
  uid: row.uid,
  summary: row.summary,
  startDate: row.start_date,
  endDate: row.end_date,
  startsAt: row.starts_at,
  endsAt: row.ends_at,
  cancelledAt: row.cancelled_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The tables of migration 13: calendars, their locks, their bookings and the bookings' code holders. */
export class CalendarRepository {
  private readonly byId;
  private readonly all;
  private readonly locksOf;
  private readonly byLock;
  private readonly insertCalendar;
  private readonly updateCalendar;
  private readonly deleteCalendar;
  private readonly deleteLocks;
  private readonly insertLock;
  private readonly bookingsOf;
  private readonly bookingById;
  private readonly insertBooking;
  private readonly updateBooking;
  private readonly linkByHolder;
  private readonly linkOf;
  private readonly linksOfBooking;
  private readonly insertLink;
  private readonly deleteBookingStatement;

  constructor(db: SqliteDatabase) {
    this.byId = db.prepare<[string], CalendarRow>('SELECT * FROM calendars WHERE id = ?');
    this.all = db.prepare<[], CalendarRow>('SELECT * FROM calendars ORDER BY created_at, id');
    this.locksOf = db.prepare<[string], { lock_id: string }>('SELECT lock_id FROM calendar_locks WHERE calendar_id = ? ORDER BY position');
    this.byLock = db.prepare<[string], { calendar_id: string }>('SELECT calendar_id FROM calendar_locks WHERE lock_id = ?');
    this.insertCalendar = db.prepare(
      `INSERT INTO calendars (id, url, check_in, check_out, door_code, state, last_refresh_at, last_error, etag, last_modified, empty_fetches, created_by, created_at, updated_at)
       VALUES (@id, @url, @check_in, @check_out, @door_code, @state, @last_refresh_at, @last_error, @etag, @last_modified, @empty_fetches, @created_by, @created_at, @updated_at)`,
    );
    this.updateCalendar = db.prepare(
      `UPDATE calendars SET url = @url, check_in = @check_in, check_out = @check_out, door_code = @door_code, state = @state,
         last_refresh_at = @last_refresh_at, last_error = @last_error, etag = @etag, last_modified = @last_modified,
         empty_fetches = @empty_fetches, updated_at = @updated_at WHERE id = @id`,
    );
    this.deleteCalendar = db.prepare<[string]>('DELETE FROM calendars WHERE id = ?');
    this.deleteLocks = db.prepare<[string]>('DELETE FROM calendar_locks WHERE calendar_id = ?');
    this.insertLock = db.prepare<[string, string, number]>('INSERT INTO calendar_locks (calendar_id, lock_id, position) VALUES (?, ?, ?)');
    this.bookingsOf = db.prepare<[string], BookingRow>(
      'SELECT * FROM bookings WHERE calendar_id = ? ORDER BY COALESCE(starts_at, 0), start_date, uid',
    );
    this.bookingById = db.prepare<[string], BookingRow>('SELECT * FROM bookings WHERE id = ?');
    this.insertBooking = db.prepare(
      `INSERT INTO bookings (id, calendar_id, uid, summary, start_date, end_date, starts_at, ends_at, cancelled_at, created_at, updated_at)
       VALUES (@id, @calendar_id, @uid, @summary, @start_date, @end_date, @starts_at, @ends_at, @cancelled_at, @created_at, @updated_at)`,
    );
    this.updateBooking = db.prepare(
      `UPDATE bookings SET summary = @summary, start_date = @start_date, end_date = @end_date, starts_at = @starts_at, ends_at = @ends_at,
         cancelled_at = @cancelled_at, updated_at = @updated_at WHERE id = @id`,
    );
    this.linkByHolder = db.prepare<[string], { holder_id: string; booking_id: string; lock_id: string }>('SELECT * FROM booking_door_codes WHERE holder_id = ?');
    this.linkOf = db.prepare<[string, string], { holder_id: string; booking_id: string; lock_id: string }>(
      'SELECT * FROM booking_door_codes WHERE booking_id = ? AND lock_id = ?',
    );
    this.linksOfBooking = db.prepare<[string], { holder_id: string; booking_id: string; lock_id: string }>('SELECT * FROM booking_door_codes WHERE booking_id = ?');
    this.deleteBookingStatement = db.prepare<[string]>('DELETE FROM bookings WHERE id = ?');
    this.insertLink = db.prepare<[string, string, string]>('INSERT INTO booking_door_codes (holder_id, booking_id, lock_id) VALUES (?, ?, ?)');
  }

  findById(id: string): CalendarRecord | undefined {
    const row = this.byId.get(id.toLowerCase());
    return row === undefined ? undefined : this.toCalendar(row);
  }

  list(): CalendarRecord[] {
    return this.all.all().map((row) => this.toCalendar(row));
  }

  /** Ids of the calendars that open this lock. */
  calendarsOfLock(lockId: string): string[] {
    return this.byLock.all(lockId.toLowerCase()).map((row) => row.calendar_id);
  }

  insert(calendar: CalendarRecord): void {
    this.insertCalendar.run(toCalendarRow(calendar));
    this.setLocks(calendar.id, calendar.lockIds);
  }

  update(calendar: CalendarRecord): void {
    this.updateCalendar.run(toCalendarRow(calendar));
    this.setLocks(calendar.id, calendar.lockIds);
  }

  /** Removes the calendar and its bookings (the door codes' rows stay: the sync engine takes the codes off). */
  delete(id: string): void {
    this.deleteCalendar.run(id.toLowerCase());
  }

  bookings(calendarId: string): BookingRecord[] {
    return this.bookingsOf.all(calendarId.toLowerCase()).map(toBooking);
  }

  findBooking(id: string): BookingRecord | undefined {
    const row = this.bookingById.get(id);
    return row === undefined ? undefined : toBooking(row);
  }

  insertBookingRecord(booking: BookingRecord): void {
    this.insertBooking.run(toBookingRow(booking));
  }

  updateBookingRecord(booking: BookingRecord): void {
    this.updateBooking.run(toBookingRow(booking));
  }

  /** Forgets a stay (and its code holders; their door_codes rows stay, as every removed code's does). */
  deleteBooking(id: string): void {
    this.deleteBookingStatement.run(id);
  }

  /** The stay and lock of a door-code holder id, or undefined when it is not a stay's. */
  linkOfHolder(holderId: string): BookingCodeLink | undefined {
    const row = this.linkByHolder.get(holderId.toLowerCase());
    return row === undefined ? undefined : { holderId: row.holder_id, bookingId: row.booking_id, lockId: row.lock_id };
  }

  /** The holder id of a stay's code on a lock, made on first use. */
  holderFor(bookingId: string, lockId: string, newHolderId: () => string): string {
    const found = this.linkOf.get(bookingId, lockId.toLowerCase());
    if (found !== undefined) return found.holder_id;
    const holderId = newHolderId().toLowerCase();
    this.insertLink.run(holderId, bookingId, lockId.toLowerCase());
    return holderId;
  }

  /** Every code holder of a stay, by lock. */
  linksOf(bookingId: string): BookingCodeLink[] {
    return this.linksOfBooking.all(bookingId).map((row) => ({ holderId: row.holder_id, bookingId: row.booking_id, lockId: row.lock_id }));
  }

  private setLocks(calendarId: string, lockIds: readonly string[]): void {
    this.deleteLocks.run(calendarId);
    lockIds.forEach((lockId, position) => this.insertLock.run(calendarId, lockId.toLowerCase(), position));
  }

  private toCalendar(row: CalendarRow): CalendarRecord {
    return {
      id: row.id,
      url: row.url,
      lockIds: this.locksOf.all(row.id).map((lock) => lock.lock_id),
      checkIn: row.check_in,
      checkOut: row.check_out,
      doorCode: row.door_code === 1,
      state: row.state,
      lastRefreshAt: row.last_refresh_at,
      lastError: row.last_error,
      etag: row.etag,
      lastModified: row.last_modified,
      emptyFetches: row.empty_fetches,
      createdBy: row.created_by,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}

function toCalendarRow(calendar: CalendarRecord): CalendarRow {
  return {
    id: calendar.id.toLowerCase(),
    url: calendar.url,
    check_in: calendar.checkIn,
    check_out: calendar.checkOut,
    door_code: calendar.doorCode ? 1 : 0,
    state: calendar.state,
    last_refresh_at: calendar.lastRefreshAt,
    last_error: calendar.lastError,
    etag: calendar.etag,
    last_modified: calendar.lastModified,
    empty_fetches: calendar.emptyFetches,
    created_by: calendar.createdBy,
    created_at: calendar.createdAt,
    updated_at: calendar.updatedAt,
  };
}

function toBookingRow(booking: BookingRecord): BookingRow {
  return {
    id: booking.id,
    calendar_id: booking.calendarId.toLowerCase(),
    uid: booking.uid,
    summary: booking.summary,
    start_date: booking.startDate,
    end_date: booking.endDate,
    starts_at: booking.startsAt,
    ends_at: booking.endsAt,
    cancelled_at: booking.cancelledAt,
    created_at: booking.createdAt,
    updated_at: booking.updatedAt,
  };
}
