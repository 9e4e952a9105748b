import { randomUUID } from 'node:crypto';
import type { PluginConfig } from '../../../src/config/plugin-config.js';
import { s256Challenge } from '../../../src/auth/pkce.js';
import { startTestService, type TestService, type TestServiceOptions } from '../../support/test-service.js';

/** A second confidential client, to prove codes and tokens are bound to their client. */
export const OTHER_CLIENT = {
  client_id: randomUUID(),
  client_secret: 'other-client-secret-0123456789',
  redirect_uri: 'https://other.example/cb?app=other&x=1',
};

/** A public client (no secret): must use PKCE. */
export const PUBLIC_CLIENT = {
  client_id: randomUUID(),
  redirect_uri: 'com.example.locks:/oauth/callback',
};

/** A PKCE pair (RFC 7636 Appendix B). */
export const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const CHALLENGE = s256Challenge(VERIFIER);

/** Starts the service with the demo household plus OTHER_CLIENT and PUBLIC_CLIENT. */
export async function startOAuthService(options: TestServiceOptions = {}): Promise<TestService> {
  const clients: NonNullable<PluginConfig['clients']> = [
    { client_id: OTHER_CLIENT.client_id, client_secret: OTHER_CLIENT.client_secret, name: 'Other App', redirect_uris: [OTHER_CLIENT.redirect_uri] },
    { client_id: PUBLIC_CLIENT.client_id, name: 'Phone App', public: true, redirect_uris: [PUBLIC_CLIENT.redirect_uri] },
  ];
  return startTestService({ ...options, config: { ...options.config, clients } });
}

/** The demo household's confidential client and owner. */
export function demoParties(t: TestService): { client: { client_id: string; client_secret: string; redirect_uri: string }; user: { id: string; email: string; password: string } } {
  const client = t.demo.clients[0];
  const user = t.demo.users[0];
  if (!client || !user) throw new Error('demo household incomplete');
  return { client, user };
}

export interface LoginOptions {
  clientId: string;
  redirectUri: string;
  email: string;
  password: string;
  state?: string;
  codeChallenge?: string;
  responseType?: string;
}

/** POST /oauth/authorize as the login form does (form-encoded, no redirects followed). */
export async function postLogin(t: TestService, options: LoginOptions): Promise<Response> {
  const form = new URLSearchParams({
    response_type: options.responseType ?? 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    email: options.email,
    password: options.password,
  });
  if (options.state !== undefined) form.set('state', options.state);
  if (options.codeChallenge !== undefined) {
    form.set('code_challenge', options.codeChallenge);
    form.set('code_challenge_method', 'S256');
  }
  return fetch(`${t.baseUrl}/oauth/authorize`, { method: 'POST', body: form, redirect: 'manual' });
}

/** Signs in and returns the code from the 302 Location. */
export async function obtainCode(t: TestService, options: LoginOptions): Promise<string> {
  const response = await postLogin(t, options);
  if (response.status !== 302) throw new Error(`expected 302, got ${response.status}: ${await response.text()}`);
  const code = new URL(response.headers.get('location') ?? '').searchParams.get('code');
  if (!code) throw new Error('no code in Location');
  return code;
}

/** A code for the demo client and owner. */
export async function demoCode(t: TestService, extra: Partial<LoginOptions> = {}): Promise<string> {
  const { client, user } = demoParties(t);
  return obtainCode(t, { clientId: client.client_id, redirectUri: client.redirect_uri, email: user.email, password: user.password, ...extra });
}

export interface PostOptions {
  /** Send application/x-www-form-urlencoded instead of JSON. */
  form?: boolean;
  /** Authenticate the client with HTTP Basic. */
  basic?: { id: string; secret: string };
  headers?: Record<string, string>;
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** POST a JSON or form body to an OAuth endpoint and read the JSON answer. */
export async function postOAuth(t: TestService, path: '/oauth/token' | '/oauth/revoke', body: Record<string, string>, options: PostOptions = {}): Promise<JsonAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.basic) {
    const encode = (value: string): string => encodeURIComponent(value);
    headers.authorization = `Basic ${Buffer.from(`${encode(options.basic.id)}:${encode(options.basic.secret)}`).toString('base64')}`;
  }
  let payload: string;
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body).toString();
  } else {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(`${t.baseUrl}${path}`, { method: 'POST', headers, body: payload });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Exchanges a demo code (body client auth) and returns the token response body. */
export async function demoTokens(t: TestService, code?: string): Promise<{ access_token: string; refresh_token: string }> {
  const { client } = demoParties(t);
  const answer = await postOAuth(t, '/oauth/token', {
    grant_type: 'authorization_code',
    code: code ?? (await demoCode(t)),
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
  if (answer.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(answer.body)}`);
  return answer.body as { access_token: string; refresh_token: string };
}

/** GET /me with a bearer token. */
export async function getMe(t: TestService, token: string, scheme = 'Bearer'): Promise<Response> {
  return fetch(`${t.baseUrl}/me`, { headers: { accept: 'application/json', authorization: `${scheme} ${token}` } });
}
