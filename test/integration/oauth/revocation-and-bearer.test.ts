import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestService } from '../../support/test-service.js';
import { OTHER_CLIENT, demoParties, demoTokens, getMe, postOAuth, startOAuthService } from './oauth-test-client.js';

const TTL_S = 120;

describe('POST /oauth/revoke (RFC 7009) and bearer tokens on /me', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startOAuthService({ config: { api: { token_ttl_s: TTL_S, oauth_rate_limit_per_minute: 10_000 } } });
  });
  afterAll(async () => {
    await t.close();
  });

  const bodyAuth = (): Record<string, string> => {
    const { client } = demoParties(t);
    return { client_id: client.client_id, client_secret: client.client_secret };
  };

  const expectRefused = async (token: string): Promise<void> => {
    const response = await getMe(t, token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  };

  it('revokes an access token: /me answers 401 with WWW-Authenticate', async () => {
    const tokens = await demoTokens(t);
    const answer = await postOAuth(t, '/oauth/revoke', { token: tokens.access_token, token_type_hint: 'access_token', ...bodyAuth() });
    expect(answer.status).toBe(200);
    await expectRefused(tokens.access_token);
  });

  it('revokes a refresh token with its whole family (form body, Basic auth)', async () => {
    const tokens = await demoTokens(t);
    const { client } = demoParties(t);
    const answer = await postOAuth(t, '/oauth/revoke', { token: tokens.refresh_token }, { form: true, basic: { id: client.client_id, secret: client.client_secret } });
    expect(answer.status).toBe(200);
    await expectRefused(tokens.access_token);
    const refresh = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...bodyAuth() });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('answers 200 for an unknown token', async () => {
    const answer = await postOAuth(t, '/oauth/revoke', { token: 'never-issued', ...bodyAuth() });
    expect(answer.status).toBe(200);
  });

  it('answers 200 but does nothing for a token of another client', async () => {
    const tokens = await demoTokens(t);
    const answer = await postOAuth(t, '/oauth/revoke', { token: tokens.refresh_token, client_id: OTHER_CLIENT.client_id, client_secret: OTHER_CLIENT.client_secret });
    expect(answer.status).toBe(200);
    expect((await getMe(t, tokens.access_token)).status).toBe(200);
  });

  it('requires client authentication (401 invalid_client)', async () => {
    const tokens = await demoTokens(t);
    const answer = await postOAuth(t, '/oauth/revoke', { token: tokens.access_token, client_id: demoParties(t).client.client_id, client_secret: 'wrong-secret' });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
    expect((await getMe(t, tokens.access_token)).status).toBe(200);
    const missing = await postOAuth(t, '/oauth/revoke', { ...bodyAuth() });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
  });

  it('refuses an expired access token with 401 and WWW-Authenticate', async () => {
    const tokens = await demoTokens(t);
    t.clock.advance(TTL_S * 1000 - 1000);
    expect((await getMe(t, tokens.access_token)).status).toBe(200);
    t.clock.advance(1000);
    await expectRefused(tokens.access_token);
  });

  it('answers 401 with a bare Bearer challenge without a token, and for a made-up token', async () => {
    const none = await fetch(`${t.baseUrl}/me`, { headers: { accept: 'application/json' } });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    await expectRefused('made-up-token');
  });

  it('matches the Authorization scheme case-insensitively', async () => {
    const tokens = await demoTokens(t);
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      expect((await getMe(t, tokens.access_token, scheme)).status).toBe(200);
    }
  });

  it('refuses a refresh token used as a bearer token', async () => {
    const tokens = await demoTokens(t);
    await expectRefused(tokens.refresh_token);
  });
});
