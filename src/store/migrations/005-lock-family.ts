import type { Migration } from '../migration.js';

/**
 * Lock families (docs/design.md §4b): every lock so far speaks our profile. A Nuki lock keeps no key
 * here; its credentials come from pairing and live in a file of their own (docs/nuki.md).
 */
export const lockFamily: Migration = {
  version: 5,
  name: 'lock-family',
  sql: `ALTER TABLE locks ADD COLUMN family TEXT NOT NULL DEFAULT 'ekey' CHECK (family IN ('ekey', 'nuki'));`,
};
