import type { Migration } from '../migration.js';

/**
 * Lock events (docs/design.md §3 Events) and the counters that make `metadata.count` cheap.
 *
 * - `seq` is the keyset: an ever-growing integer (AUTOINCREMENT, so a pruned id is never reused)
 *   in recording order; pages are `seq < cursor ORDER BY seq DESC LIMIT n`, never OFFSET, one
 *   range over (lock, seq) for the whole lock, else one per type over (lock, type, seq) or
 *   (lock, performer, type, seq), merged. Few indexes on
 *   purpose: each one costs durable ingest throughput. Age pruning walks the primary key (seq and
 *   recorded_at grow together), so no time index is needed.
 * - `id` is the public UUID; cursors in URLs are event ids, looked up to their `seq`.
 * - `lock_sequence` is the lock's Activity sequence: unique per lock, so a record read back after
 *   a reconnect is never stored twice. `command_id` is unique for the same reason.
 * - `lock_event_counts` holds one row per (lock, type, performer) — performer '' for "everyone" —
 *   kept exact by EventRepository in the same transaction as every insert and delete (prunes
 *   included), one upsert per distinct row per batch. (Triggers did the same at a third of the
 *   insert rate: docs/performance.md "event-ingest".)
 */
export const lockEvents: Migration = {
  version: 4,
  name: 'events',
  sql: `
    CREATE TABLE lock_events (
      seq            INTEGER PRIMARY KEY AUTOINCREMENT,
      id             TEXT NOT NULL UNIQUE,
      lock_id        TEXT NOT NULL REFERENCES locks(id) ON DELETE CASCADE,
      type           TEXT NOT NULL CHECK (type IN ('lock', 'unlock', 'battery')),
      -- user who performed it; NULL for battery reports and taps by an unknown credential
      performer_id   TEXT,
      -- the performer's name when recorded, shown if the user is later removed
      performer_name TEXT,
      -- when it happened (the lock's clock for taps), epoch ms
      occurred_at    INTEGER NOT NULL,
      -- battery level 0..1 for battery events
      value          REAL,
      source         TEXT NOT NULL CHECK (source IN ('tap', 'command', 'battery')),
      ekey_id        TEXT,
      command_id     TEXT,
      lock_sequence  INTEGER,
      -- 1 when a tap was made with a credential that was not usable at that instant
      flagged        INTEGER NOT NULL DEFAULT 0,
      recorded_at    INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX lock_events_lock_sequence ON lock_events(lock_id, lock_sequence) WHERE lock_sequence IS NOT NULL;
    CREATE UNIQUE INDEX lock_events_command ON lock_events(command_id) WHERE command_id IS NOT NULL;
    CREATE INDEX lock_events_by_lock ON lock_events(lock_id, seq);
    CREATE INDEX lock_events_by_lock_type ON lock_events(lock_id, type, seq);
    CREATE INDEX lock_events_by_performer ON lock_events(lock_id, performer_id, type, seq) WHERE performer_id IS NOT NULL;

    CREATE TABLE lock_event_counts (
      lock_id      TEXT NOT NULL,
      type         TEXT NOT NULL,
      performer_id TEXT NOT NULL,
      n            INTEGER NOT NULL,
      PRIMARY KEY (lock_id, type, performer_id)
    ) WITHOUT ROWID;
  `,
};
