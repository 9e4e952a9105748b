import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { UserRepository, type UserRecord } from '../../../src/store/user-repository.js';
import { HASHED_AT_FIRST_SIGN_IN, PasswordCheck } from '../../../src/auth/password-check.js';
import { hashPassword } from '../../../src/auth/password.js';

describe('PasswordCheck', () => {
  let db: SqliteDatabase;
  let users: UserRepository;
  const record = (id: string, passwordHash: string | null): UserRecord => ({
    id,
    email: `${id}@example.com`,
    name: id,
    passwordHash,
    ekeyQuota: null,
    canSendEkeys: true,
    createdAt: 0,
  });
  const add = (id: string, passwordHash: string | null): UserRecord => {
    const user = record(id, passwordHash);
    users.insert(user);
    return user;
  };

  beforeEach(() => {
    db = openDatabase(':memory:');
    users = new UserRepository(db);
  });
  afterEach(() => {
    db.close();
  });

  it('checks a stored scrypt hash and never matches an invited address', async () => {
    const check = new PasswordCheck({ users, knownPassword: () => 'secret-one' });
    const member = add('member', await hashPassword('secret-one'));
    expect(await check.matches(member, 'secret-one')).toBe(true);
    expect(await check.matches(member, 'secret-two')).toBe(false);
    // The known password is only for accounts stored with the stand-in.
    expect(await check.matches(add('invited', null), 'secret-one')).toBe(false);
    expect(users.findById('invited')?.passwordHash).toBeNull();
  });

  it('hashes a known password at its first match, once, and compares after normalising as scrypt does', async () => {
    const check = new PasswordCheck({ users, knownPassword: (id) => (id === 'demo' ? 'Ｐass-１２３' : undefined) });
    const demo = add('demo', HASHED_AT_FIRST_SIGN_IN);
    expect(await check.matches(demo, 'Pass-123x')).toBe(false);
    expect(users.findById('demo')?.passwordHash).toBe(HASHED_AT_FIRST_SIGN_IN);
    // NFKC: the full-width form and the plain one are the same password, as scrypt sees them.
    expect(await check.matches(demo, 'Pass-123')).toBe(true);
    const stored = users.findById('demo')?.passwordHash ?? '';
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    // From now on it is an account like any other: the stored hash decides.
    const now = users.findById('demo');
    if (!now) throw new Error('gone');
    expect(await check.matches(now, 'Ｐass-１２３')).toBe(true);
    expect(await check.matches(now, 'Pass-124')).toBe(false);
    expect(users.findById('demo')?.passwordHash).toBe(stored);
  });

  it('never matches the stand-in where no password is known for the account', async () => {
    const demo = add('demo', HASHED_AT_FIRST_SIGN_IN);
    for (const check of [new PasswordCheck({ users }), new PasswordCheck({ users, knownPassword: () => undefined })]) {
      expect(await check.matches(demo, HASHED_AT_FIRST_SIGN_IN)).toBe(false);
      expect(await check.matches(demo, '')).toBe(false);
    }
    expect(users.findById('demo')?.passwordHash).toBe(HASHED_AT_FIRST_SIGN_IN);
  });

  it('leaves a password set while the first sign-in hashed alone', async () => {
    const check = new PasswordCheck({ users, knownPassword: () => 'demo-pass' });
    const demo = add('demo', HASHED_AT_FIRST_SIGN_IN);
    const signIn = check.matches(demo, 'demo-pass');
    // A reset lands while the sign-in's derivation runs.
    users.update({ ...demo, passwordHash: 'scrypt$32768$8$1$set$meanwhile' });
    expect(await signIn).toBe(true);
    expect(users.findById('demo')?.passwordHash).toBe('scrypt$32768$8$1$set$meanwhile');
  });
});
