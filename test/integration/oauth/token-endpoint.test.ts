import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestService } from '../../support/test-service.js';
import {
  CHALLENGE,
  OTHER_CLIENT,
  PUBLIC_CLIENT,
  VERIFIER,
  demoCode,
  demoParties,
  demoTokens,
  getMe,
  obtainCode,
  postOAuth,
  startOAuthService,
} from './oauth-test-client.js';

describe('POST /oauth/token', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startOAuthService();
  });
  afterAll(async () => {
    await t.close();
  });

  const client = (): { client_id: string; client_secret: string; redirect_uri: string } => demoParties(t).client;
  const bodyAuth = (): Record<string, string> => ({ client_id: client().client_id, client_secret: client().client_secret });

  it('runs the whole flow: sign-in page, login, code, exchange, /me, refresh, /me with the new token', async () => {
    const { client: c, user } = demoParties(t);
    const state = 'flow-state-1';
    const page = await fetch(
      `${t.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: c.client_id, redirect_uri: c.redirect_uri, state }).toString()}`,
    );
    expect(page.status).toBe(200);
    const code = await obtainCode(t, { clientId: c.client_id, redirectUri: c.redirect_uri, email: user.email, password: user.password, state });

    const exchanged = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code, ...bodyAuth() });
    expect(exchanged.status).toBe(200);
    expect(exchanged.headers.get('cache-control')).toBe('no-store');
    expect(exchanged.headers.get('pragma')).toBe('no-cache');
    expect(exchanged.headers.get('content-type')).toMatch(/^application\/json/);
    expect(exchanged.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, refresh_token: expect.any(String) });
    const first = exchanged.body as { access_token: string; refresh_token: string };

    const me = await getMe(t, first.access_token);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ id: user.id, name: expect.any(String) });

    const refreshed = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...bodyAuth() });
    expect(refreshed.status).toBe(200);
    const second = refreshed.body as { access_token: string; refresh_token: string };
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await getMe(t, second.access_token)).status).toBe(200);
    // Decision (docs/decisions/oauth.md): rotation leaves the old access token valid until its expiry.
    expect((await getMe(t, first.access_token)).status).toBe(200);
  });

  it('takes a form-encoded body as well as JSON', async () => {
    const answer = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: await demoCode(t), ...bodyAuth() }, { form: true });
    expect(answer.status).toBe(200);
    const refreshed = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: String(answer.body.refresh_token), ...bodyAuth() }, { form: true });
    expect(refreshed.status).toBe(200);
  });

  it('authenticates the client with HTTP Basic (form-encoded id and secret)', async () => {
    const code = await demoCode(t);
    const answer = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code }, { form: true, basic: { id: client().client_id, secret: client().client_secret } });
    expect(answer.status).toBe(200);
  });

  it('refuses Basic and body credentials that conflict (invalid_request)', async () => {
    const code = await demoCode(t);
    const answer = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code, client_id: OTHER_CLIENT.client_id }, { basic: { id: client().client_id, secret: client().client_secret } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_request');
  });

  it('answers a wrong secret with 401 invalid_client, as RFC 6749 JSON (not problem+json)', async () => {
    const answer = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: 'x', client_id: client().client_id, client_secret: 'wrong-secret' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(answer.headers.get('www-authenticate')).toBeNull();
  });

  it('adds WWW-Authenticate: Basic when a Basic login fails', async () => {
    const answer = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: 'x' }, { basic: { id: client().client_id, secret: 'wrong-secret' } });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  });

  it('answers an unknown client with 401 invalid_client', async () => {
    const answer = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: 'x', client_id: '00000000-0000-4000-8000-000000000000', client_secret: 'whatever-secret' });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
  });

  it('answers other grants with unsupported_grant_type', async () => {
    for (const grant of ['password', 'client_credentials', 'implicit']) {
      const answer = await postOAuth(t, '/oauth/token', { grant_type: grant, username: 'a', password: 'b', ...bodyAuth() });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('unsupported_grant_type');
    }
  });

  it.each([
    ['malformed JSON', { 'content-type': 'application/json' }, '{"grant_type":'],
    ['a missing grant_type', { 'content-type': 'application/json' }, '{"code":"x"}'],
    ['a number where a string belongs', { 'content-type': 'application/json' }, '{"grant_type":"authorization_code","code":5}'],
    ['a repeated form parameter', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=refresh_token&grant_type=authorization_code'],
    ['an unsupported body type', { 'content-type': 'text/plain' }, 'grant_type=refresh_token'],
  ])('answers %s with 400 invalid_request', async (_label, headers, body) => {
    const response = await fetch(`${t.baseUrl}/oauth/token`, { method: 'POST', headers: { accept: 'application/json', ...headers }, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  describe('authorization codes', () => {
    it('are single use: presenting one again fails and revokes the tokens issued from it', async () => {
      const code = await demoCode(t);
      const tokens = await demoTokens(t, code);
      expect((await getMe(t, tokens.access_token)).status).toBe(200);
      const again = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code, ...bodyAuth() });
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      expect((await getMe(t, tokens.access_token)).status).toBe(401);
      const refresh = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...bodyAuth() });
      expect(refresh.body.error).toBe('invalid_grant');
    });

    it('expire after 60 seconds', async () => {
      const code = await demoCode(t);
      t.clock.advance(60_000);
      const answer = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code, ...bodyAuth() });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_grant');
    });

    it('are bound to the client they were issued to', async () => {
      const code = await demoCode(t);
      const stolen = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code, client_id: OTHER_CLIENT.client_id, client_secret: OTHER_CLIENT.client_secret });
      expect(stolen.status).toBe(400);
      expect(stolen.body.error).toBe('invalid_grant');
      const rightful = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code, ...bodyAuth() });
      expect(rightful.status).toBe(200);
    });

    it('accept the redirect_uri of the authorization request and refuse a different one', async () => {
      const same = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: await demoCode(t), redirect_uri: client().redirect_uri, ...bodyAuth() });
      expect(same.status).toBe(200);
      const other = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: await demoCode(t), redirect_uri: `${client().redirect_uri}/other`, ...bodyAuth() });
      expect(other.status).toBe(400);
      expect(other.body.error).toBe('invalid_grant');
    });
  });

  describe('PKCE', () => {
    it('refuses a missing or wrong verifier and accepts the right one', async () => {
      const missing = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: await demoCode(t, { codeChallenge: CHALLENGE }), ...bodyAuth() });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('invalid_grant');
      const wrong = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: await demoCode(t, { codeChallenge: CHALLENGE }), code_verifier: 'w'.repeat(43), ...bodyAuth() });
      expect(wrong.body.error).toBe('invalid_grant');
      const right = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: await demoCode(t, { codeChallenge: CHALLENGE }), code_verifier: VERIFIER, ...bodyAuth() });
      expect(right.status).toBe(200);
    });

    it('lets a public client exchange with client_id and verifier only', async () => {
      const { user } = demoParties(t);
      const login = { clientId: PUBLIC_CLIENT.client_id, redirectUri: PUBLIC_CLIENT.redirect_uri, email: user.email, password: user.password, codeChallenge: CHALLENGE };
      const noVerifier = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: await obtainCode(t, login), client_id: PUBLIC_CLIENT.client_id });
      expect(noVerifier.body.error).toBe('invalid_grant');
      const answer = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code: await obtainCode(t, login), client_id: PUBLIC_CLIENT.client_id, code_verifier: VERIFIER }, { form: true });
      expect(answer.status).toBe(200);
      const refreshed = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: String(answer.body.refresh_token), client_id: PUBLIC_CLIENT.client_id });
      expect(refreshed.status).toBe(200);
    });
  });

  describe('refresh tokens', () => {
    it('revoke the whole family when a used one is presented again', async () => {
      const first = await demoTokens(t);
      const rotated = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...bodyAuth() });
      const second = rotated.body as { access_token: string; refresh_token: string };
      const reuse = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...bodyAuth() });
      expect(reuse.status).toBe(400);
      expect(reuse.body.error).toBe('invalid_grant');
      expect((await getMe(t, second.access_token)).status).toBe(401);
      expect((await getMe(t, first.access_token)).status).toBe(401);
      const next = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: second.refresh_token, ...bodyAuth() });
      expect(next.body.error).toBe('invalid_grant');
    });

    it('are bound to their client', async () => {
      const tokens = await demoTokens(t);
      const stolen = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: OTHER_CLIENT.client_id, client_secret: OTHER_CLIENT.client_secret });
      expect(stolen.status).toBe(400);
      expect(stolen.body.error).toBe('invalid_grant');
    });
  });
});
