import type { Migration } from '../migration.js';

/**
 * Lock families are checked against src/families/registry.ts, not by SQL: migration 5's
 * `CHECK (family IN ('ekey', 'nuki'))` made every new family a migration. SQLite cannot drop a
 * CHECK, so `locks` is rebuilt (https://sqlite.org/lang_altertable.html, "Making Other Kinds Of
 * Table Schema Changes"): same columns in the same order, every row kept; the tables that refer
 * to `locks` name it, so their foreign keys hold again once the new table takes the name.
 */
export const lockFamilyRegistry: Migration = {
  version: 7,
  name: 'lock-family-registry',
  rebuildsTables: true,
  sql: `
    CREATE TABLE locks_rebuilt (
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
      created_at             INTEGER NOT NULL,
      online_status          TEXT NOT NULL DEFAULT 'offline' CHECK (online_status IN ('online', 'offline')),
      -- one of the registry's family ids (src/families/registry.ts), checked by the service
      family                 TEXT NOT NULL DEFAULT 'ekey',
      retired_at             INTEGER
    );
    INSERT INTO locks_rebuilt (id, name, ble_address, lock_key, time_zone, owner_id, has_gateway, bolt_state, battery_level,
        last_seen_at, last_activity_sequence, created_at, online_status, family, retired_at)
      SELECT id, name, ble_address, lock_key, time_zone, owner_id, has_gateway, bolt_state, battery_level,
        last_seen_at, last_activity_sequence, created_at, online_status, family, retired_at
      FROM locks;
    DROP TABLE locks;
    ALTER TABLE locks_rebuilt RENAME TO locks;
  `,
};
