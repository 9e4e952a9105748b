import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configuredLockId } from '../../../src/config/config-sync.js';
import type { LockConfig } from '../../../src/config/plugin-config.js';
import { NUKI_CREDENTIALS_FILE, NukiCredentialFile } from '../../../src/families/nuki/nuki-credential-file.js';
import { startCommandFixture, untilOnline, type CommandFixture } from '../commands/command-fixture.js';

/**
 * A Nuki lock in the config that was never paired (docs/design.md §4b): one log line that says how to pair,
 * the lock listed offline, commands refused, everything else running. Once its credentials are in
 * the data folder's file, the same lock gets a working Nuki driver.
 */

const OWNER_EMAIL = 'olivia@example.com'; // the demo household's owner
const CELLAR: LockConfig = { name: 'Cellar Door', address: '54:d2:72:ab:cd:ef', family: 'nuki', owner_email: OWNER_EMAIL };
const CELLAR_ID = ((): string => {
  const id = configuredLockId(CELLAR);
  if (id === undefined) throw new Error('the Cellar Door has an address: it has an id');
  return id;
})();
const SHARED_KEY = Buffer.alloc(32, 0x5a);

function cellarLines(fx: CommandFixture): { level: string; message: string }[] {
  return fx.test.logger.lines.filter((line) => line.message.includes('Cellar Door'));
}

describe('a Nuki lock in the config without credentials', () => {
  let fx: CommandFixture;

  beforeAll(async () => {
    fx = await startCommandFixture({ config: { locks: [CELLAR] }, signInOthers: false });
    await untilOnline(fx, fx.frontDoor);
  });

  afterAll(async () => {
    await fx.test.close();
  });

  it('logs exactly one line that names the lock and says how to pair it', () => {
    const lines = cellarLines(fx);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe('error');
    expect(lines[0]?.message).toMatch(/^Lock Cellar Door: this Nuki is not paired yet, so it stays offline\./);
    expect(lines[0]?.message).toContain('Hold its button for 5 s, run "ekey-locks nuki pair --address 54:D2:72:AB:CD:EF" and restart Homebridge');
  });

  it('gets an unusable Nuki driver that never connects', () => {
    const runtime = fx.test.service.lockSubsystem.runtime;
    expect(runtime.gateway.getSnapshot(CELLAR_ID)?.family).toBe('nuki');
    const snapshot = runtime.gateway.getSnapshot(CELLAR_ID);
    expect(snapshot?.unusableReason).toMatch(/not paired yet/);
    expect(snapshot).toMatchObject({ online: false, connected: false });
  });

  it('is listed as offline for its owner', async () => {
    const cellar = await fx.ownerLock(CELLAR_ID);
    expect(cellar).toMatchObject({ id: CELLAR_ID, name: 'Cellar Door', online_status: 'offline' });
  });

  it('answers a command with 400 lock_unreachable', async () => {
    const answer = await fx.call(fx.owner.token, 'POST', `/locks/${CELLAR_ID}/commands`, { type: 'unlock' });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('lock_unreachable');
  });

  it('leaves the other locks and the API working', async () => {
    const list = await fx.call(fx.owner.token, 'GET', `/users/${fx.owner.id}/locks`);
    expect(list.status).toBe(200);
    expect(await fx.ownerLock(fx.frontDoor)).toMatchObject({ online_status: 'online' });
    const created = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'unlock' });
    expect(created.status).toBe(201);
    const done = await fx.untilFinished(fx.owner.token, fx.frontDoor, String(created.body.id));
    expect(done).toMatchObject({ status: 'completed' });
  });

  it('still has logged only that one line about it', () => {
    expect(cellarLines(fx)).toHaveLength(1);
  });
});

describe('a Nuki lock in the config with credentials in the data folder', () => {
  let fx: CommandFixture;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ekey-nuki-paired-'));
    new NukiCredentialFile(dataDir).write({
      address: '54:D2:72:AB:CD:EF',
      sharedKey: SHARED_KEY,
      authorizationId: 3,
      appId: 0x4242,
      idType: 'app',
      authorizationName: 'ekey-locks (Homebridge)',
      lockUuid: '00112233445566778899aabbccddeeff',
      securityPin: 1234,
      pairedAt: Date.now(),
    });
    fx = await startCommandFixture({ config: { locks: [CELLAR] }, dataDir, signInOthers: false });
  });

  afterAll(async () => {
    await fx.test.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gets a working Nuki driver and logs nothing about pairing', () => {
    const gateway = fx.test.service.lockSubsystem.runtime.gateway;
    expect(gateway.getSnapshot(CELLAR_ID)?.family).toBe('nuki');
    expect(gateway.getSnapshot(CELLAR_ID)?.unusableReason).toBeNull();
    expect(cellarLines(fx).filter((line) => /pair/i.test(line.message))).toEqual([]);
  });

  it('never logs the shared key or the PIN', () => {
    const text = fx.test.logger.text();
    expect(text).not.toContain(SHARED_KEY.toString('hex'));
    expect(text).not.toContain(SHARED_KEY.toString('base64'));
  });

  it('keeps the demo Nuki on its own simulated pairing', () => {
    const gateway = fx.test.service.lockSubsystem.runtime.gateway;
    expect(gateway.getSnapshot(fx.backDoor)?.family).toBe('nuki');
    expect(gateway.getSnapshot(fx.backDoor)?.unusableReason).toBeNull();
  });
});

describe('a Nuki lock in the config with an unreadable credentials file', () => {
  let fx: CommandFixture;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ekey-nuki-corrupt-'));
    writeFileSync(join(dataDir, NUKI_CREDENTIALS_FILE), `{"version":1,"locks":{"54:D2:72:AB:CD:EF":{"shared_key":"${SHARED_KEY.toString('hex')}"`, { mode: 0o600 });
    fx = await startCommandFixture({ config: { locks: [CELLAR] }, dataDir, signInOthers: false });
    await untilOnline(fx, fx.frontDoor);
  });

  afterAll(async () => {
    await fx.test.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs one line naming the lock and the file, not the key; the rest runs', async () => {
    const lines = cellarLines(fx);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toMatch(/^Lock Cellar Door: this Nuki's credentials cannot be read \(.+ is not valid JSON\), so it stays offline\./);
    expect(lines[0]?.message).toContain(join(dataDir, NUKI_CREDENTIALS_FILE));
    expect(fx.test.logger.text()).not.toContain(SHARED_KEY.toString('hex'));
    expect(await fx.ownerLock(CELLAR_ID)).toMatchObject({ online_status: 'offline' });
    expect(await fx.ownerLock(fx.frontDoor)).toMatchObject({ online_status: 'online' });
  });
});
