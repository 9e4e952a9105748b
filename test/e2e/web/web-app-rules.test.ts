/**
 * The rules of the app's face (docs/design.md §7), each held in Debian's Chromium against the real
 * `ekey-locks demo` (with its week of history), on a phone and a desktop, light and dark: the guest's
 * first minute (the invitation says who sent which key, its message and when it works; a used or
 * withdrawn one says so and links to sign-in; Back after sign-up or sign-in never shows a dead or
 * resent page), one look for the service's own pages, unambiguous times in one format, plain words,
 * confirmations, one card per lock, the main button and focus, offline locks, truthful empty states,
 * the manifest — and an axe-core audit of every page state with no serious or critical violation.
 * Phone screenshots of each audited state go to a temporary folder (or EKEY_SHOTS).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { describeFindings, seriousViolations } from '../../support/axe-audit.js';
import { computedStyle, fitsText, inViewport, launchChromium, openPage, signInToApp, type PageProblems } from '../../support/browser.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };
const WAIT = { timeout: 15_000 };
/** Phone screenshots of every audited state, for a person to look at (EKEY_SHOTS names the folder). */
const SHOTS = process.env.EKEY_SHOTS ?? mkdtempSync(join(tmpdir(), 'ekey-web-shots-'));
/** The spec's wire format (`11/26/2026 5:05:00 PM`) and cron text (`0 9 * * 1-5 *`): never shown. */
const WIRE_FORMAT = /\b\d{1,2}\/\d{1,2}\/\d{4}\b/;
const CRON_TEXT = /\b\d{1,2} \d{1,2} \* \* [\d*,-]+ \*/;

describe('the rules of the web app (docs/design.md §7)', () => {
  let demo: DemoProcess;
  let browser: Browser;
  let base: string;
  const problems: PageProblems[] = [];
  const audits: string[] = [];
  const owner = (): { id: string; email: string; password: string; name: string } => {
    const user = demo.demo.users[0];
    if (!user) throw new Error('no owner');
    return user;
  };
  const lockId = (name: string): string => demo.demo.locks.find((lock) => lock.name === name)?.id ?? '';
  const region = (page: Page, name: string): Locator => page.getByRole('region', { name, exact: true });
  const button = (scope: Page | Locator, name: string): Locator => scope.getByRole('button', { name, exact: true });

  /** A page whose CSP lets the audit inject axe-core (the app's own CSP is tested on its headers). */
  async function auditable(viewport = PHONE, scheme: 'light' | 'dark' = 'light'): Promise<{ context: BrowserContext; page: Page }> {
    const opened = await openPage(browser, { viewport, colorScheme: scheme, bypassCSP: true });
    problems.push(opened.problems);
    return { context: opened.context, page: opened.page };
  }

  /** Audits the page as it is, in light and dark, phone and desktop; keeps a phone screenshot of each scheme. */
  async function audit(page: Page, label: string): Promise<void> {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        audits.push(...describeFindings(`${label} ${viewport === PHONE ? 'phone' : 'desktop'} ${scheme}`, await seriousViolations(page)));
        if (viewport === PHONE) await page.screenshot({ path: join(SHOTS, `app-${label}-phone-${scheme}.png`), fullPage: true });
      }
    }
    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: 'light' });
  }

  /** The acceptance link the demo logs for an address (no SMTP in the demo). */
  async function invitationLink(email: string): Promise<string> {
    const pattern = new RegExp(`invitation for ${email.replace(/\./g, '\\.')}[^\n]*acceptance link: (https?://\\S+/invitations/[A-Za-z0-9_-]{43})`);
    return (await demo.child.stderrMatch(pattern))[1] ?? '';
  }

  /** The smallest distance of any visible text or control from the left and right screen edges. */
  async function edgeMargin(page: Page): Promise<number> {
    return page.evaluate(`(() => {
      let least = Infinity;
      for (const element of document.querySelectorAll('main h1, main h2, main p, main label, main input, main button, main a, main li')) {
        const box = element.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) continue;
        least = Math.min(least, box.left, window.innerWidth - box.right);
      }
      return least;
    })()`);
  }

  /** What the page's look is made of, to compare the service's pages with the app. */
  async function look(page: Page): Promise<{ font: string; background: string; text: string }> {
    return page.evaluate(`(() => {
      const body = getComputedStyle(document.body);
      const button = document.querySelector('button');
      return { font: button ? getComputedStyle(button).fontFamily : body.fontFamily, background: body.backgroundColor, text: body.color };
    })()`);
  }

  beforeAll(async () => {
    demo = await startDemo();
    base = demo.demo.base_url;
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await demo.stop();
  });

  it('serves a web manifest and icons with their types, and a CSP without inline scripts', async () => {
    const page = await fetch(`${base}/app/`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("manifest-src 'self'");
    const html = await page.text();
    expect(html).toContain('<link rel="manifest" href="./manifest.webmanifest">');
    const manifest = await fetch(`${base}/app/manifest.webmanifest`);
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json');
    const body = (await manifest.json()) as { name: string; start_url: string; display: string; icons: { src: string; sizes: string; type: string }[] };
    expect(body).toMatchObject({ name: 'eKey Locks', start_url: './', display: 'standalone' });
    for (const size of ['192x192', '512x512']) expect(body.icons.some((icon) => icon.sizes === size && icon.type === 'image/png')).toBe(true);
    for (const icon of body.icons) {
      const answer = await fetch(new URL(icon.src, `${base}/app/manifest.webmanifest`));
      expect([answer.status, answer.headers.get('content-type')]).toEqual([200, icon.type]);
      if (icon.type === 'image/png') {
        const png = Buffer.from(await answer.arrayBuffer());
        const [width, height] = icon.sizes.split('x').map(Number);
        expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([width, height]);
      }
    }
    expect((await fetch(`${base}/app/icons/apple-touch-icon.png`)).headers.get('content-type')).toBe('image/png');
  });

  it('gives the sign-in page the app’s font, colours, dark mode and phone margins; Back never resends or shows it again', async () => {
    const { context, page } = await auditable();
    await page.goto(`${base}/`);
    const appLight = await look(page);
    await page.emulateMedia({ colorScheme: 'dark' });
    const appDark = await look(page);
    await page.emulateMedia({ colorScheme: 'light' });
    await button(page, 'Sign in').click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor(WAIT);
    expect(await look(page)).toEqual(appLight);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await look(page)).toEqual(appDark);
    expect(appDark.background).not.toBe(appLight.background);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await edgeMargin(page)).toBeGreaterThanOrEqual(16);
    await audit(page, 'sign-in');

    // Two refused attempts, then Back: the form again, not a browser error about a resent form.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await page.getByLabel('E-mail').fill(owner().email);
      await page.getByLabel('Password').fill('not the password');
      await button(page, 'Sign in and allow').click();
      await page.getByRole('alert').getByText('The e-mail address or password is not correct.').waitFor(WAIT);
    }
    await audit(page, 'sign-in-refused');
    await page.goBack();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');

    await page.getByLabel('E-mail').fill(owner().email);
    await page.getByLabel('Password').fill(owner().password);
    await button(page, 'Sign in and allow').click();
    await page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
    // Back from the app: never the sign-in form again.
    await page.goBack();
    await page.waitForLoadState();
    await page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Sign in and allow' }).count()).toBe(0);
    await context.close();
  }, 120_000);

  it('shows one card per lock, the main button after the bolt, an offline lock disabled with its reason, failures as alerts, focus kept', async () => {
    const { context, page } = await auditable();
    await signInToApp(page, `${base}/`, owner());
    for (const lock of demo.demo.locks) await expect(region(page, lock.name).count()).resolves.toBe(1);
    const ids: string[] = await page.evaluate('[...document.querySelectorAll("[id]")].map((e) => e.id)');
    expect(ids.length).toBe(new Set(ids).size);

    const door = region(page, 'Front Door');
    await door.getByText('Locked', { exact: true }).waitFor(WAIT);
    const mainButton = async (): Promise<string> => door.locator('button.primary').getAttribute('aria-label') as Promise<string>;
    expect(await mainButton()).toBe('Unlock Front Door');
    // Enter on Unlock: the command runs, the bolt moves, the focus stays on the pressed button.
    await button(door, 'Unlock Front Door').focus();
    await page.keyboard.press('Enter');
    await door.getByText('Unlock finished.').waitFor(WAIT);
    await door.getByText('Unlocked', { exact: true }).waitFor(WAIT);
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Unlock Front Door');
    expect(await mainButton()).toBe('Lock Front Door');
    await button(door, 'Lock Front Door').focus();
    await page.keyboard.press('Space');
    await door.getByText('Locked', { exact: true }).waitFor(WAIT);
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Lock Front Door');

    // A failure is an alert, and looks like an error.
    expect((await demo.control({ op: 'jam', lock_id: lockId('Front Door') })).ok).toBe(true);
    await button(door, 'Unlock Front Door').click();
    const alert = door.getByRole('alert');
    await alert.getByText('Unlock failed: the bolt is jammed.').waitFor(WAIT);
    // Visually an error: the danger colour and its bar, not plain text.
    expect(await computedStyle(alert, 'border-left-width')).not.toBe('0px');
    expect(await computedStyle(alert, 'color')).toBe(await computedStyle(alert, 'border-left-color'));
    expect((await demo.control({ op: 'manual', lock_id: lockId('Front Door'), bolt: 'locked' })).ok).toBe(true);
    await door.getByText('Locked', { exact: true }).waitFor(WAIT);

    const gate = region(page, 'Garden Gate');
    for (const action of ['Lock', 'Unlock']) {
      const gateButton = button(gate, `${action} Garden Gate`);
      expect(await gateButton.isDisabled()).toBe(true);
      expect(await gateButton.getAttribute('aria-describedby')).not.toBeNull();
    }
    await gate.getByText(/^The lock is offline: it cannot be locked or unlocked/).waitFor(WAIT);
    await audit(page, 'locks');
    await context.close();
  }, 120_000);

  it('shows one card for a lock whose holder has a revoked and a current key, acting with the current one', async () => {
    const alex = demo.demo.users[1];
    if (!alex) throw new Error('no second user');
    const token = (await demo.login(0)).access_token;
    const first = await call(base, 'POST', '/ekey', { token, body: { email: alex.email, lock_id: lockId('Front Door'), type: 'anytime' } });
    expect(first.status).toBe(201);
    expect((await call(base, 'DELETE', `/ekey/${String(first.json.id)}`, { token })).status).toBe(200);
    expect((await call(base, 'POST', '/ekey', { token, body: { email: alex.email, lock_id: lockId('Front Door'), type: 'anytime' } })).status).toBe(201);

    const { context, page } = await auditable();
    await signInToApp(page, `${base}/`, alex);
    await expect(region(page, 'Front Door').count()).resolves.toBe(1);
    await expect(button(page, 'Unlock Front Door').count()).resolves.toBe(1);
    const ids: string[] = await page.evaluate('[...document.querySelectorAll("[id]")].map((e) => e.id)');
    expect(ids.length).toBe(new Set(ids).size);
    const door = region(page, 'Front Door');
    await door.getByText(/^Usable now/).waitFor(WAIT);
    await button(door, 'Unlock Front Door').click();
    await door.getByText('Unlock finished.').waitFor(WAIT);
    await button(door, 'Lock Front Door').click();
    await door.getByText('Lock finished.').waitFor(WAIT);
    await audit(page, 'locks-guest');
    await context.close();
  }, 120_000);

  it('keeps times unambiguous and in one format, asks before revoke and delete, and clears a sent key’s form where the user looks', async () => {
    const { context, page } = await auditable();
    await signInToApp(page, `${base}/`, owner());
    await page.getByRole('link', { name: 'Keys of Front Door', exact: true }).click();
    await page.getByRole('heading', { name: 'Keys of Front Door' }).waitFor(WAIT);

    // "Name (optional)" names the key, and says so.
    const keyName = page.getByLabel('Key name (optional)');
    expect(await keyName.getAttribute('aria-describedby')).not.toBeNull();
    await page.getByText('Names the key, not the person').waitFor(WAIT);

    // Sending a key to oneself: plain words, no field names or HTTP words.
    await page.getByLabel('E-mail').fill(owner().email);
    await button(page, 'Send eKey').click();
    const refusal = page.getByRole('alert').filter({ hasText: /\S/ }).first();
    await refusal.waitFor(WAIT);
    expect(await refusal.innerText()).toBe('That is your own e-mail address: you already hold this lock.');

    // A scheduled key: weekday checkboxes by name, From and To whole on a phone, words not cron.
    await page.getByLabel('E-mail').fill('guest.new@example.org');
    await page.getByLabel('Type').selectOption('scheduled');
    for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']) await page.getByRole('checkbox', { name: day, exact: true }).waitFor(WAIT);
    await page.getByRole('checkbox', { name: 'Saturday', exact: true }).check();
    const from = page.getByLabel('From', { exact: true });
    const to = page.getByLabel('To', { exact: true });
    await from.fill('09:00');
    await to.fill('17:00');
    // The field keeps room for the widest time it can show ("12:00 PM") and its picker.
    for (const field of [from, to]) {
      const fits = await fitsText(field, '00:00 PM', 48);
      expect(fits).toBe(true);
    }
    const preview = page.getByTestId('schedule-preview');
    expect(await preview.innerText()).toBe('Works Mon, Tue, Wed, Thu, Fri, Sat 09:00–17:00 (UTC).');
    await page.getByLabel('Message (optional)').fill('The spare key is under the pot.');
    await keyName.fill('Cleaner, weekdays');
    const send = button(page, 'Send eKey');
    await send.click();
    const sent = page.getByText('eKey sent to guest.new@example.org: an invitation is on its way', { exact: false });
    await sent.waitFor(WAIT);
    // Said next to the button, in view on a phone, and the form is empty again.
    expect(await sent.isVisible()).toBe(true);
    const [buttonBox, sentBox] = [await send.boundingBox(), await sent.boundingBox()];
    expect(Math.abs((sentBox?.y ?? 0) - (buttonBox?.y ?? 0))).toBeLessThan(120);
    expect(await inViewport(sent)).toBe(true);
    expect(await page.getByLabel('E-mail').inputValue()).toBe('');
    expect(await keyName.inputValue()).toBe('');

    // The pending invitation shows the address, not a made-up name.
    const pending = page.getByRole('region', { name: 'Pending invitations' });
    await button(pending, 'Revoke eKey of guest.new@example.org').waitFor(WAIT);
    expect(await pending.innerText()).not.toContain('(guest.new)');

    const main = page.getByRole('main');
    const text = await main.innerText();
    expect(text).not.toMatch(WIRE_FORMAT);
    expect(text).not.toMatch(CRON_TEXT);
    await audit(page, 'keys');

    // Revoke asks first: Cancel keeps the key; Revoke revokes it.
    await button(pending, 'Revoke eKey of guest.new@example.org').click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the eKey of guest.new@example.org?' });
    await dialog.waitFor(WAIT);
    await audit(page, 'keys-confirm');
    await button(dialog, 'Cancel').click();
    await dialog.waitFor({ state: 'detached', ...WAIT });
    expect(await pending.getByText('Invited, not signed up yet').count()).toBe(1);
    // The lists' reload after the revoke is held back, so Delete is pressed while the key is still
    // in the pending list: the reload moves it to "All eKeys" (a new row) and the question stays up.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const ekeysOfLock = `${base}/locks/${lockId('Front Door')}/ekeys`;
    let reloading = (): void => undefined;
    const reloadAsked = new Promise<void>((resolve) => { reloading = resolve; });
    await page.route(ekeysOfLock, async (route) => {
      reloading();
      await held;
      await route.continue();
    });
    await button(pending, 'Revoke eKey of guest.new@example.org').click();
    await button(page.getByRole('dialog'), 'Revoke').click();
    await reloadAsked;
    // Delete asks too.
    await button(pending, 'Delete eKey of guest.new@example.org').click();
    const deleting = page.getByRole('dialog', { name: 'Delete the eKey of guest.new@example.org?' });
    await button(deleting, 'Delete').waitFor(WAIT);
    release();
    // Said once the lists show it; the key left the pending list and the question is still asked.
    await page.getByText('Revoked the eKey of guest.new@example.org; it stopped working at once.').waitFor(WAIT);
    await page.unroute(ekeysOfLock);
    expect(await button(pending, 'Delete eKey of guest.new@example.org').count()).toBe(0);
    expect(await button(region(page, 'All eKeys'), 'Delete eKey of guest.new@example.org').count()).toBe(1);
    expect(await button(deleting, 'Delete').isVisible()).toBe(true);
    await button(deleting, 'Cancel').click();
    await deleting.waitFor({ state: 'detached', ...WAIT });
    expect(await button(page, 'Delete eKey of guest.new@example.org').count()).toBe(1);
    await context.close();
  }, 150_000);

  it('shows the seeded week in the history, and empty states that tell the truth', async () => {
    const { context, page } = await auditable();
    await signInToApp(page, `${base}/`, owner());
    await page.getByRole('link', { name: 'History of Back Door', exact: true }).click();
    const chart = page.getByRole('figure', { name: 'Battery of Back Door' });
    await chart.getByRole('img', { name: /^Battery of Back Door over time, \d+ readings$/ }).waitFor(WAIT);
    const events = page.getByRole('list', { name: 'Events of Back Door' });
    await events.getByRole('listitem').nth(10).waitFor(WAIT);
    expect(await events.getByRole('listitem').first().innerText()).toMatch(/\(UTC\)$/m);
    await audit(page, 'history');

    await page.goto(`${base}/app/#/locks/${lockId('Garden Gate')}/history`);
    await page.getByRole('heading', { name: 'History of Garden Gate' }).waitFor(WAIT);
    await page.getByText('The lock has not reported its battery yet.').waitFor(WAIT);
    await page.getByText('Nothing has happened at this lock yet.').waitFor(WAIT);
    await audit(page, 'history-empty');
    await context.close();
  }, 120_000);

  it('tells the guest who sent which key, its message and when it works; signs them up into the app; a used or withdrawn link says so', async () => {
    const token = (await demo.login(0)).access_token;
    const sent = await call(base, 'POST', '/ekey', {
      token,
      body: { email: 'gwen.guest@example.org', lock_id: lockId('Back Door'), type: 'scheduled', message: 'Welcome, Gwen!', schedule_start: '0 9 * * 1-5 *', schedule_end: '30 17 * * 1-5 *' },
    });
    expect(sent.status).toBe(201);
    const link = await invitationLink('gwen.guest@example.org');

    const { context, page } = await auditable();
    await page.goto(`${base}/app/`);
    const appLook = await look(page);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Accept your eKey' }).waitFor(WAIT);
    const body = await page.getByRole('main').innerText();
    expect(body).toContain(`${owner().name} has sent you an eKey`);
    expect(body).toContain('Back Door');
    expect(body).toContain('Welcome, Gwen!');
    expect(body).toContain('It works weekdays 09:00–17:30 (UTC).');
    expect(await look(page)).toEqual(appLook);
    expect(await edgeMargin(page)).toBeGreaterThanOrEqual(16);
    await audit(page, 'invitation');

    await page.getByLabel('Your name').fill('Gwen Guest');
    await page.getByLabel(/Choose a password/).fill('a fine password');
    await button(page, 'Create account and accept').click();
    await page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
    // Back after sign-up: not the invitation's dead end.
    await page.goBack();
    await page.waitForLoadState();
    await page.getByRole('heading', { name: 'Your locks' }).waitFor(WAIT);
    await context.close();

    // Another browser (not signed in): the used link says so and leads to sign-in.
    const fresh = await auditable();
    await fresh.page.goto(link);
    await fresh.page.getByRole('heading', { name: 'Invitation already accepted' }).waitFor(WAIT);
    await audit(fresh.page, 'invitation-used');
    await fresh.page.getByRole('link', { name: 'Sign in to eKey Locks' }).click();
    await button(fresh.page, 'Sign in').waitFor(WAIT);

    // Withdrawn before sign-up: says so, with the way to sign in.
    const withdrawn = await call(base, 'POST', '/ekey', { token, body: { email: 'late.guest@example.org', lock_id: lockId('Front Door'), type: 'anytime' } });
    const lateLink = await invitationLink('late.guest@example.org');
    expect(lateLink).not.toBe(link);
    expect((await call(base, 'DELETE', `/ekey/${String(withdrawn.json.id)}`, { token })).status).toBe(200);
    await fresh.page.goto(lateLink);
    await fresh.page.getByRole('heading', { name: 'Invitation withdrawn' }).waitFor(WAIT);
    await fresh.page.getByRole('link', { name: 'Sign in to eKey Locks' }).waitFor(WAIT);
    await audit(fresh.page, 'invitation-withdrawn');
    await fresh.context.close();
  }, 150_000);

  it('found no serious or critical accessibility violation, no console error and no CSP violation', () => {
    expect(audits).toEqual([]);
    expect(problems.flatMap((page) => page.errors)).toEqual([]);
  });
});
