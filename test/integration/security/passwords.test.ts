/**
 * docs/design.md §9b: change your password in the app (every other session ends), the owner's
 * `ekey-locks user reset-password`, and with SMTP "Forgot your password?" — a single-use link that
 * lives 30 minutes, the same answer whether or not the address exists, never logged. Real HTTP on
 * loopback and a real SMTP server (smtp-server) on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCli, runNode } from '../../support/child-process.js';
import { postForm } from '../../support/html-form.js';
import { OAuthLoginError, loginOverHttp, refreshTokens, type OAuthTokens } from '../../support/oauth-login.js';
import { linkIn, startServiceWithInbox, type ServiceWithInbox } from '../../support/smtp-inbox.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call } from '../ekeys/household.js';
import { demoParts } from './demo-parts.js';

const SETUP_TIMEOUT_MS = 180_000;

describe('passwords (§9b)', () => {
  let running: ServiceWithInbox;
  let smtp: ServiceWithInbox['smtp'];
  let test: TestService;
  let parts: ReturnType<typeof demoParts>;

  const signIn = (email: string, password: string): Promise<OAuthTokens> =>
    loginOverHttp({ baseUrl: test.baseUrl, client: parts.client, email, password });
  const signInFails = async (email: string, password: string): Promise<boolean> => {
    try {
      await signIn(email, password);
      return false;
    } catch (error) {
      return error instanceof OAuthLoginError && error.status === 401;
    }
  };

  beforeAll(async () => {
    running = await startServiceWithInbox();
    ({ smtp, test } = running);
    parts = demoParts(test.demo);
  }, SETUP_TIMEOUT_MS);

  afterAll(() => running.close());

  // Issue #32, finding 8: the caller's own token family is rotated too — its old refresh token is
  // dead, the answer carries a new session for the same client.
  it('changes the password in the app: wrong current refused, every session ends, this one goes on with a new token family', async () => {
    const user = parts.others[0];
    if (!user) throw new Error('demo user missing');
    const here = await signIn(user.email, user.password);
    const elsewhere = await signIn(user.email, user.password);

    const wrong = await call(test.baseUrl, here.access_token, 'PUT', '/me/password', { current_password: 'not-it-at-all', new_password: 'a-new-password-1' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('wrong_password');
    const short = await call(test.baseUrl, here.access_token, 'PUT', '/me/password', { current_password: user.password, new_password: 'short' });
    expect(short.status).toBe(400);

    const changed = await call(test.baseUrl, here.access_token, 'PUT', '/me/password', { current_password: user.password, new_password: 'a-new-password-1' });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 3600, refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const next = changed.body as unknown as OAuthTokens;
    expect((await call(test.baseUrl, elsewhere.access_token, 'GET', '/me')).status).toBe(401);
    await expect(refreshTokens(test.baseUrl, parts.client, elsewhere.refresh_token)).rejects.toThrow(OAuthLoginError);
    // This session's old tokens are dead too (a stolen refresh token of it dies with the old password) …
    expect((await call(test.baseUrl, here.access_token, 'GET', '/me')).status).toBe(401);
    await expect(refreshTokens(test.baseUrl, parts.client, here.refresh_token)).rejects.toThrow(OAuthLoginError);
    // … and it goes on with the new family.
    expect((await call(test.baseUrl, next.access_token, 'GET', '/me')).status).toBe(200);
    const rotated = await refreshTokens(test.baseUrl, parts.client, next.refresh_token);
    expect((await call(test.baseUrl, rotated.access_token, 'GET', '/me')).status).toBe(200);
    expect(await signInFails(user.email, user.password)).toBe(true);
    await signIn(user.email, 'a-new-password-1');
  }, SETUP_TIMEOUT_MS);

  it('mails a single-use reset link only for an existing account, with the same answer for any address', async () => {
    const user = parts.others[1];
    if (!user) throw new Error('demo user missing');
    const session = await signIn(user.email, user.password);
    const sent = smtp.mails.length;
    const known = await postForm(`${test.baseUrl}/password/forgot`, { email: user.email });
    const unknown = await postForm(`${test.baseUrl}/password/forgot`, { email: 'nobody-here@example.org' });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(await known.text()).toBe(await unknown.text());
    await test.service.services.passwords.whenIdle();
    const mails = smtp.mails.slice(sent);
    expect(mails.map((mail) => mail.to)).toEqual([[user.email]]);
    const link = linkIn(mails[0]?.raw ?? '', 'password/reset');
    expect(test.logger.text()).not.toContain(link.split('/').at(-1));

    expect((await fetch(link, { headers: { accept: 'text/html' } })).status).toBe(200);
    const done = await postForm(link, { password: 'reset-password-2' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password changed');
    expect((await call(test.baseUrl, session.access_token, 'GET', '/me')).status).toBe(401);
    const again = await postForm(link, { password: 'someone-elses-3' });
    expect(again.status).toBe(410);
    await signIn(user.email, 'reset-password-2');
  }, SETUP_TIMEOUT_MS);

  // Issue #32, finding 7: nothing about the address may show in the answer — also not when the
  // store fails: the look-up and the link are made after the answer was sent.
  it('answers the same whether or not the address exists, even while the store refuses writes', async () => {
    const sent = smtp.mails.length;
    test.service.db.pragma('query_only = ON');
    let known: Response;
    let unknown: Response;
    try {
      known = await postForm(`${test.baseUrl}/password/forgot`, { email: parts.owner.email });
      unknown = await postForm(`${test.baseUrl}/password/forgot`, { email: 'nobody-at-all@example.org' });
      await test.service.services.passwords.whenIdle();
    } finally {
      test.service.db.pragma('query_only = OFF');
    }
    expect([known.status, unknown.status]).toEqual([200, 200]);
    expect(await known.text()).toBe(await unknown.text());
    expect(smtp.mails.length).toBe(sent);
  }, SETUP_TIMEOUT_MS);

  it('lets a reset link work for 30 minutes only', async () => {
    const user = parts.others[2];
    if (!user) throw new Error('demo user missing');
    const sent = smtp.mails.length;
    await postForm(`${test.baseUrl}/password/forgot`, { email: user.email });
    await test.service.services.passwords.whenIdle();
    const link = linkIn(smtp.mails[sent]?.raw ?? '', 'password/reset');
    test.clock.advance(30 * 60 * 1000);
    expect((await fetch(link, { headers: { accept: 'text/html' } })).status).toBe(410);
    expect((await postForm(link, { password: 'too-late-password' })).status).toBe(410);
    expect(await signInFails(user.email, 'too-late-password')).toBe(true);
  }, SETUP_TIMEOUT_MS);

  // Issue #32, finding 7: at most 3 links per account an hour; a new link replaces the older ones.
  it('mails at most 3 links per account an hour, and only the newest link works', async () => {
    const user = parts.owner;
    const sent = smtp.mails.length;
    const ask = async (): Promise<void> => {
      expect((await postForm(`${test.baseUrl}/password/forgot`, { email: user.email })).status).toBe(200);
      await test.service.services.passwords.whenIdle();
    };
    for (let index = 0; index < 4; index += 1) await ask();
    const links = smtp.mails.slice(sent).map((mail) => linkIn(mail.raw, 'password/reset'));
    expect(links).toHaveLength(3);
    const status = async (link: string): Promise<number> => (await fetch(link, { headers: { accept: 'text/html' } })).status;
    expect(await Promise.all(links.map(status))).toEqual([410, 410, 200]);
    expect(await (await fetch(links[0] ?? '', { headers: { accept: 'text/html' } })).text()).toContain('a newer one was sent');
    expect((await postForm(links[1] ?? '', { password: 'an-old-link-password' })).status).toBe(410);

    // An hour later the account may ask again; the new link replaces the last one.
    test.clock.advance(60 * 60 * 1000);
    await ask();
    const fresh = smtp.mails.slice(sent).map((mail) => linkIn(mail.raw, 'password/reset'));
    expect(fresh).toHaveLength(4);
    expect(await status(fresh[3] ?? '')).toBe(200);
    expect(await status(links[2] ?? '')).toBe(410);
  }, SETUP_TIMEOUT_MS);
});

describe('without SMTP and from the command line (§9b)', () => {
  it('says to ask the owner, who resets the password with the CLI; the user’s sessions end', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ekey-reset-cli-'));
    const test = await startTestService({ dataDir });
    const parts = demoParts(test.demo);
    let session: OAuthTokens;
    try {
      const page = await fetch(`${test.baseUrl}/password/forgot`, { headers: { accept: 'text/html' } });
      const text = await page.text();
      expect(page.status).toBe(200);
      expect(text).toContain('Ask the person who runs it');
      expect(text).not.toContain('<form');
      session = await loginOverHttp({ baseUrl: test.baseUrl, client: parts.client, email: parts.owner.email, password: parts.owner.password });
    } finally {
      await test.close();
    }
    const result = await runNode(builtCli(), ['user', 'reset-password', '--email', parts.owner.email, '--password-stdin', '--data', dataDir], {
      stdin: 'owner-reset-password\n',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ email: parts.owner.email, sessions_ended: true });

    const again = await startTestService({ dataDir });
    try {
      expect((await call(again.baseUrl, session.access_token, 'GET', '/me')).status).toBe(401);
      await loginOverHttp({ baseUrl: again.baseUrl, client: parts.client, email: parts.owner.email, password: 'owner-reset-password' });
    } finally {
      await again.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, SETUP_TIMEOUT_MS);
});
