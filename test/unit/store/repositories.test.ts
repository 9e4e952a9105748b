import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { ClientRepository } from '../../../src/store/client-repository.js';
import { LockRepository, type LockRecord } from '../../../src/store/lock-repository.js';
import { SettingsRepository } from '../../../src/store/settings-repository.js';
import { normalizeEmail, UserRepository, type UserRecord } from '../../../src/store/user-repository.js';

const NOW = Date.UTC(2026, 0, 15, 12);

const user = (overrides: Partial<UserRecord> = {}): UserRecord => ({
  id: '6f1c1e2a-0000-4000-8000-000000000001',
  email: 'Olivia@Example.com',
  name: 'Olivia Owner',
  passwordHash: 'scrypt$…',
  ekeyQuota: null,
  canSendEkeys: true,
  createdAt: NOW,
  ...overrides,
});

const lock = (overrides: Partial<LockRecord> = {}): LockRecord => ({
  id: 'AAAAAAAA-0000-4000-8000-00000000000A',
  name: 'Front Door',
  bleAddress: 'D0:E1:00:00:00:01',
  lockKey: 'ab'.repeat(32),
  timeZone: 'Europe/Berlin',
  ownerId: user().id,
  family: 'ekey',
  overBluetooth: true,
  keypad: false,
  boltState: 'unknown',
  batteryLevel: null,
  lastSeenAt: null,
  lastActivitySequence: 0,
  createdAt: NOW,
  ...overrides,
});

let db: SqliteDatabase;
beforeEach(() => {
  db = openDatabase(':memory:');
});
afterEach(() => {
  db.close();
});

describe('UserRepository', () => {
  it('stores and finds a user by id and by e-mail in any case', () => {
    const users = new UserRepository(db);
    users.insert(user());
    expect(users.findById(user().id)).toEqual(user());
    expect(users.findByEmail('olivia@example.COM')?.id).toBe(user().id);
    expect(users.findByEmail('  OLIVIA@example.com ')?.id).toBe(user().id);
    expect(users.findByEmail('other@example.com')).toBeUndefined();
  });

  it('keeps the address as written but trims it', () => {
    const users = new UserRepository(db);
    users.insert(user({ email: '  Olivia@Example.com ' }));
    expect(users.findById(user().id)?.email).toBe('Olivia@Example.com');
  });

  it('refuses a second user with the same e-mail in another case', () => {
    const users = new UserRepository(db);
    users.insert(user());
    expect(() => {
      users.insert(user({ id: '6f1c1e2a-0000-4000-8000-000000000002', email: 'OLIVIA@EXAMPLE.COM' }));
    }).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }));
    expect(users.list()).toHaveLength(1);
  });

  it('updates name, password, quota and sending right, never the e-mail', () => {
    const users = new UserRepository(db);
    users.insert(user());
    users.update(user({ name: 'Olivia O.', passwordHash: null, ekeyQuota: 3, canSendEkeys: false, email: 'changed@example.com' }));
    expect(users.findById(user().id)).toEqual(user({ name: 'Olivia O.', passwordHash: null, ekeyQuota: 3, canSendEkeys: false }));
  });

  it('lists users in creation order', () => {
    const users = new UserRepository(db);
    users.insert(user({ id: 'b', email: 'b@example.com', createdAt: NOW + 1 }));
    users.insert(user({ id: 'a', email: 'a@example.com', createdAt: NOW }));
    expect(users.list().map((record) => record.id)).toEqual(['a', 'b']);
  });

  it('normalizes e-mail addresses by trimming and lower-casing', () => {
    expect(normalizeEmail('  Alex@Example.COM\n')).toBe('alex@example.com');
  });
});

describe('ClientRepository', () => {
  it('round-trips a confidential and a public client', () => {
    const clients = new ClientRepository(db);
    const confidential = { id: 'c1', name: 'App', secretHash: 'f'.repeat(64), isPublic: false, redirectUris: ['https://app.example/cb'], createdAt: NOW };
    const publicClient = { id: 'c2', name: 'SPA', secretHash: null, isPublic: true, redirectUris: ['http://localhost:8080/callback', 'app://cb'], createdAt: NOW + 1 };
    clients.upsert(confidential);
    clients.upsert(publicClient);
    expect(clients.findById('c1')).toEqual(confidential);
    expect(clients.findById('c2')).toEqual(publicClient);
    expect(clients.list()).toEqual([confidential, publicClient]);
    expect(clients.findById('nope')).toBeUndefined();
  });

  it('replaces a client by id but keeps its creation time', () => {
    const clients = new ClientRepository(db);
    clients.upsert({ id: 'c1', name: 'App', secretHash: 'a', isPublic: false, redirectUris: ['https://a/cb'], createdAt: NOW });
    clients.upsert({ id: 'c1', name: 'App 2', secretHash: null, isPublic: true, redirectUris: ['https://b/cb'], createdAt: NOW + 5 });
    expect(clients.list()).toEqual([{ id: 'c1', name: 'App 2', secretHash: null, isPublic: true, redirectUris: ['https://b/cb'], createdAt: NOW }]);
  });
});

describe('LockRepository', () => {
  const setup = (): LockRepository => {
    new UserRepository(db).insert(user());
    const locks = new LockRepository(db);
    locks.upsert(lock());
    return locks;
  };

  it('keeps a family id as plain data, also one this version does not know (the runtime reports it; nothing rewrites it), and refuses none', () => {
    const locks = setup();
    locks.upsert(lock({ id: 'aaaaaaaa-0000-4000-8000-00000000000b', family: 'acme' }));
    expect(locks.findById('aaaaaaaa-0000-4000-8000-00000000000b')?.family).toBe('acme');
    expect(() => {
      locks.upsert(lock({ id: 'aaaaaaaa-0000-4000-8000-00000000000c', family: ' ' }));
    }).toThrow(/has no family/);
    expect(locks.findById('aaaaaaaa-0000-4000-8000-00000000000c')).toBeUndefined();
  });

  it('stores ids lower case and finds them in any case', () => {
    const locks = setup();
    expect(locks.findById('aaaaaaaa-0000-4000-8000-00000000000a')?.id).toBe('aaaaaaaa-0000-4000-8000-00000000000a');
    expect(locks.findById('AAAAAAAA-0000-4000-8000-00000000000A')?.name).toBe('Front Door');
  });

  it('updates the configuration on upsert but keeps the observed state', () => {
    const locks = setup();
    locks.saveState({ id: 'aaaaaaaa-0000-4000-8000-00000000000a', boltState: 'locked', batteryLevel: 0.5, lastSeenAt: NOW, lastActivitySequence: 7 });
    locks.upsert(lock({ name: 'Main Door', overBluetooth: false, boltState: 'unknown', batteryLevel: null }));
    expect(locks.findById(lock().id)).toMatchObject({
      name: 'Main Door',
      family: 'ekey',
      overBluetooth: false,
      boltState: 'locked',
      batteryLevel: 0.5,
      lastSeenAt: NOW,
      lastActivitySequence: 7,
    });
    expect(locks.list()).toHaveLength(1);
  });

  it('gives the owner one owner key, and no second one while it is live', () => {
    const locks = setup();
    expect(locks.ensureOwnerKey(lock().id, user().id, 'key-1', NOW)).toBe(true);
    expect(locks.ensureOwnerKey(lock().id, user().id, 'key-2', NOW)).toBe(false);
    const keys = db.prepare('SELECT id, lock_id, user_id, type, status FROM ekeys').all();
    expect(keys).toEqual([{ id: 'key-1', lock_id: 'aaaaaaaa-0000-4000-8000-00000000000a', user_id: user().id, type: 'owner', status: 'accepted' }]);
  });

  it('gives a new owner key once the old one was revoked', () => {
    const locks = setup();
    locks.ensureOwnerKey(lock().id, user().id, 'key-1', NOW);
    db.prepare("UPDATE ekeys SET status = 'revoked' WHERE id = 'key-1'").run();
    expect(locks.ensureOwnerKey(lock().id, user().id, 'key-2', NOW)).toBe(true);
  });

  it('refuses a lock whose owner does not exist', () => {
    const locks = new LockRepository(db);
    expect(() => {
      locks.upsert(lock({ ownerId: 'nobody' }));
    }).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }));
  });
});

describe('SettingsRepository', () => {
  it('stores JSON values by key and overwrites them', () => {
    const settings = new SettingsRepository(db);
    expect(settings.get('missing')).toBeUndefined();
    settings.set('household', { users: [{ id: 'u1' }], count: 2 });
    expect(settings.get('household')).toEqual({ users: [{ id: 'u1' }], count: 2 });
    settings.set('household', null);
    expect(settings.get('household')).toBeNull();
  });
});
