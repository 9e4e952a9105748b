import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPluginFolder, canUsePrivateNetwork, describeWhen, HomebridgeSupervisor } from '../../support/homebridge-process.js';
import { until } from '../../support/polling.js';

/*
 * The real `homebridge` binary with this plugin whose data folder is unusable at start: a
 * database file that is not a database, and a data folder on a read-only file system (a
 * read-only bind mount in a mount namespace of its own, as a read-only SD card would be). Each
 * time: one clear error line naming the file or folder and what to do, the plugin disabled, the
 * bridge up and answering HAP.
 */

const describeE2E = describeWhen(canUsePrivateNetwork(), 'The HomeKit end-to-end tests run Homebridge in a private network namespace and need root (unshare -n, ip). Run as root.');

describeE2E('Homebridge with an unusable data folder for eKey Locks', () => {
  const supervisor = new HomebridgeSupervisor();
  const folders: string[] = [];
  let pluginFolder = '';

  beforeAll(() => {
    pluginFolder = buildPluginFolder();
  }, 240_000);

  afterAll(async () => {
    await supervisor.dispose();
    for (const folder of [pluginFolder, ...folders]) if (folder !== '') rmSync(folder, { recursive: true, force: true });
  });

  /** The bridge's HAP server answers: an unpaired request is refused the HAP way (470), not dropped. */
  async function hapStatus(port: number): Promise<number> {
    const response = await fetch(`http://127.0.0.1:${port}/accessories`);
    await response.arrayBuffer();
    return response.status;
  }

  /** Waits (bounded) for a line of Homebridge's output. */
  async function lineMatching(output: () => string, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const line = (): string | undefined => output().split('\n').find((candidate) => pattern.test(candidate));
    await until(() => line() !== undefined, () => `a line matching ${String(pattern)} within ${timeoutMs} ms:\n${output()}`, timeoutMs, 50);
    return line() ?? '';
  }

  /**
   * One clear error line (containing `names`, ending as `ends` says), the plugin disabled (no demo
   * line), the bridge up and answering HAP, nothing uncaught.
   */
  async function expectPluginDisabled(homebridge: { hapPort: number; output: () => string }, names: string, ends: RegExp): Promise<void> {
    const line = await lineMatching(homebridge.output, /eKey Locks could not start/);
    expect(line).toContain(names);
    expect(line).toMatch(ends);
    expect(homebridge.output().split('\n').filter((candidate) => candidate.includes('could not start'))).toEqual([line]);
    expect(homebridge.output()).not.toMatch(/EKEY_DEMO /);
    expect(await hapStatus(homebridge.hapPort)).toBe(470);
    expect(homebridge.output()).not.toMatch(/uncaught|unhandled/i);
  }

  function newStorage(): { storage: string; dataDir: string } {
    const storage = mkdtempSync(join(tmpdir(), 'ekey-hb-faults-'));
    folders.push(storage);
    const dataDir = join(storage, 'ekey-locks');
    mkdirSync(dataDir);
    return { storage, dataDir };
  }

  it('a damaged database file: one clear error, the plugin disabled, the file left as it was, the bridge up', async () => {
    const { storage, dataDir } = newStorage();
    const damaged = join(dataDir, 'ekey-locks.sqlite');
    const garbage = `not a database ${'x'.repeat(4096)}`;
    writeFileSync(damaged, garbage);
    const homebridge = await supervisor.startBridge({ storage, pluginFolder, pin: '031-45-155', username: '0E:4B:00:00:E2:F1', platform: { demo: true } });
    try {
      await expectPluginDisabled(homebridge, `the database ${damaged} is damaged or not a database`, /could not start: the access service could not open: the database .* move it aside to start with an empty one, or restore a backup$/);
    } finally {
      await homebridge.stop();
    }
    // The user's data is not touched: moving it aside, or a backup, is their choice.
    expect(readFileSync(damaged, 'utf8')).toBe(garbage);
  }, 120_000);

  it('a read-only data folder: one clear error naming the folder, the plugin disabled, the bridge up', async () => {
    const { storage, dataDir } = newStorage();
    const homebridge = await supervisor.startBridge({
      storage,
      pluginFolder,
      pin: '031-45-156',
      username: '0E:4B:00:00:E2:F2',
      platform: { demo: true },
      // Homebridge runs in its own mount namespace where the plugin's folder is mounted read-only.
      wrapper: ['unshare', '-m', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', dataDir],
    });
    try {
      await expectPluginDisabled(homebridge, `the data folder ${dataDir} cannot be written`, /could not start: the access service could not open: the data folder .* make it writable by the user that runs Homebridge$/);
    } finally {
      await homebridge.stop();
    }
  }, 120_000);
});
