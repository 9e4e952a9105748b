/** One numbered schema step. Applied in order, each exactly once, inside a transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * The step rebuilds a table that others refer to (create, copy, drop, rename): foreign keys are
   * switched off around it, so dropping the old table cascades nothing, and checked before commit.
   */
  rebuildsTables?: boolean;
}
