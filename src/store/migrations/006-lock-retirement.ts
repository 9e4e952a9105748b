import type { Migration } from '../migration.js';

/**
 * A lock removed from the config is retired, not deleted (docs/design.md §9): it leaves HomeKit and the
 * lock lists while its eKeys and history stay, and it returns when it is configured again.
 * NULL: in the config (or the demo household).
 */
export const lockRetirement: Migration = {
  version: 6,
  name: 'lock-retirement',
  sql: `ALTER TABLE locks ADD COLUMN retired_at INTEGER;`,
};
