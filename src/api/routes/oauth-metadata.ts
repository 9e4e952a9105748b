import { Type } from 'typebox';
import type { RouteContext } from './route-context.js';

const strings = (description: string) => Type.Array(Type.String(), { description });

/** RFC 8414 §2 metadata as served (the fields a standard client reads to discover us). */
const AuthorizationServerMetadataSchema = Type.Object(
  {
    issuer: Type.String({ description: 'The public base URL of the service; also `iss` of every authorization response (RFC 9207)' }),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    response_types_supported: strings('`code`'),
    response_modes_supported: strings('`query`'),
    grant_types_supported: strings('`authorization_code`, `refresh_token`'),
    token_endpoint_auth_methods_supported: strings('`client_secret_post`, `client_secret_basic`, `none` (public clients)'),
    revocation_endpoint_auth_methods_supported: strings('As for the token endpoint'),
    code_challenge_methods_supported: strings('`S256` only'),
    authorization_response_iss_parameter_supported: Type.Boolean({ description: 'Always true (RFC 9207)' }),
  },
  { description: 'OAuth 2.0 authorization server metadata (RFC 8414)' },
);

/** `GET /.well-known/oauth-authorization-server` (RFC 8414 §3; docs/design.md §3 Users and authentication). */
export function registerOAuthMetadataRoute({ app, services }: RouteContext): void {
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Authorization server metadata (RFC 8414)',
        description: 'Public. The endpoints, the grants and PKCE methods they accept, and the issuer identifier.',
        security: [],
        response: { 200: AuthorizationServerMetadataSchema },
      },
    },
    () => services.oauth.metadata(),
  );
}
