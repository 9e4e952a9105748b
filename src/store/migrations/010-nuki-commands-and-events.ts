import type { Migration } from '../migration.js';
import { rebuildTable } from '../table-rebuild.js';

/**
 * docs/design.md §4d: command types `unlatch` and the Opener's mode switches; events of type
 * `ring` (source `ring`) and their detail (`unlatched`, `opened`, `mode`, as JSON in `detail`).
 * The two CHECK constraints are widened by rebuilding the tables from their own schema text, so
 * columns that other steps added are kept.
 */
export const nukiCommandsAndEvents: Migration = {
  version: 10,
  name: 'nuki-commands-and-events',
  sql: 'ALTER TABLE lock_events ADD COLUMN detail TEXT;',
  run: (db) => {
    rebuildTable(db, 'commands', (sql) =>
      sql.replace(
        "CHECK (type IN ('lock', 'unlock'))",
        "CHECK (type IN ('lock', 'unlock', 'unlatch', 'ring_to_open_on', 'ring_to_open_off', 'continuous_mode_on', 'continuous_mode_off'))",
      ),
    );
    rebuildTable(db, 'lock_events', (sql) =>
      sql
        .replace("CHECK (type IN ('lock', 'unlock', 'battery'))", "CHECK (type IN ('lock', 'unlock', 'battery', 'ring'))")
        .replace("CHECK (source IN ('tap', 'command', 'battery'))", "CHECK (source IN ('tap', 'command', 'battery', 'ring'))"),
    );
  },
};
