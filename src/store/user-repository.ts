import type { SqliteDatabase } from './database.js';
import { ReadCache } from './read-cache.js';

/** A user as stored. `passwordHash` is null while the user is only invited. */
export interface UserRecord {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
  /** How many eKeys the user may still have sent at once; null = unlimited. */
  ekeyQuota: number | null;
  canSendEkeys: boolean;
  createdAt: number;
}

interface UserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  ekey_quota: number | null;
  can_send_ekeys: number;
  created_at: number;
}

const toRecord = (row: UserRow): UserRecord => ({
  id: row.id,
  email: row.email,
  name: row.name,
  passwordHash: row.password_hash,
  ekeyQuota: row.ekey_quota,
  canSendEkeys: row.can_send_ekeys === 1,
  createdAt: row.created_at,
});

/** E-mail addresses are unique case-insensitively (docs/design.md §3 Users). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** Upper bound of cached user records. */
const USER_CACHE_LIMIT = 10_000;

export interface UserRepositoryOptions {
  /** Monotonic milliseconds, for the cache's foreign-commit check (default `performance.now`). */
  monotonicNow?: () => number;
}

/**
 * Users. Lookups by id are cached in memory (every authenticated request that names its caller
 * makes one; see ReadCache for why and how it stays correct): inserts and updates through this
 * repository empty the cache, a commit by another process does within 250 ms.
 */
export class UserRepository {
  private readonly cache: ReadCache<UserRecord>;
  private readonly byId;
  private readonly byEmail;
  private readonly all;
  private readonly insertStatement;
  private readonly updateStatement;
  private writes = 0;

  constructor(db: SqliteDatabase, options: UserRepositoryOptions = {}) {
    this.cache = new ReadCache(db, { limit: USER_CACHE_LIMIT, monotonicNow: options.monotonicNow });
    this.byId = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?');
    this.byEmail = db.prepare<[string], UserRow>('SELECT * FROM users WHERE email_normalized = ?');
    this.all = db.prepare<[], UserRow>('SELECT * FROM users ORDER BY created_at, email_normalized');
    this.insertStatement = db.prepare(
      `INSERT INTO users (id, email, email_normalized, name, password_hash, ekey_quota, can_send_ekeys, created_at)
       VALUES (@id, @email, @email_normalized, @name, @password_hash, @ekey_quota, @can_send_ekeys, @created_at)`,
    );
    this.updateStatement = db.prepare(
      `UPDATE users SET name = @name, password_hash = @password_hash, ekey_quota = @ekey_quota,
       can_send_ekeys = @can_send_ekeys WHERE id = @id`,
    );
  }

  /** The user with this id (exact match; callers normalize). Each call returns a fresh copy. */
  findById(id: string): UserRecord | undefined {
    const cached = this.cache.get(id);
    if (cached) return { ...cached };
    const row = this.byId.get(id);
    if (!row) return undefined;
    const record = toRecord(row);
    this.cache.set(id, record);
    return { ...record };
  }

  findByEmail(email: string): UserRecord | undefined {
    const row = this.byEmail.get(normalizeEmail(email));
    return row ? toRecord(row) : undefined;
  }

  list(): UserRecord[] {
    return this.all.all().map(toRecord);
  }

  /** Inserts a user; throws SQLITE_CONSTRAINT_UNIQUE when the e-mail is taken. */
  insert(user: UserRecord): void {
    this.cache.clear();
    this.writes += 1;
    this.insertStatement.run(this.toRow(user));
  }

  update(user: UserRecord): void {
    this.cache.clear();
    this.writes += 1;
    this.updateStatement.run(this.toRow(user));
  }

  /**
   * Grows with every insert and update through this repository, so caches of what is derived from
   * users (names in event pages) can tell they are stale. Commits by other processes are not
   * counted: ReadCache's data_version check covers those.
   */
  get writeVersion(): number {
    return this.writes;
  }

  private toRow(user: UserRecord): UserRow & { email_normalized: string } {
    return {
      id: user.id,
      email: user.email.trim(),
      email_normalized: normalizeEmail(user.email),
      name: user.name,
      password_hash: user.passwordHash,
      ekey_quota: user.ekeyQuota,
      can_send_ekeys: user.canSendEkeys ? 1 : 0,
      created_at: user.createdAt,
    };
  }
}
