import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NUKI_CREDENTIALS_FILE } from '../../../src/families/nuki/nuki-credential-file.js';
import { SimulatedNuki } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { builtCli, runNode } from '../../support/child-process.js';
import { FakeEsphomeProxy } from '../../support/fake-esphome-proxy/fake-esphome-proxy.js';
import { ManualClock } from '../../support/manual-clock.js';

/**
 * `ekey-locks nuki scan --via PROXY` and `nuki pair --via PROXY` (docs/design.md §4e): the built
 * CLI scans and pairs through an ESPHome Bluetooth proxy named in the config (a fake one speaking
 * the native API with Noise over loopback TCP), with no system bus at all.
 */

const KEY = randomBytes(32).toString('base64');
let proxy: FakeEsphomeProxy;
let cli: string;
let folder: string;
let config: string;
const nuki = new SimulatedNuki({ address: 'C0:FF:EE:7A:00:01', name: 'Nuki_7A000001', clock: new ManualClock(), securityPin: 4711 });

const ekeyLocks = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  runNode(cli, args, { env: { DBUS_SYSTEM_BUS_ADDRESS: 'unix:path=/nonexistent/ekey-test/bus' }, timeoutMs: 40_000 });

beforeAll(async () => {
  cli = builtCli();
  proxy = await FakeEsphomeProxy.start({ name: 'porch-proxy', encryptionKey: KEY });
  proxy.addDevice(nuki, { rssi: -68 });
  folder = mkdtempSync(join(tmpdir(), 'ekey-nuki-via-'));
  config = join(folder, 'config.json');
  // Homebridge's config.json, with the platform block among others.
  writeFileSync(config, JSON.stringify({ bridge: { name: 'Homebridge' }, platforms: [{ platform: 'EKeyLocks', bluetooth: { proxies: [{ name: 'Porch', host: '127.0.0.1', port: proxy.port, encryption_key: KEY }] } }] }));
});

afterAll(async () => {
  await proxy.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('ekey-locks nuki scan|pair --via', () => {
  it('scans through the proxy and says it heard the lock there', async () => {
    const result = await ekeyLocks(['nuki', 'scan', '--seconds', '1', '--via', 'Porch', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`  ${nuki.address}  Nuki Smart Lock 1.0–4.0  API 2.2  -68 dBm  via Porch`);
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('pairs through the proxy and stores the credentials in the data folder', async () => {
    const dataDir = join(folder, 'ekey-locks');
    nuki.startPairingMode();
    const result = await ekeyLocks(['nuki', 'pair', '--address', nuki.address, '--via', 'Porch', '--config', config, '--data', dataDir, '--timeout-s', '10']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const stored = JSON.parse(readFileSync(join(dataDir, NUKI_CREDENTIALS_FILE), 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(stored)).toContain(nuki.address);
  });

  it('names the proxies it knows when --via names another', async () => {
    const result = await ekeyLocks(['nuki', 'scan', '--seconds', '1', '--via', 'Attic', '--config', config]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('has no Bluetooth proxy of that name under bluetooth.proxies (it has: Porch)');
  });
});
