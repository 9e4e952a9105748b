/** RFC 6749 §5.2 and RFC 7009 §2.2.1 error codes this service answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'access_denied'
  | 'rate_limited'
  | 'server_error';

/**
 * An OAuth protocol error. The OAuth routes map it to `{ error, error_description }`
 * (RFC 6749 §5.2), not to problem+json: OAuth client libraries parse exactly that shape.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** 400 for every code but invalid_client (401) — RFC 6749 §5.2. */
    readonly status: number = error === 'invalid_client' ? 401 : 400,
    /** Extra response headers, e.g. `WWW-Authenticate: Basic` for a failed Basic client login. */
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const invalidRequest = (description: string): OAuthError => new OAuthError('invalid_request', description);

export const invalidGrant = (description: string): OAuthError => new OAuthError('invalid_grant', description);
