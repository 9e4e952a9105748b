import type { SqliteDatabase } from './database.js';

/**
 * One numbered schema step. Applied in order, each exactly once, inside a transaction: `sql`
 * first, then `run` when the step needs what SQL alone cannot do (e.g. rebuilding a table to widen
 * a CHECK constraint, whose text only the schema knows).
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * The step rebuilds a table that others refer to (create, copy, drop, rename): foreign keys are
   * switched off around it, so dropping the old table cascades nothing, and checked before commit.
   */
  rebuildsTables?: boolean;
  run?: (db: SqliteDatabase) => void;
}
