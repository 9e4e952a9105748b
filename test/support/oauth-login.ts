import { createHash, randomBytes } from 'node:crypto';

/** The tokens of a successful authorization-code exchange (spec: OAuth Token). */
export interface OAuthTokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
}

/** An OAuth client as the demo line prints it. */
export interface LoginClient {
  client_id: string;
  /** Omit (or null) for a public client. */
  client_secret?: string | null;
  redirect_uri: string;
}

export interface LoginOptions {
  /** Base URL of the service, without a trailing slash. */
  baseUrl: string;
  client: LoginClient;
  email: string;
  password: string;
  /** Use PKCE (S256). Default: true for public clients, false otherwise. */
  pkce?: boolean;
  /** Extra headers on every request (for example a fixed x-request-id). */
  headers?: Record<string, string>;
}

/** What the authorization step produced, for tests that want to drive the token step themselves. */
export interface AuthorizationCode {
  code: string;
  state: string;
  /** The PKCE verifier to send to the token endpoint, when PKCE was used. */
  codeVerifier?: string;
}

/** Thrown when a step of the flow does not answer as RFC 6749 says it should. */
export class OAuthLoginError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${message} (HTTP ${status}): ${body.slice(0, 300)}`);
    this.name = 'OAuthLoginError';
  }
}

const base64url = (buffer: Buffer): string => buffer.toString('base64url');

/**
 * Performs the authorization step over real HTTP, as a browser would: loads the sign-in page,
 * then posts the form with the user's credentials and reads the code from the 302 `Location`.
 */
export async function authorize(options: LoginOptions): Promise<AuthorizationCode> {
  const state = base64url(randomBytes(12));
  const usePkce = options.pkce ?? options.client.client_secret == null;
  const codeVerifier = usePkce ? base64url(randomBytes(32)) : undefined;
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: options.client.client_id,
    redirect_uri: options.client.redirect_uri,
    state,
  };
  if (codeVerifier !== undefined) {
    params.code_challenge = base64url(createHash('sha256').update(codeVerifier).digest());
    params.code_challenge_method = 'S256';
  }

  const page = await fetch(`${options.baseUrl}/oauth/authorize?${new URLSearchParams(params).toString()}`, {
    headers: { accept: 'text/html', ...options.headers },
  });
  const pageBody = await page.text();
  if (page.status !== 200) throw new OAuthLoginError('GET /oauth/authorize did not show the sign-in page', page.status, pageBody);

  const form = new URLSearchParams({ ...params, email: options.email, password: options.password });
  const answer = await fetch(`${options.baseUrl}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...options.headers },
    body: form.toString(),
  });
  const answerBody = await answer.text();
  const location = answer.headers.get('location');
  if (answer.status !== 302 || location === null) {
    throw new OAuthLoginError('POST /oauth/authorize did not redirect with a code', answer.status, answerBody);
  }
  const redirect = new URL(location);
  const code = redirect.searchParams.get('code');
  if (!location.startsWith(options.client.redirect_uri)) {
    throw new OAuthLoginError(`redirected to ${location}, not to the client's redirect_uri`, answer.status, answerBody);
  }
  if (code === null) throw new OAuthLoginError(`redirect carries no code: ${location}`, answer.status, answerBody);
  if (redirect.searchParams.get('state') !== state) throw new OAuthLoginError('state was not returned unchanged', answer.status, location);
  return codeVerifier === undefined ? { code, state } : { code, state, codeVerifier };
}

/** Exchanges an authorization code at `POST /oauth/token` (client credentials in the JSON body). */
export async function exchangeCode(options: LoginOptions, authorization: AuthorizationCode): Promise<OAuthTokens> {
  const body: Record<string, string> = {
    grant_type: 'authorization_code',
    code: authorization.code,
    client_id: options.client.client_id,
  };
  if (options.client.client_secret != null) body.client_secret = options.client.client_secret;
  if (authorization.codeVerifier !== undefined) body.code_verifier = authorization.codeVerifier;
  return postToken(options.baseUrl, body, options.headers);
}

/** Exchanges a refresh token for a new pair (rotation) at `POST /oauth/token`. */
export async function refreshTokens(baseUrl: string, client: LoginClient, refreshToken: string): Promise<OAuthTokens> {
  const body: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.client_id };
  if (client.client_secret != null) body.client_secret = client.client_secret;
  return postToken(baseUrl, body);
}

async function postToken(baseUrl: string, body: Record<string, string>, headers: Record<string, string> = {}): Promise<OAuthTokens> {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new OAuthLoginError('POST /oauth/token refused the grant', response.status, text);
  const tokens = JSON.parse(text) as Partial<OAuthTokens>;
  if (typeof tokens.access_token !== 'string' || typeof tokens.refresh_token !== 'string' || typeof tokens.expires_in !== 'number') {
    throw new OAuthLoginError('token response lacks access_token, refresh_token or expires_in', response.status, text);
  }
  return { access_token: tokens.access_token, token_type: tokens.token_type ?? '', expires_in: tokens.expires_in, refresh_token: tokens.refresh_token };
}

/**
 * The whole authorization-code flow over HTTP for one user: sign-in page, form post, code,
 * token exchange. Returns the tokens; throws OAuthLoginError when any step misbehaves.
 *
 * @example
 * const { demo, baseUrl } = await startTestService();
 * const user = demo.users[0]!;
 * const tokens = await loginOverHttp({ baseUrl, client: demo.clients[0]!, email: user.email, password: user.password });
 */
export async function loginOverHttp(options: LoginOptions): Promise<OAuthTokens> {
  return exchangeCode(options, await authorize(options));
}
