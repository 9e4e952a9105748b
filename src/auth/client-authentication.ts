import { OAuthError, invalidRequest } from './oauth-error.js';

/** How a client presented its credentials at the token or revocation endpoint. */
export type ClientAuthenticationMethod = 'basic' | 'body';

/** The client credentials of one token/revocation request, not yet checked. */
export interface ClientCredentials {
  clientId: string;
  /** null when none was sent (public clients authenticate with their id alone). */
  clientSecret: string | null;
  method: ClientAuthenticationMethod;
}

/** What a request carries that may identify the client. */
export interface ClientCredentialSources {
  /** The raw `Authorization` header. */
  authorization?: string | undefined;
  /** `client_id` from the body. */
  clientId?: string | undefined;
  /** `client_secret` from the body. */
  clientSecret?: string | undefined;
}

/** The challenge a failed Basic client login answers with (RFC 6749 §5.2 invalid_client). */
export const BASIC_CHALLENGE = 'Basic realm="ekey-locks", charset="UTF-8"';

const BASIC = /^basic[ ]+([A-Za-z0-9+/]+=*)\s*$/i;

const invalidBasic = (): OAuthError =>
  new OAuthError('invalid_client', 'The Basic client credentials are malformed.', 401, { 'www-authenticate': BASIC_CHALLENGE });

/** application/x-www-form-urlencoded decoding: `+` is a space, then percent-decoding. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * Reads `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1).
 * Returns undefined for a missing header or another scheme; throws invalid_client when malformed.
 */
export function parseBasicCredentials(authorization: string | undefined): { clientId: string; clientSecret: string } | undefined {
  if (authorization === undefined || !/^basic(\s|$)/i.test(authorization.trim())) return undefined;
  const match = BASIC.exec(authorization.trim());
  if (!match?.[1]) throw invalidBasic();
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidBasic();
  try {
    const clientId = formDecode(decoded.slice(0, colon));
    const clientSecret = formDecode(decoded.slice(colon + 1));
    if (clientId === '') throw invalidBasic();
    return { clientId, clientSecret };
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    throw invalidBasic(); // URIError from a stray '%'
  }
}

/**
 * Picks the client credentials of a request: HTTP Basic or `client_id`/`client_secret` in the body.
 * Both present with different values → invalid_request (RFC 6749 §2.3: one method per request);
 * none at all → invalid_client.
 */
export function resolveClientCredentials(sources: ClientCredentialSources): ClientCredentials {
  const basic = parseBasicCredentials(sources.authorization);
  const bodyId = sources.clientId === '' ? undefined : sources.clientId;
  const bodySecret = sources.clientSecret === '' ? undefined : sources.clientSecret;
  if (basic) {
    if (bodyId !== undefined && bodyId !== basic.clientId) {
      throw invalidRequest('client_id in the body differs from the one in the Authorization header.');
    }
    if (bodySecret !== undefined && bodySecret !== basic.clientSecret) {
      throw invalidRequest('Send the client secret either in the Authorization header or in the body, not both.');
    }
    return { clientId: basic.clientId, clientSecret: basic.clientSecret === '' ? null : basic.clientSecret, method: 'basic' };
  }
  if (bodyId === undefined) {
    if (bodySecret !== undefined) throw invalidRequest('client_secret was sent without client_id.');
    throw new OAuthError('invalid_client', 'Client authentication is required (client_id and client_secret, or HTTP Basic).', 401, {
      'www-authenticate': BASIC_CHALLENGE,
    });
  }
  return { clientId: bodyId, clientSecret: bodySecret ?? null, method: 'body' };
}
