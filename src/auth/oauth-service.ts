import type { Clock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import type { Logger } from '../logger.js';
import type { ClientRecord, ClientRepository } from '../store/client-repository.js';
import type { SqliteDatabase } from '../store/database.js';
import type { OAuthTokenRepository, TokenRecord } from '../store/oauth-token-repository.js';
import type { UserRepository } from '../store/user-repository.js';
import { BASIC_CHALLENGE, type ClientCredentials } from './client-authentication.js';
import { OAuthError, invalidGrant, invalidRequest } from './oauth-error.js';
import { hashPassword, verifyPassword } from './password.js';
import { PasswordCheck } from './password-check.js';
import { PasswordAttemptThrottle } from './password-attempt-throttle.js';
import { PKCE_METHOD, isValidS256Challenge, verifyPkce } from './pkce.js';
import { constantTimeEqual, newToken, sha256Hex } from './secrets.js';
import { WEB_APP_CLIENT_ID, isRegisteredRedirect } from './web-app-client.js';

/** Authorization codes live 60 s (docs/design.md §3; RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;
/** Default access-token lifetime in seconds (docs/design.md §3). */
export const DEFAULT_ACCESS_TOKEN_TTL_S = 3600;
/** Default refresh-token lifetime: 30 days, sliding — every rotation starts a new 30 days. */
export const DEFAULT_REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

/** The query (GET) or form (POST) parameters of `/oauth/authorize`, as received. */
export interface AuthorizationParams {
  response_type?: string | undefined;
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  state?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
}

/** An authorization request that passed every check: the login page may be shown. */
export interface ValidAuthorizationRequest {
  client: ClientRecord;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  /** The parameters to carry through the login form. */
  params: AuthorizationParams;
}

/** What to do with an authorization request. */
export type AuthorizationCheck =
  /** Unknown client or unregistered redirect_uri: show an error page, never redirect (RFC 6749 §4.1.2.1). */
  | { kind: 'error-page'; title: string; message: string }
  /** Send the user agent back to the client (with `code`, or with `error`). */
  | { kind: 'redirect'; location: string }
  | { kind: 'valid'; request: ValidAuthorizationRequest };

/** The result of a login on the authorization page. */
export type AuthorizationOutcome =
  | Exclude<AuthorizationCheck, { kind: 'valid' }>
  /** Wrong e-mail or password: show the form again; no code was issued. */
  | { kind: 'login-failed'; request: ValidAuthorizationRequest; message: string };

/** A token-endpoint request, after HTTP parsing. */
export interface TokenRequest {
  grantType: string;
  credentials: ClientCredentials;
  code?: string | undefined;
  redirectUri?: string | undefined;
  codeVerifier?: string | undefined;
  refreshToken?: string | undefined;
}

/** RFC 6749 §5.1 successful token response (spec: OAuth Token). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

/** An RFC 7009 revocation request, after HTTP parsing. */
export interface RevocationRequest {
  credentials: ClientCredentials;
  token: string;
  tokenTypeHint?: string | undefined;
}

export interface OAuthServiceOptions {
  clients: ClientRepository;
  users: UserRepository;
  tokens: OAuthTokenRepository;
  clock: Clock;
  logger: Logger;
  /** The database the repositories use: one exchange writes in one transaction. */
  db: SqliteDatabase;
  /** Access-token lifetime in seconds (default 3600). */
  accessTokenTtlS?: number | undefined;
  /** Refresh-token lifetime in seconds, renewed on each rotation (default 30 days). */
  refreshTokenTtlS?: number | undefined;
  /**
   * Password attempts per account (default 10 in 15 minutes), shared with `PUT /me/password`
   * (src/access/password-service.ts): one budget for every way of guessing an account's password.
   */
  passwordAttempts?: PasswordAttemptThrottle | undefined;
  /** The issuer identifier until {@link OAuthService.setIssuer} (default the default listening URL). */
  issuer?: string | undefined;
  /** How a password is checked (default: against the stored hash only; the demo's passes its known passwords). */
  passwordCheck?: PasswordCheck | undefined;
}

/** RFC 8414 §2 authorization server metadata, as we serve it. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string;
  response_types_supported: string[];
  response_modes_supported: string[];
  grant_types_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  revocation_endpoint_auth_methods_supported: string[];
  code_challenge_methods_supported: string[];
  authorization_response_iss_parameter_supported: true;
}

/** The outcome of the transactional part of an exchange: errors are returned so the transaction still commits. */
type Exchange = { ok: true; response: TokenResponse } | { ok: false; error: OAuthError };

const REGISTERED_ONLY =
  'The redirect_uri is not registered for this application, so you cannot be sent back to it. Ask the app developer to register it.';

/**
 * OAuth 2.0 authorization server: the authorization step, the token endpoint (authorization_code
 * and refresh_token grants with rotation) and revocation. Written on our repositories rather than
 * on @node-oauth/oauth2-server — see docs/decisions/oauth.md.
 */
export class OAuthService {
  private readonly accessTokenTtlS: number;
  private readonly refreshTokenTtlS: number;
  /** Verified against when the user is unknown, so both cases take one scrypt (no user enumeration by timing). */
  private dummyPasswordHash: Promise<string> | undefined;

  private readonly throttle: PasswordAttemptThrottle;
  private issuerUrl: string;

  private readonly passwordCheck: PasswordCheck;

  constructor(private readonly options: OAuthServiceOptions) {
    this.passwordCheck = options.passwordCheck ?? new PasswordCheck({ users: options.users });
    this.issuerUrl = stripTrailingSlash(options.issuer ?? 'http://127.0.0.1:8787');
    this.throttle = options.passwordAttempts ?? new PasswordAttemptThrottle();
    this.accessTokenTtlS = options.accessTokenTtlS ?? DEFAULT_ACCESS_TOKEN_TTL_S;
    this.refreshTokenTtlS = options.refreshTokenTtlS ?? DEFAULT_REFRESH_TOKEN_TTL_S;
  }

  /**
   * Made on the first sign-in that needs it, and awaited there: a promise made in the constructor
   * and observed only later would be an unhandled rejection if hashing failed before anyone asked.
   * A failed attempt is forgotten, so the next sign-in tries again.
   */
  private dummyHash(): Promise<string> {
    const hash = (this.dummyPasswordHash ??= hashPassword(newToken()));
    hash.catch(() => {
      if (this.dummyPasswordHash === hash) this.dummyPasswordHash = undefined;
    });
    return hash;
  }

  /** Sets the issuer identifier (the service's public base URL), once the HTTP API listens. */
  setIssuer(url: string): void {
    this.issuerUrl = stripTrailingSlash(url);
  }

  /** The issuer identifier: `iss` of authorization responses and of the metadata (RFC 8414, RFC 9207). */
  get issuer(): string {
    return this.issuerUrl;
  }

  /**
   * Authorization server metadata (RFC 8414 §2) served at `/.well-known/oauth-authorization-server`:
   * what a standard client needs to discover our endpoints and what they accept.
   */
  metadata(): AuthorizationServerMetadata {
    const issuer = this.issuerUrl;
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
      code_challenge_methods_supported: [PKCE_METHOD],
      authorization_response_iss_parameter_supported: true,
    };
  }

  /** Lifetime of issued access tokens, in seconds (`expires_in`). */
  get accessTokenLifetimeS(): number {
    return this.accessTokenTtlS;
  }

  /** Lifetime of issued refresh tokens, in seconds. */
  get refreshTokenLifetimeS(): number {
    return this.refreshTokenTtlS;
  }

  /** Display name of a client for the login page; undefined when unknown. */
  clientName(clientId: string): string | undefined {
    return this.findClient(clientId)?.name;
  }

  /**
   * Checks the parameters of `GET|POST /oauth/authorize`. The client and redirect_uri are checked
   * first: until both are trusted, nothing may be sent to the redirect_uri.
   */
  checkAuthorizationRequest(params: AuthorizationParams, requestOrigin?: string): AuthorizationCheck {
    const client = params.client_id ? this.findClient(params.client_id) : undefined;
    if (!client) {
      return { kind: 'error-page', title: 'Unknown application', message: 'The client_id is missing or not registered with this service.' };
    }
    const redirectUri = params.redirect_uri;
    // RFC 6749 §3.1.2.3: compare with the registered URIs by simple string comparison.
    // (an origin-relative registration — the web app's — matches on the origin the request came in on).
    if (redirectUri === undefined || !isRegisteredRedirect(client.redirectUris, redirectUri, requestOrigin)) {
      return { kind: 'error-page', title: 'Invalid redirect address', message: REGISTERED_ONLY };
    }
    const state = params.state;
    const fail = (error: string, description: string): AuthorizationCheck => ({
      kind: 'redirect',
      location: withQuery(redirectUri, { error, error_description: description, state, iss: this.issuerUrl }),
    });
    if (params.response_type !== 'code') {
      return fail('unsupported_response_type', 'Only response_type=code is supported.');
    }
    const challenge = params.code_challenge;
    const method = params.code_challenge_method;
    if (challenge === undefined && method !== undefined) {
      return fail('invalid_request', 'code_challenge_method was sent without code_challenge.');
    }
    if (challenge !== undefined) {
      // RFC 7636 §4.3: a missing method means `plain`, which we do not accept.
      if (method !== PKCE_METHOD) return fail('invalid_request', 'code_challenge_method must be S256.');
      if (!isValidS256Challenge(challenge)) return fail('invalid_request', 'code_challenge must be 43 base64url characters.');
    } else if (client.isPublic) {
      // RFC 9700 §2.1.1: public clients must use PKCE.
      return fail('invalid_request', 'This application must send a PKCE code_challenge (S256).');
    }
    return {
      kind: 'valid',
      request: {
        client,
        redirectUri,
        state,
        codeChallenge: challenge ?? null,
        codeChallengeMethod: challenge === undefined ? null : PKCE_METHOD,
        params: {
          response_type: params.response_type,
          client_id: params.client_id,
          redirect_uri: redirectUri,
          state,
          code_challenge: challenge,
          code_challenge_method: challenge === undefined ? undefined : method,
        },
      },
    };
  }

  /**
   * `POST /oauth/authorize`: re-checks the parameters (the hidden fields are not trusted),
   * verifies the user's password and issues a single-use code bound to client, redirect_uri and PKCE challenge.
   */
  async authorize(
    params: AuthorizationParams,
    email: string | undefined,
    password: string | undefined,
    requestOrigin?: string,
  ): Promise<AuthorizationOutcome> {
    const check = this.checkAuthorizationRequest(params, requestOrigin);
    if (check.kind !== 'valid') return check;
    const { request } = check;
    // Reserved before any password work (issue #32, finding 3): a throttled account costs no
    // scrypt, and parallel attempts cannot all pass a check made before any of them failed.
    const retryAfterS = email ? await this.throttle.reserve(email) : 0;
    if (retryAfterS > 0) {
      this.options.logger.warn(`oauth: sign-in throttled for client ${request.client.id}: too many failed attempts for one account`);
      throw new OAuthError('rate_limited', 'Too many failed sign-ins for this account. Try again later.', 429, { 'retry-after': String(retryAfterS) });
    }
    const user = email ? this.options.users.findByEmail(email) : undefined;
    // Unknown and invited-only users cost one scrypt too, so timing does not reveal who has an account.
    const matches =
      user !== undefined && user.passwordHash !== null
        ? await this.passwordCheck.matches(user, password ?? '')
        : await verifyPassword(password ?? '', await this.dummyHash()).then(() => false);
    if (!user || !matches) {
      // The reservation stays: it is this failure.
      this.options.logger.info(`oauth: failed sign-in for client ${request.client.id}`);
      return { kind: 'login-failed', request, message: 'The e-mail address or password is not correct.' };
    }
    await this.throttle.succeeded(user.email);
    return this.issueCode(request, user.id);
  }

  /**
   * The authorization step for someone who has just proven who they are another way: signed up
   * through an invitation link that carried an authorization request of the web app (the only
   * client this is for — the new user never sees a consent page for it). Anything else: error page.
   */
  authorizeSignedUp(params: AuthorizationParams, userId: string, requestOrigin: string): AuthorizationCheck {
    const check = this.checkAuthorizationRequest(params, requestOrigin);
    if (check.kind !== 'valid') return check;
    if (check.request.client.id !== WEB_APP_CLIENT_ID) {
      return { kind: 'error-page', title: 'Unknown application', message: 'Only the web app continues signed in after sign-up.' };
    }
    return this.issueCode(check.request, userId);
  }

  /** Issues a single-use code bound to client, redirect_uri and PKCE challenge; the redirect carrying it. */
  private issueCode(request: ValidAuthorizationRequest, userId: string): { kind: 'redirect'; location: string } {
    const user = { id: userId };
    const code = newToken();
    const now = this.options.clock.now();
    this.options.tokens.insertCode({
      codeHash: sha256Hex(code),
      clientId: request.client.id,
      userId: user.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      expiresAt: now + AUTHORIZATION_CODE_TTL_MS,
      usedAt: null,
      createdAt: now,
    });
    this.options.logger.info(`oauth: issued an authorization code to client ${request.client.id} for user ${user.id}`);
    // RFC 9207: `iss` on every authorization response, so a client talking to several servers
    // can tell which one answered (the mix-up defence RFC 9700 §4.4 recommends).
    return { kind: 'redirect', location: withQuery(request.redirectUri, { code, state: request.state, iss: this.issuerUrl }) };
  }

  /** `POST /oauth/token`: authorization_code and refresh_token grants. Throws OAuthError. */
  token(request: TokenRequest): TokenResponse {
    const client = this.authenticateClient(request.credentials);
    const exchange =
      request.grantType === 'authorization_code'
        ? this.runInTransaction(() => this.exchangeCode(client, request))
        : request.grantType === 'refresh_token'
          ? this.runInTransaction(() => this.exchangeRefreshToken(client, request))
          : undefined;
    if (!exchange) throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
    if (!exchange.ok) throw exchange.error;
    return exchange.response;
  }

  /**
   * `POST /oauth/revoke` (RFC 7009 §2.1). Unknown tokens and tokens of another client are
   * silently ignored; a refresh token takes its whole family (and the access tokens) with it.
   */
  revoke(request: RevocationRequest): void {
    const client = this.authenticateClient(request.credentials);
    const record = this.options.tokens.findTokenByHash(sha256Hex(request.token));
    if (!record || record.clientId !== client.id) return;
    const now = this.options.clock.now();
    if (record.kind === 'refresh') {
      this.options.tokens.revokeFamily(record.familyId, now);
      this.options.logger.info(`oauth: client ${client.id} revoked token family ${record.familyId}`);
    } else {
      this.options.tokens.revokeToken(record.id, now);
      this.options.logger.info(`oauth: client ${client.id} revoked access token ${record.id}`);
    }
  }

  /**
   * RFC 6749 §2.3.1 / §3.2.1: confidential clients prove their secret (constant-time compare of
   * hashes); public clients identify themselves by client_id alone and must not send a secret.
   */
  authenticateClient(credentials: ClientCredentials): ClientRecord {
    const client = this.findClient(credentials.clientId);
    const headers: Record<string, string> = credentials.method === 'basic' ? { 'www-authenticate': BASIC_CHALLENGE } : {};
    const presented = credentials.clientSecret === null ? null : sha256Hex(credentials.clientSecret);
    const ok =
      client !== undefined &&
      (client.isPublic || client.secretHash === null
        ? presented === null
        : presented !== null && constantTimeEqual(presented, client.secretHash));
    if (!ok) throw new OAuthError('invalid_client', 'Client authentication failed.', 401, headers);
    return client;
  }

  private exchangeCode(client: ClientRecord, request: TokenRequest): Exchange {
    if (!request.code) return { ok: false, error: invalidRequest('code is required for grant_type=authorization_code.') };
    const codeHash = sha256Hex(request.code);
    const code = this.options.tokens.findCodeByHash(codeHash);
    // RFC 6749 §4.1.3: the code must have been issued to the authenticated client; another client cannot burn it.
    if (!code || code.clientId !== client.id) return { ok: false, error: invalidGrant('The authorization code is invalid.') };
    const now = this.options.clock.now();
    if (!this.options.tokens.markCodeUsed(codeHash, now)) {
      // RFC 6749 §4.1.2: a code used twice is a sign of theft; revoke what it produced.
      const revoked = this.options.tokens.revokeIssuedFromCode(codeHash, now);
      this.options.logger.warn(`oauth: authorization code reused by client ${client.id}; revoked ${revoked} token(s) issued from it`);
      return { ok: false, error: invalidGrant('The authorization code has already been used.') };
    }
    // From here on the code is consumed even when a check fails, so a verifier cannot be guessed twice.
    if (code.expiresAt <= now) return { ok: false, error: invalidGrant('The authorization code has expired.') };
    if (request.redirectUri !== undefined && request.redirectUri !== code.redirectUri) {
      return { ok: false, error: invalidGrant('redirect_uri differs from the one of the authorization request.') };
    }
    if (code.codeChallenge !== null) {
      // RFC 7636 §4.6.
      if (!verifyPkce(code.codeChallenge, code.codeChallengeMethod, request.codeVerifier)) {
        return { ok: false, error: invalidGrant('The PKCE code_verifier is missing or does not match.') };
      }
    } else if (client.isPublic) {
      return { ok: false, error: invalidGrant('Public clients must use PKCE.') };
    } else if (request.codeVerifier !== undefined) {
      // RFC 9700 §2.1.1 (PKCE downgrade): a verifier for a code issued without a challenge means the
      // authorization request was not the one the client made (docs/design.md §9b).
      return { ok: false, error: invalidGrant('A code_verifier was sent, but the authorization request carried no code_challenge.') };
    }
    const response = this.issueTokens({ client, userId: code.userId, familyId: newId(), codeHash, now });
    this.options.logger.info(`oauth: exchanged an authorization code for tokens (client ${client.id}, user ${code.userId})`);
    return { ok: true, response };
  }

  private exchangeRefreshToken(client: ClientRecord, request: TokenRequest): Exchange {
    if (!request.refreshToken) {
      return { ok: false, error: invalidRequest('refresh_token is required for grant_type=refresh_token.') };
    }
    const invalid = invalidGrant('The refresh token is invalid, expired or revoked.');
    const record = this.options.tokens.findTokenByHash(sha256Hex(request.refreshToken));
    // RFC 6749 §6: a refresh token is bound to the client it was issued to.
    if (!record || record.kind !== 'refresh' || record.clientId !== client.id || record.revokedAt !== null) {
      return { ok: false, error: invalid };
    }
    const now = this.options.clock.now();
    if (!this.options.tokens.markTokenUsed(record.id, now)) {
      // RFC 9700 §4.14.2: a rotated-out refresh token came back; either party may be an attacker.
      const revoked = this.options.tokens.revokeFamily(record.familyId, now);
      this.options.logger.warn(`oauth: refresh token reused by client ${client.id}; revoked family ${record.familyId} (${revoked} token(s))`);
      return { ok: false, error: invalid };
    }
    if (record.expiresAt !== null && record.expiresAt <= now) return { ok: false, error: invalid };
    const response = this.issueTokens({ client, userId: record.userId, familyId: record.familyId, codeHash: record.codeHash, now });
    this.options.logger.info(`oauth: rotated a refresh token (client ${client.id}, family ${record.familyId})`);
    return { ok: true, response };
  }

  /**
   * A new session — a new token family with a fresh access and refresh token — for a user of a
   * client, without the authorization step: a password change hands its caller one (issue #32,
   * finding 8), inside the transaction that ended every session the user had, the caller's too.
   * @throws Error when the client is no longer registered.
   */
  issueSession(clientId: string, userId: string): TokenResponse {
    const client = this.findClient(clientId);
    if (!client) throw new Error(`client ${clientId} is not registered`);
    return this.issueTokens({ client, userId, familyId: newId(), codeHash: null, now: this.options.clock.now() });
  }

  /** A new access + refresh pair in a family; only their hashes are stored. */
  private issueTokens(issue: { client: ClientRecord; userId: string; familyId: string; codeHash: string | null; now: number }): TokenResponse {
    const accessToken = newToken();
    const refreshToken = newToken();
    const base = {
      familyId: issue.familyId,
      // Every descendant keeps the code's hash, so a reused code revokes the whole lineage.
      codeHash: issue.codeHash,
      clientId: issue.client.id,
      userId: issue.userId,
      usedAt: null,
      revokedAt: null,
      createdAt: issue.now,
    } satisfies Partial<TokenRecord>;
    this.options.tokens.insertToken({
      ...base,
      id: newId(),
      kind: 'access',
      tokenHash: sha256Hex(accessToken),
      expiresAt: issue.now + this.accessTokenTtlS * 1000,
    });
    this.options.tokens.insertToken({
      ...base,
      id: newId(),
      kind: 'refresh',
      tokenHash: sha256Hex(refreshToken),
      expiresAt: issue.now + this.refreshTokenTtlS * 1000,
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.accessTokenTtlS, refresh_token: refreshToken };
  }

  /** One exchange reads, marks and writes in one SQLite transaction: nothing is half-written. */
  private runInTransaction(work: () => Exchange): Exchange {
    return this.options.db.transaction(work)();
  }

  private findClient(clientId: string): ClientRecord | undefined {
    return this.options.clients.findById(clientId) ?? this.options.clients.findById(clientId.toLowerCase());
  }
}

/**
 * Adds parameters to a redirect URI, keeping its own query byte for byte (RFC 6749 §3.1.2) and
 * form-encoding each value; undefined values are left out. A fragment is dropped (§3.1.2: none allowed).
 */
export function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const hash = uri.indexOf('#');
  const base = hash >= 0 ? uri.slice(0, hash) : uri;
  const added = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) added.append(name, value);
  }
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${added.toString()}`;
}

const stripTrailingSlash = (url: string): string => url.replace(/\/+$/, '');
