import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SettingsUiError, SettingsUiHandlers, noBluetoothMessage } from '../../../src/settings-ui/settings-ui-handlers.js';
import { SETTINGS_UI_FILE, type SettingsUiStatus } from '../../../src/store/settings-ui-file.js';
import { StartReportFile } from '../../../src/store/start-report-file.js';
import { NUKI_CREDENTIALS_FILE, NukiCredentialFile } from '../../../src/families/nuki/nuki-credential-file.js';
import { SimulatedOpener } from '../../../src/families/nuki-opener/simulator/simulated-opener.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { SimulatedNuki } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { TTLOCK_CREDENTIALS_FILE, TtlockCredentialFile } from '../../../src/families/ttlock/ttlock-credential-file.js';
import { SimulatedTtlock } from '../../../src/families/ttlock/simulator/simulated-ttlock.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { ManualClock } from '../../support/manual-clock.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { loginOverHttp } from '../../support/oauth-login.js';

/**
 * The request handlers of homebridge-ui/server.js (src/settings-ui/) against the real service on
 * loopback, its real status file in a Homebridge storage folder, and the fake BlueZ for Nuki.
 */

const NEW_OWNER = 'new-owner@example.com';
const storagePath = mkdtempSync(join(tmpdir(), 'ekey-settings-ui-'));
const dataDir = join(storagePath, 'ekey-locks');
let service: TestService;
let bluez: FakeBluezEnvironment;
const progress: string[] = [];
const otherFolders: string[] = [];

function tempFolder(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  otherFolders.push(path);
  return path;
}

const handlers = (options: Partial<ConstructorParameters<typeof SettingsUiHandlers>[0]> = {}): SettingsUiHandlers =>
  new SettingsUiHandlers({
    storagePath,
    progress: (line) => progress.push(line),
    transport: (_adapter, logger) => new BluezTransport({ busAddress: bluez.busAddress, logger }),
    ...options,
  });

/** A storage folder whose status file holds `status` (a service elsewhere, or none). */
function storageWith(status: Partial<SettingsUiStatus> | string): string {
  const path = tempFolder('ekey-settings-ui-other-');
  mkdirSync(join(path, 'ekey-locks'));
  writeFileSync(join(path, 'ekey-locks', SETTINGS_UI_FILE), typeof status === 'string' ? status : JSON.stringify(status));
  return path;
}

function statusFile(): SettingsUiStatus {
  return JSON.parse(readFileSync(join(dataDir, SETTINGS_UI_FILE), 'utf8')) as SettingsUiStatus;
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsUiError);
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  service = await startTestService({
    dataDir,
    config: { locks: [{ name: 'Garage', id: '5f0c7a52-1e5b-4b8e-9d59-3c1f8f0a2b11', owner_email: NEW_OWNER, gateway: false, time_zone: 'Europe/Berlin' }] },
  });
  bluez = await startFakeBluezEnvironment();
});

afterAll(async () => {
  await service.close();
  await bluez.stop();
  for (const path of [storagePath, ...otherFolders]) rmSync(path, { recursive: true, force: true });
});

describe('the status file', () => {
  it('is written when the service listens, mode 0600, with the loopback address and a setup token', () => {
    const status = statusFile();
    expect(statSync(join(dataDir, SETTINGS_UI_FILE)).mode & 0o777).toBe(0o600);
    expect(status).toMatchObject({ version: 1, base_url: service.baseUrl, local_url: service.baseUrl, pid: process.pid, public_url: false });
    expect(status.port).toBe(Number(new URL(service.baseUrl).port));
    expect(status.setup_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('guards /setup/* with that token: none or another is 401, never the data', async () => {
    for (const authorization of [undefined, 'Bearer not-the-token', `Basic ${statusFile().setup_token}`]) {
      const response = await fetch(`${service.baseUrl}/setup/status`, { headers: authorization === undefined ? {} : { authorization } });
      expect(response.status).toBe(401);
      expect(await response.text()).not.toContain('Garage');
    }
    const owner = await fetch(`${service.baseUrl}/setup/owner`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: NEW_OWNER, name: 'Nora', password: 'long enough' }),
    });
    expect(owner.status).toBe(401);
  });

  it('is not part of the public OpenAPI document', async () => {
    const document = (await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/setup'))).toEqual([]);
  });
});

describe('/status', () => {
  it('answers the running service with every lock and its state, and whose owner account waits', async () => {
    const view = await handlers().status();
    if (view.state !== 'running') throw new Error(view.message);
    expect(view.message).toBe(`The service is running at ${service.baseUrl} with 6 locks.`);
    expect(view.locks.map((lock) => lock.name)).toEqual(['Back Door', 'Building Door', 'Front Door', 'Garage', 'Garden Gate', 'Side Door']);
    expect(view.locks.find((lock) => lock.name === 'Garage')).toMatchObject({ bolt_state: 'unknown', online_status: 'offline', gateway: false, owner_email: NEW_OWNER });
    expect(view.locks.find((lock) => lock.name === 'Front Door')).toMatchObject({ family: 'ekey', gateway: true });
    expect(view.locks.find((lock) => lock.name === 'Back Door')).toMatchObject({ family: 'nuki' });
    expect(view.locks.find((lock) => lock.name === 'Building Door')).toMatchObject({ family: 'nuki-opener', gateway: true });
    // What each lock is, in words from its family, and what it can do: the page shows no family ids.
    expect(view.locks.map((lock) => [lock.name, lock.family_name, lock.features])).toEqual([
      ['Back Door', 'Nuki Smart Lock', ['keypad', 'unlatch', 'door_sensor']],
      ['Building Door', 'Nuki Opener', ['opener']],
      ['Front Door', 'eKey open profile', []],
      ['Garage', 'eKey open profile', []],
      ['Garden Gate', 'eKey open profile', []],
      ['Side Door', 'TTLock', ['keypad']],
    ]);
    expect(view.locks.find((lock) => lock.name === 'Building Door')?.modes).toEqual({ ring_to_open: false, continuous_mode: false });
    expect(view.locks.find((lock) => lock.name === 'Front Door')?.modes).toBeNull();
    expect(view.config_problems).toEqual([]);
    expect(view.owners).toEqual([
      { email: NEW_OWNER, active: false },
      { email: service.demo.users[0]?.email, active: true },
    ]);
  });

  it('says what the running service left out of its config, in the words Homebridge logged', async () => {
    const line = 'api.port: must be at most 65535; left out, so its default applies.';
    const report = new StartReportFile(dataDir);
    report.write([line], true);
    try {
      const view = await handlers().status();
      expect(view).toMatchObject({ state: 'running', config_problems: [line] });
    } finally {
      report.clear();
    }
  });

  it('says the service is not running when there is no status file', async () => {
    const empty = tempFolder('ekey-settings-ui-none-');
    expect(await handlers({ storagePath: empty }).status()).toEqual({ state: 'stopped', message: expect.stringMatching(/^The eKey Locks service is not running\. Check that the plugin is enabled/) });
  });

  it("quotes the last start's own failure when the service is not running", async () => {
    const storage = tempFolder('ekey-settings-ui-failed-');
    const line = 'Lock "Test Door" (locks[0]) is left out: key: must match pattern "^[0-9a-fA-F]{64}$". The other locks run.';
    new StartReportFile(join(storage, 'ekey-locks')).write([line, 'eKey Locks is not configured (no locks, no clients, demo off): nothing to do.']);
    const view = await handlers({ storagePath: storage }).status();
    expect(view).toEqual({ state: 'stopped', message: `The eKey Locks service is not running. When Homebridge started it, it said: “${line} eKey Locks is not configured (no locks, no clients, demo off): nothing to do.”` });
  });

  it('says the service is not running when the process of the status file has ended', async () => {
    const path = storageWith({ ...statusFile(), pid: await deadPid() });
    expect(await handlers({ storagePath: path }).status()).toEqual({ state: 'stopped', message: expect.stringMatching(/its process has ended \(it was started at .+\)\. Restart Homebridge/) });
  });

  it('says the status file cannot be read, is damaged or incomplete', async () => {
    const unreadable = tempFolder('ekey-settings-ui-dir-');
    mkdirSync(join(unreadable, 'ekey-locks', SETTINGS_UI_FILE), { recursive: true });
    expect(await handlers({ storagePath: unreadable }).status()).toEqual({ state: 'unreadable', message: expect.stringMatching(/cannot be read \(EISDIR\)\. The Homebridge UI must run as the same user as Homebridge/) });
    expect(await handlers({ storagePath: storageWith('{not json') }).status()).toEqual({ state: 'unreadable', message: expect.stringMatching(/is damaged \(not JSON\)/) });
    expect(await handlers({ storagePath: storageWith({ base_url: 'x' }) }).status()).toEqual({ state: 'unreadable', message: expect.stringMatching(/is incomplete/) });
    expect(await handlers({ storagePath: undefined }).status()).toEqual({ state: 'unreadable', message: expect.stringMatching(/HOMEBRIDGE_STORAGE_PATH is not set/) });
  });

  it('says the service does not answer when nothing listens at its address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const path = storageWith({ ...statusFile(), local_url: `http://127.0.0.1:${port}` });
    expect(await handlers({ storagePath: path }).status()).toEqual({ state: 'unreachable', message: expect.stringMatching(/does not answer \(ECONNREFUSED\)/) });
  });

  it('gives up after its deadline when the service accepts but never answers', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const path = storageWith({ ...statusFile(), local_url: `http://127.0.0.1:${port}` });
      expect(await handlers({ storagePath: path, requestTimeoutMs: 300 }).status()).toEqual({ state: 'unreachable', message: expect.stringMatching(/does not answer \(no answer within 0.3 s\)/) });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('says the token was refused when another service replaced it', async () => {
    const path = storageWith({ ...statusFile(), setup_token: 'stale' });
    expect(await handlers({ storagePath: path }).status()).toEqual({ state: 'refused', message: expect.stringMatching(/did not accept this page's setup token/) });
  });
});

describe('/owner', () => {
  it('checks the form before asking the service', async () => {
    expect(await failure(handlers().createOwner({ email: NEW_OWNER }))).toBe('E-mail, name and password are required.');
    expect(await failure(handlers().createOwner({ email: NEW_OWNER, name: ' ', password: 'long enough' }))).toBe("Enter the owner's name.");
    expect(await failure(handlers().createOwner({ email: NEW_OWNER, name: 'Nora', password: 'short' }))).toBe('The password needs at least 8 characters.');
  });

  it('refuses an e-mail that owns no lock, and a demo guest', async () => {
    expect(await failure(handlers().createOwner({ email: 'nobody@example.com', name: 'No One', password: 'long enough' }))).toMatch(/^No lock in the service has this owner e-mail/);
    const guest = service.demo.users[1];
    if (!guest) throw new Error('demo guest missing');
    expect(await failure(handlers().createOwner({ email: guest.email, name: 'Guest', password: 'long enough' }))).toMatch(/^No lock in the service has this owner e-mail/);
  });

  it('creates the invited owner\'s account once, who can then sign in; a second time is refused', async () => {
    const created = await handlers().createOwner({ email: NEW_OWNER, name: 'Nora Owner', password: 'correct horse' });
    expect(created).toEqual({ id: expect.any(String), email: NEW_OWNER, name: 'Nora Owner' });
    const user = service.service.repositories.users.findByEmail(NEW_OWNER);
    expect(user?.passwordHash).not.toBeNull();
    expect(user?.name).toBe('Nora Owner');
    const client = service.demo.clients[0];
    if (!client) throw new Error('demo client missing');
    const tokens = await loginOverHttp({ baseUrl: service.baseUrl, client, email: NEW_OWNER, password: 'correct horse' });
    const answer = (await (await fetch(`${service.baseUrl}/users/${created.id}/locks`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json()) as { locks: { name: string; your_role: string }[] };
    expect(answer.locks.map((lock) => [lock.name, lock.your_role])).toEqual([['Garage', 'owner']]);
    expect(await failure(handlers().createOwner({ email: NEW_OWNER, name: 'Mallory', password: 'another password' }))).toBe(
      `The account of ${NEW_OWNER} already exists: sign in to the web app with it.`,
    );
    expect(service.service.repositories.users.findByEmail(NEW_OWNER)?.name).toBe('Nora Owner');
    const view = await handlers().status();
    expect(view.state === 'running' && view.owners.find((owner) => owner.email === NEW_OWNER)).toEqual({ email: NEW_OWNER, active: true });
  });

  it('ends with a message when the service is not running', async () => {
    const empty = tempFolder('ekey-settings-ui-none-');
    expect(await failure(handlers({ storagePath: empty }).createOwner({ email: NEW_OWNER, name: 'Nora', password: 'long enough' }))).toMatch(/^The eKey Locks service is not running/);
  });
});

describe('/pairing, /scan and /pair (the Nuki family, through the registry)', () => {
  it('offers the families whose locks are paired, in their own words', () => {
    const { families } = handlers().pairingFamilies();
    expect(families.map((family) => [family.family, family.noun])).toEqual([
      ['nuki', 'Nuki lock'],
      ['ttlock', 'TTLock'],
    ]);
    expect(families[0]?.pin?.digits).toBe(6);
  });

  it('names the lock fields the config form edits as a list', () => {
    expect(handlers().formShapes()).toEqual({ listFields: [{ field: 'nuki_users', key: 'authorization', value: 'email' }] });
  });

  const clock = new ManualClock();

  it('scans the fake BlueZ, then pairs the chosen simulated Nuki into the plugin\'s data folder', async () => {
    const nuki = new SimulatedNuki({ address: 'C0:FF:EE:5E:77:01', name: 'Nuki_5E7701', clock, securityPin: 4711 });
    bluez.bluez.addDevice(nuki);
    progress.length = 0;
    const scanned = await handlers().scan({ family: 'nuki',  seconds: 1 });
    expect(scanned.locks).toEqual([
      { address: nuki.address, rssi: expect.any(Number), model: 'Nuki Smart Lock 1.0–4.0', api_level: '2.2', gateway: 'host', family: 'nuki', pin_required: false },
    ]);
    expect(progress[0]).toBe('Scanning for Nuki Smart Locks for 1 s…');

    nuki.startPairingMode();
    const paired = await handlers().pair({ family: 'nuki',  address: nuki.address, name: 'Homebridge', pin: '4711', timeout_s: 5 });
    expect(paired.lines.join('\n')).toContain('3. Paired: the lock knows us as "Homebridge"');
    expect(paired.lock).toMatchObject({ family: 'nuki', address: nuki.address });
    expect(statSync(join(dataDir, NUKI_CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
    expect(nuki.authorizations.map((authorization) => authorization.name)).toEqual(['Homebridge']);
    expect(progress.join('\n')).not.toContain('4711');
    nuki.goOutOfRange();
  });

  it('scans an API 2.3 lock and an Opener with their model; pairs the 2.3 lock only with its 6-digit PIN, and the Opener as nuki-opener', async () => {
    const ultra = new SimulatedNuki({ address: 'C0:FF:EE:5E:77:03', name: 'Nuki_5E7703', clock, securityPin: 482_913, model: 'smart_lock_ultra' });
    const opener = new SimulatedOpener({ address: 'C0:FF:EE:5E:77:04', name: 'Nuki_Opener_5E7704', clock, securityPin: 1357 });
    bluez.bluez.addDevice(ultra);
    bluez.bluez.addDevice(opener);
    try {
      // The Ultra at rest: only its GATT database tells its API level (the scan looks).
      const scanned = await handlers().scan({ family: 'nuki',  seconds: 1 });
      expect(scanned.locks).toEqual([
        { address: ultra.address, rssi: expect.any(Number), model: 'Nuki Smart Lock Ultra / Go / Pro (5th generation)', api_level: '2.3', gateway: 'host', family: 'nuki', pin_required: true },
        { address: opener.address, rssi: expect.any(Number), model: 'Nuki Opener', api_level: '2.2', gateway: 'host', family: 'nuki-opener', pin_required: false },
      ]);
      expect(scanned.lines).toContain(`  ${ultra.address}  Nuki Smart Lock Ultra / Go / Pro (5th generation)  API 2.3  ${String(scanned.locks[0]?.rssi)} dBm`);

      ultra.startPairingMode();
      // No PIN: refused before anything is sent, with what to do.
      expect(await failure(handlers().pair({ family: 'nuki',  address: ultra.address, timeout_s: 5 }))).toMatch(/Ultra.*needs its 6-digit security PIN.*--pin\. Nothing was sent/);
      expect(ultra.authorizations).toEqual([]);
      const paired = await handlers().pair({ family: 'nuki',  address: ultra.address, name: 'Homebridge', pin: '482913', timeout_s: 5 });
      expect(paired.lines.join('\n')).toContain('Found a Nuki Smart Lock Ultra / Go / Pro (5th generation) (Bluetooth API 2.3).');
      expect(paired.lock).toMatchObject({ family: 'nuki', address: ultra.address });
      expect(ultra.authorizations.map((authorization) => authorization.name)).toEqual(['Homebridge']);
      expect(new NukiCredentialFile(dataDir).read(ultra.address)).toMatchObject({ kind: 'smart_lock', apiLevel: '2.3', securityPin: 482_913 });
      expect(progress.join('\n')).not.toContain('482913');

      opener.startPairingMode();
      const openerPaired = await handlers().pair({ family: 'nuki',  address: opener.address, name: 'Homebridge', timeout_s: 5 });
      expect(openerPaired.lines.join('\n')).toContain('3. Paired: the Opener knows us as "Homebridge"');
      expect(openerPaired.lock).toMatchObject({ name: 'Nuki Opener', family: 'nuki-opener', address: opener.address });
      expect(opener.authorizations.map((authorization) => authorization.name)).toEqual(['Homebridge']);
      expect(new NukiCredentialFile(dataDir).read(opener.address)).toMatchObject({ kind: 'opener', apiLevel: '2.2' });
    } finally {
      ultra.goOutOfRange();
      opener.goOutOfRange();
    }
  });

  it('explains a pairing that fails (the lock is not in pairing mode)', async () => {
    const nuki = new SimulatedNuki({ address: 'C0:FF:EE:5E:77:02', name: 'Nuki_5E7702', clock, securityPin: 1234 });
    bluez.bluez.addDevice(nuki);
    expect(await failure(handlers().pair({ family: 'nuki',  address: nuki.address, timeout_s: 5 }))).toMatch(/not in pairing mode \(waited 5 s\)/);
    nuki.goOutOfRange();
  });

  it('says in one plain sentence, within 2 s of a 10 s scan, that Bluetooth is not available', async () => {
    const noBus = `unix:path=${join(storagePath, 'no-bus')}`;
    const offline = handlers({ transport: (_adapter, logger) => new BluezTransport({ busAddress: noBus, logger }) });
    const began = performance.now();
    const message = await failure(offline.scan({ family: 'nuki',  seconds: 10 }));
    expect(performance.now() - began).toBeLessThan(2_000);
    expect(message).toBe(noBluetoothMessage('Nuki lock'));
    // No raw error, no stray punctuation from one.
    expect(message).not.toMatch(/ENOENT|unix:|\)\.|\.\)/);
  });

  it('rejects bad input and a second Bluetooth job at once', async () => {
    expect(await failure(handlers().scan({ family: 'nuki',  seconds: 0 }))).toBe('Scan for 1 to 30 seconds.');
    expect(await failure(handlers().pair({ family: 'nuki',  address: 'nope' }))).toMatch(/^Choose a lock to pair/);
    expect(await failure(handlers({ storagePath: undefined }).pair({ family: 'nuki',  address: 'C0:FF:EE:5E:77:09' }))).toMatch(/HOMEBRIDGE_STORAGE_PATH is not set/);
    const shared = handlers();
    const first = shared.scan({ family: 'nuki',  seconds: 1 });
    expect(await failure(shared.scan({ family: 'nuki',  seconds: 1 }))).toBe('A scan or pairing is already running; wait until it ends.');
    await first;
  });
});

describe('/scan and /pair (the TTLock family, through the same pairing facet)', () => {
  const clock = new ManualClock();

  it('scans the fake BlueZ for TTLocks, then pairs the one in setting mode into the plugin\'s data folder', async () => {
    const lock = new SimulatedTtlock({ address: 'C0:FF:EE:5E:78:01', name: 'TTLock', clock, timeZone: 'Europe/Berlin' });
    bluez.bluez.addDevice(lock);
    try {
      lock.touchKeypad();
      const scanned = await handlers().scan({ family: 'ttlock', seconds: 1 });
      expect(scanned.locks).toEqual([{ address: lock.address, rssi: expect.any(Number), model: 'TTLock (in setting mode: ready to pair)', api_level: null, family: 'ttlock', pin_required: false, gateway: null }]);
      const paired = await handlers().pair({ family: 'ttlock', address: lock.address, timeout_s: 5 });
      expect(paired.lines.join('\n')).toContain("3. Paired: the service is the lock's admin");
      expect(paired.lock).toMatchObject({ family: 'ttlock', address: lock.address, keypad: true });
      expect(statSync(join(dataDir, TTLOCK_CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
      expect(lock.paired).toBe(true);
      const stored = new TtlockCredentialFile(dataDir).read(lock.address);
      expect(stored?.aesKey.equals(lock.adminSecrets?.aesKey ?? Buffer.alloc(0))).toBe(true);
      expect(progress.join('\n')).not.toContain(stored?.aesKey.toString('hex') ?? 'no key');
    } finally {
      lock.goOutOfRange();
    }
  });

  it('explains a pairing that fails (the lock is not in setting mode)', async () => {
    const lock = new SimulatedTtlock({ address: 'C0:FF:EE:5E:78:02', name: 'TTLock', clock, timeZone: 'Europe/Berlin' });
    bluez.bluez.addDevice(lock);
    try {
      expect(await failure(handlers().pair({ family: 'ttlock', address: lock.address, timeout_s: 5 }))).toMatch(/not in setting mode \(waited 5 s\)/);
      expect(lock.paired).toBe(false);
    } finally {
      lock.goOutOfRange();
    }
  });
});
