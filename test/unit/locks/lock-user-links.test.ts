import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { configuredLockId } from '../../../src/config/config-sync.js';
import type { PluginConfig } from '../../../src/config/plugin-config.js';
import { linkedUserResolver, userLinksOfConfig } from '../../../src/locks/lock-user-links.js';
import { nukiUserLinksOfEntry } from '../../../src/families/nuki/nuki-user-links.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { UserRepository } from '../../../src/store/user-repository.js';

const BACK_DOOR = '5ec0631b-2f59-4805-9c20-29a0e5608353';
const OLIVIA = { id: '11111111-1111-4111-8111-111111111111', name: 'Olivia Owner', email: 'olivia@example.com' };
const ALEX = { id: '22222222-2222-4222-8222-222222222222', name: 'Alex Adams', email: 'alex@example.com' };

let db: SqliteDatabase;
let users: UserRepository;

const addUser = (user: { id: string; name: string; email: string }): void => {
  users.insert({ id: user.id, email: user.email, name: user.name, passwordHash: null, ekeyQuota: null, canSendEkeys: true, createdAt: 0 });
};

beforeEach(() => {
  db = openDatabase(':memory:');
  users = new UserRepository(db);
  addUser(OLIVIA);
});
afterEach(() => {
  db.close();
});

describe('userLinksOfConfig (each lock\'s family reads its own entry)', () => {
  it('keys each lock\'s nuki_users by the configured lock\'s id, and skips locks without links', () => {
    const config: PluginConfig = {
      locks: [
        { id: BACK_DOOR.toUpperCase(), name: 'Back Door', family: 'nuki', address: '54:D2:72:AB:CD:EF', owner_email: OLIVIA.email, nuki_users: { "Olivia's iPhone": OLIVIA.email } },
        { name: 'Side Door', family: 'nuki', address: '54:d2:72:ab:cd:01', owner_email: OLIVIA.email, nuki_users: { "Alex's Watch": ALEX.email } },
        { name: 'Front Door', address: 'D0:E1:00:00:00:01', key: 'a'.repeat(64), owner_email: OLIVIA.email },
      ],
    };
    const table = userLinksOfConfig(config, (entry) => (entry.family === 'nuki' ? nukiUserLinksOfEntry(entry) : undefined));
    expect([...table.keys()]).toEqual([BACK_DOOR, configuredLockId({ name: 'Side Door', address: '54:D2:72:AB:CD:01' })]);
    expect(table.get(BACK_DOOR)).toEqual(new Map([["Olivia's iPhone", OLIVIA.email]]));
  });

  it('is empty without locks', () => {
    expect(userLinksOfConfig({}, () => new Map([['x', 'y']])).size).toBe(0);
  });
});

describe('linkedUserResolver (docs/design.md §4b: a lock-side user\'s name → e-mail → our user)', () => {
  const table = new Map([[BACK_DOOR, new Map([["Olivia's iPhone", OLIVIA.email], ["Alex's Watch", 'ALEX@Example.com']])]]);

  it('resolves an exact name to the linked user\'s id', () => {
    expect(linkedUserResolver(table, users)(BACK_DOOR, "Olivia's iPhone")).toBe(OLIVIA.id);
  });

  it.each(["olivia's iphone", "OLIVIA'S IPHONE", "  Olivia's iPhone  ", "Olivia's iPhone\t"])('ignores case and surrounding spaces: %j', (name) => {
    expect(linkedUserResolver(table, users)(BACK_DOOR, name)).toBe(OLIVIA.id);
  });

  it('matches the lock id case-insensitively', () => {
    expect(linkedUserResolver(table, users)(BACK_DOOR.toUpperCase(), "Olivia's iPhone")).toBe(OLIVIA.id);
  });

  it.each([
    ['an unlinked name', BACK_DOOR, "Guest's Android"],
    ['a name that only contains the linked one', BACK_DOOR, "Olivia's iPhone 2"],
    ['another lock', '6f1c2a8e-0000-4000-8000-000000000002', "Olivia's iPhone"],
    ['an empty name', BACK_DOOR, ''],
  ])('answers null for %s', (_case, lockId, name) => {
    expect(linkedUserResolver(table, users)(lockId, name)).toBeNull();
  });

  it('answers null while the linked e-mail belongs to nobody, and finds the user once created (any case of the address)', () => {
    const resolve = linkedUserResolver(table, users);
    expect(resolve(BACK_DOOR, "Alex's Watch")).toBeNull();
    addUser(ALEX);
    expect(resolve(BACK_DOOR, "Alex's Watch")).toBe(ALEX.id);
    expect(resolve(BACK_DOOR, "alex's watch")).toBe(ALEX.id);
  });

  it('prefers the exact name when two configured names differ only in case', () => {
    addUser(ALEX);
    const twins = new Map([[BACK_DOOR, new Map([['Phone', OLIVIA.email], ['phone', ALEX.email]])]]);
    const resolve = linkedUserResolver(twins, users);
    expect(resolve(BACK_DOOR, 'Phone')).toBe(OLIVIA.id);
    expect(resolve(BACK_DOOR, 'phone')).toBe(ALEX.id);
  });
});
