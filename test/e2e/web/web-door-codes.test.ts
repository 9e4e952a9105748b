/**
 * Door codes in the web app (docs/design.md §4c, §7) in Debian's Chromium against the real
 * `ekey-locks demo`: `Send eKey` on Back Door (a keypad) has a `Door code` checkbox, ticked by
 * default, and Front Door (none) has none; the invitation says a code waits in the app, never the
 * code; the guest signs up and sees the code and when it works on their card; the code typed on
 * the simulated keypad (control line `keypad`) opens the Back Door inside the key's window and is
 * refused once the owner revoked the key; the owner's key list shows each state (waiting, set,
 * removed, failed with its reason). Every new state passes an axe-core audit; the code is never in
 * the demo's log. Screenshots only with UPDATE_SCREENSHOTS=1 (into docs/images/).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { describeFindings, seriousViolations } from '../../support/axe-audit.js';
import { launchChromium, openPage, signInToApp, type PageProblems } from '../../support/browser.js';
import { PROJECT_ROOT } from '../../support/child-process.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { readUntil } from '../../support/polling.js';

const PHONE = { width: 390, height: 844 };
const WAIT = { timeout: 15_000 };
const IMAGES = join(PROJECT_ROOT, 'docs', 'images');
const GUEST = 'dora.door@example.org';

/** `YYYY-MM-DDTHH:MM` of now plus `minutes` in UTC (the demo's locks keep UTC), for a datetime-local field. */
function utcInput(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString().slice(0, 16);
}

describe('door codes in the web app', () => {
  let demo: DemoProcess;
  let browser: Browser;
  let base: string;
  let backDoor: string;
  let token: string;
  let owner: Page;
  let guest: Page;
  let code = '';
  let guestKeyId = '';
  const problems: PageProblems[] = [];
  const audits: string[] = [];

  const region = (page: Page, name: string): Locator => page.getByRole('region', { name, exact: true });
  const button = (scope: Page | Locator, name: string): Locator => scope.getByRole('button', { name, exact: true });
  const lockId = (name: string): string => demo.demo.locks.find((lock) => lock.name === name)?.id ?? '';

  /** axe on the page as it is, light and dark (a phone); a screenshot of each only when asked for. */
  async function audit(page: Page, label: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      audits.push(...describeFindings(`${label} ${scheme}`, await seriousViolations(page)));
      if (process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: join(IMAGES, `web-door-code-${label}-phone-${scheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  /** The key's door code through the API, once its state is `state` (the lock confirmed), within 10 s. */
  async function doorCodeOnceIn(keyId: string, state: string): Promise<Record<string, unknown>> {
    const doorCode = await readUntil(
      async () => (await call(base, 'GET', `/ekey/${keyId}`, { token })).json.door_code as Record<string, unknown> | null,
      (read) => read?.state === state,
      { everyMs: 25 },
    );
    if (doorCode?.state !== state) throw new Error(`door code still ${String(doorCode?.state)}, not ${state}`);
    return doorCode;
  }

  const typeOnKeypad = async (digits: string): Promise<unknown> => {
    const answer = await demo.control({ op: 'keypad', lock_id: backDoor, code: digits, action: 'unlock' });
    expect(answer.ok).toBe(true);
    return answer.result;
  };

  beforeAll(async () => {
    demo = await startDemo();
    base = demo.demo.base_url;
    backDoor = lockId('Back Door');
    token = (await demo.login(0)).access_token;
    browser = await launchChromium();
    const opened = await openPage(browser, { viewport: PHONE, bypassCSP: true });
    problems.push(opened.problems);
    owner = opened.page;
    const user = demo.demo.users[0];
    if (!user) throw new Error('no owner');
    await signInToApp(owner, `${base}/app/`, user);
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await demo.stop();
  });

  it('offers the Door code checkbox, ticked, only on a lock with a keypad', async () => {
    await owner.getByRole('link', { name: 'Keys of Front Door', exact: true }).click();
    await owner.getByRole('heading', { name: 'Keys of Front Door' }).waitFor(WAIT);
    await button(owner, 'Send eKey').waitFor(WAIT);
    await expect(owner.getByRole('checkbox', { name: 'Door code' }).count()).resolves.toBe(0);

    await owner.goto(`${base}/app/#/locks/${backDoor}/keys`);
    await owner.getByRole('heading', { name: 'Keys of Back Door' }).waitFor(WAIT);
    const box = owner.getByRole('checkbox', { name: 'Door code' });
    await box.waitFor(WAIT);
    expect(await box.isChecked()).toBe(true);
  }, 60_000);

  it('sends a key with a door code: the row says it waits; the invitation says a code waits in the app, never the code', async () => {
    await owner.getByLabel('E-mail').fill(GUEST);
    await owner.getByLabel('Type').selectOption('anytime');
    await owner.getByLabel(/^Valid from/).fill(utcInput(-60));
    await owner.getByLabel(/^Valid until/).fill(utcInput(24 * 60));
    await button(owner, 'Send eKey').click();
    await owner.getByText(`eKey sent to ${GUEST}: an invitation is on its way`, { exact: false }).waitFor(WAIT);
    // The form is cleared for the next key, the checkbox ticked again.
    expect(await owner.getByRole('checkbox', { name: 'Door code' }).isChecked()).toBe(true);
    const pending = region(owner, 'Pending invitations');
    const row = pending.getByRole('listitem').filter({ hasText: GUEST });
    const doorCode = row.getByRole('group', { name: /^Door code \d{6}$/ });
    await doorCode.waitFor(WAIT);
    code = /\d{6}/.exec(await doorCode.innerText())?.[0] ?? '';
    expect(code).toMatch(/^[1-9]{6}$/);
    await doorCode.getByText('Waiting: it goes onto the lock once they sign up.').waitFor(WAIT);
    await audit(owner, 'waiting');

    const link = (await demo.child.stderrMatch(new RegExp(`invitation for ${GUEST.replace(/\./g, '\\.')}[^\n]*acceptance link: (http://\\S+/invitations/[A-Za-z0-9_-]{43})`)))[1] ?? '';
    const opened = await openPage(browser, { viewport: PHONE, bypassCSP: true });
    problems.push(opened.problems);
    guest = opened.page;
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'Accept your eKey' }).waitFor(WAIT);
    const invitation = await guest.getByRole('main').innerText();
    expect(invitation).toContain('It comes with a door code for the keypad at the door: you will find it in the app once you have signed up.');
    expect(invitation).not.toContain(code);
  }, 60_000);

  it('the guest signs up and sees the code and when it works; the code opens the Back Door on the keypad', async () => {
    await guest.getByLabel('Your name').fill('Dora Door');
    await guest.getByLabel(/Choose a password/).fill('a fine password');
    await button(guest, 'Create account and accept').click();
    await guest.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
    const card = region(guest, 'Back Door');
    const doorCode = card.getByRole('group', { name: `Door code ${code}` });
    await doorCode.waitFor(WAIT);
    await doorCode.getByText(/^It works at any time from \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d \(UTC\) until \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d \(UTC\)\.$/).waitFor(WAIT);

    const keys = (await call(base, 'GET', `/locks/${backDoor}/ekeys`, { token })).json.ekeys as { id: string; door_code: { code: string | null } | null }[];
    guestKeyId = keys.find((key) => key.door_code?.code === code)?.id ?? '';
    await doorCodeOnceIn(guestKeyId, 'set');
    await guest.reload();
    await card.getByRole('group', { name: `Door code ${code}` }).getByText('Type it on the keypad at the door: it works there even without a network.').waitFor(WAIT);
    await audit(guest, 'holder');

    expect(await typeOnKeypad(code)).toBe('unlocked');
    const wrong = code.startsWith('9') ? `8${code.slice(1)}` : `9${code.slice(1)}`;
    expect(await typeOnKeypad(wrong)).toBe('refused');

    await owner.reload();
    const row = region(owner, 'All eKeys').getByRole('listitem').filter({ hasText: GUEST });
    await row.getByRole('group', { name: `Door code ${code}` }).getByText(/^On the lock since \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d \(UTC\)\.$/).waitFor(WAIT);
    await audit(owner, 'set');
  }, 60_000);

  it('is refused on the keypad once the owner revoked the key; the row says the code was taken off', async () => {
    await button(owner, `Revoke eKey of ${GUEST}`).click();
    await button(owner.getByRole('dialog', { name: `Revoke the eKey of ${GUEST}?` }), 'Revoke').click();
    await owner.getByText(`Revoked the eKey of ${GUEST}; it stopped working at once.`).waitFor(WAIT);
    await doorCodeOnceIn(guestKeyId, 'removed');
    expect(await typeOnKeypad(code)).toBe('refused');

    await owner.reload();
    const row = region(owner, 'All eKeys').getByRole('listitem').filter({ hasText: GUEST });
    const doorCode = row.getByRole('group', { name: 'Door code' });
    await doorCode.getByText(/^Taken off the lock on \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d \(UTC\)\.$/).waitFor(WAIT);
    expect(await doorCode.innerText()).not.toContain(code);
    await audit(owner, 'removed');

    // The guest's card no longer offers the code.
    await guest.reload();
    await region(guest, 'Back Door').getByText('This key has been revoked.').waitFor(WAIT);
    await expect(guest.getByRole('group', { name: /^Door code/ }).count()).resolves.toBe(0);
  }, 60_000);

  it('says why a code failed: a full keypad', async () => {
    // Fill the keypad with codes of the vendor's app (digits 1–9, from 311111 up) until it refuses one.
    const vendorCode = (index: number): string => `3${[4, 3, 2, 1, 0].map((power) => String((Math.floor(index / 9 ** power) % 9) + 1)).join('')}`;
    let added = 0;
    while (added < 200) {
      const answer = await demo.control({ op: 'keypad_vendor_code', lock_id: backDoor, code: vendorCode(added) });
      if (!answer.ok) break;
      added += 1;
    }
    expect(added).toBe(100);
    const alex = demo.demo.users[1];
    if (!alex) throw new Error('no Alex');
    const sent = await call(base, 'POST', '/ekey', { token, body: { email: alex.email, lock_id: backDoor, type: 'anytime', door_code: true } });
    expect(sent.status).toBe(201);
    const failed = await doorCodeOnceIn(String(sent.json.id), 'failed');
    expect(failed.failure_reason).toBe('keypad_full');

    await owner.reload();
    const row = region(owner, 'All eKeys').getByRole('listitem').filter({ hasText: alex.email });
    await row
      .getByRole('group', { name: `Door code ${String(failed.code)}` })
      .getByText('Not on the lock: the keypad is full (it holds 100 codes): remove some in the Nuki app. It is tried again when the lock next connects.')
      .waitFor(WAIT);
    await audit(owner, 'failed');
  }, 90_000);

  it('found no serious or critical accessibility violation, no console error; no code in the log', () => {
    expect(audits).toEqual([]);
    expect(problems.flatMap((page) => page.errors)).toEqual([]);
    expect(code).toMatch(/^\d{6}$/);
    expect(demo.child.stderr()).not.toContain(code);
  });
});
