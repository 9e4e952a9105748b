#!/usr/bin/env node
/* global performance */
/**
 * Measures the web app's first load over loopback (docs/performance.md "Web app"): `ekey-locks
 * demo` from dist/ (run `npm run build` first), Debian's Chromium through playwright-core, a fresh
 * browser context per round (empty cache). Prints one JSON line: medians of the time until the
 * sign-in button shows (cold), until the owner's locks show after sign-in, and until they show on a
 * reload (warm cache), and the bytes transferred (compressed) and decoded for the cold load.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.env.ROUNDS ?? 7);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const demo = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'demo', '--port', '0'], { stdio: ['pipe', 'pipe', 'ignore'] });
const firstLine = await new Promise((resolve) => createInterface({ input: demo.stdout }).once('line', resolve));
const info = JSON.parse(firstLine);
const owner = info.users[0];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });

const cold = [];
const signedIn = [];
const warm = [];
let transferred = 0;
let decoded = 0;
let files = 0;
try {
  for (let round = 0; round < rounds; round += 1) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    let started = performance.now();
    await page.goto(`${info.base_url}/app/`);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    cold.push(performance.now() - started);
    const sizes = await page.evaluate(() =>
      [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map((entry) => [entry.transferSize, entry.decodedBodySize]),
    );
    transferred = sizes.reduce((sum, [size]) => sum + size, 0);
    decoded = sizes.reduce((sum, [, size]) => sum + size, 0);
    files = sizes.length;
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    started = performance.now();
    await page.getByRole('button', { name: 'Sign in and allow', exact: true }).click();
    await page.getByRole('region', { name: 'Front Door', exact: true }).getByText(/^(Locked|Unlocked|Jammed|Unknown)$/).waitFor();
    signedIn.push(performance.now() - started);
    started = performance.now();
    await page.reload();
    await page.getByRole('region', { name: 'Front Door', exact: true }).getByText(/^(Locked|Unlocked|Jammed|Unknown)$/).waitFor();
    warm.push(performance.now() - started);
    await context.close();
  }
} finally {
  await browser.close();
  demo.kill('SIGTERM');
}
const round1 = (value) => Math.round(value * 10) / 10;
process.stdout.write(
  `${JSON.stringify({
    scenario: 'web-first-load',
    rounds,
    cold_to_sign_in_ms: round1(median(cold)),
    sign_in_to_locks_ms: round1(median(signedIn)),
    warm_reload_to_locks_ms: round1(median(warm)),
    cold_files: files,
    cold_transferred_bytes: transferred,
    cold_decoded_bytes: decoded,
  })}\n`,
);
