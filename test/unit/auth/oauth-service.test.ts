import { beforeEach, describe, expect, it } from '@jest/globals';
import { StoredBearerAuthenticator } from '../../../src/auth/bearer-authenticator.js';
import type { ClientCredentials } from '../../../src/auth/client-authentication.js';
import { OAuthError } from '../../../src/auth/oauth-error.js';
import {
  AUTHORIZATION_CODE_TTL_MS,
  DEFAULT_REFRESH_TOKEN_TTL_S,
  OAuthService,
  withQuery,
  type AuthorizationParams,
  type TokenResponse,
} from '../../../src/auth/oauth-service.js';
import { hashPassword } from '../../../src/auth/password.js';
import { s256Challenge } from '../../../src/auth/pkce.js';
import { ClientRepository } from '../../../src/store/client-repository.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { OAuthTokenRepository, type TokenRecord } from '../../../src/store/oauth-token-repository.js';
import { UserRepository } from '../../../src/store/user-repository.js';
import { sha256Hex } from '../../../src/auth/secrets.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { thrownError } from '../../support/thrown-error.js';

const CONFIDENTIAL = { id: '11111111-1111-4111-8111-111111111111', secret: 'confidential-secret', redirect: 'https://app.example/cb?keep=1' };
const PUBLIC = { id: '22222222-2222-4222-8222-222222222222', redirect: 'https://phone.example/cb' };
const USER = { id: '33333333-3333-4333-8333-333333333333', email: 'Olivia@Example.com', password: 'correct horse battery' };
const INVITED = { id: '44444444-4444-4444-8444-444444444444', email: 'invited@example.com' };
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const ACCESS_TTL_S = 600;

/** The user's hash is computed once: scrypt is slow on purpose. */
const userHash = hashPassword(USER.password);

interface Fixture {
  db: SqliteDatabase;
  clock: ManualClock;
  logger: RecordingLogger;
  tokens: OAuthTokenRepository;
  oauth: OAuthService;
  bearer: StoredBearerAuthenticator;
}

async function fixture(tokens?: (db: SqliteDatabase) => OAuthTokenRepository): Promise<Fixture> {
  const db = openDatabase(':memory:');
  const clock = new ManualClock();
  const logger = new RecordingLogger();
  const clients = new ClientRepository(db);
  const users = new UserRepository(db);
  const tokenRepository = tokens ? tokens(db) : new OAuthTokenRepository(db);
  const base = { createdAt: clock.now(), name: 'App' };
  clients.upsert({ ...base, id: CONFIDENTIAL.id, secretHash: sha256Hex(CONFIDENTIAL.secret), isPublic: false, redirectUris: [CONFIDENTIAL.redirect] });
  clients.upsert({ ...base, id: PUBLIC.id, secretHash: null, isPublic: true, redirectUris: [PUBLIC.redirect] });
  const user = { ekeyQuota: null, canSendEkeys: true, createdAt: clock.now(), name: 'Olivia' };
  users.insert({ ...user, id: USER.id, email: USER.email, passwordHash: await userHash });
  users.insert({ ...user, id: INVITED.id, email: INVITED.email, passwordHash: null });
  const oauth = new OAuthService({ clients, users, tokens: tokenRepository, clock, logger, db, accessTokenTtlS: ACCESS_TTL_S });
  return { db, clock, logger, tokens: tokenRepository, oauth, bearer: new StoredBearerAuthenticator(tokenRepository, clock) };
}

const confidential: ClientCredentials = { clientId: CONFIDENTIAL.id, clientSecret: CONFIDENTIAL.secret, method: 'body' };
const publicClient: ClientCredentials = { clientId: PUBLIC.id, clientSecret: null, method: 'body' };
const confidentialParams: AuthorizationParams = { response_type: 'code', client_id: CONFIDENTIAL.id, redirect_uri: CONFIDENTIAL.redirect, state: 'xyz' };

async function issueCode(f: Fixture, params: AuthorizationParams = confidentialParams): Promise<string> {
  const outcome = await f.oauth.authorize(params, USER.email, USER.password);
  if (outcome.kind !== 'redirect') throw new Error(`expected a redirect, got ${outcome.kind}`);
  const code = new URL(outcome.location).searchParams.get('code');
  if (!code) throw new Error('no code');
  return code;
}

const oauthErrorOf = (work: () => unknown): OAuthError => thrownError(OAuthError, work);

const exchange = (f: Fixture, code: string, extra: Partial<Parameters<OAuthService['token']>[0]> = {}): TokenResponse =>
  f.oauth.token({ grantType: 'authorization_code', credentials: confidential, code, ...extra });

const refresh = (f: Fixture, refreshToken: string, credentials: ClientCredentials = confidential): TokenResponse =>
  f.oauth.token({ grantType: 'refresh_token', credentials, refreshToken });

describe('OAuthService', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });

  describe('authorization request checks', () => {
    it('shows an error page (never redirects) for an unknown client or unregistered redirect_uri', () => {
      expect(f.oauth.checkAuthorizationRequest({ ...confidentialParams, client_id: 'nope' }).kind).toBe('error-page');
      expect(f.oauth.checkAuthorizationRequest({ ...confidentialParams, redirect_uri: 'https://app.example/cb' }).kind).toBe('error-page');
      expect(f.oauth.checkAuthorizationRequest({ ...confidentialParams, redirect_uri: `${CONFIDENTIAL.redirect}&x=1` }).kind).toBe('error-page');
      expect(f.oauth.checkAuthorizationRequest({ ...confidentialParams, redirect_uri: undefined }).kind).toBe('error-page');
    });

    it.each([
      ['a bad response_type', { response_type: 'token' }, 'unsupported_response_type'],
      ['the plain PKCE method', { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'plain' }, 'invalid_request'],
      ['a challenge without method', { code_challenge: s256Challenge(VERIFIER) }, 'invalid_request'],
      ['a method without challenge', { code_challenge_method: 'S256' }, 'invalid_request'],
      ['a malformed challenge', { code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
    ])('redirects %s back to the client with error and state', (_label, extra, error) => {
      const check = f.oauth.checkAuthorizationRequest({ ...confidentialParams, ...extra });
      expect(check.kind).toBe('redirect');
      const location = new URL(check.kind === 'redirect' ? check.location : '');
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('xyz');
      expect(location.searchParams.get('keep')).toBe('1');
    });

    it('requires PKCE from a public client', () => {
      const params = { response_type: 'code', client_id: PUBLIC.id, redirect_uri: PUBLIC.redirect };
      expect(f.oauth.checkAuthorizationRequest(params).kind).toBe('redirect');
      expect(f.oauth.checkAuthorizationRequest({ ...params, code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' }).kind).toBe('valid');
    });
  });

  describe('sign-in', () => {
    it('issues a code with the state, keeping the redirect_uri query; matches e-mail case-insensitively', async () => {
      const outcome = await f.oauth.authorize({ ...confidentialParams, state: 'a b&c=d/é' }, 'olivia@EXAMPLE.com', USER.password);
      expect(outcome.kind).toBe('redirect');
      const location = outcome.kind === 'redirect' ? outcome.location : '';
      expect(location.startsWith(`${CONFIDENTIAL.redirect}&code=`)).toBe(true);
      expect(new URL(location).searchParams.get('state')).toBe('a b&c=d/é');
    });

    it.each([
      ['a wrong password', USER.email, 'wrong password'],
      ['an unknown user', 'nobody@example.com', USER.password],
      ['an invited user without password', INVITED.email, USER.password],
      ['no e-mail', undefined, USER.password],
    ])('refuses %s and issues no code', async (_label, email, password) => {
      const outcome = await f.oauth.authorize(confidentialParams, email, password);
      expect(outcome.kind).toBe('login-failed');
      expect(f.db.prepare('SELECT count(*) AS n FROM oauth_codes').get()).toEqual({ n: 0 });
    });
  });

  describe('authorization_code grant', () => {
    it('exchanges a code for a Bearer pair whose access token authenticates the user', async () => {
      const tokens = exchange(f, await issueCode(f));
      expect(tokens).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: ACCESS_TTL_S, refresh_token: expect.any(String) });
      expect(f.bearer.authenticate(`Bearer ${tokens.access_token}`).userId).toBe(USER.id);
    });

    it('accepts a code until just before 60 s and refuses it at 60 s', async () => {
      const early = await issueCode(f);
      f.clock.advance(AUTHORIZATION_CODE_TTL_MS - 1);
      expect(() => exchange(f, early)).not.toThrow();

      const late = await issueCode(f);
      f.clock.advance(AUTHORIZATION_CODE_TTL_MS);
      expect(oauthErrorOf(() => exchange(f, late)).error).toBe('invalid_grant');
    });

    it('refuses a reused code and revokes every token issued from it, rotated ones included', async () => {
      const code = await issueCode(f);
      const first = exchange(f, code);
      const rotated = refresh(f, first.refresh_token);
      const error = oauthErrorOf(() => exchange(f, code));
      expect(error.error).toBe('invalid_grant');
      expect(() => f.bearer.authenticate(`Bearer ${first.access_token}`)).toThrow();
      expect(() => f.bearer.authenticate(`Bearer ${rotated.access_token}`)).toThrow();
      expect(oauthErrorOf(() => refresh(f, rotated.refresh_token)).error).toBe('invalid_grant');
      expect(f.logger.text()).toMatch(/reused/);
    });

    it('binds the code to its client without consuming it for another client', async () => {
      const other = '55555555-5555-4555-8555-555555555555';
      const code = await issueCode(f);
      expect(oauthErrorOf(() => f.oauth.token({ grantType: 'authorization_code', credentials: { ...confidential, clientId: other }, code })).error).toBe('invalid_client');
      expect(oauthErrorOf(() => f.oauth.token({ grantType: 'authorization_code', credentials: publicClient, code })).error).toBe('invalid_grant');
      expect(() => exchange(f, code)).not.toThrow();
    });

    it('checks redirect_uri only when sent', async () => {
      expect(oauthErrorOf(() => exchange(f, '')).error).toBe('invalid_request');
      const sent = await issueCode(f);
      expect(() => exchange(f, sent, { redirectUri: CONFIDENTIAL.redirect })).not.toThrow();
      const wrong = await issueCode(f);
      expect(oauthErrorOf(() => exchange(f, wrong, { redirectUri: 'https://app.example/cb' })).error).toBe('invalid_grant');
    });

    it('verifies PKCE whenever the code carries a challenge, and a failed attempt consumes the code', async () => {
      const params = { ...confidentialParams, code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' };
      const missing = await issueCode(f, params);
      expect(oauthErrorOf(() => exchange(f, missing)).error).toBe('invalid_grant');
      const wrong = await issueCode(f, params);
      expect(oauthErrorOf(() => exchange(f, wrong, { codeVerifier: 'x'.repeat(43) })).error).toBe('invalid_grant');
      expect(oauthErrorOf(() => exchange(f, wrong, { codeVerifier: VERIFIER })).error).toBe('invalid_grant');
      const right = await issueCode(f, params);
      expect(() => exchange(f, right, { codeVerifier: VERIFIER })).not.toThrow();
    });

    it('lets a public client exchange with PKCE and no secret, and refuses it a secret', async () => {
      const params = { response_type: 'code', client_id: PUBLIC.id, redirect_uri: PUBLIC.redirect, code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' };
      const code = await issueCode(f, params);
      expect(oauthErrorOf(() => f.oauth.token({ grantType: 'authorization_code', credentials: { ...publicClient, clientSecret: 'guess' }, code })).error).toBe('invalid_client');
      expect(() => f.oauth.token({ grantType: 'authorization_code', credentials: publicClient, code, codeVerifier: VERIFIER })).not.toThrow();
    });

    it('writes nothing when issuing fails half-way (one transaction)', async () => {
      class FailingRefreshInsert extends OAuthTokenRepository {
        override insertToken(token: TokenRecord): void {
          if (token.kind === 'refresh') throw new Error('disk full');
          super.insertToken(token);
        }
      }
      f = await fixture((db) => new FailingRefreshInsert(db));
      const code = await issueCode(f);
      expect(() => exchange(f, code)).toThrow('disk full');
      expect(f.db.prepare('SELECT count(*) AS n FROM oauth_tokens').get()).toEqual({ n: 0 });
      expect(f.tokens.findCodeByHash(sha256Hex(code))?.usedAt).toBeNull();
    });
  });

  describe('access tokens', () => {
    it('expire after expires_in seconds', async () => {
      const tokens = exchange(f, await issueCode(f));
      f.clock.advance(ACCESS_TTL_S * 1000 - 1);
      expect(f.bearer.authenticate(`Bearer ${tokens.access_token}`).userId).toBe(USER.id);
      f.clock.advance(1);
      expect(() => f.bearer.authenticate(`Bearer ${tokens.access_token}`)).toThrow();
    });
  });

  describe('refresh_token grant', () => {
    it('rotates: a new pair each time, the old access token valid until its expiry', async () => {
      const first = exchange(f, await issueCode(f));
      const second = refresh(f, first.refresh_token);
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(second.access_token).not.toBe(first.access_token);
      expect(f.bearer.authenticate(`Bearer ${second.access_token}`).userId).toBe(USER.id);
      expect(f.bearer.authenticate(`Bearer ${first.access_token}`).userId).toBe(USER.id);
      const third = refresh(f, second.refresh_token);
      const family = f.tokens.findTokenByHash(sha256Hex(third.refresh_token))?.familyId;
      expect(family).toBe(f.tokens.findTokenByHash(sha256Hex(first.refresh_token))?.familyId);
    });

    it('revokes the whole family when a used refresh token comes back (RFC 9700 §4.14)', async () => {
      const first = exchange(f, await issueCode(f));
      const second = refresh(f, first.refresh_token);
      expect(oauthErrorOf(() => refresh(f, first.refresh_token)).error).toBe('invalid_grant');
      expect(oauthErrorOf(() => refresh(f, second.refresh_token)).error).toBe('invalid_grant');
      expect(() => f.bearer.authenticate(`Bearer ${second.access_token}`)).toThrow();
      expect(() => f.bearer.authenticate(`Bearer ${first.access_token}`)).toThrow();
    });

    it('leaves other families alone', async () => {
      const mine = exchange(f, await issueCode(f));
      const other = exchange(f, await issueCode(f));
      refresh(f, mine.refresh_token);
      expect(() => refresh(f, mine.refresh_token)).toThrow(OAuthError);
      expect(f.bearer.authenticate(`Bearer ${other.access_token}`).userId).toBe(USER.id);
      expect(() => refresh(f, other.refresh_token)).not.toThrow();
    });

    it('expires 30 days after issue, sliding with each rotation', async () => {
      const day = 24 * 3600 * 1000;
      const first = exchange(f, await issueCode(f));
      f.clock.advance(20 * day);
      const second = refresh(f, first.refresh_token);
      f.clock.advance(20 * day); // 40 days after the first issue, 20 after the rotation
      const third = refresh(f, second.refresh_token);
      f.clock.advance(DEFAULT_REFRESH_TOKEN_TTL_S * 1000);
      expect(oauthErrorOf(() => refresh(f, third.refresh_token)).error).toBe('invalid_grant');
    });

    it('is bound to its client', async () => {
      const tokens = exchange(f, await issueCode(f));
      expect(oauthErrorOf(() => refresh(f, tokens.refresh_token, publicClient)).error).toBe('invalid_grant');
      expect(() => refresh(f, tokens.refresh_token)).not.toThrow();
    });

    it('refuses an access token in place of a refresh token', async () => {
      const tokens = exchange(f, await issueCode(f));
      expect(oauthErrorOf(() => refresh(f, tokens.access_token)).error).toBe('invalid_grant');
    });
  });

  describe('client authentication and grant types', () => {
    it('answers invalid_client (401) for a wrong secret, with a Basic challenge only when Basic was used', () => {
      const body = oauthErrorOf(() => f.oauth.token({ grantType: 'refresh_token', credentials: { ...confidential, clientSecret: 'wrong' }, refreshToken: 'x' }));
      expect([body.error, body.status, body.headers['www-authenticate']]).toEqual(['invalid_client', 401, undefined]);
      const basic = oauthErrorOf(() => f.oauth.token({ grantType: 'refresh_token', credentials: { ...confidential, clientSecret: 'wrong', method: 'basic' }, refreshToken: 'x' }));
      expect(basic.headers['www-authenticate']).toMatch(/^Basic/);
    });

    it('answers invalid_client for a confidential client without secret', () => {
      expect(oauthErrorOf(() => f.oauth.token({ grantType: 'refresh_token', credentials: { ...confidential, clientSecret: null }, refreshToken: 'x' })).error).toBe('invalid_client');
    });

    it('answers unsupported_grant_type for anything but the two grants', () => {
      expect(oauthErrorOf(() => f.oauth.token({ grantType: 'password', credentials: confidential })).error).toBe('unsupported_grant_type');
    });
  });

  describe('revocation (RFC 7009)', () => {
    it('revokes a refresh token with its family, an access token alone', async () => {
      const a = exchange(f, await issueCode(f));
      f.oauth.revoke({ credentials: confidential, token: a.access_token });
      expect(() => f.bearer.authenticate(`Bearer ${a.access_token}`)).toThrow();
      expect(() => refresh(f, a.refresh_token)).not.toThrow();

      const b = exchange(f, await issueCode(f));
      f.oauth.revoke({ credentials: confidential, token: b.refresh_token, tokenTypeHint: 'refresh_token' });
      expect(() => f.bearer.authenticate(`Bearer ${b.access_token}`)).toThrow();
      expect(oauthErrorOf(() => refresh(f, b.refresh_token)).error).toBe('invalid_grant');
    });

    it('ignores unknown tokens and tokens of another client', async () => {
      const tokens = exchange(f, await issueCode(f));
      expect(() => {
        f.oauth.revoke({ credentials: confidential, token: 'unknown' });
      }).not.toThrow();
      f.oauth.revoke({ credentials: publicClient, token: tokens.refresh_token });
      expect(f.bearer.authenticate(`Bearer ${tokens.access_token}`).userId).toBe(USER.id);
    });
  });

  it('never logs a code, token, password or secret', async () => {
    const code = await issueCode(f);
    await f.oauth.authorize(confidentialParams, USER.email, 'wrong password');
    const tokens = exchange(f, code);
    const rotated = refresh(f, tokens.refresh_token);
    expect(() => refresh(f, tokens.refresh_token)).toThrow();
    expect(() => exchange(f, code)).toThrow();
    const log = f.logger.text();
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [code, tokens.access_token, tokens.refresh_token, rotated.access_token, rotated.refresh_token, USER.password, 'wrong password', CONFIDENTIAL.secret]) {
      expect(log).not.toContain(secret);
    }
  });
});

describe('withQuery', () => {
  it('appends to an existing query byte for byte and encodes values', () => {
    expect(withQuery('https://a.example/cb?x=%20y', { code: 'c', state: 'a b&c' })).toBe('https://a.example/cb?x=%20y&code=c&state=a+b%26c');
    expect(withQuery('https://a.example/cb', { code: 'c', state: undefined })).toBe('https://a.example/cb?code=c');
    expect(withQuery('com.example.app:/cb?', { code: 'c' })).toBe('com.example.app:/cb?code=c');
  });
});
