import type BetterSqlite3 from 'better-sqlite3';
import Database from './sqlite-driver.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Migration } from './migration.js';
import { migrations as allMigrations } from './migrations/index.js';

export type SqliteDatabase = BetterSqlite3.Database;

/**
 * Opens (creating if needed) the service database and brings its schema up to date.
 * WAL + synchronous=FULL: a write that the API acknowledged is on disk, even after `kill -9`
 * or a power cut.
 */
export function openDatabase(file: string, migrations: readonly Migration[] = allMigrations): SqliteDatabase {
  let db: SqliteDatabase | undefined;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    applyMigrations(db, migrations);
    return db;
  } catch (error) {
    if (db?.open === true) db.close();
    throw explainOpenFailure(file, error);
  }
}

/** SQLite and file-system codes that mean "the file is not a usable database". */
const DAMAGED = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);
/** …and those that mean "the folder or file cannot be written". */
const NOT_WRITABLE = new Set(['SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_PERM', 'SQLITE_IOERR', 'EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST']);

/**
 * One clear sentence for a database that cannot be opened, naming the file and what to do
 * (docs/architecture.md "Limits and resilience"); other errors pass through unchanged.
 */
function explainOpenFailure(file: string, error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const family = typeof code === 'string' ? code.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1') : '';
  if (DAMAGED.has(family)) {
    return new Error(
      `the database ${file} is damaged or not a database (${error.message}); move it aside to start with an empty one, or restore a backup`,
      { cause: error },
    );
  }
  if (NOT_WRITABLE.has(family)) {
    return new Error(`the data folder ${dirname(file)} cannot be written (${error.message}); make it writable by the user that runs Homebridge`, {
      cause: error,
    });
  }
  return error;
}

/**
 * `work` in one transaction of `db` (a savepoint inside an open one, as better-sqlite3 nests
 * them). The transaction function is built once: `db.transaction(work)` per call costs more than a
 * small write (docs/performance.md "event-ingest").
 */
export function transactionRunner(db: SqliteDatabase): <T>(work: () => T) => T {
  const run = db.transaction((work: () => unknown) => work());
  return <T>(work: () => T): T => run(work) as T;
}

/** Applies every migration newer than the database's `user_version`, each in its own transaction. */
export function applyMigrations(db: SqliteDatabase, migrations: readonly Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const latest = sorted.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`Database schema version ${current} is newer than this plugin understands (${latest}); upgrade the plugin.`);
  }
  for (const migration of sorted) {
    if (migration.version <= current) continue;
    if (migration.rebuildsTables === true) applyTableRebuild(db, migration);
    else
      db.transaction(() => {
        db.exec(migration.sql);
        migration.run?.(db);
        db.pragma(`user_version = ${migration.version}`);
      })();
  }
}

/**
 * SQLite's procedure for a change ALTER TABLE cannot make (https://sqlite.org/lang_altertable.html
 * section 7): foreign keys off (the pragma is ignored inside a transaction, so it is set around
 * it), the rebuild in one transaction, `foreign_key_check` before commit, foreign keys restored.
 */
function applyTableRebuild(db: SqliteDatabase, migration: Migration): void {
  const enforced = db.pragma('foreign_keys', { simple: true }) === 1;
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      db.exec(migration.sql);
      migration.run?.(db);
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length > 0) throw new Error(`Migration ${migration.version} (${migration.name}) would break ${broken.length} foreign key(s).`);
      db.pragma(`user_version = ${migration.version}`);
    })();
  } finally {
    if (enforced) db.pragma('foreign_keys = ON');
  }
}
