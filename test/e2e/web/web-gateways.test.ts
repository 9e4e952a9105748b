/**
 * Gateway devices in the web app (docs/design.md §4e, §7) in Debian's Chromium against the real
 * `ekey-locks demo --config FILE`: a lock of our profile reached through an ESPHome Bluetooth proxy
 * (a fake one speaking the native API with Noise over loopback TCP) shows its owner "via Hall ·
 * signal good" on its card, and a guest holding a key on it sees none of that.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { systemClock } from '../../../src/domain/clock.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { launchChromium, openPage, signInToApp, type PageProblems } from '../../support/browser.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { FakeEsphomeProxy } from '../../support/fake-esphome-proxy/fake-esphome-proxy.js';
import { readUntil } from '../../support/polling.js';

const PHONE = { width: 390, height: 844 };
const WAIT = { timeout: 15_000 };
const KEY = randomBytes(32).toString('base64');
const LOCK_KEY = randomBytes(32);
const ADDRESS = 'D6:0E:00:00:00:01';

describe('gateway devices in the web app', () => {
  let proxy: FakeEsphomeProxy;
  let folder: string;
  let demo: DemoProcess;
  let browser: Browser;
  let base: string;
  const problems: PageProblems[] = [];

  const region = (page: Page, name: string): Locator => page.getByRole('region', { name, exact: true });

  beforeAll(async () => {
    proxy = await FakeEsphomeProxy.start({ name: 'hall-proxy', encryptionKey: KEY });
    proxy.addDevice(new SimulatedLock({ address: ADDRESS, key: LOCK_KEY, name: 'Shed', clock: systemClock }), { rssi: -63 });
    folder = mkdtempSync(join(tmpdir(), 'ekey-web-gateways-'));
    const config = join(folder, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        locks: [{ name: 'Shed', address: ADDRESS, key: LOCK_KEY.toString('hex'), owner_email: 'olivia@example.com' }],
        bluetooth: { proxies: [{ name: 'Hall', host: '127.0.0.1', port: proxy.port, encryption_key: KEY }] },
      }),
    );
    demo = await startDemo({ args: ['--config', config], dataDir: join(folder, 'data') });
    base = demo.demo.base_url;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await demo.stop();
    await proxy.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('shows the owner which gateway reaches the lock and how well: "via Hall · signal good"', async () => {
    const owner = demo.demo.users[0];
    if (owner === undefined) throw new Error('no owner');
    const token = (await demo.login(0)).access_token;
    await readUntil(
      async () => ((await call(base, 'GET', `/users/${owner.id}/locks`, { token })).json.locks as Record<string, unknown>[]).find((lock) => lock.name === 'Shed'),
      (lock) => lock?.online_status === 'online' && lock.gateway !== null,
    );
    const opened = await openPage(browser, { viewport: PHONE });
    problems.push(opened.problems);
    await signInToApp(opened.page, `${base}/app/`, owner);
    const shed = region(opened.page, 'Shed');
    await shed.getByText('via Hall · signal good', { exact: true }).waitFor(WAIT);
    await region(opened.page, 'Front Door').waitFor(WAIT);
    await expect(region(opened.page, 'Front Door').getByText('via Hall', { exact: false }).count()).resolves.toBe(0);
    await opened.context.close();
  });

  it('shows a guest with a key on the lock none of it', async () => {
    const guest = demo.demo.users[1];
    if (guest === undefined) throw new Error('no guest');
    const token = (await demo.login(0)).access_token;
    const locks = (await call(base, 'GET', `/users/${demo.demo.users[0]?.id ?? ''}/locks`, { token })).json.locks as Record<string, unknown>[];
    const shedId = String(locks.find((lock) => lock.name === 'Shed')?.id);
    expect((await call(base, 'POST', '/ekey', { token, body: { email: guest.email, lock_id: shedId, type: 'anytime' } })).status).toBe(201);
    const opened = await openPage(browser, { viewport: PHONE });
    problems.push(opened.problems);
    await signInToApp(opened.page, `${base}/app/`, guest);
    const shed = region(opened.page, 'Shed');
    await shed.getByText('Locked', { exact: true }).waitFor(WAIT);
    await expect(shed.getByText('via', { exact: false }).count()).resolves.toBe(0);
    await opened.context.close();
  });

  it('had no page errors', () => {
    expect(problems.flatMap((problem) => [...problem.errors, ...problem.failedRequests])).toEqual([]);
  });
});
