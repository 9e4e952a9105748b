/** One numbered schema step. Applied in order, each exactly once, inside a transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
