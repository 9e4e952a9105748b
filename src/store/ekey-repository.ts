import type { SqliteDatabase } from './database.js';
import type { EKey, EKeyStatus, EKeyType } from '../domain/ekey-types.js';

/** An eKey as stored: the domain record plus who sent it and when it was revoked. */
export interface StoredEKey extends EKey {
  /** User who sent the key (counts against their quota); null for owner keys made by config. */
  sent_by: string | null;
  /** Epoch ms of revocation; null while not revoked. */
  revoked_at: number | null;
}

interface EKeyRow {
  id: string;
  lock_id: string;
  user_id: string;
  name: string | null;
  type: EKeyType;
  status: EKeyStatus;
  valid_from: number | null;
  valid_to: number | null;
  schedule_start: string | null;
  schedule_end: string | null;
  message: string | null;
  sent_by: string | null;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
}

const toStored = (row: EKeyRow): StoredEKey => ({ ...row });

const COLUMNS =
  'id, lock_id, user_id, name, type, status, valid_from, valid_to, schedule_start, schedule_end, message, sent_by, created_at, updated_at, revoked_at';

/**
 * The eKeys table. Ids are stored lower case; callers normalize path ids before looking up.
 * "Live" means not revoked: the partial unique index allows one live key per user and lock.
 */
export class EKeyRepository {
  private readonly byId;
  private readonly byLock;
  private readonly byUser;
  private readonly byUserOnLock;
  private readonly liveByUserOnLock;
  private readonly insertStatement;
  private readonly updateStatement;
  private readonly deleteStatement;
  private readonly liveSentByStatement;
  private readonly pendingByUserStatement;
  private readonly otherLiveOwnersStatement;
  private writes = 0;

  constructor(db: SqliteDatabase) {
    this.byId = db.prepare<[string], EKeyRow>(`SELECT ${COLUMNS} FROM ekeys WHERE id = ?`);
    this.byLock = db.prepare<[string], EKeyRow>(`SELECT ${COLUMNS} FROM ekeys WHERE lock_id = ? ORDER BY created_at, id`);
    this.byUser = db.prepare<[string], EKeyRow>(`SELECT ${COLUMNS} FROM ekeys WHERE user_id = ? ORDER BY created_at, id`);
    this.byUserOnLock = db.prepare<[string, string], EKeyRow>(
      `SELECT ${COLUMNS} FROM ekeys WHERE user_id = ? AND lock_id = ? ORDER BY created_at, id`,
    );
    this.liveByUserOnLock = db.prepare<[string, string], EKeyRow>(
      `SELECT ${COLUMNS} FROM ekeys WHERE user_id = ? AND lock_id = ? AND status <> 'revoked'`,
    );
    this.insertStatement = db.prepare(
      `INSERT INTO ekeys (${COLUMNS}) VALUES (@id, @lock_id, @user_id, @name, @type, @status, @valid_from, @valid_to,
         @schedule_start, @schedule_end, @message, @sent_by, @created_at, @updated_at, @revoked_at)`,
    );
    this.updateStatement = db.prepare(
      `UPDATE ekeys SET name = @name, type = @type, status = @status, valid_from = @valid_from, valid_to = @valid_to,
         schedule_start = @schedule_start, schedule_end = @schedule_end, message = @message,
         updated_at = @updated_at, revoked_at = @revoked_at WHERE id = @id`,
    );
    this.deleteStatement = db.prepare<[string]>('DELETE FROM ekeys WHERE id = ?');
    this.liveSentByStatement = db.prepare<[string], { count: number }>(
      "SELECT COUNT(*) AS count FROM ekeys WHERE sent_by = ? AND status <> 'revoked'",
    );
    this.pendingByUserStatement = db.prepare<[string], EKeyRow>(
      `SELECT ${COLUMNS} FROM ekeys WHERE user_id = ? AND status = 'pending' ORDER BY created_at, id`,
    );
    this.otherLiveOwnersStatement = db.prepare<[string, string], { count: number }>(
      "SELECT COUNT(*) AS count FROM ekeys WHERE lock_id = ? AND id <> ? AND type = 'owner' AND status = 'accepted'",
    );
  }

  /**
   * Grows with every insert, update and delete through this instance, so caches of access
   * decisions can tell they are stale. Other processes' commits: ReadCache's data_version check.
   */
  get writeVersion(): number {
    return this.writes;
  }

  findById(id: string): StoredEKey | undefined {
    const row = this.byId.get(id.toLowerCase());
    return row ? toStored(row) : undefined;
  }

  /** Every key of a lock, any status, oldest first. */
  listByLock(lockId: string): StoredEKey[] {
    return this.byLock.all(lockId.toLowerCase()).map(toStored);
  }

  /** Every key a user holds, any status, oldest first. */
  listByUser(userId: string): StoredEKey[] {
    return this.byUser.all(userId.toLowerCase()).map(toStored);
  }

  /** A user's keys on one lock, any status (at most one of them live). */
  listByUserOnLock(userId: string, lockId: string): StoredEKey[] {
    return this.byUserOnLock.all(userId.toLowerCase(), lockId.toLowerCase()).map(toStored);
  }

  /** The user's one non-revoked key on the lock, if any. */
  findLive(userId: string, lockId: string): StoredEKey | undefined {
    const row = this.liveByUserOnLock.get(userId.toLowerCase(), lockId.toLowerCase());
    return row ? toStored(row) : undefined;
  }

  /** Inserts a key; throws SQLITE_CONSTRAINT_UNIQUE when the user already holds a live key on the lock. */
  insert(key: StoredEKey): void {
    this.writes += 1;
    this.insertStatement.run({ ...key });
  }

  /** Writes every mutable column (fields, status, timestamps); identity and sender never change. */
  update(key: StoredEKey): void {
    this.writes += 1;
    this.updateStatement.run({ ...key });
  }

  delete(id: string): boolean {
    this.writes += 1;
    return this.deleteStatement.run(id.toLowerCase()).changes === 1;
  }

  /** How many non-revoked keys `userId` has sent: what their `ekey_quota` limits. */
  countLiveSentBy(userId: string): number {
    return this.liveSentByStatement.get(userId.toLowerCase())?.count ?? 0;
  }

  /** A user's pending keys (an invited user's, until they sign up). */
  listPendingByUser(userId: string): StoredEKey[] {
    return this.pendingByUserStatement.all(userId.toLowerCase()).map(toStored);
  }

  /** Accepted owner keys on a lock other than `exceptKeyId`: zero means that key is the last one. */
  countOtherOwnerKeys(lockId: string, exceptKeyId: string): number {
    return this.otherLiveOwnersStatement.get(lockId.toLowerCase(), exceptKeyId.toLowerCase())?.count ?? 0;
  }
}
