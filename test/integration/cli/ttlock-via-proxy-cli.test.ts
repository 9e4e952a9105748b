import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TTLOCK_CREDENTIALS_FILE, TtlockCredentialFile } from '../../../src/families/ttlock/ttlock-credential-file.js';
import { SimulatedTtlock } from '../../../src/families/ttlock/simulator/simulated-ttlock.js';
import { builtCli, runNode } from '../../support/child-process.js';
import { FakeEsphomeProxy } from '../../support/fake-esphome-proxy/fake-esphome-proxy.js';
import { ManualClock } from '../../support/manual-clock.js';

/**
 * `ekey-locks ttlock scan --via PROXY` and `ttlock pair --via PROXY` (docs/design.md §4e, §4f):
 * the built CLI scans and pairs a simulated TTLock in setting mode through an ESPHome Bluetooth
 * proxy named in the config (a fake one speaking the native API with Noise over loopback TCP),
 * with no system bus at all; the keys stay in the data folder.
 */

const KEY = randomBytes(32).toString('base64');
let proxy: FakeEsphomeProxy;
let cli: string;
let folder: string;
let config: string;
const ttlock = new SimulatedTtlock({ address: 'C0:FF:EE:7C:0A:01', name: 'TTLock', clock: new ManualClock(), timeZone: 'Europe/Berlin' });

const ekeyLocks = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  runNode(cli, args, { env: { DBUS_SYSTEM_BUS_ADDRESS: 'unix:path=/nonexistent/ekey-test/bus' }, timeoutMs: 40_000 });

beforeAll(async () => {
  cli = builtCli();
  proxy = await FakeEsphomeProxy.start({ name: 'side-proxy', encryptionKey: KEY });
  proxy.addDevice(ttlock, { rssi: -71 });
  folder = mkdtempSync(join(tmpdir(), 'ekey-ttlock-via-'));
  config = join(folder, 'config.json');
  writeFileSync(config, JSON.stringify({ bridge: { name: 'Homebridge' }, platforms: [{ platform: 'EKeyLocks', bluetooth: { proxies: [{ name: 'Side', host: '127.0.0.1', port: proxy.port, encryption_key: KEY }] } }] }));
});

afterAll(async () => {
  await proxy.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('ekey-locks ttlock scan|pair --via', () => {
  it('scans through the proxy: the lock in setting mode, heard there', async () => {
    ttlock.touchKeypad();
    const result = await ekeyLocks(['ttlock', 'scan', '--seconds', '1', '--via', 'Side', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`  ${ttlock.address}  TTLock (in setting mode: ready to pair)  -71 dBm  via Side`);
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('pairs through the proxy: the service is the lock\'s admin, its keys 0600 in the data folder and in no output', async () => {
    const dataDir = join(folder, 'ekey-locks');
    ttlock.touchKeypad();
    const result = await ekeyLocks(['ttlock', 'pair', '--address', ttlock.address, '--via', 'Side', '--config', config, '--data', dataDir, '--timeout-s', '10']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`"address": "${ttlock.address}"`);
    expect(statSync(join(dataDir, TTLOCK_CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
    const stored = new TtlockCredentialFile(dataDir).read(ttlock.address);
    expect(stored?.adminPs).toBe(ttlock.adminSecrets?.adminPs);
    expect(result.stdout).not.toContain(stored?.aesKey.toString('hex') ?? 'no key');
  });

  it('names the proxies it knows when --via names another', async () => {
    const result = await ekeyLocks(['ttlock', 'pair', '--address', ttlock.address, '--via', 'Attic', '--config', config]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('has no Bluetooth proxy of that name under bluetooth.proxies (it has: Side)');
  });
});
