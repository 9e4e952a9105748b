/**
 * The real Homebridge UI (homebridge-config-ui-x 5.10, the version homebridge-ui-theme.ts dresses
 * the test host in), installed from the npm registry once per machine under node_modules/.cache
 * and run on its own (its `standalone` entry: the UI without the Homebridge it would supervise),
 * so a test can open the plugin's settings in it and press Save as a user does. The plugin's
 * settings are the UI's own form of config.schema.json under our custom page, in the UI's modal.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT } from './child-process.js';
import { HOMEBRIDGE_UI_VERSION } from './homebridge-ui-theme.js';
import { readUntil, until } from './polling.js';

const INSTALL = join(PROJECT_ROOT, 'node_modules', '.cache', `homebridge-config-ui-x-${HOMEBRIDGE_UI_VERSION}-install`);
const ADMIN = { username: 'admin', password: 'settings-test-password' };

/** The folder whose node_modules holds the UI; installed on first use (the registry is reachable in CI). */
export function homebridgeUiInstall(): string {
  const entry = join(INSTALL, 'node_modules', 'homebridge-config-ui-x', 'dist', 'bin', 'standalone.js');
  if (existsSync(entry)) return INSTALL;
  const staging = `${INSTALL}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // Its Homebridge 2.4 pins a hap-nodejs this registry lacks (docs/decisions/runtimes.md).
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'homebridge-ui-for-tests', version: '1.0.0', private: true, overrides: { '@homebridge/hap-nodejs': '2.2.3' } }));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', `homebridge-config-ui-x@${HOMEBRIDGE_UI_VERSION}`], { cwd: staging, stdio: 'pipe', timeout: 300_000 });
  try {
    renameSync(staging, INSTALL);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(entry)) throw error;
  }
  return INSTALL;
}

/** A free TCP port on this host. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

export interface RunningHomebridgeUi {
  url: string;
  /** An access token of the UI's administrator. */
  token: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the UI on `storage` (its config.json must hold the UI's own `config` platform block with
 * `port`) with `pluginPath` as the folder of custom plugins, creates its first administrator as
 * its setup page would, and signs in.
 */
export async function startHomebridgeUi(options: { storage: string; pluginPath: string; port: number }): Promise<RunningHomebridgeUi> {
  const install = homebridgeUiInstall();
  const child: ChildProcess = spawn(
    process.execPath,
    [join(install, 'node_modules', 'homebridge-config-ui-x', 'dist', 'bin', 'standalone.js'), '-U', options.storage, '-P', options.pluginPath, '-T'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } },
  );
  let output = '';
  const state = { exited: false };
  const exited = (): boolean => state.exited;
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exit = new Promise<void>((done) => {
    child.on('exit', () => {
      state.exited = true;
      done();
    });
  });
  const url = `http://127.0.0.1:${options.port}`;
  try {
    await until(() => exited() || output.includes('listening on'), 'the Homebridge UI to listen', 60_000);
    if (exited()) throw new Error(`the Homebridge UI exited:\n${output}`);
    // It says so a moment before its socket takes connections.
    const answered = await readUntil(
      () => fetch(`${url}/api/auth/settings`).catch(() => undefined),
      (response) => response !== undefined || exited(),
      { timeoutMs: 30_000, everyMs: 50 },
    );
    if (answered === undefined) throw new Error('it does not answer');
    await answered.text();
    const first = await fetch(`${url}/api/setup-wizard/create-first-user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Administrator', ...ADMIN, admin: true }),
    });
    // 201 on a new storage folder; 403 once a user exists (a second start on the same folder).
    if (first.status !== 201 && first.status !== 403) throw new Error(`first user: ${first.status} ${await first.text()}`);
    const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    const token = ((await login.json()) as { access_token?: string }).access_token;
    if (token === undefined) throw new Error(`login failed: ${login.status}`);
    return {
      url,
      token,
      output: () => output,
      stop: async () => {
        if (!exited()) child.kill('SIGTERM');
        await exit;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`the Homebridge UI did not start (${error instanceof Error ? error.message : String(error)}):\n${output}`);
  }
}

/** Opens Plugins → the plugin's menu → Plugin Config, and waits until its form is there. */
export async function openPluginSettings(page: Page, ui: RunningHomebridgeUi): Promise<void> {
  await page.goto(`${ui.url}/login`);
  // The UI keeps its session in the browser's storage, as its own login page would.
  await page.evaluate(`localStorage.setItem('access_token', ${JSON.stringify(ui.token)})`);
  await page.goto(`${ui.url}/plugins`);
  await page.getByRole('link', { name: 'Plugin Actions Dropdown' }).click();
  await page.getByRole('button', { name: 'Plugin Config' }).click();
  // The form of config.schema.json, which our page asks the UI to show under it.
  await page.getByRole('button', { name: 'Add lock' }).waitFor({ timeout: 30_000 });
}

/** Presses the modal's Save and waits until the UI has written config.json anew. */
export async function saveSettings(page: Page, configPath: string): Promise<void> {
  const before = readFileSync(configPath, 'utf8');
  // The UI replaces the file: for a moment it is not there, or not whole.
  const saved = (): boolean => {
    try {
      const text = readFileSync(configPath, 'utf8');
      JSON.parse(text);
      return text !== before;
    } catch {
      return false;
    }
  };
  await page.locator('.modal').getByRole('button', { name: 'Save', exact: true }).click();
  await until(saved, 'the Homebridge UI to save config.json', 15_000);
}
