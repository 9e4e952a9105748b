import { Type } from 'typebox';

/*
 * OAuth request and response bodies. Parameters are optional strings here and checked by the
 * OAuth service, so each mistake gets its RFC 6749 error (or, on the login page, HTML) rather
 * than a generic validation answer. Unknown parameters are allowed: RFC 6749 §3.1 says ignore them.
 */

const text = (description: string) => Type.Optional(Type.String({ description }));

const authorizationParams = {
  response_type: text('Must be `code`'),
  client_id: text('Application ID issued to the client'),
  redirect_uri: text('Exactly one of the redirect URIs registered for the client'),
  state: text('Opaque value returned unchanged with the code (CSRF protection for the client)'),
  code_challenge: text('PKCE challenge: BASE64URL(SHA256(code_verifier)); required for public clients'),
  code_challenge_method: text('`S256` (the only method supported)'),
};

/** GET /oauth/authorize query string. */
export const AuthorizeQuerySchema = Type.Object(authorizationParams, { description: 'Authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3)' });

/** POST /oauth/authorize form: the authorization request plus the user's credentials. */
export const AuthorizeFormSchema = Type.Object(
  { ...authorizationParams, email: text("The user's e-mail address"), password: text("The user's password") },
  { description: 'Sign-in form of the authorization step (application/x-www-form-urlencoded)' },
);

/** POST /oauth/token request body, JSON or application/x-www-form-urlencoded. */
export const TokenRequestSchema = Type.Object(
  {
    grant_type: Type.String({ description: '`authorization_code` or `refresh_token`' }),
    client_id: text('Application ID issued to the client (or use HTTP Basic)'),
    client_secret: text('Application secret (or use HTTP Basic); public clients send none'),
    code: text('The authorization code (grant_type=authorization_code)'),
    redirect_uri: text('Optional; when sent, must equal the redirect_uri of the authorization request'),
    code_verifier: text('PKCE verifier; required when the authorization request carried a code_challenge'),
    refresh_token: text('The refresh token to exchange (grant_type=refresh_token)'),
  },
  { description: 'Token request (spec: POST /oauth/token; RFC 6749 §4.1.3, §6)' },
);

/** Spec: OAuth Token. */
export const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String({ description: 'The access token' }),
    token_type: Type.Literal('Bearer', { description: 'Always Bearer' }),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires' }),
    refresh_token: Type.String({ description: 'Exchange it for a new token pair; single use (rotates)' }),
  },
  { description: 'OAuth Token', additionalProperties: false },
);

/** POST /oauth/revoke request body (RFC 7009 §2.1). */
export const RevokeRequestSchema = Type.Object(
  {
    token: Type.String({ description: 'The access or refresh token to revoke' }),
    token_type_hint: text('`access_token` or `refresh_token` (a hint only)'),
    client_id: text('Application ID issued to the client (or use HTTP Basic)'),
    client_secret: text('Application secret (or use HTTP Basic)'),
  },
  { description: 'Token revocation request (RFC 7009)' },
);

/** RFC 6749 §5.2 error response of the token and revocation endpoints. */
export const OAuthErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, …' }),
    error_description: Type.String({ description: 'Human-readable explanation' }),
  },
  { description: 'OAuth 2.0 error (RFC 6749 §5.2), application/json' },
);

/** The OAuth endpoints take both body encodings OAuth clients send (docs/design.md §3 Paths and conventions). */
export const OAUTH_BODY_TYPES = ['application/x-www-form-urlencoded', 'application/json'];
