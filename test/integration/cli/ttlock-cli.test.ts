import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TTLOCK_CREDENTIALS_FILE, TtlockCredentialFile, type StoredTtlockCredentials } from '../../../src/families/ttlock/ttlock-credential-file.js';
import { IMPORT_WARNING } from '../../../src/families/ttlock/ttlock-lock-data.js';
import { SimulatedTtlock } from '../../../src/families/ttlock/simulator/simulated-ttlock.js';
import { builtCli, runNode, spawnNode } from '../../support/child-process.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { ManualClock } from '../../support/manual-clock.js';

/**
 * `ekey-locks ttlock …` as the user runs it (docs/design.md §4f): the built CLI in a child
 * process. `decode` prints the one JSON line of §4f; `pair` and `scan` use BlueZ on the system
 * bus — here a private dbus-daemon with the fake BlueZ served by this test process, in front of
 * simulated TTLocks; `import` takes the app's record of a lock after the honest warning. Secrets
 * go into the data folder (0600) and never into the output.
 */

let env: FakeBluezEnvironment;
let cli: string;
const clock = new ManualClock();
const folders: string[] = [];
let nextAddress = 0x10;

beforeAll(async () => {
  cli = builtCli();
  env = await startFakeBluezEnvironment();
});

afterAll(async () => {
  await env.stop();
});

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function freshFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'ekey-ttlock-cli-'));
  folders.push(folder);
  return folder;
}

function addLock(): SimulatedTtlock {
  const address = `C0:FF:EE:7C:00:${(nextAddress++).toString(16).toUpperCase().padStart(2, '0')}`;
  const lock = new SimulatedTtlock({ address, name: 'TTLock', clock, timeZone: 'Europe/Berlin' });
  env.bluez.addDevice(lock);
  return lock;
}

const ekeyLocks = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  runNode(cli, args, { env: { DBUS_SYSTEM_BUS_ADDRESS: env.busAddress }, timeoutMs: 40_000 });

/** Every way a secret could be spelled in output. */
function spellings(credentials: StoredTtlockCredentials): string[] {
  const key = credentials.aesKey;
  return [key.toString('hex'), key.toString('hex').toUpperCase(), key.toString('base64'), String(credentials.adminPs), String(credentials.unlockKey), ...(credentials.adminKeypadCode === null ? [] : [credentials.adminKeypadCode])];
}

describe('ekey-locks ttlock decode', () => {
  it('prints the one JSON line of docs/design.md §4f for the DEF CON CHECK_ADMIN frame, without and with its key', async () => {
    const frame = '7f5a050302000f000141aa10199c846fb2c5703f7564e30c4758e0319c0d0a';
    const plain = await runNode(cli, ['ttlock', 'decode', frame]);
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    expect(plain.stdout).toBe(
      '{"protocol_type":5,"protocol_version":3,"scene":2,"group":15,"org":1,"command":"41","encrypted":true,"length":16,"crc_ok":true,"payload_hex":"199c846fb2c5703f7564e30c4758e031"}\n',
    );
    const decrypted = await runNode(cli, ['ttlock', 'decode', '--key', '82452e7632b45dcdc0d48d242ca5bc7b', frame]);
    expect(decrypted).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(decrypted.stdout)).toMatchObject({ command: '41', crc_ok: true, payload_hex: '26cdf04a00000002acd30b' });
  });

  it('reads the lock’s GET_AES_KEY reply under the factory key, and a reply whose CRC needs the vendor table', async () => {
    const reply = await runNode(cli, ['ttlock', 'decode', '--key', '987623e8a923a1bb3d9e7d0378124588', '7f5a050302000f000119aa20de37d8d433c6a5233f13285445533971fc674a8ed6cba4e9e67eebe5966c89e6660d0a']);
    expect(JSON.parse(reply.stdout)).toMatchObject({ command: '19', length: 32, crc_ok: true, payload_hex: '1901f9cd6721308bda8f17ec4dfdafeec16b' });
    const quirk = await runNode(cli, ['ttlock', 'decode', '7f5a0503020001000158aa102177b9384b7f7242b59528d26ae752d43a0d0a']);
    expect(JSON.parse(quirk.stdout)).toMatchObject({ command: '58', crc_ok: true });
  });

  it('says crc_ok false for a frame whose CRC is wrong, and exits 0', async () => {
    const result = await runNode(cli, ['ttlock', 'decode', '7f5a0501010001000145aa00e30d0a']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ command: '45', length: 0, crc_ok: false, payload_hex: '' });
  });

  it.each([
    ['not hex', ['xyz1']],
    ['odd hex', ['7f5a0']],
    ['too short', ['7f5a0503']],
    ['a length byte that promises more', ['7f5a0503020001000114aa10aabb']],
    ['a key it does not decrypt under', ['--key', '00'.repeat(16), '7f5a050302000f000141aa10199c846fb2c5703f7564e30c4758e0319c0d0a']],
    ['a key that is not 32 hex digits', ['--key', 'abcd', '7f5a050302000f000141aa10199c846fb2c5703f7564e30c4758e0319c0d0a']],
  ])('exits 1 with one "ttlock decode:" line and empty stdout for %s', async (_what, args) => {
    const result = await runNode(cli, ['ttlock', 'decode', ...args]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^ttlock decode: [^\n]+\n$/);
  });

  it('treats a missing frame as a usage error', async () => {
    const result = await runNode(cli, ['ttlock', 'decode']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: ekey-locks');
    expect(result.stderr).toContain('ttlock decode [--key HEX32] FRAME_HEX');
  });
});

describe('ekey-locks ttlock pair', () => {
  it('pairs with a lock in setting mode: credentials 0600 in the data folder, the config block printed, no secret in the output', async () => {
    const lock = addLock();
    lock.touchKeypad();
    const dataDir = freshFolder();
    const result = await ekeyLocks(['ttlock', 'pair', '--address', lock.address, '--data', dataDir, '--timeout-s', '10']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('3. Paired');
    expect(result.stdout).toContain(`"family": "ttlock"`);
    expect(result.stdout).toContain(`"address": "${lock.address}"`);
    const file = new TtlockCredentialFile(dataDir);
    expect(statSync(join(dataDir, TTLOCK_CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
    const credentials = file.read(lock.address);
    if (credentials === undefined) throw new Error('nothing stored');
    expect(credentials).toMatchObject({ origin: 'paired', adminPs: lock.adminSecrets?.adminPs, unlockKey: lock.adminSecrets?.unlockKey });
    expect(credentials.aesKey.equals(lock.adminSecrets?.aesKey ?? Buffer.alloc(0))).toBe(true);
    for (const secret of spellings(credentials)) expect(result.stdout + result.stderr).not.toContain(secret);
  });

  it('waits for the lock to be woken into setting mode, then pairs', async () => {
    const lock = addLock();
    const dataDir = freshFolder();
    const child = spawnNode(cli, ['ttlock', 'pair', '--address', lock.address, '--data', dataDir, '--timeout-s', '15'], { env: { DBUS_SYSTEM_BUS_ADDRESS: env.busAddress } });
    try {
      child.process.stdin.end();
      await child.nextLine((line) => line.includes('not in setting mode yet'), 12_000);
      lock.touchKeypad();
      await child.nextLine((line) => line.includes('3. Paired'), 12_000);
      expect((await child.exited).code).toBe(0);
    } finally {
      child.kill();
    }
    expect(lock.paired).toBe(true);
  });

  it('says what to do when the lock never enters setting mode, and stores nothing', async () => {
    const lock = addLock();
    const dataDir = freshFolder();
    const result = await ekeyLocks(['ttlock', 'pair', '--address', lock.address, '--data', dataDir, '--timeout-s', '5']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ekey-locks: The lock is not in setting mode \(waited 5 s\)\. A lock paired with the TTLock app must be reset first/m);
    expect(new TtlockCredentialFile(dataDir).readAll().size).toBe(0);
  });

  it('refuses a malformed address as a usage error', async () => {
    const result = await ekeyLocks(['ttlock', 'pair', '--address', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ttlock pair needs --address');
  });
});

describe('ekey-locks ttlock scan', () => {
  it('lists the TTLocks heard and which is in setting mode', async () => {
    const asleep = addLock();
    const awake = addLock();
    awake.touchKeypad();
    const result = await ekeyLocks(['ttlock', 'scan', '--seconds', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`${asleep.address}  TTLock(\\s|$)`, 'm'));
    expect(result.stdout).toContain(`${awake.address}  TTLock (in setting mode: ready to pair)`);
  });
});

describe('ekey-locks ttlock import', () => {
  const record = {
    lockMac: 'AA:BB:CC:DD:EE:42',
    aesKeyStr: 'a1,b2,c3,d4,e5,f6,07,18,29,3a,4b,5c,6d,7e,8f,90',
    adminPwd: 'NjgsNjYsNjUsNzcsNjUsNzAsNjUsNjgsNjQsNjYsMTA=',
    lockKey: 'MTAzLDEwMSw5OSw5NywxMTEsMTAyLDEwMCw5OCw5NiwxMTAsNDE=',
    lockVersion: { protocolType: 5, protocolVersion: 3, scene: 2, groupId: 15, orgId: 1 },
  };

  it('warns plainly that every TTLock app eKey holder has this key and that pairing anew is the safe choice, then stores it (0600)', async () => {
    const dataDir = freshFolder();
    const file = join(dataDir, 'lock.json');
    writeFileSync(file, JSON.stringify(record));
    const result = await runNode(cli, ['ttlock', 'import', '--lock-data', file, '--data', dataDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`${IMPORT_WARNING.join('\n')}\n`);
    expect(result.stderr).toContain('Every person who holds, or ever held, an eKey of this lock in the TTLock app has this very key');
    expect(result.stderr).toContain('The safe choice is to pair anew');
    expect(result.stdout).toContain('"address": "AA:BB:CC:DD:EE:42"');
    const stored = new TtlockCredentialFile(dataDir).read('AA:BB:CC:DD:EE:42');
    expect(stored).toMatchObject({ origin: 'imported', adminPs: 659_525_046, unlockKey: 246_813_579, version: { group: 15 } });
    expect(statSync(join(dataDir, TTLOCK_CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
    if (stored === undefined) throw new Error('nothing stored');
    for (const secret of spellings(stored)) expect(result.stdout).not.toContain(secret);
    expect(readFileSync(join(dataDir, TTLOCK_CREDENTIALS_FILE), 'utf8')).toContain('"origin": "imported"');
  });

  it('refuses a file it cannot read, in one sentence, storing nothing and warning nothing', async () => {
    const dataDir = freshFolder();
    const file = join(dataDir, 'lock.json');
    writeFileSync(file, 'A'.repeat(300));
    const result = await runNode(cli, ['ttlock', 'import', '--lock-data', file, '--data', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ekey-locks: The lock data cannot be imported: this looks like the official SDK's encoded lockData string/);
    expect(result.stderr).not.toContain('Warning');
    expect(new TtlockCredentialFile(dataDir).readAll().size).toBe(0);
    const missing = await runNode(cli, ['ttlock', 'import', '--lock-data', join(dataDir, 'absent.json'), '--data', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot be read (ENOENT)');
    const usage = await runNode(cli, ['ttlock', 'import']);
    expect(usage.code).toBe(2);
  });
});
