import type { SqliteDatabase } from './database.js';

/**
 * Rebuilds a table from its own CREATE statement with `edit` applied (SQLite cannot alter a CHECK
 * constraint in place): creates the edited table under a temporary name, copies every row, drops
 * the old table, renames the new one, recreates the old table's indexes and keeps its
 * AUTOINCREMENT counter. Works on whatever columns earlier migrations added, because it starts
 * from the schema's text. Call inside the migration's transaction; only for tables no foreign key
 * points at.
 *
 * @throws Error when the table does not exist or `edit` changed nothing (the schema is not what
 *   the migration expects).
 */
export function rebuildTable(db: SqliteDatabase, table: string, edit: (createSql: string) => string): void {
  const created = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (created === undefined) throw new Error(`table ${table} does not exist`);
  const edited = edit(created.sql);
  if (edited === created.sql) throw new Error(`rebuilding ${table}: the edit changed nothing (unexpected schema)`);
  const indexes = db
    .prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
    .all(table)
    .map((row) => row.sql);
  const sequence = hasSequenceTable(db) ? db.prepare<[string], { seq: number }>('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table)?.seq : undefined;
  const temporary = `${table}__rebuilt`;
  const renamed = edited.replace(/^CREATE TABLE\s+("?)[A-Za-z_][A-Za-z0-9_]*\1/, `CREATE TABLE ${temporary}`);
  if (renamed === edited) throw new Error(`rebuilding ${table}: unexpected CREATE statement`);
  db.exec(renamed);
  db.exec(`INSERT INTO ${temporary} SELECT * FROM ${table}`);
  db.exec(`DROP TABLE ${table}`);
  db.exec(`ALTER TABLE ${temporary} RENAME TO ${table}`);
  for (const sql of indexes) db.exec(sql);
  if (sequence !== undefined) db.prepare('UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?').run(sequence, table);
}

function hasSequenceTable(db: SqliteDatabase): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() !== undefined;
}
