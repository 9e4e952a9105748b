import type { Migration } from '../migration.js';

/**
 * Door codes (docs/design.md §4c). `locks.keypad`: the lock has a Nuki Keypad (config
 * `keypad: true`). `door_codes`: one row per code an eKey was given — a key that loses its code and
 * gets a new one has two rows, so the old code is tracked until the lock confirmed its removal.
 * The row outlives a purged eKey for the same reason. `code` is null once removed; `lock_code_id`
 * is the code's id on the lock once the lock named it; `written` is what the lock confirmed
 * holding (JSON: enabled flag and window), null while it holds nothing of ours.
 */
export const doorCodes: Migration = {
  version: 9,
  name: 'door-codes',
  sql: `
    ALTER TABLE locks ADD COLUMN keypad INTEGER NOT NULL DEFAULT 0 CHECK (keypad IN (0, 1));
    CREATE TABLE door_codes (
      id             INTEGER PRIMARY KEY AUTOINCREMENT,
      ekey_id        TEXT NOT NULL,
      lock_id        TEXT NOT NULL,
      code           TEXT,
      state          TEXT NOT NULL CHECK (state IN ('waiting', 'setting', 'set', 'failed', 'removing', 'removed')),
      enforced_by    TEXT NOT NULL CHECK (enforced_by IN ('lock', 'service')),
      failure_reason TEXT,
      lock_code_id   INTEGER,
      written        TEXT,
      created_at     INTEGER NOT NULL,
      updated_at     INTEGER NOT NULL
    );
    CREATE INDEX door_codes_by_ekey ON door_codes (ekey_id, id);
    CREATE INDEX door_codes_by_lock ON door_codes (lock_id, state);
    CREATE UNIQUE INDEX door_codes_code_on_lock ON door_codes (lock_id, code) WHERE code IS NOT NULL;
  `,
};
