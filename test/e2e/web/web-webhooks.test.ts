/**
 * The web app's Webhooks page (docs/design.md §7, §11; docs/webhooks.md) in Debian's Chromium
 * against the real `ekey-locks demo` and a real HTTP receiver on loopback: only a user who owns a
 * lock sees the page; the owner adds a webhook for some events of one lock and sees its secret
 * once (copied with `Copy secret`, gone after `Done` and a reload); a refused address is explained
 * in words; a tap on the lock (demo control line) becomes a delivery in the log, which says the
 * receiver answered 500 until `Retry` sends it again with the same webhook-id and it is delivered;
 * a 410 switches the webhook off with its reason until a `Retry`; delete asks first and removes it.
 * Every state passes an axe-core audit on a phone and a desktop, light and dark; phone screenshots
 * of each go to a temporary folder (or EKEY_SHOTS).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { describeFindings, seriousViolations } from '../../support/axe-audit.js';
import { launchChromium, openPage, signInToApp, type PageProblems } from '../../support/browser.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../../support/webhook-receiver.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };
const WAIT = { timeout: 15_000 };
/** Phone screenshots of every audited state, for a person to look at (EKEY_SHOTS names the folder). */
const SHOTS = process.env.EKEY_SHOTS ?? mkdtempSync(join(tmpdir(), 'ekey-webhooks-shots-'));
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** The `type` of a delivery's body. */
const typeOf = (delivery: ReceivedDelivery): string => (JSON.parse(delivery.body) as { type: string }).type;
const idOf = (delivery: ReceivedDelivery): string => String(delivery.headers['webhook-id']);

describe('the Webhooks page of the web app', () => {
  let demo: DemoProcess;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let base: string;
  let token: string;
  let frontDoor: string;
  let ownerKey: string;
  let context: BrowserContext;
  let owner: Page;
  let secret = '';
  /** How the receiver answers the n-th attempt (1-based) of a delivery of each event type. */
  let policy: (type: string, attempt: number) => number = () => 204;
  const problems: PageProblems[] = [];
  const audits: string[] = [];

  const button = (scope: Page | Locator, name: string): Locator => scope.getByRole('button', { name, exact: true });
  const region = (page: Page, name: string): Locator => page.getByRole('region', { name, exact: true });
  const webhookRow = (): Locator => region(owner, 'Your webhooks').getByRole('listitem').filter({ hasText: receiver.url }).first();
  const deliveryRow = (what: string): Locator => region(owner, `Deliveries to ${receiver.url}`).getByRole('listitem').filter({ hasText: what });
  const attemptsOf = (type: string): ReceivedDelivery[] => receiver.received.filter((delivery) => typeOf(delivery) === type);

  /** axe on the page as it is: phone and desktop, light and dark; a phone screenshot of each scheme. */
  async function audit(page: Page, label: string): Promise<void> {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        audits.push(...describeFindings(`${label} ${viewport === PHONE ? 'phone' : 'desktop'} ${scheme}`, await seriousViolations(page)));
        if (viewport === PHONE) await page.screenshot({ path: join(SHOTS, `webhooks-${label}-phone-${scheme}.png`), fullPage: true });
      }
    }
    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: 'light' });
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    receiver = await startWebhookReceiver();
    receiver.answerWith((delivery) => policy(typeOf(delivery), receiver.received.filter((each) => idOf(each) === idOf(delivery)).length));
    demo = await startDemo();
    base = demo.demo.base_url;
    const user = demo.demo.users[0];
    frontDoor = demo.demo.locks.find((lock) => lock.name === 'Front Door')?.id ?? '';
    if (!user || frontDoor === '') throw new Error('demo household incomplete');
    token = (await demo.login(0)).access_token;
    const keys = (await call(base, 'GET', `/users/${user.id}/ekeys`, { token })).json.ekeys as { id: string; lock_id: string }[];
    ownerKey = keys.find((key) => key.lock_id === frontDoor)?.id ?? '';
    browser = await launchChromium();
    const opened = await openPage(browser, { viewport: PHONE, bypassCSP: true });
    problems.push(opened.problems);
    ({ context, page: owner } = opened);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await signInToApp(owner, `${base}/app/`, user);
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await demo.stop();
    await receiver.close();
  });

  it('is offered to an owner, and never to a user who holds only a guest key', async () => {
    await owner.getByRole('link', { name: 'Webhooks', exact: true }).waitFor(WAIT);

    const guest = demo.demo.users[1];
    if (!guest) throw new Error('no second user');
    const sent = await call(base, 'POST', '/ekey', { token, body: { email: guest.email, lock_id: frontDoor, type: 'guest' } });
    expect(sent.status).toBe(201);
    const opened = await openPage(browser, { viewport: PHONE });
    problems.push(opened.problems);
    const page = opened.page;
    await signInToApp(page, `${base}/app/`, guest);
    // The guest's household is read (their card is there) before anything is said to be missing.
    await button(region(page, 'Front Door'), 'Unlock Front Door').waitFor(WAIT);
    await expect(page.getByRole('link', { name: 'Webhooks' }).count()).resolves.toBe(0);
    await page.goto(`${base}/app/#/webhooks`);
    await page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
    await button(region(page, 'Front Door'), 'Unlock Front Door').waitFor(WAIT);
    await expect(page.getByRole('heading', { name: 'Webhooks' }).count()).resolves.toBe(0);
    await opened.context.close();
  }, 60_000);

  it('adds a webhook for some events of one lock and shows its secret once, with a copy button', async () => {
    await owner.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await owner.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor(WAIT);
    await region(owner, 'Your webhooks').getByText('None yet: add one above', { exact: false }).waitFor(WAIT);
    await audit(owner, 'empty');

    // A refused address is explained in words, without field names.
    await owner.getByLabel('URL', { exact: true }).fill('ftp://example.org/hooks');
    await owner.getByRole('checkbox', { name: 'Unlocked lock.unlocked', exact: true }).check();
    await button(owner, 'Add webhook').click();
    const refusal = region(owner, 'Add a webhook').getByRole('alert');
    await refusal.getByText('Enter an address that starts with http:// or https://, like https://example.com/hooks/locks.').waitFor(WAIT);
    expect(await refusal.innerText()).not.toContain('/url');

    await owner.getByLabel('URL', { exact: true }).fill(receiver.url);
    await owner.getByRole('checkbox', { name: 'Locked lock.locked', exact: true }).check();
    await owner.getByRole('checkbox', { name: 'All my locks, also ones added later', exact: true }).uncheck();
    await owner.getByRole('checkbox', { name: 'Front Door', exact: true }).check();
    await audit(owner, 'form');
    await button(owner, 'Add webhook').click();

    await owner.getByRole('heading', { name: 'Webhook added: copy its secret now' }).waitFor(WAIT);
    secret = await owner.getByLabel('Secret', { exact: true }).inputValue();
    expect(secret).toMatch(SECRET);
    await owner.getByText('It will not be shown again.', { exact: false }).waitFor(WAIT);
    await button(owner, 'Copy secret').click();
    await owner.getByText('Copied.', { exact: true }).waitFor(WAIT);
    expect(await owner.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await audit(owner, 'secret');

    // The form is cleared; the list shows the webhook, its events and its lock.
    expect(await owner.getByLabel('URL', { exact: true }).inputValue()).toBe('');
    const row = webhookRow();
    await row.getByText('Active', { exact: true }).waitFor(WAIT);
    expect(await row.locator('dd').allInnerTexts()).toEqual(['Locked, Unlocked', 'Front Door']);

    await button(owner, 'Done').click();
    await expect(owner.getByLabel('Secret', { exact: true }).count()).resolves.toBe(0);
    await owner.reload();
    await webhookRow().waitFor(WAIT);
    expect(await owner.locator('body').innerText()).not.toContain(secret);
    const listed = (await call(base, 'GET', '/webhooks', { token })).body as Record<string, unknown>[];
    expect(listed.map((webhook) => [webhook.url, webhook.events, webhook.lock_ids, 'secret' in webhook])).toEqual([[receiver.url, ['lock.locked', 'lock.unlocked'], [frontDoor], false]]);
  }, 120_000);

  it('shows a tap’s delivery in the log; after two 500s, Retry sends it again with the same webhook-id and it is delivered', async () => {
    policy = (type, attempt) => (type === 'lock.unlocked' && attempt <= 2 ? 500 : 204);
    expect((await demo.control({ op: 'tap', lock_id: frontDoor, ekey_id: ownerKey, action: 'unlock' })).ok).toBe(true);
    await button(owner, `Deliveries of ${receiver.url}`).click();
    const row = deliveryRow('Unlocked at Front Door');
    // The second attempt comes by itself after 5 s; the next would be in 5 minutes.
    await row.getByText(/^Not delivered yet after 2 attempts: the receiver answered with code 500\. Next attempt \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d \(UTC\)\.$/).waitFor(WAIT);
    await row.getByText('Trying again', { exact: true }).waitFor(WAIT);
    await row.getByText(/^\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d \(UTC\)$/).waitFor(WAIT);
    expect(attemptsOf('lock.unlocked')).toHaveLength(2);
    const retry = row.getByRole('button', { name: /^Retry Unlocked at Front Door, / });
    await audit(owner, 'deliveries');

    await retry.click();
    await row.getByText(/^Delivered after 3 attempts: the receiver answered with code 204\.$/).waitFor(WAIT);
    const attempts = attemptsOf('lock.unlocked');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map(idOf)).size).toBe(1);
    expect(idOf(attempts[0] as ReceivedDelivery)).toMatch(/^msg_/);
    await row.getByText(`Delivery id ${idOf(attempts[0] as ReceivedDelivery)}`).waitFor(WAIT);
    await expect(row.getByRole('button', { name: /^Retry/ }).count()).resolves.toBe(0);
    // The pressed button is gone with the failure: focus is on its delivery, not back at the page's start.
    expect(await row.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)).toBe(true);
  }, 60_000);

  it('a 410 switches the webhook off with its reason; Retry switches it on and delivers', async () => {
    policy = (type, attempt) => (type === 'lock.locked' && attempt === 1 ? 410 : 204);
    expect((await demo.control({ op: 'tap', lock_id: frontDoor, ekey_id: ownerKey, action: 'lock' })).ok).toBe(true);
    const row = deliveryRow('Locked at Front Door');
    await row.getByText('Not delivered after 1 attempt: the receiver answered with code 410.').waitFor(WAIT);
    await row.getByText('Failed', { exact: true }).waitFor(WAIT);
    await webhookRow().getByText('Switched off: the receiver said it wants no more deliveries. Retry a delivery to switch it on again.').waitFor(WAIT);
    await audit(owner, 'disabled');

    await row.getByRole('button', { name: /^Retry Locked at Front Door, / }).click();
    await row.getByText('Delivered after 2 attempts: the receiver answered with code 204.').waitFor(WAIT);
    await webhookRow().getByText('Active', { exact: true }).waitFor(WAIT);
    const attempts = attemptsOf('lock.locked');
    expect(attempts).toHaveLength(2);
    expect(idOf(attempts[1] as ReceivedDelivery)).toBe(idOf(attempts[0] as ReceivedDelivery));
  }, 60_000);

  it('deletes the webhook only after confirming', async () => {
    const name = `Delete webhook ${receiver.url}`;
    await button(owner, name).click();
    const dialog = owner.getByRole('dialog', { name: `Delete the webhook to ${receiver.url}?` });
    await dialog.waitFor(WAIT);
    await audit(owner, 'confirm');
    await button(dialog, 'Cancel').click();
    await expect(dialog.count()).resolves.toBe(0);
    await webhookRow().waitFor(WAIT);
    expect(((await call(base, 'GET', '/webhooks', { token })).body as unknown[]).length).toBe(1);

    await button(owner, name).click();
    await button(owner.getByRole('dialog', { name: `Delete the webhook to ${receiver.url}?` }), 'Delete').click();
    await owner.getByText(`Deleted the webhook to ${receiver.url}: nothing more is sent there.`).waitFor(WAIT);
    await region(owner, 'Your webhooks').getByText('None yet: add one above', { exact: false }).waitFor(WAIT);
    await expect(webhookRow().count()).resolves.toBe(0);
    expect((await call(base, 'GET', '/webhooks', { token })).body).toEqual([]);
  }, 60_000);

  it('found no serious or critical accessibility violation, no console error, no refused webhook request', () => {
    expect(audits).toEqual([]);
    expect(problems.flatMap((page) => page.errors)).toEqual([]);
    // The one refusal asked for: the address the service would not take.
    expect(problems.flatMap((page) => page.failedRequests).filter((line) => line.includes('/webhooks'))).toEqual(['POST /webhooks 400']);
  });
});
