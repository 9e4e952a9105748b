import type { SqliteDatabase } from './database.js';

/** A "Forgot your password?" link; only the SHA-256 hash of its token is stored. */
export interface PasswordResetRecord {
  tokenHash: string;
  userId: string;
  expiresAt: number;
  usedAt: number | null;
  createdAt: number;
}

interface Row {
  token_hash: string;
  user_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/** The password_resets table (migration 8). Every lookup is by token hash. */
export class PasswordResetRepository {
  private readonly byHash;
  private readonly insertStatement;
  private readonly useStatement;
  private readonly useAllStatement;
  private readonly purgeStatement;
  private readonly countSinceStatement;

  constructor(db: SqliteDatabase) {
    this.byHash = db.prepare<[string], Row>('SELECT * FROM password_resets WHERE token_hash = ?');
    this.insertStatement = db.prepare<[string, string, number, number]>(
      'INSERT INTO password_resets (token_hash, user_id, expires_at, used_at, created_at) VALUES (?, ?, ?, NULL, ?)',
    );
    this.useStatement = db.prepare<[number, string]>('UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL');
    this.useAllStatement = db.prepare<[number, string]>('UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL');
    this.purgeStatement = db.prepare<[number]>('DELETE FROM password_resets WHERE created_at < ?');
    this.countSinceStatement = db.prepare<[string, number], { n: number }>('SELECT COUNT(*) AS n FROM password_resets WHERE user_id = ? AND created_at > ?');
  }

  find(tokenHash: string): PasswordResetRecord | undefined {
    const row = this.byHash.get(tokenHash);
    return row ? { tokenHash: row.token_hash, userId: row.user_id, expiresAt: row.expires_at, usedAt: row.used_at, createdAt: row.created_at } : undefined;
  }

  insert(record: Omit<PasswordResetRecord, 'usedAt'>): void {
    this.insertStatement.run(record.tokenHash, record.userId, record.expiresAt, record.createdAt);
  }

  /** Marks the link used; false when it already was (single use). */
  use(tokenHash: string, at: number): boolean {
    return this.useStatement.run(at, tokenHash).changes === 1;
  }

  /** Every open link of the user stops working (their password was just set another way). */
  useAllFor(userId: string, at: number): number {
    return this.useAllStatement.run(at, userId).changes;
  }

  /** How many links the user was sent after `since` (the per-account cap counts used ones too). */
  countCreatedAfter(userId: string, since: number): number {
    return this.countSinceStatement.get(userId, since)?.n ?? 0;
  }

  /** Housekeeping: links made before `before` (long expired, and outside the cap's window). */
  purgeCreatedBefore(before: number): number {
    return this.purgeStatement.run(before).changes;
  }
}
