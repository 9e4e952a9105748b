import type { Clock } from '../domain/clock.js';
import { ServiceError } from '../domain/errors.js';
import type { OAuthTokenRepository, TokenRecord } from '../store/oauth-token-repository.js';
import type { BearerAuthenticator, Caller } from './caller.js';
import { sha256Hex } from './secrets.js';

const BEARER = /^bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Every 401 carries `WWW-Authenticate: Bearer … error="invalid_token"` (docs/design.md §3 Errors), also
 * when no token was sent: RFC 6750 §3.1 leaves the error code out there, but our clients get one
 * rule to follow. The problem body's `code` still says which case it was.
 */
function challenge(code: string, description: string): ServiceError {
  return new ServiceError(401, code, description, undefined, {
    'www-authenticate': `Bearer realm="ekey-locks", error="invalid_token", error_description="${description}"`,
  });
}

/** Verifies `Authorization: Bearer <token>` against the stored token hashes. */
export class StoredBearerAuthenticator implements BearerAuthenticator {
  constructor(
    private readonly tokens: OAuthTokenRepository,
    private readonly clock: Clock,
  ) {}

  authenticate(authorizationHeader: string | undefined): Caller {
    if (authorizationHeader === undefined || authorizationHeader.trim() === '') throw challenge('missing_token', 'A bearer token is required.');
    const match = BEARER.exec(authorizationHeader.trim());
    if (!match?.[1]) {
      throw challenge('invalid_request', 'The Authorization header must be "Bearer <token>".');
    }
    const tokenHash = sha256Hex(match[1]);
    const record = this.tokens.findTokenByHash(tokenHash);
    if (!record || !this.live(record)) {
      throw challenge('invalid_token', 'The access token is invalid, expired or revoked.');
    }
    return { userId: record.userId, clientId: record.clientId, tokenId: record.id, familyId: record.familyId, tokenHash, expiresAt: record.expiresAt };
  }

  stillValid(caller: Caller): boolean {
    if (caller.expiresAt !== null && caller.expiresAt <= this.clock.now()) return false;
    // Served from the repository's access-token cache, which every revocation empties.
    const record = this.tokens.findTokenByHash(caller.tokenHash);
    return record !== undefined && record.id === caller.tokenId && this.live(record);
  }

  private live(record: TokenRecord): boolean {
    const expired = record.expiresAt !== null && record.expiresAt <= this.clock.now();
    return record.kind === 'access' && record.revokedAt === null && !expired;
  }
}
