import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NukiCommand } from '../../../src/families/nuki/protocol/nuki-commands.js';
import { decodeUnencryptedFrame, encodeUnencryptedFrame } from '../../../src/families/nuki/protocol/nuki-frame.js';
import { NukiUuids } from '../../../src/families/nuki/protocol/nuki-uuids.js';
import type { SimulatedAdvertisement, SimulatedDevice, SimulatedGattService, SimulatedLockLink } from '../../../src/gateway/transports/simulator/simulated-device.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { SimulatedNuki, type SimulatedNukiOptions } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { SimulatedOpener } from '../../../src/families/nuki-opener/simulator/simulated-opener.js';
import { NUKI_MODELS } from '../../../src/families/nuki/nuki-api-level.js';
import { NUKI_CREDENTIALS_FILE, NukiCredentialFile, type StoredNukiCredentials } from '../../../src/families/nuki/nuki-credential-file.js';
import { builtCli, runNode, spawnNode } from '../../support/child-process.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { ManualClock } from '../../support/manual-clock.js';
import { NukiTestClient } from '../../unit/families/nuki/simulated-nuki-client.js';

/**
 * `ekey-locks nuki pair` and `nuki scan` as the user runs them: the built CLI in a child process,
 * its BluezTransport on the system bus, which here is a private dbus-daemon with the fake BlueZ
 * served by this test process, in front of simulated Nuki locks.
 */

let env: FakeBluezEnvironment;
let cli: string;
const clock = new ManualClock();
const dataDirs: string[] = [];
let nextAddress = 0x10;
/** Every simulated Nuki on the fake BlueZ, to silence them all for the "none heard" scan. */
const allNukis: SimulatedNuki[] = [];

beforeAll(async () => {
  cli = builtCli();
  env = await startFakeBluezEnvironment();
});

afterAll(async () => {
  await env.stop();
});

afterEach(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh address, so every test has its own devices on the one fake BlueZ (it cannot remove any). */
function freshAddress(): string {
  const last = (nextAddress++).toString(16).toUpperCase().padStart(2, '0');
  return `C0:FF:EE:4E:00:${last}`;
}

function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ekey-nuki-pair-'));
  dataDirs.push(dir);
  return dir;
}

function addNuki(options: Partial<SimulatedNukiOptions> = {}): SimulatedNuki {
  const nuki = new SimulatedNuki({ address: freshAddress(), name: 'Nuki_1A2B3C4D', clock, securityPin: 4711, ...options });
  allNukis.push(nuki);
  env.bluez.addDevice(nuki);
  return nuki;
}

function hideEveryNuki(): void {
  for (const nuki of allNukis) nuki.goOutOfRange();
}

/** Runs the built CLI with the private bus as its system bus. */
function ekeyLocks(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runNode(cli, args, { env: { DBUS_SYSTEM_BUS_ADDRESS: env.busAddress }, timeoutMs: 40_000 });
}

function pair(address: string, dataDir: string, ...extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return ekeyLocks(['nuki', 'pair', '--address', address, '--data', dataDir, '--timeout-s', '5', ...extra]);
}

/** Every way a key could be spelled in output. */
function spellings(secret: Buffer): string[] {
  return [secret.toString('hex'), secret.toString('hex').toUpperCase(), secret.toString('base64'), secret.toString('base64url')];
}

function expectNoSecretIn(output: { stdout: string; stderr: string }, credentials: StoredNukiCredentials): void {
  for (const spelling of spellings(credentials.sharedKey)) {
    expect(output.stdout).not.toContain(spelling);
    expect(output.stderr).not.toContain(spelling);
  }
  if (credentials.securityPin !== null) {
    expect(output.stdout).not.toContain(String(credentials.securityPin));
    expect(output.stderr).not.toContain(String(credentials.securityPin));
  }
}

/** The config block printed at the end: from the first line that is `{` to the end of stdout. */
function configBlock(stdout: string): unknown {
  const start = stdout.indexOf('\n{\n');
  expect(start).toBeGreaterThan(0);
  return JSON.parse(stdout.slice(start + 1));
}

function stored(dataDir: string, address: string): StoredNukiCredentials {
  const entry = new NukiCredentialFile(dataDir).read(address);
  if (entry === undefined) throw new Error(`no credentials for ${address} in ${dataDir}`);
  return entry;
}

/** Proves the lock holds the same key: an encrypted Request Data(Keyturner States) it can answer. */
async function lockAnswersWith(nuki: SimulatedNuki, credentials: StoredNukiCredentials): Promise<void> {
  const client = new NukiTestClient(nuki, credentials.authorizationId, credentials.sharedKey);
  try {
    expect((await client.states()).lockState).toBe(0x01);
  } finally {
    client.link.close();
  }
}

/** One `ekey-locks: …` line on stderr, nothing else there. */
function expectOneErrorLine(stderr: string, pattern: RegExp): void {
  expect(stderr).toMatch(/^ekey-locks: [^\n]+\n$/);
  expect(stderr).toMatch(pattern);
}

/**
 * A simulated Nuki behind a faulty radio: the Authorization Authenticator we write arrives with one
 * bit flipped (and a recomputed CRC), so the lock answers P_ERROR_BAD_AUTHENTICATOR.
 */
class BitFlippingNuki implements SimulatedDevice {
  constructor(private readonly inner: SimulatedNuki) {}

  get address(): string {
    return this.inner.address;
  }

  get name(): string {
    return this.inner.name;
  }

  get inRange(): boolean {
    return this.inner.inRange;
  }

  get gattDatabase(): readonly SimulatedGattService[] {
    return this.inner.gattDatabase;
  }

  advertisement(): SimulatedAdvertisement | null {
    return this.inner.advertisement();
  }

  onAdvertisementChange(listener: () => void): () => void {
    return this.inner.onAdvertisementChange(listener);
  }

  openLink(): SimulatedLockLink {
    const link = this.inner.openLink();
    return {
      get open() {
        return link.open;
      },
      read: (uuid) => link.read(uuid),
      write: (uuid, value) => {
        link.write(uuid, uuid === NukiUuids.pairingGdio ? flipAuthenticatorBit(value) : value);
      },
      onNotification: (listener) => {
        link.onNotification(listener);
      },
      onLost: (listener) => {
        link.onLost(listener);
      },
      close: () => {
        link.close();
      },
    };
  }
}

function flipAuthenticatorBit(frame: Buffer): Buffer {
  const decoded = decodeUnencryptedFrame(frame);
  if (decoded.command !== NukiCommand.authorizationAuthenticator) return frame;
  const payload = Buffer.from(decoded.payload);
  payload[0] = (payload[0] ?? 0) ^ 0x01;
  return encodeUnencryptedFrame(decoded.command, payload);
}

describe('ekey-locks nuki pair', () => {
  it('pairs as an app, stores the credentials with mode 0600 and prints the steps and the config block, never a secret', async () => {
    const nuki = addNuki();
    nuki.startPairingMode();
    const dataDir = freshDataDir();

    const result = await pair(nuki.address, dataDir);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Pairing with the Nuki at ${nuki.address} (a Smart Lock or an Opener):`);
    expect(result.stdout).toContain('Found a Nuki Smart Lock 1.0–4.0 (Bluetooth API 2.2).');
    expect(result.stdout).toMatch(/1\. Press and hold the button on the lock for 5 seconds/);
    expect(result.stdout).toMatch(/2\. Waiting for the lock \(up to 5 s\)/);
    expect(result.stdout).toMatch(/3\. Paired: the lock knows us as "ekey-locks \(Homebridge\)" \(authorization 1\)/);
    expect(result.stdout).toContain(join(dataDir, NUKI_CREDENTIALS_FILE));
    expect(result.stdout).toContain('No --pin given');
    expect(configBlock(result.stdout)).toMatchObject({ family: 'nuki', address: nuki.address });

    const file = new NukiCredentialFile(dataDir);
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).toEqual([NUKI_CREDENTIALS_FILE]);
    const credentials = stored(dataDir, nuki.address);
    expect(credentials).toMatchObject({ address: nuki.address, authorizationId: 1, idType: 'app', authorizationName: 'ekey-locks (Homebridge)', securityPin: null });
    expect(credentials.lockUuid).toBe(nuki.lockUuid.toString('hex'));
    expect(nuki.authorizations).toEqual([{ id: 1, name: 'ekey-locks (Homebridge)', type: 'app', appId: credentials.appId }]);
    expectNoSecretIn(result, credentials);
    await lockAnswersWith(nuki, credentials);
  });

  it('stores the security PIN given with --pin, and the name given with --name', async () => {
    const nuki = addNuki();
    nuki.startPairingMode();
    const dataDir = freshDataDir();

    const result = await pair(nuki.address.toLowerCase(), dataDir, '--pin', '1234', '--name', 'Hallway Homebridge');

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('No --pin given');
    const credentials = stored(dataDir, nuki.address);
    expect(credentials.securityPin).toBe(1234);
    expect(credentials.authorizationName).toBe('Hallway Homebridge');
    expect(nuki.authorizations.map((entry) => entry.name)).toEqual(['Hallway Homebridge']);
    expectNoSecretIn(result, credentials);
  });

  it('pairs an API 2.3 lock (Go) only with its 6-digit PIN, and remembers its API level', async () => {
    const go = addNuki({ model: 'smart_lock_go', securityPin: 482_913 });
    go.startPairingMode();
    const dataDir = freshDataDir();

    const refused = await pair(go.address, dataDir);
    expect(refused.code).toBe(1);
    expectOneErrorLine(refused.stderr, /This is a Nuki Smart Lock Ultra \/ Go \/ Pro \(5th generation\): pairing it needs its 6-digit security PIN.*--pin\. Nothing was sent to the lock\.$/m);
    expect(go.authorizations).toEqual([]);
    expect(existsSync(join(dataDir, NUKI_CREDENTIALS_FILE))).toBe(false);

    const result = await pair(go.address, dataDir, '--pin', '482913');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Found a Nuki Smart Lock Ultra / Go / Pro (5th generation) (Bluetooth API 2.3).');
    expect(configBlock(result.stdout)).toMatchObject({ family: 'nuki', address: go.address });
    const credentials = stored(dataDir, go.address);
    expect(credentials).toMatchObject({ kind: 'smart_lock', apiLevel: '2.3', securityPin: 482_913 });
    expectNoSecretIn(result, credentials);
    await lockAnswersWith(go, credentials);
  });

  it('pairs a Nuki Opener and prints its config block with family "nuki-opener"', async () => {
    const opener = new SimulatedOpener({ address: freshAddress(), name: 'Nuki_Opener_2', clock, securityPin: 1357 });
    env.bluez.addDevice(opener);
    opener.startPairingMode();
    const dataDir = freshDataDir();
    try {
      const result = await pair(opener.address, dataDir, '--pin', '1357');
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Found a Nuki Opener (Bluetooth API 2.2).');
      expect(result.stdout).toContain('3. Paired: the Opener knows us as "ekey-locks (Homebridge)"');
      expect(configBlock(result.stdout)).toMatchObject({ name: 'Nuki Opener', family: 'nuki-opener', address: opener.address });
      const credentials = stored(dataDir, opener.address);
      expect(credentials).toMatchObject({ kind: 'opener', apiLevel: '2.2', securityPin: 1357 });
      expect(opener.authorizations.map((entry) => entry.name)).toEqual(['ekey-locks (Homebridge)']);
      expectNoSecretIn(result, credentials);
    } finally {
      opener.goOutOfRange();
    }
  });

  it('refuses a six-digit PIN for a lock of API 2.2 before anything is sent', async () => {
    const nuki = addNuki();
    nuki.startPairingMode();
    const dataDir = freshDataDir();
    const result = await pair(nuki.address, dataDir, '--pin', '123456');
    expect(result.code).toBe(1);
    expectOneErrorLine(result.stderr, /This is a Nuki Smart Lock 1\.0–4\.0: its security PIN is a number from 0 to 65535 \(--pin\)\. Nothing was sent to it\./);
    expect(nuki.authorizations).toEqual([]);
  });

  it('pairs as a bridge only with --as-bridge, after a warning on stderr', async () => {
    const nuki = addNuki();
    nuki.startPairingMode();
    const dataDir = freshDataDir();

    const result = await pair(nuki.address, dataDir, '--as-bridge');

    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^Warning: pairing as a bridge replaces the Nuki Bridge/);
    expect(result.stdout).not.toContain('Warning');
    expect(nuki.authorizations).toEqual([expect.objectContaining({ type: 'bridge' })]);
    const credentials = stored(dataDir, nuki.address);
    expect(credentials.idType).toBe('bridge');
    expectNoSecretIn(result, credentials);
    await lockAnswersWith(nuki, credentials);
  });

  it('waits for pairing mode when the button is held after the command started', async () => {
    const nuki = addNuki();
    const device = env.bluez.device(nuki.address);
    const dataDir = freshDataDir();
    const child = spawnNode(cli, ['nuki', 'pair', '--address', nuki.address, '--data', dataDir, '--timeout-s', '10'], {
      env: { DBUS_SYSTEM_BUS_ADDRESS: env.busAddress },
    });
    try {
      child.process.stdin.end();
      await child.nextLine((line) => line.includes('not in pairing mode yet'), 8_000);
      expect(device.log.connects).toBeGreaterThan(0);
      nuki.startPairingMode();
      await child.nextLine((line) => line.includes('3. Paired'), 8_000);
      expect((await child.exited).code).toBe(0);
    } finally {
      child.kill();
    }
    const credentials = stored(dataDir, nuki.address);
    expectNoSecretIn({ stdout: child.stdout(), stderr: child.stderr() }, credentials);
    await lockAnswersWith(nuki, credentials);
  });

  it('replaces the entry of a lock paired again and keeps the other locks', async () => {
    const front = addNuki();
    const back = addNuki();
    const dataDir = freshDataDir();
    front.startPairingMode();
    expect((await pair(front.address, dataDir)).code).toBe(0);
    back.startPairingMode();
    expect((await pair(back.address, dataDir)).code).toBe(0);
    const backBefore = stored(dataDir, back.address);
    const frontBefore = stored(dataDir, front.address);

    front.startPairingMode();
    const again = await pair(front.address, dataDir, '--pin', '2468');

    expect(again.code).toBe(0);
    const all = new NukiCredentialFile(dataDir).readAll();
    expect([...all.keys()].sort()).toEqual([front.address, back.address].sort());
    expect(all.get(back.address)).toEqual(backBefore);
    const frontAfter = stored(dataDir, front.address);
    expect(frontAfter.authorizationId).toBe(2);
    expect(frontAfter.securityPin).toBe(2468);
    expect(frontAfter.sharedKey.equals(frontBefore.sharedKey)).toBe(false);
    expect(again.stdout).toMatch(/replace those of an earlier pairing \(authorization 1, "ekey-locks \(Homebridge\)"\)/);
    expect(readdirSync(dataDir)).toEqual([NUKI_CREDENTIALS_FILE]);
    await lockAnswersWith(front, frontAfter);
    await lockAnswersWith(back, backBefore);
  });

  describe('fails with one clear line, exit 1 and no file written', () => {
    it('when the lock is not in pairing mode before the timeout', async () => {
      const nuki = addNuki();
      const dataDir = freshDataDir();

      const result = await pair(nuki.address, dataDir);

      expect(result.code).toBe(1);
      expectOneErrorLine(result.stderr, /The lock is not in pairing mode \(waited 5 s\)\. Hold its button for 5 s/);
      expect(result.stdout).toContain('not in pairing mode yet');
      expect(existsSync(join(dataDir, NUKI_CREDENTIALS_FILE))).toBe(false);
      expect(nuki.authorizations).toEqual([]);
    });

    it('when the lock has no room for another authorization', async () => {
      const nuki = addNuki({ maxAuthorizations: 1, authorizations: [{ id: 1, name: "Olivia's iPhone", type: 'app' }] });
      nuki.startPairingMode();
      const dataDir = freshDataDir();

      const result = await pair(nuki.address, dataDir);

      expect(result.code).toBe(1);
      expectOneErrorLine(result.stderr, /no room for another authorization\. Remove one in the Nuki app/);
      expect(existsSync(join(dataDir, NUKI_CREDENTIALS_FILE))).toBe(false);
      expect(nuki.authorizations.map((entry) => entry.name)).toEqual(["Olivia's iPhone"]);
    });

    it('when the lock refuses our authenticator', async () => {
      const nuki = new SimulatedNuki({ address: freshAddress(), name: 'Nuki_5E6F7A8B', clock, securityPin: 4711 });
      allNukis.push(nuki);
      env.bluez.addDevice(new BitFlippingNuki(nuki));
      nuki.startPairingMode();
      const dataDir = freshDataDir();

      const result = await pair(nuki.address, dataDir);

      expect(result.code).toBe(1);
      expectOneErrorLine(result.stderr, /could not authenticate each other \(bad authenticator\)/);
      expect(existsSync(join(dataDir, NUKI_CREDENTIALS_FILE))).toBe(false);
      expect(nuki.authorizations).toEqual([]);
    });

    it('when the lock stops answering half-way', async () => {
      const nuki = addNuki();
      nuki.startPairingMode();
      nuki.faults.replyDelayMs = 5_500;
      const dataDir = freshDataDir();

      const result = await pair(nuki.address, dataDir);
      nuki.faults.replyDelayMs = 0;

      expect(result.code).toBe(1);
      expectOneErrorLine(result.stderr, /The lock stopped answering during pairing \(no answer within 5 s\)/);
      expect(existsSync(join(dataDir, NUKI_CREDENTIALS_FILE))).toBe(false);
      expect(nuki.authorizations).toEqual([]);
    });

    it('when the stored credentials cannot be read, before the lock is touched', async () => {
      const nuki = addNuki();
      nuki.startPairingMode();
      const dataDir = freshDataDir();
      const path = join(dataDir, NUKI_CREDENTIALS_FILE);
      writeFileSync(path, '{"version": 1, "locks": {', { mode: 0o600 });

      const result = await pair(nuki.address, dataDir);

      expect(result.code).toBe(1);
      expectOneErrorLine(result.stderr, new RegExp(`stored Nuki credentials cannot be read \\(${path} is not valid JSON\\).*nothing was sent to the lock`));
      expect(env.bluez.device(nuki.address).log.connects).toBe(0);
      expect(readFileSync(path, 'utf8')).toBe('{"version": 1, "locks": {');
    });

    it('when nobody answers at the address', async () => {
      const dataDir = freshDataDir();
      const address = freshAddress();

      const result = await pair(address, dataDir);

      expect(result.code).toBe(1);
      expectOneErrorLine(result.stderr, new RegExp(`No lock answered at ${address} within 5 s`));
      expect(existsSync(join(dataDir, NUKI_CREDENTIALS_FILE))).toBe(false);
    });

    it('when the device at the address is not a Nuki', async () => {
      const lock = new SimulatedLock({ address: freshAddress(), key: Buffer.alloc(32, 7), name: 'Front Door', clock });
      env.bluez.addDevice(lock);
      const dataDir = freshDataDir();

      const result = await pair(lock.address, dataDir);

      expect(result.code).toBe(1);
      expectOneErrorLine(result.stderr, /does not offer the Nuki pairing service/);
      expect(existsSync(join(dataDir, NUKI_CREDENTIALS_FILE))).toBe(false);
    });
  });

  describe('usage errors exit 2 with the usage text and write nothing', () => {
    it.each([
      ['no --address', []],
      ['an address that is not one', ['--address', 'C0:FF:EE:4E:00']],
      ['a PIN that is not a number', ['--address', 'C0:FF:EE:4E:00:01', '--pin', '12a4']],
      ['a PIN of more than six digits', ['--address', 'C0:FF:EE:4E:00:01', '--pin', '1234567']],
      ['a timeout out of range', ['--address', 'C0:FF:EE:4E:00:01', '--timeout-s', '1']],
      ['a name longer than 32 bytes', ['--address', 'C0:FF:EE:4E:00:01', '--name', 'x'.repeat(33)]],
      ['an unknown option', ['--address', 'C0:FF:EE:4E:00:01', '--force']],
    ])('for %s', async (_what, args) => {
      const dataDir = freshDataDir();
      const result = await ekeyLocks(['nuki', 'pair', '--data', dataDir, ...args]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^ekey-locks: [^\n]+\n\nUsage: ekey-locks/);
      expect(readdirSync(dataDir)).toEqual([]);
    });
  });
});

describe('ekey-locks nuki scan', () => {
  it('lists an advertising Nuki and ignores a lock of our own profile', async () => {
    const nuki = addNuki();
    const ours = new SimulatedLock({ address: freshAddress(), key: Buffer.alloc(32, 9), name: 'Garage', clock });
    env.bluez.addDevice(ours);

    const result = await ekeyLocks(['nuki', 'scan', '--seconds', '2']);

    try {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Scanning for Nuki Smart Locks for 2 s/);
      expect(result.stdout).toMatch(new RegExp(`^  ${nuki.address}  Nuki Smart Lock 1\\.0–4\\.0  API 2\\.2  -\\d+ dBm$`, 'm'));
      expect(result.stdout).not.toContain(ours.address);
      expect(result.stdout).toMatch(/found\. Pair one with: ekey-locks nuki pair --address <address>/);
    } finally {
      nuki.goOutOfRange();
      ours.goOutOfRange();
    }
  });

  it('shows each device\'s model and API level: every Smart Lock model, at rest or in pairing mode, and the Opener', async () => {
    const models = ['smart_lock_1', 'smart_lock_2', 'smart_lock_3', 'smart_lock_4', 'smart_lock_ultra', 'smart_lock_go', 'smart_lock_pro_5'] as const;
    const locks = models.map((model) => addNuki({ model, securityPin: NUKI_MODELS[model].apiLevel === '2.3' ? 123_456 : 4711 }));
    // One API 2.3 lock in pairing mode: its beacon alone tells its class.
    locks[5]?.startPairingMode();
    const opener = new SimulatedOpener({ address: freshAddress(), name: 'Nuki_Opener_1', clock, securityPin: 1357 });
    env.bluez.addDevice(opener);

    const result = await ekeyLocks(['nuki', 'scan', '--seconds', '2']);

    try {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const line = (address: string): string => result.stdout.split('\n').find((text) => text.startsWith(`  ${address}  `)) ?? '';
      for (const [index, nuki] of locks.entries()) {
        const expected = index < 4 ? 'Nuki Smart Lock 1\\.0–4\\.0  API 2\\.2' : 'Nuki Smart Lock Ultra / Go / Pro \\(5th generation\\)  API 2\\.3';
        expect(line(nuki.address)).toMatch(new RegExp(`^  ${nuki.address}  ${expected}  -\\d+ dBm$`));
      }
      expect(line(opener.address)).toMatch(new RegExp(`^  ${opener.address}  Nuki Opener  API 2\\.2  -\\d+ dBm$`));
      expect(result.stdout).toContain('pairs only with its 6-digit security PIN: --pin');
    } finally {
      for (const nuki of locks) nuki.goOutOfRange();
      opener.goOutOfRange();
    }
  });

  it('says so when no Nuki is heard', async () => {
    const ours = new SimulatedLock({ address: freshAddress(), key: Buffer.alloc(32, 5), name: 'Shed', clock });
    env.bluez.addDevice(ours);
    hideEveryNuki();

    const result = await ekeyLocks(['nuki', 'scan', '--seconds', '1']);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^No Nuki lock heard\. Is Bluetooth on/m);
    expect(result.stdout).not.toMatch(/ dBm$/m);
    ours.goOutOfRange();
  });

  it('fails with exit 1 when Bluetooth is not available, instead of "no Nuki heard"', async () => {
    const result = await runNode(cli, ['nuki', 'scan', '--seconds', '1'], { env: { DBUS_SYSTEM_BUS_ADDRESS: `unix:path=${join(freshDataDir(), 'no-bus')}` } });
    expect(result.code).toBe(1);
    expectOneErrorLine(result.stderr, /Bluetooth is not available, so nothing could be heard \(.+\)\. Install and start BlueZ/);
    expect(result.stdout).not.toContain('No Nuki lock heard');
  });

  it('rejects --seconds out of range as a usage error', async () => {
    const result = await ekeyLocks(['nuki', 'scan', '--seconds', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ekey-locks: --seconds must be a whole number from 1 to 120/);
  });
});
