import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { TTLOCK_CREDENTIALS_FILE } from '../../../src/families/ttlock/ttlock-credential-file.js';
import { SimulatedTtlock } from '../../../src/families/ttlock/simulator/simulated-ttlock.js';
import { SimulatedNuki } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { SimulatedOpener } from '../../../src/families/nuki-opener/simulator/simulated-opener.js';
import { NUKI_CREDENTIALS_FILE } from '../../../src/families/nuki/nuki-credential-file.js';
import { builtCli, PROJECT_ROOT, spawnNode, type RunningChild } from '../../support/child-process.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { FeedServer } from '../../support/feed-server.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { ManualClock } from '../../support/manual-clock.js';
import { eventually } from '../../support/polling.js';
import { startSettingsUiHost, type SettingsUiHost, type SettingsUiHostOptions } from '../../support/settings-ui-host.js';
import { describeFindings, seriousViolations } from '../../support/axe-audit.js';
import { boxOf, computedStyle, hasClass } from '../../support/browser.js';
import { noBluetoothMessage } from '../../../src/settings-ui/settings-ui-handlers.js';
import { StartReportFile } from '../../../src/store/start-report-file.js';

/**
 * The settings page in Debian's Chromium, inside a host page that plays the Homebridge UI (its
 * iframe contract, test/support/settings-ui-host.ts) with the real server.js forked, against the
 * real service from the built CLI (`ekey-locks demo`, `ekey-locks serve`) and the fake BlueZ.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const IMAGES = join(PROJECT_ROOT, 'docs', 'images');
/** Screenshots of this run: docs/images only when asked to rewrite them. */
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? IMAGES : mkdtempSync(join(tmpdir(), 'ekey-settings-shots-'));
/** Pictures for a person to look at, never the README's (EKEY_SHOTS names the folder). */
const LOOK = process.env.EKEY_SHOTS ?? mkdtempSync(join(tmpdir(), 'ekey-settings-look-'));
const NEW_OWNER = 'nora@example.com';

let browser: Browser;
let bluez: FakeBluezEnvironment;
const folders: string[] = [];
const hosts: SettingsUiHost[] = [];
const pageErrors: string[] = [];

function storageFolder(): string {
  const path = mkdtempSync(join(tmpdir(), 'ekey-settings-page-'));
  folders.push(path);
  return path;
}

async function host(options: SettingsUiHostOptions): Promise<SettingsUiHost> {
  const started = await startSettingsUiHost(options);
  hosts.push(started);
  return started;
}

/** A page on the host, failing the test on console errors and CSP violations of the settings page. */
async function open(target: SettingsUiHost, viewport = { width: 900, height: 900 }): Promise<{ page: Page; frame: FrameLocator }> {
  const page = await browser.newPage({ viewport });
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(target.url);
  return { page, frame: page.frameLocator('iframe[title="eKey Locks settings"]') };
}

const statusText = (frame: FrameLocator): Promise<string> => frame.getByRole('status').first().innerText();

async function rowCells(frame: FrameLocator, lock: string): Promise<string[]> {
  return frame.getByRole('row', { name: new RegExp(`^${lock}\\b`) }).getByRole('cell').allInnerTexts();
}

/** The host's spinner is hidden and the page shows no "Checking…" any more. */
async function expectNoSpinner(page: Page, frame: FrameLocator): Promise<void> {
  expect(await page.getByRole('progressbar', { name: 'Homebridge UI spinner' }).isVisible()).toBe(false);
  expect(await statusText(frame)).not.toMatch(/Checking/);
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM });
  bluez = await startFakeBluezEnvironment();
  mkdirSync(SHOTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  for (const started of hosts) await started.close();
  await browser.close();
  await bluez.stop();
  for (const path of folders) rmSync(path, { recursive: true, force: true });
  expect(pageErrors).toEqual([]);
});

describe('the settings page with the demo service', () => {
  let demo: DemoProcess;
  let storage: string;

  beforeAll(async () => {
    storage = storageFolder();
    demo = await startDemo({ dataDir: join(storage, 'ekey-locks') });
    const front = demo.demo.locks.find((lock) => lock.name === 'Front Door');
    if (!front) throw new Error('no Front Door');
    expect(await demo.control({ op: 'manual', lock_id: front.id, bolt: 'unlocked' })).toMatchObject({ ok: true });
    expect(await demo.control({ op: 'battery', lock_id: front.id, level: 0.42 })).toMatchObject({ ok: true });
  }, 30_000);

  afterAll(async () => {
    await demo.stop();
  });

  it('shows the running service, its address, every lock with its state, the config form, and no spinner', async () => {
    const target = await host({ storagePath: storage });
    const { page, frame } = await open(target);
    const port = new URL(demo.demo.base_url).port;
    await eventually(() => statusText(frame), `The service is running at ${demo.demo.base_url} with 5 locks.`);
    expect(await frame.getByRole('region', { name: 'Service' }).innerText()).toContain(demo.demo.base_url);
    expect(await rowCells(frame, 'Front Door')).toEqual(['Unlocked', 'Online', '42 %']);
    // Where the demo's week of history left it.
    expect(await rowCells(frame, 'Back Door')).toEqual(['Locked', 'Online', '76 %']);
    expect(await rowCells(frame, 'Garden Gate')).toEqual(['Unknown', 'No gateway', '—']);
    // An Opener has no bolt: its state in its own words (no mode on, the strike closed).
    expect(await rowCells(frame, 'Building Door')).toEqual(['Closed', 'Online', '100 %']);
    // What each lock is, from its family, and what it can do; never a family id.
    expect(await frame.getByRole('rowheader', { name: /^Back Door/ }).innerText()).toBe('Back Door\nNuki Smart Lock · keypad · opens the door · door sensor');
    expect(await frame.getByRole('rowheader', { name: /^Building Door/ }).innerText()).toBe('Building Door\nNuki Opener');
    expect(await frame.getByRole('rowheader', { name: /^Front Door/ }).innerText()).toBe('Front Door\neKey open profile');
    expect(await frame.getByRole('table', { name: 'Locks and their state' }).innerText()).not.toMatch(/nuki-opener|\bekey\b/);
    // The demo's gateway: this host's adapter, with its state.
    expect(await frame.getByRole('table', { name: /^Gateways/ }).getByRole('row', { name: /^This host's Bluetooth/ }).count()).toBe(1);
    await expectNoSpinner(page, frame);
    // The Homebridge UI's own form of config.schema.json, asked for by the page.
    expect(await page.getByLabel('Config form (schema)').isVisible()).toBe(true);
    // The owner of the demo exists already: no form to create it.
    expect(await frame.getByRole('region', { name: "Owner's account" }).innerText()).toContain(`Active: ${demo.demo.users[0]?.email ?? '?'}`);
    expect(await frame.getByRole('button', { name: "Create the owner's account" }).isVisible()).toBe(false);

    const link = frame.getByRole('link', { name: 'Open the web app' });
    expect(await link.getAttribute('href')).toBe(`http://127.0.0.1:${port}/app/`);
    const [popup] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await popup.waitForLoadState('domcontentloaded');
    expect(popup.url()).toBe(`http://127.0.0.1:${port}/app/`);
    await popup.close();

    await page.screenshot({ path: join(SHOTS, 'settings-page-light.png'), fullPage: true });
    await page.close();
  }, 30_000);

  it('wears the real Homebridge UI theme: no serious accessibility violation, one title, lang, landmarks, theme colours (phone and desktop, light and dark)', async () => {
    const findings: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      const target = await host({ storagePath: storage, theme, homebridgeTheme: true });
      for (const viewport of [{ width: 390, height: 844 }, { width: 1100, height: 900 }]) {
        const { page, frame } = await open(target, viewport);
        await eventually(() => statusText(frame), `The service is running at ${demo.demo.base_url} with 5 locks.`);
        const inner = page.frames().find((candidate) => candidate.url().endsWith('/plugin/index.html'));
        if (!inner) throw new Error('no settings frame');
        // The real theme is in: its stylesheet loaded, its classes on the body.
        await eventually(() => inner.evaluate('[...document.styleSheets].some((sheet) => /styles-[A-Z0-9]+\\.css$/.test(sheet.href || ""))'), true);
        expect(await inner.evaluate('document.body.classList.contains("modal-content")')).toBe(true);
        expect(await inner.evaluate('document.documentElement.lang')).toBe('en');
        expect(await frame.getByRole('main').count()).toBe(1);
        // One visible title: the UI's own; the page's h1 is for screen readers only.
        expect((await boxOf(frame.locator('h1'))).width).toBeLessThanOrEqual(1);
        // The theme greys every table cell (#999, 2.8:1): the bolt's words keep the text colour (axe checks the contrast).
        const boltColour = await computedStyle(frame.getByRole('row', { name: /^Front Door\b/ }).getByRole('cell').first().locator('span'), 'color');
        expect(boltColour).not.toBe('rgb(153, 153, 153)');
        // Nothing runs out of its card or makes the frame scroll sideways, on a phone too.
        expect(await inner.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
        for (const [region, caption] of [['Locks', 'Locks and their state'], ['Gateways', /^Gateways/]] as const) {
          const card = await boxOf(frame.getByRole('region', { name: region }));
          const table = await boxOf(frame.getByRole('table', { name: caption }));
          expect(table.right).toBeLessThanOrEqual(card.right);
        }
        // The address breaks after its scheme at most, never inside the host or its port.
        expect(await inner.evaluate('document.querySelector("#ekl-service-address .ekl-nowrap").getClientRects().length')).toBe(1);
        // A success has the edge of one, in both themes (the theme draws alert-success like alert-danger).
        expect(await computedStyle(frame.getByRole('status').first(), 'border-left-color')).toBe(theme === 'light' ? 'rgb(20, 108, 67)' : 'rgb(117, 183, 152)');
        findings.push(...describeFindings(`settings ${theme} ${viewport.width}px`, await seriousViolations(inner)));
        if (viewport.width === 390) await page.screenshot({ path: join(LOOK, `settings-page-real-theme-${theme}.png`), fullPage: true });
        else await page.screenshot({ path: join(LOOK, `settings-page-real-theme-${theme}-desktop.png`), fullPage: true });
        await page.close();
      }
    }
    expect(findings).toEqual([]);
  }, 90_000);

  it('follows the dark theme of the Homebridge UI', async () => {
    const target = await host({ storagePath: storage, theme: 'dark' });
    const { page, frame } = await open(target);
    await eventually(() => statusText(frame), `The service is running at ${demo.demo.base_url} with 5 locks.`);
    const colours = await frame.locator('body').evaluate((body: { classList: { contains: (name: string) => boolean } }) => {
      const style = (globalThis as unknown as { getComputedStyle: (element: unknown) => { backgroundColor: string; color: string } }).getComputedStyle(body);
      return { dark: body.classList.contains('dark-mode'), background: style.backgroundColor, text: style.color };
    });
    expect(colours).toEqual({ dark: true, background: 'rgb(30, 30, 30)', text: 'rgb(233, 236, 239)' });
    await page.screenshot({ path: join(SHOTS, 'settings-page-dark.png'), fullPage: true });
    await page.close();
  }, 30_000);

  it('shows each rental calendar\'s state: up to date with its stays to come, or why it could not be read (never its link)', async () => {
    const feeds = new FeedServer();
    await feeds.start();
    try {
      const day = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
      feeds.serve('/back.ics', {
        kind: 'feed',
        body: ['BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', `DTSTART;VALUE=DATE:${day(2)}`, `DTEND;VALUE=DATE:${day(4)}`, 'UID:s1@example.test', 'SUMMARY:Reserved', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n'),
      });
      feeds.serve('/side.ics', { kind: 'status', status: 404 });
      const token = (await demo.login(0)).access_token;
      const lock = (name: string): string => demo.demo.locks.find((entry) => entry.name === name)?.id ?? '';
      expect((await call(demo.demo.base_url, 'POST', '/calendars', { token, body: { url: feeds.url('/back.ics'), lock_ids: [lock('Back Door')] } })).status).toBe(201);
      expect((await call(demo.demo.base_url, 'POST', '/calendars', { token, body: { url: feeds.url('/side.ics'), lock_ids: [lock('Side Door')] } })).status).toBe(201);
      const target = await host({ storagePath: storage });
      const { page, frame } = await open(target);
      await eventually(() => statusText(frame), `The service is running at ${demo.demo.base_url} with 5 locks.`);
      const calendars = frame.getByRole('region', { name: 'Rental calendars' });
      const row = async (name: string): Promise<string[]> => calendars.getByRole('row', { name: new RegExp(`^${name}\\b`) }).getByRole('cell').allInnerTexts();
      expect(await row('Back Door')).toEqual([expect.stringMatching(/^Up to date \(read \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} \(.+\)\)$/), '1 to come']);
      expect(await row('Side Door')).toEqual([
        expect.stringMatching(/^Could not be read \(read .+\): The calendar's site does not know this link \(any more\): copy the current export link from your listing\.$/),
        '0 to come',
      ]);
      expect(await calendars.innerText()).not.toContain(feeds.url(''));
      const inner = page.frames().find((candidate) => candidate.url().endsWith('/plugin/index.html'));
      if (inner === undefined) throw new Error('no settings frame');
      const findings = describeFindings('settings calendars', await seriousViolations(inner));
      expect(findings).toEqual([]);
      await page.close();
    } finally {
      await feeds.close();
    }
  }, 30_000);

  it('says the service is not running once it stopped, without a spinner', async () => {
    const target = await host({ storagePath: storage });
    const { page, frame } = await open(target);
    await eventually(() => statusText(frame), `The service is running at ${demo.demo.base_url} with 5 locks.`);
    expect((await demo.stop()).code).toBe(0);
    await frame.getByRole('button', { name: 'Check again' }).click();
    await eventually(async () => (await statusText(frame)).startsWith('The eKey Locks service is not running'), true);
    await expectNoSpinner(page, frame);
    expect(await frame.getByRole('link', { name: 'Open the web app' }).isVisible()).toBe(false);
    expect(await frame.getByRole('table', { name: 'Locks and their state' }).isVisible()).toBe(false);
    await page.close();
  }, 30_000);
});

describe('the settings page when the service runs without part of its config', () => {
  it('lists what was left out, in the words Homebridge logged', async () => {
    const storage = storageFolder();
    const demo = await startDemo({ dataDir: join(storage, 'ekey-locks') });
    try {
      const lines = ['api.port: must be at most 65535; left out, so its default applies.', 'E-mail (invitations) (smtp) is left out: smtp.from is missing. Until it is filled in, the service runs without it.'];
      new StartReportFile(join(storage, 'ekey-locks')).write(lines, true);
      const target = await host({ storagePath: storage });
      const { page, frame } = await open(target, { width: 390, height: 844 });
      await eventually(() => statusText(frame), `The service is running at ${demo.demo.base_url} with 5 locks.`);
      expect(await frame.getByRole('list', { name: 'Left out of the configuration' }).getByRole('listitem').allInnerTexts()).toEqual(lines);
      await page.close();
    } finally {
      await demo.stop();
    }
  }, 30_000);
});

describe('the owner\'s account', () => {
  let serve: RunningChild;
  let storage: string;

  beforeAll(async () => {
    storage = storageFolder();
    const config = join(storage, 'ekey-locks.json');
    writeFileSync(
      config,
      JSON.stringify({
        platform: 'EKeyLocks',
        api: { port: 0, host: '127.0.0.1' },
        locks: [{ name: 'Garage', id: '5f0c7a52-1e5b-4b8e-9d59-3c1f8f0a2b11', owner_email: NEW_OWNER, gateway: false, time_zone: 'Europe/Berlin' }],
      }),
    );
    serve = spawnNode(builtCli(), ['serve', '--config', config, '--data', join(storage, 'ekey-locks')]);
    await serve.stderrMatch(/listening on http:\/\/127\.0\.0\.1:\d+/, 20_000);
  }, 30_000);

  afterAll(() => {
    serve.kill();
  });

  it('is created once from the page; a second page that still offers the form is refused', async () => {
    const target = await host({ storagePath: storage });
    const first = await open(target);
    const second = await open(target);
    for (const { frame } of [first, second]) {
      await eventually(async () => frame.getByRole('button', { name: "Create the owner's account" }).isVisible(), true);
      expect(await frame.getByLabel('E-mail').inputValue()).toBe(NEW_OWNER);
    }
    await first.frame.getByLabel('Name', { exact: true }).fill('Nora Owner');
    await first.frame.getByLabel('Password (at least 8 characters)').fill('short');
    await first.frame.getByRole('button', { name: "Create the owner's account" }).click();
    await eventually(() => first.frame.locator('#ekl-owner-result').innerText(), 'The password needs at least 8 characters.');
    // The focus moves to the field to fix, not left on the button.
    expect(await first.frame.locator(':focus').getAttribute('id')).toBe('ekl-owner-password');
    await first.frame.getByLabel('Password (at least 8 characters)').fill('correct horse');
    await first.frame.getByRole('button', { name: "Create the owner's account" }).click();
    await eventually(() => first.frame.locator('#ekl-owner-result').innerText(), `Account of ${NEW_OWNER} created.`);
    await eventually(async () => first.frame.getByRole('button', { name: "Create the owner's account" }).isVisible(), false);
    // The card says once what to do now.
    const card = await first.frame.getByRole('region', { name: "Owner's account" }).innerText();
    expect(card.split('sign in to the web app with it')).toHaveLength(2);
    expect(await first.page.getByLabel('Toasts').innerText()).toContain(`Account of ${NEW_OWNER} created.`);

    await second.frame.getByLabel('Name', { exact: true }).fill('Mallory');
    await second.frame.getByLabel('Password (at least 8 characters)').fill('another password');
    await second.frame.getByRole('button', { name: "Create the owner's account" }).click();
    await eventually(() => second.frame.locator('#ekl-owner-result').innerText(), `The account of ${NEW_OWNER} already exists: sign in to the web app with it.`);
    await first.page.close();
    await second.page.close();
  }, 30_000);

  it('says the service is not running after it was killed (its status file left behind)', async () => {
    const target = await host({ storagePath: storage });
    serve.kill('SIGKILL');
    await serve.exited;
    expect(existsSync(join(storage, 'ekey-locks', 'settings-ui.json'))).toBe(true);
    const { page, frame } = await open(target);
    await eventually(async () => /^The eKey Locks service is not running: its process has ended/.test(await statusText(frame)), true);
    await expectNoSpinner(page, frame);
    await page.close();
  }, 30_000);
});

describe('the TTLock pairing wizard', () => {
  const clock = new ManualClock();

  it('scans the fake BlueZ, pairs the simulated TTLock in setting mode and adds it to the config', async () => {
    const storage = storageFolder();
    const lock = new SimulatedTtlock({ address: 'C0:FF:EE:5E:89:01', name: 'TTLock', clock, timeZone: 'Europe/Berlin' });
    bluez.bluez.addDevice(lock);
    const target = await host({
      storagePath: storage,
      env: { DBUS_SYSTEM_BUS_ADDRESS: bluez.busAddress },
      config: [{ platform: 'EKeyLocks', name: 'eKey Locks', locks: [{ name: 'Front Door', owner_email: 'olivia@example.com', address: 'D0:E1:00:00:00:01' }] }],
    });
    const { page, frame } = await open(target);
    await eventually(async () => (await statusText(frame)).startsWith('The eKey Locks service is not running'), true);
    const wizard = frame.getByRole('region', { name: 'Pair a TTLock' });
    lock.touchKeypad();
    await wizard.getByRole('button', { name: 'Scan for TTLocks' }).click();
    const choice = wizard.getByRole('radio', { name: new RegExp(`^TTLock \\(in setting mode: ready to pair\\) ${lock.address}`) });
    await choice.waitFor({ timeout: 25_000 });
    expect(await frame.locator('#ekl-pair-ttlock-result').innerText()).toBe('One TTLock found. Touch the lock’s keypad to wake it, then press “Pair the chosen lock” within 15 s.');
    await wizard.getByRole('button', { name: 'Pair the chosen lock' }).click();
    await eventually(() => frame.locator('#ekl-pair-ttlock-result').innerText(), `Paired with ${lock.address}. Add it to the config, set its owner's e-mail, save and restart Homebridge.`, 20_000);
    expect(await wizard.getByLabel('Pairing progress').innerText()).toContain("3. Paired: the service is the lock's admin");
    expect(statSync(join(storage, 'ekey-locks', TTLOCK_CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
    expect(lock.paired).toBe(true);
    await wizard.getByRole('button', { name: 'Add the paired lock to the config' }).click();
    await eventually(async () => (await frame.locator('#ekl-pair-ttlock-result').innerText()).startsWith(`Added ${lock.address} to the locks`), true);
    const config = await page.evaluate<{ locks: unknown[] }[]>('window.hostState.config');
    expect(config[0]?.locks).toEqual([
      { name: 'Front Door', owner_email: 'olivia@example.com', address: 'D0:E1:00:00:00:01' },
      { name: 'TTLock', family: 'ttlock', address: lock.address, keypad: true, owner_email: 'olivia@example.com' },
    ]);
    lock.goOutOfRange();
    await page.close();
  }, 45_000);
});

describe('the Nuki pairing wizard', () => {
  const clock = new ManualClock();

  it('scans the fake BlueZ, pairs the simulated Nuki and adds it to the config', async () => {
    const storage = storageFolder();
    const nuki = new SimulatedNuki({ address: 'C0:FF:EE:5E:88:01', name: 'Nuki_5E8801', clock, securityPin: 4711 });
    bluez.bluez.addDevice(nuki);
    const target = await host({
      storagePath: storage,
      env: { DBUS_SYSTEM_BUS_ADDRESS: bluez.busAddress },
      config: [{ platform: 'EKeyLocks', name: 'eKey Locks', locks: [{ name: 'Front Door', owner_email: 'olivia@example.com', address: 'D0:E1:00:00:00:01' }] }],
    });
    const { page, frame } = await open(target);
    await eventually(async () => (await statusText(frame)).startsWith('The eKey Locks service is not running'), true);
    await frame.getByRole('button', { name: 'Scan for Nuki locks' }).click();
    const choice = frame.getByRole('radio', { name: new RegExp(`^Nuki Smart Lock 1\\.0–4\\.0 ${nuki.address}, Bluetooth API 2\\.2`) });
    await choice.waitFor({ timeout: 25_000 });
    expect(await choice.isChecked()).toBe(true);
    expect(await frame.locator('#ekl-pair-nuki-result').innerText()).toBe("One Nuki lock found. Hold the lock's button for 5 s, then press “Pair the chosen lock”.");

    nuki.startPairingMode();
    await frame.getByLabel('Security PIN (optional; needed to read who opened the door)').fill('4711');
    await frame.getByRole('button', { name: 'Pair the chosen lock' }).click();
    await eventually(() => frame.locator('#ekl-pair-nuki-result').innerText(), `Paired with ${nuki.address}. Add it to the config, set its owner's e-mail, save and restart Homebridge.`, 20_000);
    expect(await frame.getByRole('region', { name: 'Pair a Nuki lock' }).getByLabel('Pairing progress').innerText()).toContain('3. Paired: the lock knows us as "ekey-locks (Homebridge)"');
    expect(await frame.getByRole('region', { name: 'Pair a Nuki lock' }).getByLabel('Pairing progress').innerText()).not.toContain('4711');
    expect(statSync(join(storage, 'ekey-locks', NUKI_CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
    expect(nuki.authorizations.map((authorization) => authorization.name)).toEqual(['ekey-locks (Homebridge)']);

    await frame.getByRole('region', { name: 'Pair a Nuki lock' }).screenshot({ path: join(SHOTS, 'settings-page-nuki-paired.png') });
    await frame.getByRole('button', { name: 'Add the paired lock to the config' }).click();
    await eventually(async () => (await frame.locator('#ekl-pair-nuki-result').innerText()).startsWith(`Added ${nuki.address} to the locks`), true);
    const config = await page.evaluate<{ locks: unknown[] }[]>('window.hostState.config');
    expect(config[0]?.locks).toEqual([
      { name: 'Front Door', owner_email: 'olivia@example.com', address: 'D0:E1:00:00:00:01' },
      { name: 'Nuki Smart Lock', family: 'nuki', address: nuki.address, owner_email: 'olivia@example.com' },
    ]);
    nuki.goOutOfRange();
    await page.close();
  }, 45_000);

  it('names each model; asks an API 2.3 lock for its 6-digit PIN before pairing it; pairs an Opener and adds it as nuki-opener', async () => {
    const storage = storageFolder();
    const pro = new SimulatedNuki({ address: 'C0:FF:EE:5E:88:02', name: 'Nuki_5E8802', clock, securityPin: 246_810, model: 'smart_lock_pro_5' });
    const opener = new SimulatedOpener({ address: 'C0:FF:EE:5E:88:03', name: 'Nuki_Opener_5E8803', clock, securityPin: 1357 });
    bluez.bluez.addDevice(pro);
    bluez.bluez.addDevice(opener);
    const target = await host({
      storagePath: storage,
      env: { DBUS_SYSTEM_BUS_ADDRESS: bluez.busAddress },
      config: [{ platform: 'EKeyLocks', name: 'eKey Locks', locks: [{ name: 'Front Door', owner_email: 'olivia@example.com', address: 'D0:E1:00:00:00:01' }] }],
    });
    const { page, frame } = await open(target);
    try {
      await eventually(async () => (await statusText(frame)).startsWith('The eKey Locks service is not running'), true);
      await frame.getByRole('button', { name: 'Scan for Nuki locks' }).click();
      const proChoice = frame.getByRole('radio', { name: new RegExp(`^Nuki Smart Lock Ultra / Go / Pro \\(5th generation\\) ${pro.address}, Bluetooth API 2\\.3`) });
      const openerChoice = frame.getByRole('radio', { name: new RegExp(`^Nuki Opener ${opener.address}, Bluetooth API 2\\.2`) });
      await proChoice.waitFor({ timeout: 25_000 });
      await openerChoice.waitFor({ timeout: 5_000 });

      // The 2.3 lock: the PIN field says it is needed, and pairing without it is refused on the page.
      await proChoice.check();
      const pinNeeded = frame.getByLabel('Security PIN (6 digits; this lock needs it to pair)');
      await pinNeeded.waitFor({ timeout: 5_000 });
      expect(await pinNeeded.evaluate((element) => (element as unknown as { required: boolean }).required)).toBe(true);
      pro.startPairingMode();
      await frame.getByRole('button', { name: 'Pair the chosen lock' }).click();
      await eventually(async () => (await frame.locator('#ekl-pair-nuki-result').innerText()).startsWith('This lock pairs only with its 6-digit security PIN'), true);
      expect(pro.authorizations).toEqual([]);
      await pinNeeded.fill('246810');
      await frame.getByRole('button', { name: 'Pair the chosen lock' }).click();
      await eventually(() => frame.locator('#ekl-pair-nuki-result').innerText(), `Paired with ${pro.address}. Add it to the config, set its owner's e-mail, save and restart Homebridge.`, 20_000);
      expect(await frame.getByRole('region', { name: 'Pair a Nuki lock' }).getByLabel('Pairing progress').innerText()).toContain('Found a Nuki Smart Lock Ultra / Go / Pro (5th generation) (Bluetooth API 2.3).');
      expect(await frame.getByRole('region', { name: 'Pair a Nuki lock' }).getByLabel('Pairing progress').innerText()).not.toContain('246810');
      expect(pro.authorizations.map((authorization) => authorization.name)).toEqual(['ekey-locks (Homebridge)']);
      await frame.getByRole('button', { name: 'Add the paired lock to the config' }).click();
      await eventually(async () => (await frame.locator('#ekl-pair-nuki-result').innerText()).startsWith(`Added ${pro.address} to the locks`), true);

      // The Opener: the PIN is optional again; it is added with its own family.
      await openerChoice.check();
      await frame.getByLabel('Security PIN (optional; needed to read who opened the door)').waitFor({ timeout: 5_000 });
      opener.startPairingMode();
      await frame.getByRole('button', { name: 'Pair the chosen lock' }).click();
      await eventually(() => frame.locator('#ekl-pair-nuki-result').innerText(), `Paired with ${opener.address}. Add it to the config, set its owner's e-mail, save and restart Homebridge.`, 20_000);
      expect(await frame.getByRole('region', { name: 'Pair a Nuki lock' }).getByLabel('Pairing progress').innerText()).toContain('3. Paired: the Opener knows us as "ekey-locks (Homebridge)"');
      await frame.getByRole('button', { name: 'Add the paired lock to the config' }).click();
      await eventually(async () => (await frame.locator('#ekl-pair-nuki-result').innerText()).startsWith(`Added ${opener.address} to the locks`), true);
      const config = await page.evaluate<{ locks: unknown[] }[]>('window.hostState.config');
      expect(config[0]?.locks).toEqual([
        { name: 'Front Door', owner_email: 'olivia@example.com', address: 'D0:E1:00:00:00:01' },
        { name: 'Nuki Smart Lock', family: 'nuki', address: pro.address, owner_email: 'olivia@example.com' },
        { name: 'Nuki Opener', family: 'nuki-opener', address: opener.address, owner_email: 'olivia@example.com' },
      ]);
    } finally {
      pro.goOutOfRange();
      opener.goOutOfRange();
      await page.close();
    }
  }, 90_000);

  it('ends with a message when Bluetooth is not available, and when the settings server never answers', async () => {
    const noBluetooth = async (): Promise<void> => {
      const storage = storageFolder();
      const target = await host({ storagePath: storage, env: { DBUS_SYSTEM_BUS_ADDRESS: `unix:path=${join(storage, 'no-bus')}` } });
      const { page, frame } = await open(target);
      await frame.getByRole('button', { name: 'Scan for Nuki locks' }).click();
      // One plain sentence, within 2 s of pressing Scan (not after the 10 s scan), and no "Scanning…" left.
      const began = Date.now();
      await eventually(() => frame.locator('#ekl-pair-nuki-result').innerText(), noBluetoothMessage('Nuki lock'), 2_000);
      expect(Date.now() - began).toBeLessThan(2_000);
      expect(await frame.getByRole('region', { name: 'Pair a Nuki lock' }).innerText()).not.toMatch(/Scanning/);
      expect(await hasClass(frame.getByRole('region', { name: 'Pair a Nuki lock' }).getByRole('status'), 'alert-danger')).toBe(true);
      expect(await frame.getByRole('button', { name: 'Scan for Nuki locks' }).isEnabled()).toBe(true);
      await page.close();
    };
    const hangingServer = async (): Promise<void> => {
      const target = await host({ storagePath: storageFolder(), unanswered: true });
      const { page, frame } = await open(target);
      expect(await statusText(frame)).toBe('Checking the service…');
      await eventually(
        () => statusText(frame),
        "The settings page's server did not answer within 15 s. Close and reopen this page; if it stays so, restart the Homebridge UI.",
        25_000,
      );
      await expectNoSpinner(page, frame);
      expect(await frame.getByRole('button', { name: 'Check again' }).isEnabled()).toBe(true);
      await page.close();
    };
    // Both wait on a clock (a 10 s scan, a 15 s deadline): side by side, to keep the suite short.
    await Promise.all([noBluetooth(), hangingServer()]);
  }, 30_000);
});

describe('the settings page when the service did not start', () => {
  it('quotes the start failure Homebridge logged, in the real theme, without a serious accessibility violation', async () => {
    const storage = storageFolder();
    const line = 'eKey Locks could not start: the access service could not open: the database file is not a database.';
    new StartReportFile(join(storage, 'ekey-locks')).write([line]);
    const findings: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      const target = await host({ storagePath: storage, theme, homebridgeTheme: true });
      const { page, frame } = await open(target, { width: 390, height: 844 });
      await eventually(() => statusText(frame), `The eKey Locks service is not running. When Homebridge started it, it said: “${line}”`);
      const inner = page.frames().find((candidate) => candidate.url().endsWith('/plugin/index.html'));
      if (!inner) throw new Error('no settings frame');
      await eventually(() => inner.evaluate('[...document.styleSheets].some((sheet) => /styles-[A-Z0-9]+\\.css$/.test(sheet.href || ""))'), true);
      // An error looks like one: the theme's alert, and an edge of its own (the theme draws success alike).
      expect(await hasClass(frame.getByRole('status').first(), 'alert-danger')).toBe(true);
      expect(await computedStyle(frame.getByRole('status').first(), 'border-left-color')).toBe(theme === 'light' ? 'rgb(176, 42, 55)' : 'rgb(234, 134, 143)');
      findings.push(...describeFindings(`settings not running ${theme}`, await seriousViolations(inner)));
      await page.screenshot({ path: join(LOOK, `settings-page-not-running-${theme}.png`), fullPage: true });
      await page.close();
    }
    expect(findings).toEqual([]);
  }, 60_000);
});
