import type { Migration } from '../migration.js';
import { rebuildTable } from '../table-rebuild.js';

/**
 * Issue #32 (docs/security.md):
 * - events of type `keypad_refused` (source `keypad`): a code the lock refused at its keypad
 *   (docs/design.md §4c); and source `service` for what the service does by itself (switching off
 *   an Opener mode whose setter's key ended). The CHECK constraints are widened by rebuilding the
 *   table from its own schema text, as migration 10 did.
 * - `opener_modes`: one row per Nuki Opener (docs/design.md §4d) — the mode as the Opener last
 *   reported it, who switched it on through the service and since when, a switch-off the service
 *   owes until the Opener confirms it (across restarts), and the owner's cap on Continuous Mode.
 */
export const keypadRefusalsAndOpenerModes: Migration = {
  version: 11,
  name: 'keypad-refusals-and-opener-modes',
  sql: `
    CREATE TABLE opener_modes (
      lock_id         TEXT PRIMARY KEY REFERENCES locks(id) ON DELETE CASCADE,
      -- as the Opener last reported it
      mode            TEXT NOT NULL DEFAULT 'none' CHECK (mode IN ('none', 'ring_to_open', 'continuous')),
      -- who switched it on through the service (a command); NULL: nobody, or someone elsewhere (the vendor's app)
      set_by          TEXT REFERENCES users(id) ON DELETE SET NULL,
      -- when the service first saw the current mode on (epoch ms); NULL while it is off
      on_since        INTEGER,
      -- a switch-off the service owes, retried until the Opener confirms: why
      switching_off   TEXT CHECK (switching_off IN ('key_ended', 'time_limit')),
      -- the owner's cap on Continuous Mode, in minutes; NULL: none
      continuous_limit_minutes INTEGER CHECK (continuous_limit_minutes > 0),
      updated_at      INTEGER NOT NULL
    );
  `,
  run: (db) => {
    rebuildTable(db, 'lock_events', (sql) =>
      sql
        .replace("CHECK (type IN ('lock', 'unlock', 'battery', 'ring'))", "CHECK (type IN ('lock', 'unlock', 'battery', 'ring', 'keypad_refused'))")
        .replace("CHECK (source IN ('tap', 'command', 'battery', 'ring'))", "CHECK (source IN ('tap', 'command', 'battery', 'ring', 'keypad', 'service'))"),
    );
  },
};
