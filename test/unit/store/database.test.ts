import { describe, expect, it } from '@jest/globals';
import Database from '../../../src/store/sqlite-driver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMigrations, openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import type { Migration } from '../../../src/store/migration.js';
import { migrations } from '../../../src/store/migrations/index.js';

function withTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'ekey-db-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const userVersion = (db: SqliteDatabase): number => db.pragma('user_version', { simple: true }) as number;

const tables = (db: SqliteDatabase): string[] =>
  db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => row.name);

describe('openDatabase', () => {
  it('creates the folder and the file, and sets WAL, synchronous=FULL, foreign keys and a busy timeout', () => {
    withTempDir((dir) => {
      const db = openDatabase(join(dir, 'nested', 'service.sqlite'));
      try {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        // 2 = FULL: a commit is fsynced before better-sqlite3 returns, so an acknowledged write survives a crash.
        expect(db.pragma('synchronous', { simple: true })).toBe(2);
        expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
        expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      } finally {
        db.close();
      }
    });
  });

  it('applies every migration to a new database', () => {
    withTempDir((dir) => {
      const db = openDatabase(join(dir, 'service.sqlite'));
      try {
        expect(userVersion(db)).toBe(Math.max(...migrations.map((migration) => migration.version)));
        expect(tables(db)).toEqual(expect.arrayContaining(['users', 'oauth_clients', 'oauth_codes', 'oauth_tokens', 'settings', 'locks', 'ekeys', 'invitations']));
      } finally {
        db.close();
      }
    });
  });

  it('reopens an up-to-date database without touching its schema or data', () => {
    withTempDir((dir) => {
      const file = join(dir, 'service.sqlite');
      const first = openDatabase(file);
      first.prepare("INSERT INTO settings (key, value) VALUES ('kept', '1')").run();
      const schema = first.prepare<[], { sql: string }>('SELECT sql FROM sqlite_master ORDER BY name').all();
      first.close();

      const second = openDatabase(file);
      try {
        expect(second.prepare<[], { sql: string }>('SELECT sql FROM sqlite_master ORDER BY name').all()).toEqual(schema);
        expect(second.prepare<[], { value: string }>("SELECT value FROM settings WHERE key = 'kept'").get()).toEqual({ value: '1' });
      } finally {
        second.close();
      }
    });
  });

  it('refuses a database whose schema is newer than the plugin', () => {
    withTempDir((dir) => {
      const file = join(dir, 'service.sqlite');
      openDatabase(file).close();
      const raw = new Database(file);
      raw.pragma('user_version = 99');
      raw.close();
      expect(() => openDatabase(file)).toThrow(/schema version 99 is newer than this plugin understands/);
    });
  });
});

describe('applyMigrations', () => {
  const step = (version: number, sql: string): Migration => ({ version, name: `step-${version}`, sql });

  it('applies only the steps newer than user_version, in version order', () => {
    const db = new Database(':memory:');
    applyMigrations(db, [step(2, 'INSERT INTO log VALUES (2)'), step(1, 'CREATE TABLE log (v INTEGER)')]);
    expect(userVersion(db)).toBe(2);
    applyMigrations(db, [step(1, 'CREATE TABLE log (v INTEGER)'), step(2, 'INSERT INTO log VALUES (2)'), step(3, 'INSERT INTO log VALUES (3)')]);
    expect(db.prepare<[], { v: number }>('SELECT v FROM log ORDER BY v').all()).toEqual([{ v: 2 }, { v: 3 }]);
    expect(userVersion(db)).toBe(3);
    db.close();
  });

  it('is a no-op the second time', () => {
    const db = new Database(':memory:');
    const steps = [step(1, 'CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1);')];
    applyMigrations(db, steps);
    applyMigrations(db, steps);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    db.close();
  });

  it('rolls a failing step back whole and leaves user_version at the last good step', () => {
    const db = new Database(':memory:');
    const steps = [step(1, 'CREATE TABLE a (v INTEGER)'), step(2, 'CREATE TABLE b (v INTEGER); INSERT INTO missing VALUES (1);')];
    expect(() => {
      applyMigrations(db, steps);
    }).toThrow(/no such table: missing/);
    expect(userVersion(db)).toBe(1);
    expect(tables(db)).toEqual(['a']);
    db.close();
  });

  it('accepts an empty list on an empty database', () => {
    const db = new Database(':memory:');
    applyMigrations(db, []);
    expect(userVersion(db)).toBe(0);
    db.close();
  });

  it('numbers the shipped migrations from 1, in ascending order, without duplicates (numbers are reserved per change, so one may land before a lower one)', () => {
    const versions = migrations.map((migration) => migration.version);
    expect(versions[0]).toBe(1);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
  });
});

describe('migration 10 (docs/design.md §4d): unlatch, the Opener commands, ring events', () => {
  const before = migrations.filter((migration) => migration.version < 10);

  it('keeps every command and event while widening the CHECK constraints', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    applyMigrations(db, before);
    db.exec(`INSERT INTO users (id, email, email_normalized, name, password_hash, created_at) VALUES ('u1', 'a@example.com', 'a@example.com', 'A', 'x', 0)`);
    db.exec(`INSERT INTO locks (id, name, owner_id, time_zone, created_at) VALUES ('l1', 'Door', 'u1', 'UTC', 0)`);
    db.exec(`INSERT INTO commands (id, lock_id, type, status, requested_by, created_at) VALUES ('c1', 'l1', 'unlock', 'completed', 'u1', 1)`);
    db.exec(`INSERT INTO lock_events (id, lock_id, type, occurred_at, source, recorded_at) VALUES ('e1', 'l1', 'battery', 5, 'battery', 5)`);
    db.exec('DELETE FROM lock_events');
    db.exec(`INSERT INTO lock_events (id, lock_id, type, occurred_at, source, recorded_at) VALUES ('e2', 'l1', 'unlock', 6, 'command', 6)`);
    expect(() => db.exec(`INSERT INTO commands (id, lock_id, type, status, requested_by, created_at) VALUES ('c0', 'l1', 'unlatch', 'created', 'u1', 1)`)).toThrow(/CHECK/);

    applyMigrations(db, migrations);
    expect(db.prepare('SELECT id, type FROM commands').all()).toEqual([{ id: 'c1', type: 'unlock' }]);
    expect(db.prepare('SELECT seq, id, type, detail FROM lock_events').all()).toEqual([{ seq: 2, id: 'e2', type: 'unlock', detail: null }]);
    db.exec(`INSERT INTO commands (id, lock_id, type, status, requested_by, created_at) VALUES ('c2', 'l1', 'unlatch', 'created', 'u1', 1)`);
    db.exec(`INSERT INTO commands (id, lock_id, type, status, requested_by, created_at) VALUES ('c3', 'l1', 'continuous_mode_off', 'created', 'u1', 1)`);
    db.exec(`INSERT INTO lock_events (id, lock_id, type, occurred_at, source, recorded_at, detail) VALUES ('e3', 'l1', 'ring', 7, 'ring', 7, '{"opened":true}')`);
    // AUTOINCREMENT kept: the pruned seq 1 is not handed out again, the next is 3.
    expect(db.prepare("SELECT seq FROM lock_events WHERE id = 'e3'").get()).toEqual({ seq: 3 });
    expect(() => db.exec(`INSERT INTO commands (id, lock_id, type, status, requested_by, created_at) VALUES ('c4', 'l1', 'open_sesame', 'created', 'u1', 1)`)).toThrow(/CHECK/);
    // The indexes came back with the tables.
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('commands', 'lock_events') AND sql IS NOT NULL ORDER BY name").all();
    expect(indexes.map((row) => (row as { name: string }).name)).toEqual(
      expect.arrayContaining(['commands_lock', 'commands_unfinished', 'commands_idempotency', 'lock_events_lock_sequence', 'lock_events_command', 'lock_events_by_lock']),
    );
    db.close();
  });
});

describe('migration 7: lock families checked by the registry, not by SQL', () => {
  const before = migrations.filter((migration) => migration.version < 7);
  const schemaOf = (db: SqliteDatabase, type: string): { name: string; sql: string | null }[] =>
    db.prepare<[string], { name: string; sql: string | null }>("SELECT name, sql FROM sqlite_master WHERE type = ? AND tbl_name <> 'locks' ORDER BY name").all(type);

  it('keeps every lock row, the rows that refer to them and every index and foreign key of a database made by the old migrations', () => {
    withTempDir((dir) => {
      const file = join(dir, 'service.sqlite');
      const old = openDatabase(file, before);
      old.prepare("INSERT INTO users (id, email, email_normalized, name, password_hash, created_at) VALUES ('u1', 'a@example.com', 'a@example.com', 'A', 'x', 1)").run();
      old.prepare(
        `INSERT INTO locks (id, name, ble_address, lock_key, time_zone, owner_id, has_gateway, bolt_state, battery_level, last_seen_at,
           last_activity_sequence, created_at, online_status, family, retired_at)
         VALUES ('l1', 'Front Door', 'AA:BB:CC:DD:EE:01', 'k', 'Europe/Berlin', 'u1', 1, 'locked', 0.5, 10, 7, 2, 'online', 'ekey', NULL),
                ('l2', 'Back Door', 'AA:BB:CC:DD:EE:02', NULL, 'Europe/Berlin', 'u1', 0, 'unknown', NULL, NULL, 0, 3, 'offline', 'nuki', 99)`,
      ).run();
      old.prepare("INSERT INTO ekeys (id, lock_id, user_id, type, status, created_at, updated_at) VALUES ('k1', 'l1', 'u1', 'owner', 'accepted', 1, 1), ('k2', 'l2', 'u1', 'owner', 'accepted', 1, 1)").run();
      expect(() => old.prepare("INSERT INTO locks (id, name, time_zone, owner_id, created_at, family) VALUES ('l3', 'X', 'UTC', 'u1', 4, 'future')").run()).toThrow(/CHECK constraint/);
      const locksBefore = old.prepare('SELECT * FROM locks ORDER BY id').all();
      const ekeysBefore = old.prepare('SELECT * FROM ekeys ORDER BY id').all();
      const indexesBefore = schemaOf(old, 'index');
      const tablesBefore = schemaOf(old, 'table');
      const columnsBefore = old.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('locks')").all();
      old.close();

      // Up to migration 7 only: later steps change other tables on purpose (8 adds a column to
      // invitations, 9 adds locks.keypad, 10 widens the CHECKs of commands and lock_events).
      const db = openDatabase(file, migrations.filter((migration) => migration.version <= 7));
      try {
        expect(userVersion(db)).toBe(7);
        expect(db.prepare('SELECT * FROM locks ORDER BY id').all()).toEqual(locksBefore);
        expect(db.prepare('SELECT * FROM ekeys ORDER BY id').all()).toEqual(ekeysBefore);
        expect(db.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('locks')").all()).toEqual(columnsBefore);
        expect(schemaOf(db, 'index')).toEqual(expect.arrayContaining(indexesBefore));
        expect(schemaOf(db, 'table')).toEqual(expect.arrayContaining(tablesBefore));
        expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
        expect(db.pragma('foreign_key_check')).toEqual([]);
        // The foreign keys to and from locks still hold.
        expect(() => db.prepare("INSERT INTO ekeys (id, lock_id, user_id, type, status, created_at, updated_at) VALUES ('k3', 'nope', 'u1', 'guest', 'pending', 1, 1)").run()).toThrow(/FOREIGN KEY/);
        expect(() => db.prepare("INSERT INTO locks (id, name, time_zone, owner_id, created_at) VALUES ('l4', 'X', 'UTC', 'nobody', 4)").run()).toThrow(/FOREIGN KEY/);
        db.prepare("DELETE FROM locks WHERE id = 'l2'").run();
        expect(db.prepare("SELECT id FROM ekeys ORDER BY id").all()).toEqual([{ id: 'k1' }]);
        // The family is no longer SQL's business: the registry checks it when the service writes.
        expect(() => db.prepare("INSERT INTO locks (id, name, time_zone, owner_id, created_at, family) VALUES ('l3', 'X', 'UTC', 'u1', 4, 'future')").run()).not.toThrow();
        expect(db.prepare("SELECT family, online_status, has_gateway, bolt_state FROM locks WHERE id = 'l3'").get()).toEqual({ family: 'future', online_status: 'offline', has_gateway: 1, bolt_state: 'unknown' });
      } finally {
        db.close();
      }
    });
  });
});
