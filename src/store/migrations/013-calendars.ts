import type { Migration } from '../migration.js';

/**
 * Bookings (docs/design.md §12): rental calendars whose stays become door codes.
 * - `calendars`: one iCal feed with its check-in and check-out times, the state of its last refresh
 *   and the validators of the last good answer (ETag, Last-Modified) for conditional requests;
 *   `empty_fetches` counts good answers in a row that held no event at all (an empty feed is
 *   believed only on the second). `created_by`: the owner who added it.
 * - `calendar_locks`: the locks a calendar's stays open, in the order given.
 * - `bookings`: one row per stay (an event that is not a block) by its UID: its check-in and
 *   check-out days (an all-day event, placed at the calendar's times in each lock's zone) or its
 *   instants (a timed event); `cancelled_at` once it left a good feed before it ended.
 * - `booking_door_codes`: a stay's door code on one lock. Its `holder_id` is what the door_codes
 *   table (migration 9) calls `ekey_id`: the holder of the code rows, an eKey's id or this id, so the
 *   codes of stays follow the same lifecycle (`setting` → `set`, `removing` → `removed`, only once
 *   the lock confirmed).
 * Independent of every table after migration 11 but these.
 */
export const calendars: Migration = {
  version: 13,
  name: 'calendars',
  sql: `
    CREATE TABLE calendars (
      id              TEXT PRIMARY KEY,
      url             TEXT NOT NULL,
      check_in        TEXT NOT NULL,
      check_out       TEXT NOT NULL,
      door_code       INTEGER NOT NULL CHECK (door_code IN (0, 1)),
      state           TEXT NOT NULL CHECK (state IN ('ok', 'failing')),
      last_refresh_at INTEGER,
      last_error      TEXT,
      etag            TEXT,
      last_modified   TEXT,
      empty_fetches   INTEGER NOT NULL DEFAULT 0,
      created_by      TEXT REFERENCES users(id) ON DELETE SET NULL,
      created_at      INTEGER NOT NULL,
      updated_at      INTEGER NOT NULL
    );
    CREATE TABLE calendar_locks (
      calendar_id TEXT NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
      lock_id     TEXT NOT NULL,
      position    INTEGER NOT NULL,
      PRIMARY KEY (calendar_id, lock_id)
    );
    CREATE INDEX calendar_locks_by_lock ON calendar_locks (lock_id);
    CREATE TABLE bookings (
      id           TEXT PRIMARY KEY,
      calendar_id  TEXT NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
      uid          TEXT NOT NULL,
      summary      TEXT NOT NULL,
      start_date   TEXT,
      end_date     TEXT,
      starts_at    INTEGER,
      ends_at      INTEGER,
      cancelled_at INTEGER,
      created_at   INTEGER NOT NULL,
      updated_at   INTEGER NOT NULL,
      UNIQUE (calendar_id, uid),
      CHECK ((start_date IS NOT NULL AND end_date IS NOT NULL) OR (starts_at IS NOT NULL AND ends_at IS NOT NULL))
    );
    CREATE TABLE booking_door_codes (
      holder_id  TEXT PRIMARY KEY,
      booking_id TEXT NOT NULL REFERENCES bookings(id) ON DELETE CASCADE,
      lock_id    TEXT NOT NULL,
      UNIQUE (booking_id, lock_id)
    );
  `,
};
