import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DerivedCache } from '../../../src/store/derived-cache.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';

/* DerivedCache: values stay only while nothing they were computed from was written, here or elsewhere. */

let dir: string;
let db: SqliteDatabase;
let monotonic: number;
const events = { writeVersion: 0 };
const users = { writeVersion: 0 };

const cacheOf = (limit: number): DerivedCache<string> => new DerivedCache<string>(db, [events, users], { limit, monotonicNow: () => monotonic });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ekey-page-cache-'));
  db = openDatabase(join(dir, 'service.sqlite'));
  db.exec('CREATE TABLE marks (n INTEGER)');
  monotonic = 0;
  events.writeVersion = 0;
  users.writeVersion = 0;
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('DerivedCache', () => {
  it('answers a stored body until a source is written', () => {
    const cache = cacheOf(8);
    cache.set('a', '{"page":1}');
    expect(cache.get('a')).toBe('{"page":1}');
    events.writeVersion += 1;
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', '{"page":2}');
    expect(cache.get('a')).toBe('{"page":2}');
    users.writeVersion += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep a body stored before a write it had not seen', () => {
    const cache = cacheOf(8);
    cache.set('a', 'old');
    events.writeVersion += 1;
    // A set after the write empties first, so the old body cannot survive beside the new one.
    cache.set('b', 'new');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('new');
  });

  it('empties within 250 ms of a commit by another connection', () => {
    const cache = cacheOf(8);
    cache.set('a', 'body');
    const other = openDatabase(join(dir, 'service.sqlite'));
    other.prepare('INSERT INTO marks (n) VALUES (1)').run();
    other.close();
    expect(cache.get('a')).toBe('body');
    monotonic += 250;
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps at most `limit` bodies, dropping the oldest first', () => {
    const cache = cacheOf(3);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, key);
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(['b', 'c', 'd'].map((key) => cache.get(key))).toEqual(['b', 'c', 'd']);
  });

  it('keeps nothing read inside a transaction, which may still roll back', () => {
    const cache = cacheOf(8);
    db.transaction(() => {
      cache.set('a', 'read inside');
      expect(cache.get('a')).toBeUndefined();
    })();
    cache.set('a', 'read outside');
    expect(cache.get('a')).toBe('read outside');
  });

  it('keeps nothing with limit 0', () => {
    const cache = cacheOf(0);
    cache.set('a', 'body');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
