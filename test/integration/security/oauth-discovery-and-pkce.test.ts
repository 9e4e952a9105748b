/**
 * The OAuth server's mix-up and downgrade defences, over HTTP: RFC 8414 metadata, RFC 9207 `iss`
 * on every authorization response (success and error), and a code_verifier for a code issued
 * without a challenge refused as invalid_grant (RFC 9700 §2.1.1; issue finding 6).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { authorize, type LoginOptions } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { demoParts } from './demo-parts.js';

const SETUP_TIMEOUT_MS = 120_000;

describe('OAuth discovery, iss and PKCE downgrade', () => {
  let test: TestService;
  let login: LoginOptions;

  beforeAll(async () => {
    test = await startTestService();
    const { owner, client } = demoParts(test.demo);
    login = { baseUrl: test.baseUrl, client, email: owner.email, password: owner.password, pkce: false };
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await test.close();
  });

  it('serves authorization server metadata whose issuer is the public base URL', async () => {
    const response = await fetch(`${test.baseUrl}/.well-known/oauth-authorization-server`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: test.baseUrl,
      authorization_endpoint: `${test.baseUrl}/oauth/authorize`,
      token_endpoint: `${test.baseUrl}/oauth/token`,
      revocation_endpoint: `${test.baseUrl}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('puts iss on the success redirect and on an error redirect', async () => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: login.client.client_id,
      redirect_uri: login.client.redirect_uri,
      state: 's1',
      email: login.email,
      password: login.password,
    });
    const success = await fetch(`${test.baseUrl}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: params.toString(),
    });
    expect(success.status).toBe(302);
    const ok = new URL(success.headers.get('location') ?? '');
    expect(ok.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ok.searchParams.get('iss')).toBe(test.baseUrl);

    params.set('response_type', 'token');
    const failure = await fetch(`${test.baseUrl}/oauth/authorize?${params.toString()}`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(failure.status).toBe(302);
    const error = new URL(failure.headers.get('location') ?? '');
    expect(error.searchParams.get('error')).toBe('unsupported_response_type');
    expect(error.searchParams.get('state')).toBe('s1');
    expect(error.searchParams.get('iss')).toBe(test.baseUrl);
  });

  it('refuses a code_verifier for a code issued without a challenge (PKCE downgrade) with invalid_grant', async () => {
    const code = await authorize(login);
    expect(code.codeVerifier).toBeUndefined();
    const response = await fetch(`${test.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        code: code.code,
        client_id: login.client.client_id,
        client_secret: login.client.client_secret,
        code_verifier: 'an-attacker-verifier-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_grant');
  });
});
