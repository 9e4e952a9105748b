/**
 * The web app (docs/design.md §7) in Debian's Chromium against the real `ekey-locks demo`: the owner signs
 * in, locks and unlocks, sees a tap arrive live, reads the history past one page and the battery
 * chart, and sends a scheduled key; the invited guest signs up in a second browser context, ends
 * signed in, unlocks inside the window, is refused outside it with the explanation, and loses
 * access the moment the owner revokes. Sign-in also works on a plain-HTTP non-loopback address.
 * Roles and accessible names are the contract's. Screenshots go to docs/images/ with UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { hostname } from 'node:os';
import type { Browser, Locator, Page } from 'playwright-core';
import { WEB_APP_CLIENT_ID } from '../../../src/auth/web-app-client.js';
import { launchChromium, openPage, signInToApp, type PageProblems } from '../../support/browser.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { screenshotFolder } from '../../support/screenshots.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };
/** This host's .local name (an allowed host, docs/design.md §9b), mapped to loopback in the browser. */
const LAN_HOST = `${hostname().split('.')[0] ?? 'homebridge'}.local`;
/** Screenshots of this run: docs/images only when asked to rewrite them. */
const IMAGES = screenshotFolder('ekey-web-app-shots-');
const WAIT = { timeout: 15_000 };

/** What the test reads of a canvas (this file is compiled without the DOM's types). */
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, width: number, height: number): { data: ArrayLike<number> } } | null;
}

/** `HH:MM` of now plus `minutes` in UTC (the demo's locks run on the host's zone, pinned to UTC). */
function utcClock(minutes: number): string {
  const at = new Date(Date.now() + minutes * 60_000);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
}

describe('the web app in Chromium against ekey-locks demo', () => {
  let demo: DemoProcess;
  let browser: Browser;
  let base: string;
  let frontDoor: string;
  let ownerName: string;
  let ownerKey: string;
  const problems: PageProblems[] = [];
  let owner: Page;
  let guest: Page;

  const region = (page: Page, name: string): Locator => page.getByRole('region', { name, exact: true });
  const button = (scope: Page | Locator, name: string): Locator => scope.getByRole('button', { name, exact: true });

  async function shoot(page: Page, name: string, viewport: { width: number; height: number }, scheme: 'light' | 'dark'): Promise<void> {
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: scheme });
    // From the top: the header whole, whatever was scrolled before.
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(IMAGES, `${name}-${viewport === PHONE ? 'phone' : 'desktop'}-${scheme}.png`), fullPage: viewport === PHONE });
  }

  beforeAll(async () => {
    demo = await startDemo();
    base = demo.demo.base_url;
    const front = demo.demo.locks.find((lock) => lock.name === 'Front Door');
    const user = demo.demo.users[0];
    if (!front || !user) throw new Error('demo household incomplete');
    frontDoor = front.id;
    ownerName = user.name;
    const token = (await demo.login(0)).access_token;
    const keys = (await call(base, 'GET', `/users/${user.id}/ekeys`, { token })).json.ekeys as { id: string; lock_id: string }[];
    ownerKey = keys.find((key) => key.lock_id === frontDoor)?.id ?? '';
    browser = await launchChromium([`--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`]);
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await demo.stop();
  });

  it('signs the owner in from / and shows every lock as a region with its bolt state', async () => {
    const opened = await openPage(browser, { viewport: PHONE });
    problems.push(opened.problems);
    owner = opened.page;
    const user = demo.demo.users[0];
    if (!user) throw new Error('no owner');
    await signInToApp(owner, `${base}/`, user);
    expect(new URL(owner.url()).pathname).toBe('/app/');
    for (const name of ['Front Door', 'Garden Gate', 'Back Door']) await expect(region(owner, name).isVisible()).resolves.toBe(true);
    await region(owner, 'Front Door').getByText(/^(Locked|Unlocked)$/).waitFor(WAIT);
    await expect(button(owner, 'Sign out').isVisible()).resolves.toBe(true);
  }, 60_000);

  it('says on Side Door’s card (a TTLock) that its state is the one it was last set to; Front Door’s card says nothing of the kind', async () => {
    // docs/design.md §4f: bolt_state_source "assumed", shown truthfully.
    const side = region(owner, 'Side Door');
    await side.getByText(/^(Locked|Unlocked)$/).waitFor(WAIT);
    await side.getByText('this lock does not notice a turn by hand', { exact: false }).waitFor(WAIT);
    await expect(region(owner, 'Front Door').getByText('does not notice a turn by hand', { exact: false }).count()).resolves.toBe(0);
  });

  it('unlocks and locks with progress, and says why a command fails', async () => {
    const door = region(owner, 'Front Door');
    await button(door, 'Unlock Front Door').click();
    await door.getByText('Unlock finished.').waitFor(WAIT);
    await door.getByText('Unlocked', { exact: true }).waitFor(WAIT);
    await button(door, 'Lock Front Door').click();
    await door.getByText('Lock finished.').waitFor(WAIT);
    await door.getByText('Locked', { exact: true }).waitFor(WAIT);

    expect((await demo.control({ op: 'jam', lock_id: frontDoor })).ok).toBe(true);
    await button(door, 'Unlock Front Door').click();
    await door.getByText('Unlock failed: the bolt is jammed.').waitFor(WAIT);
    await door.getByText('Jammed', { exact: true }).waitFor(WAIT);
    expect((await demo.control({ op: 'manual', lock_id: frontDoor, bolt: 'locked' })).ok).toBe(true);
    await door.getByText('Locked', { exact: true }).waitFor(WAIT);

    // An offline lock's actions are disabled, with the reason beside them (docs/design.md §7).
    const gate = region(owner, 'Garden Gate');
    await expect(button(gate, 'Unlock Garden Gate').isDisabled()).resolves.toBe(true);
    await expect(button(gate, 'Lock Garden Gate').isDisabled()).resolves.toBe(true);
    await gate.getByText('The lock is offline: it cannot be locked or unlocked until it is reachable again.').waitFor(WAIT);
  }, 60_000);

  it('shows a tap arriving live', async () => {
    const door = region(owner, 'Front Door');
    expect((await demo.control({ op: 'tap', lock_id: frontDoor, ekey_id: ownerKey, action: 'unlock' })).ok).toBe(true);
    await door.getByText(`Last activity: unlock by ${ownerName}`, { exact: false }).waitFor(WAIT);
    await door.getByText('Unlocked', { exact: true }).waitFor(WAIT);
    expect((await demo.control({ op: 'tap', lock_id: frontDoor, ekey_id: ownerKey, action: 'lock' })).ok).toBe(true);
    await door.getByText('Locked', { exact: true }).waitFor(WAIT);
    await shoot(owner, 'web-locks', PHONE, 'light');
    await shoot(owner, 'web-locks', PHONE, 'dark');
    await shoot(owner, 'web-locks', DESKTOP, 'light');
    await shoot(owner, 'web-locks', DESKTOP, 'dark');
  }, 60_000);

  it('scrolls the history past one page, filters by type, draws the battery chart and shows live arrivals', async () => {
    // The README's pictures: the demo's own week (docs/design.md §7), before this test adds to it.
    await owner.setViewportSize(DESKTOP);
    await owner.getByRole('link', { name: 'History of Front Door', exact: true }).click();
    await owner.getByRole('figure', { name: 'Battery of Front Door' }).getByRole('img').waitFor(WAIT);
    await shoot(owner, 'web-history', DESKTOP, 'light');
    await shoot(owner, 'web-history', PHONE, 'dark');
    await owner.goto(`${base}/app/#/`);
    await region(owner, 'Front Door').waitFor(WAIT);

    // The demo starts with a week of readings; these come on top.
    const token = (await demo.login(0)).access_token;
    const seeded = ((await call(base, 'GET', `/locks/${frontDoor}/events?type=battery&limit=1`, { token })).json.metadata as { count: number }).count;
    expect(seeded).toBeGreaterThan(0);
    const levels = [0.86, 0.81, 0.77, 0.74, 0.7, 0.66, 0.61, 0.57, 0.52];
    for (const level of levels) expect((await demo.control({ op: 'battery', lock_id: frontDoor, level })).ok).toBe(true);
    for (let index = 0; index < 6; index += 1) {
      expect((await demo.control({ op: 'tap', lock_id: frontDoor, ekey_id: ownerKey, action: index % 2 === 0 ? 'unlock' : 'lock' })).ok).toBe(true);
    }
    await owner.setViewportSize(PHONE);
    await owner.getByRole('link', { name: 'History of Front Door', exact: true }).click();
    await owner.getByRole('heading', { name: 'History of Front Door' }).waitFor(WAIT);
    const list = owner.getByRole('list', { name: 'Events of Front Door' });
    const items = list.getByRole('listitem');
    await items.nth(19).waitFor(WAIT);
    const total = Number((await owner.getByRole('status').filter({ hasText: / events$/ }).innerText()).split(' ')[0]);
    expect(total).toBeGreaterThan(20);
    // Endless scrolling: reaching the end of the list loads the next page through the cursor link.
    await items.nth(19).scrollIntoViewIfNeeded();
    await owner.mouse.wheel(0, 5000);
    await items.nth(20).waitFor(WAIT);
    await expect(items.count()).resolves.toBeGreaterThan(20);

    const chart = owner.getByRole('figure', { name: 'Battery of Front Door' });
    await chart.getByRole('img', { name: `Battery of Front Door over time, ${seeded + levels.length} readings` }).waitFor(WAIT);
    // Pixels the chart painted on its canvas.
    const painted = await chart.locator('canvas').evaluate((element) => {
      const canvas = element as unknown as CanvasLike;
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
      let opaque = 0;
      for (let index = 3; index < data.length; index += 4) if ((data[index] ?? 0) > 0) opaque += 1;
      return opaque;
    });
    expect(painted).toBeGreaterThan(500);
    await chart.getByText('Battery readings').click();
    const rows = chart.getByRole('row');
    await expect(rows.count()).resolves.toBe(seeded + levels.length + 1);
    await rows.last().getByText('52 %').waitFor(WAIT);

    await owner.getByLabel('Show').selectOption('battery');
    await items.first().getByText('Battery at 52 %').waitFor(WAIT);
    await expect(list.getByText(/^(Lock|Unlock)/).count()).resolves.toBe(0);
    await owner.getByLabel('Show').selectOption('');
    await items.first().waitFor(WAIT);
    expect((await demo.control({ op: 'tap', lock_id: frontDoor, ekey_id: ownerKey, action: 'unlock' })).ok).toBe(true);
    await items.first().getByText(`Unlock by ${ownerName}`).waitFor(WAIT);
    await owner.getByRole('status').filter({ hasText: `${total + 1} events` }).waitFor(WAIT);
  }, 60_000);

  it('sends a scheduled key, and the invited guest signs up straight into the app and unlocks inside the window', async () => {
    await owner.goto(`${base}/app/#/`);
    await owner.getByRole('link', { name: 'Keys of Front Door', exact: true }).click();
    await owner.getByRole('heading', { name: 'Keys of Front Door' }).waitFor(WAIT);
    await owner.getByLabel('E-mail').fill('gwen@example.org');
    await owner.getByLabel('Type').selectOption('scheduled');
    for (const day of ['Saturday', 'Sunday']) await owner.getByRole('checkbox', { name: day }).check();
    const opens = utcClock(-60);
    await owner.getByLabel('From', { exact: true }).fill(opens);
    await owner.getByLabel('To', { exact: true }).fill(utcClock(60));
    await button(owner, 'Send eKey').click();
    await owner.getByText('eKey sent to gwen@example.org: an invitation is on its way').waitFor(WAIT);
    const pending = owner.getByRole('region', { name: 'Pending invitations' });
    await button(pending, 'Revoke eKey of gwen@example.org').waitFor(WAIT);
    await shoot(owner, 'web-keys', DESKTOP, 'dark');
    await shoot(owner, 'web-keys', PHONE, 'light');

    const link = (await demo.child.stderrMatch(/acceptance link: (http:\/\/\S+\/invitations\/[A-Za-z0-9_-]{43})/))[1] ?? '';
    const opened = await openPage(browser, { viewport: PHONE });
    problems.push(opened.problems);
    guest = opened.page;
    await guest.goto(link);
    await guest.getByLabel('Your name').fill('Gwen Guest');
    await guest.getByLabel(/Choose a password/).fill('a fine password');
    await button(guest, 'Create account and accept').click();
    await guest.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
    const door = region(guest, 'Front Door');
    await door.getByText(/^Usable now until /).waitFor(WAIT);
    await door.getByText(`Your key works every day ${opens}–`, { exact: false }).waitFor(WAIT);
    await expect(guest.getByRole('link', { name: 'Keys of Front Door' }).count()).resolves.toBe(0);
    await button(door, 'Unlock Front Door').click();
    await door.getByText('Unlock finished.').waitFor(WAIT);
    await shoot(guest, 'web-guest', PHONE, 'light');
  }, 90_000);

  it('refuses the guest outside the window with the explanation, and at once after revocation; delete removes the key', async () => {
    await button(owner, 'Edit eKey of gwen@example.org').click();
    const later = utcClock(120);
    const until = utcClock(240);
    // Run between 20:00 and 22:00 UTC the window ends after midnight, and the app says so.
    const nextDay = until < later ? ' the next day' : '';
    await owner.getByLabel('From', { exact: true }).last().fill(later);
    await owner.getByLabel('To', { exact: true }).last().fill(until);
    await button(owner, 'Save changes').click();
    await owner.getByText('Saved the eKey of gwen@example.org.').waitFor(WAIT);

    const door = region(guest, 'Front Door');
    await button(door, 'Unlock Front Door').click();
    await door.getByText(new RegExp(`^Refused: Your key works every day ${later}–${until}${nextDay} \\(UTC\\)\\. It works next `)).waitFor(WAIT);
    // After a refusal the app re-reads the key: the card now says when it works next.
    await door.getByText(/^Outside its hours now\. Next: /).waitFor(WAIT);
    await shoot(guest, 'web-guest-refused', PHONE, 'dark');

    // Revoke and delete ask first, in a dialog with Cancel and the action (docs/design.md §7).
    await button(owner, 'Revoke eKey of gwen@example.org').click();
    const confirm = owner.getByRole('dialog', { name: 'Revoke the eKey of gwen@example.org?' });
    await button(confirm, 'Revoke').click();
    await owner.getByText('Revoked the eKey of gwen@example.org; it stopped working at once.').waitFor(WAIT);
    await button(door, 'Lock Front Door').click();
    await door.getByText('Refused: you no longer hold a key for this lock.').waitFor(WAIT);
    await door.getByText('This key has been revoked.').waitFor(WAIT);

    // Delete removes the record: the row goes from the owner's list, the lock from the guest's.
    await button(owner, 'Delete eKey of gwen@example.org').click();
    await button(owner.getByRole('dialog', { name: 'Delete the eKey of gwen@example.org?' }), 'Delete').click();
    await owner.getByText('Deleted the eKey of gwen@example.org.').waitFor(WAIT);
    // The message comes before the list is read again: wait for the row's buttons to go.
    await button(owner, 'Delete eKey of gwen@example.org').waitFor({ state: 'detached', ...WAIT });
    await expect(button(owner, 'Revoke eKey of gwen@example.org').count()).resolves.toBe(0);
    await region(guest, 'Front Door').waitFor({ state: 'detached', ...WAIT });
    await guest.getByText('You hold no keys.', { exact: false }).waitFor(WAIT);
  }, 60_000);

  it('signs in on a plain-HTTP address of the home network, where the browser offers no crypto.subtle', async () => {
    const opened = await openPage(browser, { viewport: DESKTOP });
    problems.push(opened.problems);
    const lan = opened.page;
    const port = new URL(base).port;
    const user = demo.demo.users[0];
    if (!user) throw new Error('no owner');
    await signInToApp(lan, `http://${LAN_HOST}:${port}/`, user);
    expect(new URL(lan.url()).host).toBe(`${LAN_HOST}:${port}`);
    await expect(lan.evaluate('({ secure: window.isSecureContext, subtle: typeof crypto.subtle })')).resolves.toEqual({ secure: false, subtle: 'undefined' });
    await region(lan, 'Front Door').waitFor(WAIT);
    await button(lan, 'Sign out').click();
    await button(lan, 'Sign in').waitFor(WAIT);
    await opened.context.close();
  }, 60_000);

  it('refreshes an expired access token (rotating the refresh token), and signs out by revoking', async () => {
    const stored = async (): Promise<{ refresh_token: string; access_token: string }> =>
      JSON.parse(String(await owner.evaluate("localStorage.getItem('ekey.tokens')"))) as { refresh_token: string; access_token: string };
    await owner.goto(`${base}/app/#/`);
    await region(owner, 'Front Door').waitFor(WAIT);
    const before = await stored();
    // Let the access token look expired: the next request refreshes first.
    await owner.evaluate("{ const t = JSON.parse(localStorage.getItem('ekey.tokens')); t.expires_at = 0; localStorage.setItem('ekey.tokens', JSON.stringify(t)); }");
    await owner.reload();
    await region(owner, 'Front Door').getByText(/^(Locked|Unlocked)$/).waitFor(WAIT);
    const after = await stored();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.access_token).not.toBe(before.access_token);

    await button(owner, 'Sign out').click();
    await button(owner, 'Sign in').waitFor(WAIT);
    await expect(owner.evaluate("localStorage.getItem('ekey.tokens')")).resolves.toBeNull();
    // Revoked at the service too: neither token works any more.
    expect((await call(base, 'GET', '/me', { token: after.access_token })).status).toBe(401);
    const refresh = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: after.refresh_token, client_id: WEB_APP_CLIENT_ID }).toString(),
    });
    expect(refresh.status).toBe(400);
  }, 30_000);

  it('saw no console errors and no CSP violations', () => {
    expect(problems.flatMap((page) => page.errors)).toEqual([]);
    // The only failed requests are the refusals the tests provoked.
    const failed = problems.flatMap((page) => page.failedRequests).map((line) => line.replace(/[0-9a-f-]{36}/g, 'ID'));
    expect([...new Set(failed)].sort()).toEqual(['POST /locks/ID/commands 403', 'POST /locks/ID/commands 404']);
  });
});
