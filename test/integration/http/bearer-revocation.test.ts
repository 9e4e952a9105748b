import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestService, type TestService } from '../../support/test-service.js';
import { loginOverHttp, refreshTokens, type LoginOptions } from '../../support/oauth-login.js';

/*
 * Bearer checks are served from an in-memory cache of token records (OAuthTokenRepository).
 * Over real HTTP: a revocation takes effect on the very next request, however often the token
 * was used (and cached) before; expiry is still decided by the clock on every request.
 */

let ts: TestService;
let login: LoginOptions;

beforeAll(async () => {
  ts = await startTestService();
  const owner = ts.demo.users[0];
  const client = ts.demo.clients[0];
  if (!owner || !client) throw new Error('demo household incomplete');
  login = { baseUrl: ts.baseUrl, client, email: owner.email, password: owner.password };
});

afterAll(async () => {
  await ts.close();
});

const meStatus = async (token: string): Promise<number> => (await fetch(`${ts.baseUrl}/me`, { headers: { authorization: `Bearer ${token}` } })).status;

async function warm(token: string): Promise<void> {
  for (let index = 0; index < 5; index++) expect(await meStatus(token)).toBe(200);
}

describe('a cached bearer token', () => {
  it('stops working on the request right after POST /oauth/revoke', async () => {
    const { access_token: token } = await loginOverHttp(login);
    await warm(token);
    const revoke = await fetch(`${ts.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, client_id: login.client.client_id, client_secret: login.client.client_secret }),
    });
    expect(revoke.status).toBe(200);
    expect(await meStatus(token)).toBe(401);
  });

  it('stops working at once when its refresh-token family is revoked for reuse', async () => {
    const first = await loginOverHttp(login);
    await warm(first.access_token);
    const second = await refreshTokens(ts.baseUrl, login.client, first.refresh_token);
    await warm(second.access_token);
    // Presenting the rotated-out refresh token again revokes the whole family (RFC 9700 §4.14).
    await expect(refreshTokens(ts.baseUrl, login.client, first.refresh_token)).rejects.toThrow(/HTTP 400/);
    expect(await meStatus(first.access_token)).toBe(401);
    expect(await meStatus(second.access_token)).toBe(401);
  });

  it('expires on time even while cached', async () => {
    const { access_token: token, expires_in: expiresIn } = await loginOverHttp(login);
    await warm(token);
    ts.clock.advance(expiresIn * 1000 - 1);
    expect(await meStatus(token)).toBe(200);
    ts.clock.advance(1);
    expect(await meStatus(token)).toBe(401);
  });

  it('leaves other tokens of the same user working when one is revoked', async () => {
    const kept = await loginOverHttp(login);
    const revoked = await loginOverHttp(login);
    await warm(kept.access_token);
    await warm(revoked.access_token);
    await fetch(`${ts.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: revoked.access_token, client_id: login.client.client_id, client_secret: login.client.client_secret ?? '' }).toString(),
    });
    expect(await meStatus(revoked.access_token)).toBe(401);
    expect(await meStatus(kept.access_token)).toBe(200);
  });
});
