import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { UserRepository, type UserRecord } from '../../../src/store/user-repository.js';

/* UserRepository caches lookups by id; a change must be visible to the next lookup. */

let dir: string;
let db: SqliteDatabase;
let monotonic: number;
let users: UserRepository;

const olivia: UserRecord = {
  id: 'user-1',
  email: 'olivia@example.com',
  name: 'Olivia Owner',
  passwordHash: 'scrypt$…',
  ekeyQuota: null,
  canSendEkeys: true,
  createdAt: 0,
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ekey-user-cache-'));
  db = openDatabase(join(dir, 'service.sqlite'));
  monotonic = 0;
  users = new UserRepository(db, { monotonicNow: () => monotonic });
  users.insert(olivia);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the by-id cache of UserRepository', () => {
  it('shows an update on the next lookup', () => {
    expect(users.findById('user-1')?.ekeyQuota).toBeNull();
    users.update({ ...olivia, ekeyQuota: 2, canSendEkeys: false });
    expect(users.findById('user-1')).toMatchObject({ ekeyQuota: 2, canSendEkeys: false });
  });

  it('hands out copies, so a caller cannot change what others read', () => {
    const first = users.findById('user-1');
    if (!first) throw new Error('missing');
    first.name = 'Mallory';
    expect(users.findById('user-1')?.name).toBe('Olivia Owner');
  });

  it('finds a user inserted after a miss', () => {
    expect(users.findById('user-2')).toBeUndefined();
    users.insert({ ...olivia, id: 'user-2', email: 'alex@example.com', name: 'Alex' });
    expect(users.findById('user-2')?.name).toBe('Alex');
  });

  it('sees a change committed by another process within 250 ms', () => {
    expect(users.findById('user-1')?.canSendEkeys).toBe(true);
    const other = openDatabase(join(dir, 'service.sqlite'));
    new UserRepository(other).update({ ...olivia, canSendEkeys: false });
    other.close();
    monotonic += 250;
    expect(users.findById('user-1')?.canSendEkeys).toBe(false);
  });
});
