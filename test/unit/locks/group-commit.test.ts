import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import Database from '../../../src/store/sqlite-driver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GroupCommit } from '../../../src/locks/group-commit.js';
import { openDatabase, transactionRunner, type SqliteDatabase } from '../../../src/store/database.js';

/*
 * GroupCommit on a real SQLite file (WAL, synchronous=FULL): a second connection sees only
 * committed rows, so "acknowledged after its commit" is checked from outside the writer.
 */

interface Item {
  name: string;
  /** Throw after the first of its two rows: the item must leave nothing behind. */
  poison?: boolean;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  let dir: string;
  let db: SqliteDatabase;
  let reader: SqliteDatabase;
  let commits: number;
  let acknowledged: { name: string; result: number; visibleToReader: boolean }[];
  let failures: { name: string; error: string }[];

  const committer = (options: { grouped?: boolean; maxBatch?: number } = {}): GroupCommit<Item, number> => {
    const run = transactionRunner(db);
    const insert = db.prepare<[string, string]>('INSERT INTO items (name, part) VALUES (?, ?)');
    const visible = reader.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM items WHERE name = ? AND part = 'b'");
    return new GroupCommit<Item, number>({
      ...(options.grouped === false
        ? {}
        : {
            transaction: <T>(work: () => T): T => {
              commits += 1;
              return run(work);
            },
          }),
      ...(options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch }),
      store: (item) => {
        insert.run(item.name, 'a');
        if (item.poison === true) throw new Error(`poisoned ${item.name}`);
        return Number(insert.run(item.name, 'b').lastInsertRowid);
      },
      acknowledge: (item, result) => {
        acknowledged.push({ name: item.name, result, visibleToReader: visible.get(item.name)?.n === 1 });
      },
      failed: (item, error) => {
        failures.push({ name: item.name, error: error instanceof Error ? error.message : String(error) });
      },
    });
  };

  const stored = (): { name: string; part: string }[] => db.prepare<[], { name: string; part: string }>('SELECT name, part FROM items ORDER BY id').all();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ekey-group-commit-'));
    db = openDatabase(join(dir, 'test.sqlite'), []);
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, part TEXT NOT NULL)');
    reader = new Database(join(dir, 'test.sqlite'), { readonly: true });
    commits = 0;
    acknowledged = [];
    failures = [];
  });

  afterEach(() => {
    reader.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores the items submitted in one turn in one transaction, and acknowledges each after the commit, in order', async () => {
    const group = committer();
    for (const name of ['front#1', 'back#1', 'front#2', 'gate#1']) group.submit({ name });
    // Nothing is stored, let alone acknowledged, before the flush.
    expect(acknowledged).toEqual([]);
    expect(group.pending).toBe(4);
    expect(reader.prepare('SELECT COUNT(*) AS n FROM items').get()).toEqual({ n: 0 });
    await nextTurn();
    expect(commits).toBe(1);
    expect(group.pending).toBe(0);
    expect(acknowledged.map((entry) => entry.name)).toEqual(['front#1', 'back#1', 'front#2', 'gate#1']);
    // Each acknowledgement came when another connection could already read the item.
    expect(acknowledged.every((entry) => entry.visibleToReader)).toBe(true);
    expect(acknowledged.map((entry) => entry.result)).toEqual([2, 4, 6, 8]);
  });

  it('items arriving after a flush go into the next transaction', async () => {
    const group = committer();
    group.submit({ name: 'a' });
    await nextTurn();
    group.submit({ name: 'b' });
    group.submit({ name: 'c' });
    await nextTurn();
    expect(commits).toBe(2);
    expect(acknowledged.map((entry) => entry.name)).toEqual(['a', 'b', 'c']);
  });

  it('flush() commits what is queued at once (before a read of the stored state, before closing)', () => {
    const group = committer();
    group.submit({ name: 'a' });
    group.submit({ name: 'b' });
    group.flush();
    expect(commits).toBe(1);
    expect(acknowledged.map((entry) => entry.name)).toEqual(['a', 'b']);
    // The scheduled flush then finds nothing to do.
    group.flush();
    expect(commits).toBe(1);
  });

  it('a failing item rolls back only itself: its neighbours are stored one by one and acknowledged, it is reported', async () => {
    const group = committer();
    group.submit({ name: 'a' });
    group.submit({ name: 'bad', poison: true });
    group.submit({ name: 'c' });
    await nextTurn();
    expect(acknowledged.map((entry) => entry.name)).toEqual(['a', 'c']);
    expect(acknowledged.every((entry) => entry.visibleToReader)).toBe(true);
    expect(failures).toEqual([{ name: 'bad', error: 'poisoned bad' }]);
    // Nothing half-written: no lone first part of the failed item, no duplicate of the others.
    expect(stored()).toEqual([
      { name: 'a', part: 'a' },
      { name: 'a', part: 'b' },
      { name: 'c', part: 'a' },
      { name: 'c', part: 'b' },
    ]);
    // One batch that rolled back, then one transaction per item.
    expect(commits).toBe(4);
  });

  it('splits a long queue into batches of at most maxBatch', async () => {
    const group = committer({ maxBatch: 2 });
    for (const name of ['a', 'b', 'c', 'd', 'e']) group.submit({ name });
    await nextTurn();
    expect(commits).toBe(3);
    expect(acknowledged.map((entry) => entry.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('without a transaction stores and acknowledges each item as it comes', () => {
    const group = committer({ grouped: false });
    group.submit({ name: 'a' });
    expect(acknowledged.map((entry) => entry.name)).toEqual(['a']);
    expect(group.pending).toBe(0);
  });
});
