import type { Migration } from '../migration.js';

/** Locks, eKeys and invitations. */
export const locksAndEkeys: Migration = {
  version: 2,
  name: 'locks-and-ekeys',
  sql: `
    CREATE TABLE locks (
      id                     TEXT PRIMARY KEY,
      name                   TEXT NOT NULL,
      ble_address            TEXT,
      -- 32-byte HMAC key shared with the lock, hex; never leaves the service
      lock_key               TEXT,
      time_zone              TEXT NOT NULL,
      owner_id               TEXT NOT NULL REFERENCES users(id),
      -- whether the lock is connected to a Bluetooth gateway device
      has_gateway            INTEGER NOT NULL DEFAULT 1,
      bolt_state             TEXT NOT NULL DEFAULT 'unknown',
      battery_level          REAL,
      last_seen_at           INTEGER,
      -- highest Activity sequence number already recorded from the lock
      last_activity_sequence INTEGER NOT NULL DEFAULT 0,
      created_at             INTEGER NOT NULL
    );

    CREATE TABLE ekeys (
      id             TEXT PRIMARY KEY,
      lock_id        TEXT NOT NULL REFERENCES locks(id) ON DELETE CASCADE,
      user_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name           TEXT,
      type           TEXT NOT NULL CHECK (type IN ('owner', 'admin', 'anytime', 'scheduled', 'guest')),
      status         TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'revoked')),
      valid_from     INTEGER,
      valid_to       INTEGER,
      schedule_start TEXT,
      schedule_end   TEXT,
      message        TEXT,
      sent_by        TEXT REFERENCES users(id) ON DELETE SET NULL,
      created_at     INTEGER NOT NULL,
      updated_at     INTEGER NOT NULL,
      revoked_at     INTEGER
    );
    -- a user holds at most one non-revoked eKey per lock (docs/design.md §3 eKeys)
    CREATE UNIQUE INDEX ekeys_one_live_per_user_lock ON ekeys(lock_id, user_id) WHERE status <> 'revoked';
    CREATE INDEX ekeys_user ON ekeys(user_id);
    CREATE INDEX ekeys_sent_by ON ekeys(sent_by);

    CREATE TABLE invitations (
      id          TEXT PRIMARY KEY,
      token_hash  TEXT NOT NULL UNIQUE,
      user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      invited_by  TEXT REFERENCES users(id) ON DELETE SET NULL,
      expires_at  INTEGER NOT NULL,
      accepted_at INTEGER,
      created_at  INTEGER NOT NULL
    );
    CREATE INDEX invitations_user ON invitations(user_id);
  `,
};
