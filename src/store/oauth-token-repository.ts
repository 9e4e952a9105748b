import type { SqliteDatabase } from './database.js';
import { ReadCache } from './read-cache.js';

export type TokenKind = 'access' | 'refresh';

/** An issued access or refresh token; only its SHA-256 hash is stored. */
export interface TokenRecord {
  id: string;
  kind: TokenKind;
  tokenHash: string;
  familyId: string;
  codeHash: string | null;
  clientId: string;
  userId: string;
  expiresAt: number | null;
  usedAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}

/** A single-use authorization code; only its SHA-256 hash is stored. */
export interface AuthorizationCodeRecord {
  codeHash: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  expiresAt: number;
  usedAt: number | null;
  createdAt: number;
}

interface TokenRow {
  id: string;
  kind: TokenKind;
  token_hash: string;
  family_id: string;
  code_hash: string | null;
  client_id: string;
  user_id: string;
  expires_at: number | null;
  used_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

const toToken = (row: TokenRow): TokenRecord => ({
  id: row.id,
  kind: row.kind,
  tokenHash: row.token_hash,
  familyId: row.family_id,
  codeHash: row.code_hash,
  clientId: row.client_id,
  userId: row.user_id,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
  revokedAt: row.revoked_at,
  createdAt: row.created_at,
});

const toCode = (row: CodeRow): AuthorizationCodeRecord => ({
  codeHash: row.code_hash,
  clientId: row.client_id,
  userId: row.user_id,
  redirectUri: row.redirect_uri,
  codeChallenge: row.code_challenge,
  codeChallengeMethod: row.code_challenge_method,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
  createdAt: row.created_at,
});

/** Upper bound of cached access-token records (a record is ~300 bytes). */
const ACCESS_CACHE_LIMIT = 10_000;

export interface OAuthTokenRepositoryOptions {
  /** Monotonic milliseconds, for the cache's foreign-commit check (default `performance.now`). */
  monotonicNow?: () => number;
}

/**
 * Authorization codes and tokens. Every lookup is by hash: the store never sees a token.
 *
 * Live access-token records are cached in memory, because every API request looks one up
 * (the bearer check was the largest single cost of `GET /me`; docs/performance.md). The cache
 * can never make a revoked token work: every revocation through this repository empties it
 * before it returns — the only ways the service revokes. A commit by another connection or
 * process (SQLite's `data_version`; nothing in the product revokes that way today) empties it
 * within 250 ms. Expiry is not cached away: callers compare `expiresAt` with their clock.
 */
export class OAuthTokenRepository {
  private readonly accessCache: ReadCache<TokenRecord>;
  private readonly tokenByHash;
  private readonly insertTokenStatement;
  private readonly markUsedStatement;
  private readonly revokeFamilyStatement;
  private readonly revokeTokenStatement;
  private readonly revokeByCodeStatement;
  private readonly revokeUserStatement;
  private readonly codeByHash;
  private readonly insertCodeStatement;
  private readonly markCodeUsedStatement;
  private readonly purgeStatement;
  private readonly purgeExpiredTokensStatement;
  private readonly purgeCodesStatement;

  constructor(db: SqliteDatabase, options: OAuthTokenRepositoryOptions = {}) {
    this.accessCache = new ReadCache(db, { limit: ACCESS_CACHE_LIMIT, monotonicNow: options.monotonicNow });
    this.tokenByHash = db.prepare<[string], TokenRow>('SELECT * FROM oauth_tokens WHERE token_hash = ?');
    this.insertTokenStatement = db.prepare(
      `INSERT INTO oauth_tokens (id, kind, token_hash, family_id, code_hash, client_id, user_id, expires_at, used_at, revoked_at, created_at)
       VALUES (@id, @kind, @token_hash, @family_id, @code_hash, @client_id, @user_id, @expires_at, @used_at, @revoked_at, @created_at)`,
    );
    this.markUsedStatement = db.prepare<[number, string]>('UPDATE oauth_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL');
    this.revokeFamilyStatement = db.prepare<[number, string]>(
      'UPDATE oauth_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL',
    );
    this.revokeTokenStatement = db.prepare<[number, string]>('UPDATE oauth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.revokeByCodeStatement = db.prepare<[number, string]>(
      'UPDATE oauth_tokens SET revoked_at = ? WHERE code_hash = ? AND revoked_at IS NULL',
    );
    this.revokeUserStatement = db.prepare<[number, string]>('UPDATE oauth_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL');
    this.codeByHash = db.prepare<[string], CodeRow>('SELECT * FROM oauth_codes WHERE code_hash = ?');
    this.insertCodeStatement = db.prepare(
      `INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, code_challenge_method, expires_at, used_at, created_at)
       VALUES (@code_hash, @client_id, @user_id, @redirect_uri, @code_challenge, @code_challenge_method, @expires_at, @used_at, @created_at)`,
    );
    this.markCodeUsedStatement = db.prepare<[number, string]>('UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL');
    this.purgeStatement = db.prepare<[number]>(
      'DELETE FROM oauth_tokens WHERE expires_at IS NOT NULL AND expires_at < ? AND kind = \'access\'',
    );
    this.purgeExpiredTokensStatement = db.prepare<[number]>('DELETE FROM oauth_tokens WHERE expires_at IS NOT NULL AND expires_at < ?');
    this.purgeCodesStatement = db.prepare<[number]>('DELETE FROM oauth_codes WHERE expires_at < ?');
  }

  /**
   * The token with this hash, or undefined. Live (unrevoked) access tokens are served from the
   * cache described on the class; the record returned is frozen.
   */
  findTokenByHash(tokenHash: string): TokenRecord | undefined {
    const cached = this.accessCache.get(tokenHash);
    if (cached) return cached;
    const row = this.tokenByHash.get(tokenHash);
    if (!row) return undefined;
    const record = Object.freeze(toToken(row));
    if (record.kind === 'access' && record.revokedAt === null) this.accessCache.set(tokenHash, record);
    return record;
  }

  /** How many access-token records the cache holds (for tests and diagnostics). */
  get cachedAccessTokens(): number {
    return this.accessCache.size;
  }

  insertToken(token: TokenRecord): void {
    this.insertTokenStatement.run({
      id: token.id,
      kind: token.kind,
      token_hash: token.tokenHash,
      family_id: token.familyId,
      code_hash: token.codeHash,
      client_id: token.clientId,
      user_id: token.userId,
      expires_at: token.expiresAt,
      used_at: token.usedAt,
      revoked_at: token.revokedAt,
      created_at: token.createdAt,
    });
  }

  /** Marks a refresh token as exchanged; false when it already was (a reuse). */
  markTokenUsed(id: string, at: number): boolean {
    return this.markUsedStatement.run(at, id).changes === 1;
  }

  revokeToken(id: string, at: number): void {
    this.accessCache.clear();
    this.revokeTokenStatement.run(at, id);
  }

  /** Revokes every token of a family (refresh-token reuse, RFC 9700 §4.14). */
  revokeFamily(familyId: string, at: number): number {
    this.accessCache.clear();
    return this.revokeFamilyStatement.run(at, familyId).changes;
  }

  /** Revokes every token issued from an authorization code (code reuse, RFC 6749 §4.1.2). */
  revokeIssuedFromCode(codeHash: string, at: number): number {
    this.accessCache.clear();
    return this.revokeByCodeStatement.run(at, codeHash).changes;
  }

  /**
   * Revokes every token of a user: every session of theirs ends (a new password, docs/design.md
   * §9b; a password change then issues its caller a new session in the same transaction).
   */
  revokeUserSessions(userId: string, at: number): number {
    this.accessCache.clear();
    return this.revokeUserStatement.run(at, userId).changes;
  }

  findCodeByHash(codeHash: string): AuthorizationCodeRecord | undefined {
    const row = this.codeByHash.get(codeHash);
    return row ? toCode(row) : undefined;
  }

  insertCode(code: AuthorizationCodeRecord): void {
    this.insertCodeStatement.run({
      code_hash: code.codeHash,
      client_id: code.clientId,
      user_id: code.userId,
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      code_challenge_method: code.codeChallengeMethod,
      expires_at: code.expiresAt,
      used_at: code.usedAt,
      created_at: code.createdAt,
    });
  }

  /** Marks a code used; false when it already was (a reuse). */
  markCodeUsed(codeHash: string, at: number): boolean {
    return this.markCodeUsedStatement.run(at, codeHash).changes === 1;
  }

  /** Deletes access tokens that expired before `before`. */
  purgeExpiredAccessTokens(before: number): number {
    this.accessCache.clear();
    return this.purgeStatement.run(before).changes;
  }

  /**
   * Housekeeping: deletes tokens (access and refresh) that expired before `tokensBefore`, and
   * authorization codes that expired before `codesBefore`. Codes are kept a while past their
   * 60 s life so that a late replay still finds them and revokes what they issued (RFC 6749 §4.1.2).
   */
  purgeExpired(tokensBefore: number, codesBefore: number): { tokens: number; codes: number } {
    this.accessCache.clear();
    return {
      tokens: this.purgeExpiredTokensStatement.run(tokensBefore).changes,
      codes: this.purgeCodesStatement.run(codesBefore).changes,
    };
  }
}
