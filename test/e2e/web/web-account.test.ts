/**
 * The account's own safety in the web app (docs/security.md), in Debian's Chromium against the real
 * `ekey-locks demo`: changing one's password signs out every other device of that user and keeps
 * this one, and a sign-in answer that names another issuer (RFC 9207 `iss`, the mix-up defence)
 * is never redeemed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { describeFindings, seriousViolations } from '../../support/axe-audit.js';
import { launchChromium, openPage, signInToApp } from '../../support/browser.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { OAuthLoginError, loginOverHttp } from '../../support/oauth-login.js';

const WAIT = { timeout: 15_000 };

describe('the account in the web app (docs/security.md)', () => {
  let demo: DemoProcess;
  let browser: Browser;
  let base: string;

  const user = (index: number): { email: string; password: string } => {
    const found = demo.demo.users[index];
    if (!found) throw new Error(`no demo user ${index}`);
    return found;
  };
  const client = (): { client_id: string; client_secret?: string | null; redirect_uri: string } => {
    const found = demo.demo.clients[0];
    if (!found) throw new Error('no demo client');
    return found;
  };

  /** The access token the app keeps for its session, if any. */
  const storedAccessToken = (page: Page): Promise<string | null> =>
    page.evaluate(`(() => {
      const raw = localStorage.getItem('ekey.tokens');
      return raw === null ? null : JSON.parse(raw).access_token;
    })()`);

  beforeAll(async () => {
    demo = await startDemo();
    base = demo.demo.base_url;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await demo.stop();
  });

  it('changes the password: this device stays signed in with new tokens, every other one is signed out, only the new password signs in', async () => {
    const { email, password } = user(1);
    const here = await openPage(browser, { bypassCSP: true });
    const there = await openPage(browser);
    try {
      await signInToApp(here.page, `${base}/`, { email, password }, { waitForLocks: false });
      await here.page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
      await signInToApp(there.page, `${base}/`, { email, password }, { waitForLocks: false });
      await there.page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
      const otherToken = await storedAccessToken(there.page);
      expect(otherToken).not.toBeNull();
      expect((await call(base, 'GET', '/me', { token: otherToken ?? '' })).status).toBe(200);

      await here.page.getByRole('link', { name: 'Change password', exact: true }).click();
      await here.page.getByRole('heading', { name: 'Change password' }).waitFor(WAIT);
      // A wrong current password is told in plain words and changes nothing.
      await here.page.getByLabel('Current password').fill('not-the-password');
      await here.page.getByLabel('New password (at least 8 characters)').fill('a-new-passphrase-1');
      await here.page.getByLabel('New password again').fill('a-new-passphrase-1');
      await here.page.getByRole('button', { name: 'Change password', exact: true }).click();
      await expect(here.page.getByRole('alert').textContent(WAIT)).resolves.toBe('Your current password is not correct.');
      expect((await call(base, 'GET', '/me', { token: otherToken ?? '' })).status).toBe(200);

      const hereBefore = await storedAccessToken(here.page);
      await here.page.getByLabel('Current password').fill(password);
      await here.page.getByRole('button', { name: 'Change password', exact: true }).click();
      await expect(here.page.getByRole('status').textContent(WAIT)).resolves.toBe('Your password is changed. You were signed out on your other devices.');
      const findings = describeFindings('change password done', await seriousViolations(here.page));
      expect(findings).toEqual([]);

      // The other device's tokens are gone; this one goes on with the new token family the answer
      // carried (issue #32, finding 8: its old tokens are dead too).
      expect((await call(base, 'GET', '/me', { token: otherToken ?? '' })).status).toBe(401);
      expect((await call(base, 'GET', '/me', { token: hereBefore ?? '' })).status).toBe(401);
      expect(await storedAccessToken(here.page)).not.toBe(hereBefore);
      await there.page.reload();
      await there.page.getByRole('button', { name: 'Sign in', exact: true }).waitFor(WAIT);
      await here.page.getByRole('link', { name: 'Back to your locks' }).click();
      await here.page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
      expect((await call(base, 'GET', '/me', { token: (await storedAccessToken(here.page)) ?? '' })).status).toBe(200);

      const login = { baseUrl: base, client: client(), email };
      await expect(loginOverHttp({ ...login, password })).rejects.toBeInstanceOf(OAuthLoginError);
      await expect(loginOverHttp({ ...login, password: 'a-new-passphrase-1' })).resolves.toHaveProperty('access_token');
    } finally {
      await here.context.close();
      await there.context.close();
    }
  });

  it('never redeems a sign-in answer whose iss names another service (RFC 9207)', async () => {
    const { email, password } = user(2);
    const { context, page } = await openPage(browser);
    const tokenRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/oauth/token') tokenRequests.push(request.method());
    });
    // The sign-in form's answer, as a mix-up attacker's server would send it: our code, their iss.
    await page.route(`${base}/oauth/authorize`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const answer = await route.fetch({ maxRedirects: 0 });
      const location = new URL(answer.headers().location ?? '', base);
      expect(location.searchParams.get('iss')).toBe(base);
      expect(location.searchParams.get('code')).not.toBeNull();
      location.searchParams.set('iss', 'https://attacker.example');
      await route.fulfill({ status: 302, headers: { location: location.toString() } });
    });
    try {
      await signInToApp(page, `${base}/`, { email, password }, { waitForLocks: false });
      await expect(page.getByRole('alert').textContent(WAIT)).resolves.toBe(
        'This sign-in answer did not come from this service, so it was not used; please sign in again.',
      );
      expect(tokenRequests).toEqual([]);
      expect(await storedAccessToken(page)).toBeNull();

      // The same flow with the service's own answer signs in.
      await page.unroute(`${base}/oauth/authorize`);
      await signInToApp(page, `${base}/`, { email, password }, { waitForLocks: false });
      await page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
      expect(tokenRequests).toEqual(['POST']);
    } finally {
      await context.close();
    }
  });
});
