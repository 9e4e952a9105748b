/**
 * docs/design.md §9b, issue finding 1: a withdrawn invitation makes no account. The owner sends a
 * key to an unknown address, revokes (or deletes) it; the link then says "withdrawn" and its form
 * creates nothing, and the address can still be invited again and sign up itself — over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postForm } from '../../support/html-form.js';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call } from '../ekeys/household.js';
import { demoParts } from './demo-parts.js';

const SETUP_TIMEOUT_MS = 120_000;

describe('withdrawn invitations (finding 1)', () => {
  let test: TestService;
  let ownerToken: string;
  let frontDoor: string;
  let gardenGate: string;

  /** The acceptance link the service logged for `email` (no SMTP configured), the newest one. */
  const linkFor = (email: string): string => {
    const lines = test.logger.lines.filter((line) => line.message.includes(`eKey invitation for ${email} `));
    const match = /(http:\/\/\S+\/invitations\/[A-Za-z0-9_-]{43})/.exec(lines.at(-1)?.message ?? '');
    if (!match?.[1]) throw new Error(`no invitation link logged for ${email}`);
    return match[1];
  };

  const send = async (email: string, lockId: string): Promise<{ id: string; status: string }> => {
    const sent = await call(test.baseUrl, ownerToken, 'POST', '/ekey', { email, lock_id: lockId, type: 'anytime' });
    expect(sent.status).toBe(201);
    await test.service.services.invitations.whenIdle();
    return sent.body as unknown as { id: string; status: string };
  };

  beforeAll(async () => {
    test = await startTestService();
    const { owner, client } = demoParts(test.demo);
    ({ frontDoor, gardenGate } = demoParts(test.demo));
    ownerToken = (await loginOverHttp({ baseUrl: test.baseUrl, client, email: owner.email, password: owner.password })).access_token;
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await test.close();
  });

  it('a revoked invitation shows "withdrawn", creates no account, and the real recipient can still sign up later', async () => {
    const email = 'inv-b@example.org';
    const key = await send(email, frontDoor);
    expect(key.status).toBe('pending');
    const link = linkFor(email);
    expect((await fetch(link, { headers: { accept: 'text/html' } })).status).toBe(200);

    expect((await call(test.baseUrl, ownerToken, 'DELETE', `/ekey/${key.id}`)).status).toBe(200);

    const page = await fetch(link, { headers: { accept: 'text/html' } });
    const pageText = await page.text();
    expect(page.status).toBe(410);
    expect(pageText).toContain('withdrawn');
    expect(pageText).not.toContain('<form');
    expect(pageText).toContain('href="../app/"');

    const squat = await postForm(link, { name: 'Squatter', password: 'squatter-password' });
    expect(squat.status).toBe(410);
    expect(await squat.text()).toContain('withdrawn');
    expect(test.service.services.users.findByEmail(email)?.passwordHash ?? null).toBeNull();

    // The owner sends the address a key again: it waits for the real recipient (pending), and the
    // old link stays withdrawn while the new one works.
    const again = await send(email, frontDoor);
    expect(again.status).toBe('pending');
    expect((await postForm(link, { name: 'Squatter', password: 'squatter-password' })).status).toBe(410);
    const fresh = linkFor(email);
    expect(fresh).not.toBe(link);
    const signUp = await postForm(fresh, { name: 'Bea', password: 'bea-real-password' });
    expect(signUp.status).toBe(200);
    const mine = await call(test.baseUrl, ownerToken, 'GET', `/ekey/${again.id}`);
    expect(mine.body.status).toBe('accepted');
  }, SETUP_TIMEOUT_MS);

  it('purging the last pending key closes the invitation too; one still pending keeps it open', async () => {
    const email = 'inv-c@example.org';
    const first = await send(email, frontDoor);
    const second = await send(email, gardenGate);
    const link = linkFor(email);

    // One of two pending keys purged: the invitation still stands for the other.
    expect((await call(test.baseUrl, ownerToken, 'DELETE', `/ekey/${first.id}?purge=true`)).status).toBe(200);
    expect((await fetch(link, { headers: { accept: 'text/html' } })).status).toBe(200);

    expect((await call(test.baseUrl, ownerToken, 'DELETE', `/ekey/${second.id}?purge=true`)).status).toBe(200);
    expect((await fetch(link, { headers: { accept: 'text/html' } })).status).toBe(410);
    expect((await postForm(link, { name: 'Squatter', password: 'squatter-password' })).status).toBe(410);
    expect(test.service.services.users.findByEmail(email)?.passwordHash ?? null).toBeNull();
  }, SETUP_TIMEOUT_MS);
});
