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
  run?: (db: SqliteDatabase) => void;
}
