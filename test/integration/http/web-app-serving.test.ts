/**
 * The service side of the web app (docs/design.md §7): `/` redirects to `/app/`, the app's files are
 * served from the build with a CSP that allows no inline script, exempt from the JSON Accept rule,
 * compressed and cacheable; the favicon; the first-party public client registered by the service
 * with its origin-relative redirect URI and PKCE; and the invitation sign-up that ends signed in.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { hostname } from 'node:os';
import { WEB_APP_CLIENT_ID } from '../../../src/auth/web-app-client.js';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call } from '../ekeys/household.js';

const base64url = (bytes: Buffer): string => bytes.toString('base64url');

function pkce(): { verifier: string; challenge: string } {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash('sha256').update(verifier).digest()) };
}

/** GET with a Host header of our choosing (fetch will not send one): status and Location. */
function getWithHost(url: string, host: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { headers: { host, accept: 'text/html' } }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, location: response.headers.location });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers });
}

describe('the web app, served by the service', () => {
  let test: TestService;

  beforeAll(async () => {
    test = await startTestService();
  }, 60_000);

  afterAll(async () => {
    await test.close();
  });

  it('redirects / to /app/ and serves the page with a CSP that allows no inline script', async () => {
    const root = await get(`${test.baseUrl}/`, { accept: 'text/html' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/app/');

    for (const path of ['/app/', '/app/callback']) {
      const page = await get(`${test.baseUrl}${path}`, { accept: 'text/html,application/xhtml+xml' });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      const html = await page.text();
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attributes = '', body = ''] of scripts) {
        expect(attributes).toMatch(/src="\.\/assets\/main-[A-Z0-9]{8}\.js"/);
        expect(body.trim()).toBe('');
      }
      expect(html).not.toMatch(/https?:\/\//);
    }
  });

  it('serves the bundles compressed and immutable, revalidates the page, and 404s the rest', async () => {
    const html = await (await get(`${test.baseUrl}/app/`)).text();
    const script = /src="\.\/(assets\/main-[A-Z0-9]{8}\.js)"/.exec(html)?.[1] ?? '';
    const style = /href="\.\/(assets\/main-[A-Z0-9]{8}\.css)"/.exec(html)?.[1] ?? '';
    const js = await get(`${test.baseUrl}/app/${script}`, { accept: '*/*', 'accept-encoding': 'gzip, br' });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('content-encoding')).toBe('br');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // fetch decodes the brotli body itself.
    expect(await js.text()).toContain('Sign out');
    const css = await get(`${test.baseUrl}/app/${style}`, { accept: 'text/css,*/*;q=0.1' });
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');

    const page = await get(`${test.baseUrl}/app/`);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const etag = page.headers.get('etag') ?? '';
    expect((await get(`${test.baseUrl}/app/`, { 'if-none-match': etag })).status).toBe(304);

    const icon = await get(`${test.baseUrl}/favicon.ico`, { accept: 'image/avif,image/webp,image/*,*/*;q=0.8' });
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect((await get(`${test.baseUrl}/app/assets/nothing.js`)).status).toBe(404);
    expect((await get(`${test.baseUrl}/app/index.html`)).status).toBe(404);
    // The API keeps its JSON rule.
    expect((await get(`${test.baseUrl}/me`, { accept: 'text/html' })).status).toBe(406);
  });

  it('registers the web app as a public client whose redirect URI is /app/callback on the address used', async () => {
    const { challenge } = pkce();
    const authorize = (host: string, redirect: string, withPkce = true): Promise<{ status: number; location: string | undefined }> => {
      const query = new URLSearchParams({ response_type: 'code', client_id: WEB_APP_CLIENT_ID, redirect_uri: redirect, state: 's' });
      if (withPkce) {
        query.set('code_challenge', challenge);
        query.set('code_challenge_method', 'S256');
      }
      return getWithHost(`${test.baseUrl}/oauth/authorize?${query.toString()}`, host);
    };
    const own = new URL(test.baseUrl).host;
    // This host's .local name (an allowed host, docs/design.md §9b), as a phone on the LAN uses it.
    const dotLocal = `${hostname().split('.')[0] ?? ''}.local:8787`;
    expect((await authorize(own, `${test.baseUrl}/app/callback`)).status).toBe(200);
    expect((await authorize(dotLocal, `http://${dotLocal}/app/callback`)).status).toBe(200);
    // Another origin than the one the request came in on: never redirected to.
    expect((await authorize(own, 'http://evil.example/app/callback')).status).toBe(400);
    expect((await authorize(dotLocal, `${test.baseUrl}/app/callback`)).status).toBe(400);
    // Public: PKCE is required.
    const withoutPkce = await authorize(own, `${test.baseUrl}/app/callback`, false);
    expect(withoutPkce.status).toBe(302);
    expect(withoutPkce.location).toContain('error=invalid_request');
  });

  it('signs in with PKCE and no secret, rotates the refresh token and revokes on sign-out', async () => {
    const owner = test.demo.users[0];
    if (!owner) throw new Error('no owner');
    const client = { client_id: WEB_APP_CLIENT_ID, redirect_uri: `${test.baseUrl}/app/callback` };
    const tokens = await loginOverHttp({ baseUrl: test.baseUrl, client, email: owner.email, password: owner.password });
    expect((await call(test.baseUrl, tokens.access_token, 'GET', '/me')).status).toBe(200);
    const form = (fields: Record<string, string>): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ ...fields, client_id: WEB_APP_CLIENT_ID }).toString(),
    });
    const rotated = (await (await fetch(`${test.baseUrl}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }))).json()) as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await fetch(`${test.baseUrl}/oauth/revoke`, form({ token: rotated.refresh_token, token_type_hint: 'refresh_token' }))).status).toBe(200);
    expect((await call(test.baseUrl, rotated.access_token, 'GET', '/me')).status).toBe(401);
  }, 30_000);

  it('ends the invitation sign-up signed in, in the app', async () => {
    const owner = test.demo.users[0];
    const lock = test.demo.locks[0];
    const demoClient = test.demo.clients[0];
    if (!owner || !lock || !demoClient) throw new Error('demo household incomplete');
    const ownerToken = (await loginOverHttp({ baseUrl: test.baseUrl, client: demoClient, email: owner.email, password: owner.password })).access_token;
    expect((await call(test.baseUrl, ownerToken, 'POST', '/ekey', { email: 'newbie@example.org', lock_id: lock.id, type: 'anytime' })).status).toBe(201);
    await test.service.services.invitations.whenIdle();
    const link = /(http:\/\/\S+\/invitations\/[A-Za-z0-9_-]{43})/.exec(test.logger.text())?.[1] ?? '';

    const page = await get(link, { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="../app/invite.js"></script>');
    expect((await get(new URL('../app/invite.js', link).toString())).status).toBe(200);

    // What invite.js adds to the form: the web app's authorization request.
    const { verifier, challenge } = pkce();
    const redirect = `${test.baseUrl}/app/callback`;
    const query = new URLSearchParams({ response_type: 'code', client_id: WEB_APP_CLIENT_ID, redirect_uri: redirect, state: 'st', code_challenge: challenge, code_challenge_method: 'S256' });
    const signedUp = await fetch(`${link}?${query.toString()}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ name: 'Nova Newbie', password: 'a fine password' }).toString(),
    });
    expect(signedUp.status).toBe(303);
    const location = new URL(signedUp.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(redirect);
    expect(location.searchParams.get('state')).toBe('st');
    const exchanged = await fetch(`${test.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: location.searchParams.get('code') ?? '', client_id: WEB_APP_CLIENT_ID, redirect_uri: redirect, code_verifier: verifier }).toString(),
    });
    expect(exchanged.status).toBe(200);
    const token = ((await exchanged.json()) as { access_token: string }).access_token;
    const me = await call(test.baseUrl, token, 'GET', '/me');
    expect(me.body).toMatchObject({ name: 'Nova Newbie' });
  }, 60_000);
});
