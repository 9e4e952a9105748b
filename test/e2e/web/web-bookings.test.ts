/**
 * The Bookings page (docs/design.md §7, §12) in Debian's Chromium on a phone against the real
 * `ekey-locks demo`, with a calendar host on loopback: the owner's Back Door card links to
 * `Bookings of Back Door`; pasting the calendar link with check-in and check-out times lists each
 * stay (not the block) with its dates 24-hour in the lock's zone, its door code and where it
 * stands; the code the lock confirmed opens the simulated keypad and the history names the stay;
 * the message for the guest is the one §12 writes; a failing feed is an alert in plain words and
 * changes nothing; removing asks first and takes the codes off. Every state passes axe, light and
 * dark; no code in the demo's log. Screenshots only with UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { guestMessage, stayDatesText } from '../../../src/domain/booking-words.js';
import { describeFindings, seriousViolations } from '../../support/axe-audit.js';
import { launchChromium, openPage, signInToApp, type PageProblems } from '../../support/browser.js';
import { PROJECT_ROOT } from '../../support/child-process.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { FeedServer } from '../../support/feed-server.js';
import { readUntil } from '../../support/polling.js';

const PHONE = { width: 390, height: 844 };
const WAIT = { timeout: 15_000 };
const IMAGES = join(PROJECT_ROOT, 'docs', 'images');
const DAY_MS = 86_400_000;

/** `YYYYMMDD` of today plus `days` (UTC: the demo runs with TZ=UTC, so its locks keep UTC). */
const day = (days: number): string => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '');

/** An Airbnb-style export: a stay from today (checked in at 00:00, so it is on now), a block, a stay 40 days away. */
function airbnbFeed(): string {
  const event = (uid: string, summary: string, from: number, to: number): string[] => [
    'BEGIN:VEVENT', `DTSTART;VALUE=DATE:${day(from)}`, `DTEND;VALUE=DATE:${day(to)}`, `UID:${uid}`, `SUMMARY:${summary}`, 'END:VEVENT',
  ];
  return [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Airbnb Inc//Hosting Calendar 0.8.8//EN',
    ...event('now@airbnb.com', 'Reserved', 0, 3),
    ...event('block@airbnb.com', 'Airbnb (Not available)', 5, 8),
    ...event('later@airbnb.com', 'Reserved', 40, 44),
    'END:VCALENDAR', '',
  ].join('\r\n');
}

describe('the Bookings page', () => {
  let demo: DemoProcess;
  let browser: Browser;
  let context: BrowserContext;
  let owner: Page;
  let base: string;
  let backDoor: string;
  let token: string;
  let code = '';
  const server = new FeedServer();
  const problems: PageProblems[] = [];
  const audits: string[] = [];
  const ZONE = 'UTC';

  const button = (scope: Page | Locator, name: string): Locator => scope.getByRole('button', { name, exact: true });

  async function audit(label: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await owner.emulateMedia({ colorScheme: scheme });
      audits.push(...describeFindings(`${label} ${scheme}`, await seriousViolations(owner)));
      if (process.env.UPDATE_SCREENSHOTS === '1') await owner.screenshot({ path: join(IMAGES, `web-bookings-${label}-phone-${scheme}.png`), fullPage: true });
    }
    await owner.emulateMedia({ colorScheme: 'light' });
  }

  /** The calendar as the API has it. */
  type StayOverApi = { uid: string; starts_at: string; ends_at: string; door_codes: { code: string | null; state: string }[] };
  const calendarOverApi = async (): Promise<{ bookings: StayOverApi[] }> => {
    const calendars = (await call(base, 'GET', '/calendars', { token })).json.calendars as { bookings: StayOverApi[] }[];
    return calendars[0] ?? { bookings: [] };
  };

  beforeAll(async () => {
    await server.start();
    server.serve('/listing.ics', { kind: 'feed', body: airbnbFeed(), etag: '"1"' });
    demo = await startDemo();
    base = demo.demo.base_url;
    backDoor = demo.demo.locks.find((lock) => lock.name === 'Back Door')?.id ?? '';
    token = (await demo.login(0)).access_token;
    browser = await launchChromium();
    const opened = await openPage(browser, { viewport: PHONE, bypassCSP: true });
    problems.push(opened.problems);
    context = opened.context;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(base).origin });
    owner = opened.page;
    const user = demo.demo.users[0];
    if (!user) throw new Error('no owner');
    await signInToApp(owner, `${base}/app/`, user);
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await demo.stop();
    await server.close();
  });

  it('the owner opens Bookings of Back Door from its card, pastes the link and sets the times; the stays show, not the block', async () => {
    await owner.getByRole('region', { name: 'Back Door', exact: true }).getByRole('link', { name: 'Bookings of Back Door', exact: true }).click();
    await owner.getByRole('heading', { name: 'Bookings of Back Door' }).waitFor(WAIT);
    await owner.getByRole('heading', { name: 'Connect a calendar' }).waitFor(WAIT);
    await audit('empty');
    await owner.getByLabel('Calendar link').fill(server.url('/listing.ics'));
    await owner.getByLabel('Check-in').fill('00:00');
    await owner.getByLabel('Check-out').fill('10:00');
    await button(owner, 'Connect calendar').click();
    await owner.getByText('Calendar connected: 2 stays found.').waitFor(WAIT);
    // Named by its site only: the rest of the link is a secret.
    await owner.getByRole('heading', { name: 'Calendar from 127.0.0.1', exact: true }).waitFor(WAIT);
    const api = await calendarOverApi();
    expect(api.bookings.map((booking) => booking.uid)).toEqual(['now@airbnb.com', 'later@airbnb.com']);
    for (const booking of api.bookings) await owner.getByRole('article', { name: stayDatesText(booking.starts_at, booking.ends_at, ZONE), exact: true }).waitFor(WAIT);
    expect(await owner.getByText('Airbnb (Not available)').count()).toBe(0);
    // Times are 24-hour on the lock's clock with its zone, never the wire format.
    const first = api.bookings[0];
    if (first === undefined) throw new Error('no stay');
    expect(stayDatesText(first.starts_at, first.ends_at, ZONE)).toMatch(/^\w{3} \d{1,2} \w{3} \d{4}, 00:00 to \w{3} \d{1,2} \w{3} \d{4}, 10:00 \(UTC\)$/);
  }, 60_000);

  it('each stay shows its code and where it stands: on the lock now, or kept until 30 days before', async () => {
    const api = await readUntil(calendarOverApi, (read) => read.bookings[0]?.door_codes[0]?.state === 'set', { everyMs: 50 });
    const [now, later] = api.bookings;
    if (now === undefined || later === undefined) throw new Error('stays missing');
    code = now.door_codes[0]?.code ?? '';
    expect(code).toMatch(/^[1-9]{6}$/);
    const stay = owner.getByRole('article', { name: stayDatesText(now.starts_at, now.ends_at, ZONE), exact: true });
    const doorCode = stay.getByRole('group', { name: `Door code ${code}`, exact: true });
    await doorCode.getByText(/^On the lock since \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} \(UTC\)\.$/).waitFor(WAIT);
    await stay.getByText('Staying now').waitFor(WAIT);
    const far = owner.getByRole('article', { name: stayDatesText(later.starts_at, later.ends_at, ZONE), exact: true });
    await far.getByText('Kept for this stay: it goes onto the lock 30 days before check-in.').waitFor(WAIT);
    await audit('stays');
  }, 60_000);

  it('copies the message for the guest as docs/design.md §12 writes it', async () => {
    const api = await calendarOverApi();
    const now = api.bookings[0];
    if (now === undefined) throw new Error('no stay');
    const message = guestMessage('Back Door', code, now.starts_at, now.ends_at, ZONE);
    expect(message).toMatch(new RegExp(`^Your door code for Back Door: ${code} — from \\w{3} \\d{1,2} \\w{3}, 00:00 to \\w{3} \\d{1,2} \\w{3}, 10:00$`));
    const stay = owner.getByRole('article', { name: stayDatesText(now.starts_at, now.ends_at, ZONE), exact: true });
    await stay.getByText(message, { exact: true }).waitFor(WAIT);
    const copy = button(stay, 'Copy message for the guest');
    await copy.click();
    await stay.getByText('Copied: paste it into your message to the guest.').waitFor(WAIT);
    expect(await owner.evaluate('navigator.clipboard.readText()')).toBe(message);
  }, 60_000);

  it('the code opens the door at the keypad, and the history names the stay', async () => {
    expect(await demo.control({ op: 'keypad', lock_id: backDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    await owner.goto(`${base}/app/#/locks/${backDoor}/history`);
    await owner.getByRole('heading', { name: 'History of Back Door' }).waitFor(WAIT);
    await owner.getByText('Unlock with the door code of the stay “Reserved”').first().waitFor(WAIT);
  }, 60_000);

  it('a failing calendar is an alert in plain words, and nothing changes', async () => {
    server.serve('/listing.ics', { kind: 'status', status: 503 });
    await owner.goto(`${base}/app/#/locks/${backDoor}/bookings`);
    await owner.getByRole('heading', { name: 'Bookings of Back Door' }).waitFor(WAIT);
    await button(owner, 'Read the calendar now').click();
    const alert = owner.getByRole('alert').filter({ hasText: 'The calendar could not be read' });
    await alert.waitFor(WAIT);
    expect(await alert.innerText()).toMatch(/^The calendar could not be read on \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} \(UTC\): The calendar's site had a problem; it is tried again in 10 minutes\. Nothing was changed\.$/);
    await owner.getByRole('group', { name: `Door code ${code}`, exact: true }).waitFor(WAIT);
    await audit('failing');
  }, 60_000);

  it('removing the calendar asks first, then takes its codes off the lock', async () => {
    await button(owner, 'Remove calendar').click();
    const dialog = owner.getByRole('dialog', { name: 'Remove this calendar?' });
    await dialog.waitFor(WAIT);
    await button(dialog, 'Cancel').click();
    await owner.getByRole('group', { name: `Door code ${code}`, exact: true }).waitFor(WAIT);
    await button(owner, 'Remove calendar').click();
    await button(owner.getByRole('dialog', { name: 'Remove this calendar?' }), 'Remove').click();
    await owner.getByText('Calendar removed: its door codes are being taken off the lock.').waitFor(WAIT);
    await owner.getByRole('heading', { name: 'Connect a calendar' }).waitFor(WAIT);
    const codes = await readUntil(
      async () => (await demo.control({ op: 'keypad_codes', lock_id: backDoor })).codes as { code: string }[],
      (list) => !list.some((entry) => entry.code === code),
      { everyMs: 50 },
    );
    expect(codes.map((entry) => entry.code)).not.toContain(code);
    expect(await demo.control({ op: 'keypad', lock_id: backDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'refused' });
  }, 60_000);

  it('no accessibility findings, no page errors, and no code or link in the demo\'s log', () => {
    expect(audits).toEqual([]);
    expect(problems.flatMap((page) => page.errors)).toEqual([]);
    expect(code).toMatch(/^\d{6}$/);
    expect(demo.child.stderr()).not.toContain(code);
    expect(demo.child.stderr()).not.toContain('/listing.ics');
  });
});
