import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { checkPluginConfig } from '../../../src/config/plugin-config.js';
import { nukiUserLinksOfEntry } from '../../../src/families/nuki/nuki-user-links.js';
import { buildPluginFolder, canUsePrivateNetwork, describeWhen, HomebridgeSupervisor } from '../../support/homebridge-process.js';
import { freePort, openPluginSettings, saveSettings, startHomebridgeUi, type RunningHomebridgeUi } from '../../support/homebridge-ui-server.js';
import { readUntil, until } from '../../support/polling.js';

/*
 * docs/design.md §9 "Config as the Homebridge UI saves it", with the real Homebridge UI
 * (homebridge-config-ui-x 5.10, test/support/homebridge-ui-server.ts) and the real Homebridge: open
 * Plugins → eKey Locks → Settings in Debian's Chromium, change nothing (or add a lock, or remove
 * one) and press Save; then start Homebridge with what the UI wrote, and the plugin runs with the
 * locks the user expects. The UI writes every checkbox of the form and one empty entry for every
 * empty list; none of that may stop the plugin or change what it runs.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OWNER = 'olivia@example.com';
const FRONT = { name: 'Front Door', address: 'D0:E1:00:00:20:01', owner_email: OWNER, time_zone: 'Europe/Berlin', gateway: false };
const SHED = { name: 'Shed', family: 'nuki', address: 'D0:E1:00:00:20:02', owner_email: OWNER, gateway: false };

const describeE2E = describeWhen(canUsePrivateNetwork(), 'This end-to-end test runs Homebridge in a private network namespace and needs root (unshare -n, ip). Run as root.');

describeE2E('Save in the real Homebridge UI', () => {
  const supervisor = new HomebridgeSupervisor();
  const folders: string[] = [];
  let pluginFolder = '';
  let pluginPath = '';
  let storage = '';
  let uiPort = 0;
  let ui: RunningHomebridgeUi;
  let browser: Browser;
  const pageErrors: string[] = [];

  /** Writes config.json as a user's Homebridge has it: the bridge, the UI's block and ours. */
  function writeConfig(block: Record<string, unknown>): string {
    const path = join(storage, 'config.json');
    const config = {
      bridge: { name: 'Homebridge UI test', username: '0E:5A:00:00:37:01', port: 51826, pin: '031-45-154' },
      accessories: [],
      platforms: [{ platform: 'config', name: 'Config', port: uiPort }, { platform: 'EKeyLocks', name: 'eKey Locks', ...block }],
    };
    writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
    return path;
  }

  /** Our block of config.json as the UI wrote it. */
  function savedBlock(path: string): Record<string, unknown> {
    const config = JSON.parse(readFileSync(path, 'utf8')) as { platforms: Record<string, unknown>[] };
    const block = config.platforms.find((platform) => platform.platform === 'EKeyLocks');
    if (block === undefined) throw new Error('the UI dropped the EKeyLocks block');
    return block;
  }

  /** Opens the plugin's settings with `block` in config.json, does `edit`, saves; answers what was saved. */
  async function saveThroughTheUi(block: Record<string, unknown>, edit?: (page: Page, locks: Locator) => Promise<void>): Promise<Record<string, unknown>> {
    const path = writeConfig(block);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await openPluginSettings(page, ui);
      const locks = page.locator('fieldset').filter({ has: page.getByRole('button', { name: 'Add lock' }) });
      if (edit !== undefined) await edit(page, locks);
      await saveSettings(page, path);
      return savedBlock(path);
    } finally {
      await page.close();
    }
  }

  /** Starts Homebridge with the saved block; answers its output once the bridge runs and `names` are accessories. */
  async function startWith(saved: Record<string, unknown>, names: readonly string[], demo: boolean): Promise<string> {
    const setup = { storage: mkdtempSync(join(tmpdir(), 'ekey-ui-save-hb-')), pluginFolder, pin: '031-45-155', username: '0E:5A:00:00:37:02', platform: saved };
    folders.push(setup.storage);
    const running = demo ? await supervisor.start(setup, 90_000) : await supervisor.startBridge(setup, 90_000);
    try {
      await until(
        () => names.every((name) => running.output().includes(`Added HomeKit accessory ${name}\n`)),
        () => `accessories ${names.join(', ')}:\n${running.output()}`,
        30_000,
        50,
      );
      return running.output();
    } finally {
      await running.stop();
    }
  }

  /** The plugin's lines that say something was refused or left out. */
  const refusals = (output: string): string[] =>
    output.split('\n').filter((line) => line.includes('[eKey Locks]') && /left out|not started|is invalid|cannot be read|could not start/.test(line));

  beforeAll(async () => {
    pluginFolder = buildPluginFolder();
    // The UI finds custom plugins as folders named after their package in its plugin path.
    pluginPath = mkdtempSync(join(tmpdir(), 'ekey-ui-plugins-'));
    symlinkSync(pluginFolder, join(pluginPath, 'homebridge-ekey-locks'), 'dir');
    storage = mkdtempSync(join(tmpdir(), 'ekey-ui-save-'));
    mkdirSync(storage, { recursive: true });
    folders.push(pluginFolder, pluginPath, storage);
    uiPort = await freePort();
    writeConfig({ demo: true });
    ui = await startHomebridgeUi({ storage, pluginPath, port: uiPort });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  }, 420_000);

  afterAll(async () => {
    await browser.close();
    await ui.stop();
    await supervisor.dispose();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    expect(pageErrors).toEqual([]);
  });

  it('untouched, the demo block is saved with the form\'s empty entries, and the plugin runs the whole demo as before, saying what it ignored', async () => {
    const saved = await saveThroughTheUi({ demo: true });
    // What the form adds by itself (the reproduction): an empty lock, client and user policy.
    expect(saved).toMatchObject({ demo: true, locks: [expect.any(Object)], clients: [expect.any(Object)], users: [expect.any(Object)] });
    // No default the form would write is a change: the service stays on its demo address, loopback.
    expect(saved.api).toBeUndefined();
    const output = await startWith(saved, ['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door'], true);
    expect(refusals(output)).toEqual([]);
    expect(output).toContain('Locks: entry 1 (locks[0]) has nothing filled in');
    expect(output).toMatch(/eKey access service listening on http:\/\/127\.0\.0\.1:/);
  }, 180_000);

  it('with one lock added in the form, the plugin runs both locks', async () => {
    const saved = await saveThroughTheUi({ locks: [FRONT], bluetooth: { transport: 'simulator' } }, async (page, locks) => {
      await page.getByRole('button', { name: 'Add lock' }).click();
      await locks.locator('input[name="name"]').last().fill('Shed');
      await locks.locator('select[name="family"]').last().selectOption({ label: 'Nuki Smart Lock (pair it with "ekey-locks nuki pair")' });
      await locks.locator('input[name="owner_email"]').last().fill(OWNER);
      await locks.locator('input[name="address"]').last().fill(SHED.address);
      await locks.locator('input[name="gateway"]').last().uncheck();
    });
    expect(saved.locks).toEqual([
      expect.objectContaining({ name: 'Front Door', address: FRONT.address }),
      expect.objectContaining({ name: 'Shed', family: 'nuki', address: SHED.address, owner_email: OWNER }),
    ]);
    const output = await startWith(saved, ['Front Door', 'Shed'], false);
    expect(refusals(output)).toEqual([]);
  }, 180_000);

  it('with a lock removed in the form, the plugin runs the other one only', async () => {
    const saved = await saveThroughTheUi({ locks: [FRONT, SHED], bluetooth: { transport: 'simulator' } }, async (page, locks) => {
      // Each entry of a list is a list-group-item whose own "×" removes it; a lock's entry is the one
      // with an address (its list of linked Nuki users has entries of its own).
      const entries = locks.locator('.list-group-item').filter({ has: page.locator('input[name="address"]') });
      expect(await entries.count()).toBe(2);
      await entries.nth(1).locator(':scope > button', { hasText: 'Close' }).click();
      expect(await readUntil(() => locks.locator('input[name="name"]').count(), (count) => count === 1)).toBe(1);
      expect(await locks.locator('input[name="name"]').inputValue()).toBe('Front Door');
    });
    expect(saved.locks).toEqual([expect.objectContaining({ name: 'Front Door' })]);
    const output = await startWith(saved, ['Front Door'], false);
    expect(output).not.toContain('Added HomeKit accessory Shed');
    expect(refusals(output)).toEqual([]);
  }, 180_000);

  it('keeps a Nuki lock\'s linked users, written as a map, through an untouched Save (as the list the form can edit)', async () => {
    const links = { "Olivia's iPhone": OWNER, 'Keypad 2': 'alex@example.com' };
    const saved = await saveThroughTheUi({ locks: [{ ...SHED, nuki_users: links }], bluetooth: { transport: 'simulator' } });
    const [lock] = saved.locks as Record<string, unknown>[];
    expect(lock?.nuki_users).toEqual(Object.entries(links).map(([authorization, email]) => ({ authorization, email })));
    const check = checkPluginConfig(saved);
    expect(check.problems).toEqual([]);
    expect((check.config?.locks ?? []).map((entry) => Object.fromEntries(nukiUserLinksOfEntry(entry)))).toEqual([links]);
  }, 120_000);

  it('shows each list under one heading, numbers as fields to type in, and the keypad setting of a lock', async () => {
    writeConfig({ locks: [FRONT] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await openPluginSettings(page, ui);
      for (const title of ['OAuth clients', 'User policies']) await page.locator('legend', { hasText: title }).click();
      for (const title of ['Locks', 'OAuth clients', 'User policies']) expect(await page.locator('.modal legend').filter({ hasText: new RegExp(`^\\s*${title}\\s*$`) }).count()).toBe(1);
      await page.locator('legend', { hasText: 'REST API' }).click();
      expect(await page.locator('input[name="port"]').first().getAttribute('type')).toBe('number');
      expect(await page.locator('input[name="keypad"]').count()).toBe(1);
    } finally {
      await page.close();
    }
  }, 120_000);
});
