import type { Clock } from '../domain/clock.js';
import { ServiceError } from '../domain/errors.js';
import type { OAuthTokenRepository } from '../store/oauth-token-repository.js';
import type { BearerAuthenticator, Caller } from './caller.js';
import { sha256Hex } from './secrets.js';

const BEARER = /^bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

/** RFC 6750 §3: a request without credentials gets a bare challenge, a bad token gets an error code. */
function challenge(error?: { code: string; description: string }): ServiceError {
  const header = error
    ? `Bearer realm="ekey-locks", error="${error.code}", error_description="${error.description}"`
    : 'Bearer realm="ekey-locks"';
  return new ServiceError(401, error?.code ?? 'missing_token', error?.description ?? 'A bearer token is required.', undefined, {
    'www-authenticate': header,
  });
}

/** Verifies `Authorization: Bearer <token>` against the stored token hashes. */
export class StoredBearerAuthenticator implements BearerAuthenticator {
  constructor(
    private readonly tokens: OAuthTokenRepository,
    private readonly clock: Clock,
  ) {}

  authenticate(authorizationHeader: string | undefined): Caller {
    if (authorizationHeader === undefined || authorizationHeader.trim() === '') throw challenge();
    const match = BEARER.exec(authorizationHeader.trim());
    if (!match?.[1]) {
      throw challenge({ code: 'invalid_request', description: 'The Authorization header must be "Bearer <token>".' });
    }
    const record = this.tokens.findTokenByHash(sha256Hex(match[1]));
    const invalid = { code: 'invalid_token', description: 'The access token is invalid, expired or revoked.' };
    if (!record || record.kind !== 'access' || record.revokedAt !== null) throw challenge(invalid);
    if (record.expiresAt !== null && record.expiresAt <= this.clock.now()) throw challenge(invalid);
    return { userId: record.userId, clientId: record.clientId, tokenId: record.id };
  }
}
