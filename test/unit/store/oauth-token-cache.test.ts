import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { OAuthTokenRepository, type TokenRecord } from '../../../src/store/oauth-token-repository.js';

/*
 * OAuthTokenRepository caches live access-token records for the bearer check. What must hold:
 * a revocation is visible to the very next lookup; nothing but live access tokens is cached.
 */

const NOW = Date.UTC(2026, 0, 15, 12);
let dir: string;
let db: SqliteDatabase;
let monotonic: number;
let tokens: OAuthTokenRepository;

const token = (overrides: Partial<TokenRecord> = {}): TokenRecord => ({
  id: 'access-1',
  kind: 'access',
  tokenHash: 'hash-access-1',
  familyId: 'family-1',
  codeHash: 'code-1',
  clientId: 'client-1',
  userId: 'user-1',
  expiresAt: NOW + 3_600_000,
  usedAt: null,
  revokedAt: null,
  createdAt: NOW,
  ...overrides,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ekey-token-cache-'));
  db = openDatabase(join(dir, 'service.sqlite'));
  db.prepare("INSERT INTO users (id, email, email_normalized, name, created_at) VALUES ('user-1', 'a@example.com', 'a@example.com', 'A', 0)").run();
  db.prepare("INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES ('client-1', 'App', '[]', 0)").run();
  monotonic = 0;
  tokens = new OAuthTokenRepository(db, { monotonicNow: () => monotonic });
  tokens.insertToken(token());
  tokens.insertToken(token({ id: 'refresh-1', kind: 'refresh', tokenHash: 'hash-refresh-1' }));
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the access-token cache of OAuthTokenRepository', () => {
  it('serves a live access token from memory after the first lookup, as a frozen record', () => {
    const first = tokens.findTokenByHash('hash-access-1');
    expect(first).toEqual(token());
    expect(tokens.cachedAccessTokens).toBe(1);
    expect(tokens.findTokenByHash('hash-access-1')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('never caches refresh tokens or unknown hashes', () => {
    expect(tokens.findTokenByHash('hash-refresh-1')?.kind).toBe('refresh');
    expect(tokens.findTokenByHash('unknown')).toBeUndefined();
    expect(tokens.cachedAccessTokens).toBe(0);
    tokens.markTokenUsed('refresh-1', NOW + 1);
    expect(tokens.findTokenByHash('hash-refresh-1')?.usedAt).toBe(NOW + 1);
  });

  it.each([
    [
      'revokeToken',
      (repository: OAuthTokenRepository) => {
        repository.revokeToken('access-1', NOW + 5);
      },
    ],
    ['revokeFamily', (repository: OAuthTokenRepository) => repository.revokeFamily('family-1', NOW + 5)],
    ['revokeIssuedFromCode', (repository: OAuthTokenRepository) => repository.revokeIssuedFromCode('code-1', NOW + 5)],
  ])('shows a cached token revoked right after %s', (_name, revoke) => {
    expect(tokens.findTokenByHash('hash-access-1')?.revokedAt).toBeNull();
    revoke(tokens);
    expect(tokens.findTokenByHash('hash-access-1')?.revokedAt).toBe(NOW + 5);
  });

  it('forgets purged tokens at once', () => {
    tokens.findTokenByHash('hash-access-1');
    tokens.purgeExpiredAccessTokens(NOW + 3_600_001);
    expect(tokens.findTokenByHash('hash-access-1')).toBeUndefined();
  });

  it('does not cache a token that is already revoked', () => {
    tokens.revokeToken('access-1', NOW);
    expect(tokens.findTokenByHash('hash-access-1')?.revokedAt).toBe(NOW);
    expect(tokens.cachedAccessTokens).toBe(0);
  });

  it('sees a revocation committed by another connection within 250 ms', () => {
    expect(tokens.findTokenByHash('hash-access-1')?.revokedAt).toBeNull();
    const other = openDatabase(join(dir, 'service.sqlite'));
    new OAuthTokenRepository(other).revokeToken('access-1', NOW + 9);
    other.close();
    monotonic += 249;
    // Documented window: another process's commit may take up to 250 ms to be noticed.
    expect(tokens.findTokenByHash('hash-access-1')?.revokedAt).toBeNull();
    monotonic += 1;
    expect(tokens.findTokenByHash('hash-access-1')?.revokedAt).toBe(NOW + 9);
  });

  it('keeps at most 10 000 records, dropping the oldest', () => {
    const insert = db.transaction(() => {
      for (let index = 0; index < 10_001; index++) tokens.insertToken(token({ id: `a-${index}`, tokenHash: `h-${index}` }));
    });
    insert();
    for (let index = 0; index < 10_001; index++) tokens.findTokenByHash(`h-${index}`);
    expect(tokens.cachedAccessTokens).toBe(10_000);
    expect(tokens.findTokenByHash('h-0')?.id).toBe('a-0');
  });
});
