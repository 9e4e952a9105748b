import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { TestService } from '../../support/test-service.js';
import { CHALLENGE, OTHER_CLIENT, PUBLIC_CLIENT, demoParties, postLogin, startOAuthService } from './oauth-test-client.js';

describe('the authorization step (/oauth/authorize)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startOAuthService();
  });
  afterAll(async () => {
    await t.close();
  });

  const authorizeUrl = (params: Record<string, string>): string => `${t.baseUrl}/oauth/authorize?${new URLSearchParams(params).toString()}`;
  const codeCount = (): number => (t.service.db.prepare('SELECT count(*) AS n FROM oauth_codes').get() as { n: number }).n;

  describe('GET', () => {
    it('renders an accessible sign-in form carrying the parameters as hidden fields', async () => {
      const { client } = demoParties(t);
      const response = await fetch(
        authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, state: 's"<1>', code_challenge: CHALLENGE, code_challenge_method: 'S256' }),
        { headers: { accept: 'text/html' } },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const html = await response.text();
      expect(html).toContain('<label for="email">');
      expect(html).toContain('name="email"');
      expect(html).toContain('name="password" type="password"');
      expect(html).toContain(`name="client_id" value="${client.client_id}"`);
      expect(html).toContain(`name="redirect_uri" value="${client.redirect_uri}"`);
      expect(html).toContain('name="state" value="s&quot;&lt;1&gt;"');
      expect(html).toContain(`name="code_challenge" value="${CHALLENGE}"`);
    });

    it('shows an HTML error page (400) and never redirects for an unregistered redirect_uri', async () => {
      const { client } = demoParties(t);
      for (const redirect of ['https://evil.example/cb', `${client.redirect_uri}/`, `${client.redirect_uri}?x=1`]) {
        const response = await fetch(authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: redirect, state: 's' }), { redirect: 'manual' });
        expect(response.status).toBe(400);
        expect(response.headers.get('location')).toBeNull();
        expect(response.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await response.text()).toContain('Invalid redirect address');
      }
    });

    it('shows an HTML error page for an unknown or missing client_id', async () => {
      const { client } = demoParties(t);
      const variants: Record<string, string>[] = [{ client_id: '00000000-0000-4000-8000-000000000000' }, {}];
      for (const params of variants) {
        const response = await fetch(authorizeUrl({ response_type: 'code', redirect_uri: client.redirect_uri, ...params }), { redirect: 'manual' });
        expect(response.status).toBe(400);
        expect(response.headers.get('location')).toBeNull();
        expect(await response.text()).toContain('Unknown application');
      }
    });

    it.each([
      ['an unsupported response_type', { response_type: 'token' }, 'unsupported_response_type'],
      ['the plain PKCE method', { response_type: 'code', code_challenge: CHALLENGE, code_challenge_method: 'plain' }, 'invalid_request'],
    ])('redirects %s to the client with error and the unchanged state', async (_label, params, error) => {
      const { client } = demoParties(t);
      const response = await fetch(authorizeUrl({ client_id: client.client_id, redirect_uri: client.redirect_uri, state: 'a b&c', ...params }), { redirect: 'manual' });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(client.redirect_uri);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('a b&c');
    });

    it('requires a PKCE challenge from a public client', async () => {
      const base = { response_type: 'code', client_id: PUBLIC_CLIENT.client_id, redirect_uri: PUBLIC_CLIENT.redirect_uri, state: 'p' };
      const refused = await fetch(authorizeUrl(base), { redirect: 'manual' });
      expect(refused.status).toBe(302);
      expect(new URL(refused.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_request');
      const shown = await fetch(authorizeUrl({ ...base, code_challenge: CHALLENGE, code_challenge_method: 'S256' }));
      expect(shown.status).toBe(200);
    });
  });

  describe('POST', () => {
    it('redirects with a code and the unchanged state, keeping the query of the redirect_uri', async () => {
      const { user } = demoParties(t);
      const state = 'ä b+c&d=e/?#';
      const response = await postLogin(t, {
        clientId: OTHER_CLIENT.client_id,
        redirectUri: OTHER_CLIENT.redirect_uri,
        email: user.email.toUpperCase(),
        password: user.password,
        state,
      });
      expect(response.status).toBe(302);
      const location = response.headers.get('location') ?? '';
      expect(location.startsWith(`${OTHER_CLIENT.redirect_uri}&code=`)).toBe(true);
      const url = new URL(location);
      expect(url.searchParams.get('app')).toBe('other');
      expect(url.searchParams.get('x')).toBe('1');
      expect(url.searchParams.get('state')).toBe(state);
      expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it.each([
      ['a wrong password', (password: string, email: string) => ({ email, password: `${password}x` })],
      ['an unknown user', (password: string) => ({ email: 'nobody@example.com', password })],
    ])('shows the form again with an error for %s and issues no code', async (_label, credentials) => {
      const { client, user } = demoParties(t);
      const before = codeCount();
      const response = await postLogin(t, { clientId: client.client_id, redirectUri: client.redirect_uri, state: 's', ...credentials(user.password, user.email) });
      expect(response.status).toBe(401);
      expect(response.headers.get('location')).toBeNull();
      const html = await response.text();
      expect(html).toContain('role="alert"');
      expect(html).toContain('not correct');
      expect(html).toContain('<form method="post"');
      expect(html).not.toContain(user.password);
      expect(codeCount()).toBe(before);
    });

    it('refuses an invited user who has no password yet and issues no code', async () => {
      const { client } = demoParties(t);
      t.service.repositories.users.insert({
        id: randomUUID(),
        email: 'invited@example.com',
        name: 'Invited',
        passwordHash: null,
        ekeyQuota: null,
        canSendEkeys: true,
        createdAt: t.clock.now(),
      });
      const before = codeCount();
      for (const password of ['', 'anything-at-all']) {
        const response = await postLogin(t, { clientId: client.client_id, redirectUri: client.redirect_uri, email: 'invited@example.com', password });
        expect(response.status).toBe(401);
        expect(response.headers.get('location')).toBeNull();
      }
      expect(codeCount()).toBe(before);
    });

    it('refuses an unregistered redirect_uri with an error page even with the right password', async () => {
      const { client, user } = demoParties(t);
      const before = codeCount();
      const response = await postLogin(t, { clientId: client.client_id, redirectUri: 'https://evil.example/cb', email: user.email, password: user.password, state: 's' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(codeCount()).toBe(before);
    });

    it('answers a malformed form with an HTML page, not JSON', async () => {
      const response = await fetch(`${t.baseUrl}/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'client_id=a&client_id=b',
        redirect: 'manual',
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    });
  });
});
