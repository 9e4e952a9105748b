import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { OAuthTokenRepository, type TokenRecord } from '../../../src/store/oauth-token-repository.js';
import { EXPIRED_CODE_RETENTION_MS, TokenHousekeeping } from '../../../src/auth/token-housekeeping.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';

describe('OAuth token housekeeping', () => {
  let db: SqliteDatabase;
  let tokens: OAuthTokenRepository;
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const now = clock.now();

  const token = (id: string, kind: 'access' | 'refresh', expiresAt: number | null): TokenRecord => ({
    id,
    kind,
    tokenHash: `hash-${id}`,
    familyId: 'family',
    codeHash: null,
    clientId: 'client',
    userId: 'user',
    expiresAt,
    usedAt: null,
    revokedAt: null,
    createdAt: now - 1000,
  });

  beforeEach(() => {
    db = openDatabase(':memory:');
    db.prepare("INSERT INTO users (id, email, email_normalized, name, created_at) VALUES ('user', 'u@example.com', 'u@example.com', 'U', 0)").run();
    db.prepare("INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES ('client', 'C', '[]', 0)").run();
    tokens = new OAuthTokenRepository(db);
  });

  afterEach(() => {
    db.close();
  });

  const code = (hash: string, expiresAt: number): void => {
    tokens.insertCode({
      codeHash: hash,
      clientId: 'client',
      userId: 'user',
      redirectUri: 'https://app.example/cb',
      codeChallenge: null,
      codeChallengeMethod: null,
      expiresAt,
      usedAt: null,
      createdAt: expiresAt - 60_000,
    });
  };

  it('deletes expired access and refresh tokens and keeps live ones', () => {
    tokens.insertToken(token('old-access', 'access', now - 1));
    tokens.insertToken(token('old-refresh', 'refresh', now - 1));
    tokens.insertToken(token('live-access', 'access', now + 60_000));
    tokens.insertToken(token('live-refresh', 'refresh', now + 60_000));
    const removed = new TokenHousekeeping(tokens, clock, new RecordingLogger()).runOnce();
    expect(removed.tokens).toBe(2);
    expect(tokens.findTokenByHash('hash-old-access')).toBeUndefined();
    expect(tokens.findTokenByHash('hash-old-refresh')).toBeUndefined();
    expect(tokens.findTokenByHash('hash-live-access')?.id).toBe('live-access');
    expect(tokens.findTokenByHash('hash-live-refresh')?.id).toBe('live-refresh');
  });

  it('keeps an expired code for a day, so a late replay can still revoke what it issued', () => {
    code('recently-expired', now - 1000);
    code('long-expired', now - EXPIRED_CODE_RETENTION_MS - 1);
    const removed = new TokenHousekeeping(tokens, clock, new RecordingLogger()).runOnce();
    expect(removed.codes).toBe(1);
    expect(tokens.findCodeByHash('recently-expired')).toBeDefined();
    expect(tokens.findCodeByHash('long-expired')).toBeUndefined();
  });

  it('logs a failure instead of throwing into its timer', () => {
    const logger = new RecordingLogger();
    const housekeeping = new TokenHousekeeping(tokens, clock, logger, 60_000);
    db.close();
    expect(() => {
      housekeeping.start();
    }).not.toThrow();
    housekeeping.stop();
    expect(logger.lines.some((line) => line.level === 'warn' && line.message.startsWith('OAuth housekeeping failed'))).toBe(true);
    db = openDatabase(':memory:');
  });
});
