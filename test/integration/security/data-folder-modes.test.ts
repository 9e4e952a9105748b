/**
 * docs/design.md §9b, issue finding 4: under umask 022 the data folder is still 0700 and the
 * database (with -wal and -shm) and every secret file 0600; an existing install with wider modes
 * is repaired at start, with one log line.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loginOverHttp } from '../../support/oauth-login.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { startTestService } from '../../support/test-service.js';
import { call } from '../ekeys/household.js';
import { demoParts } from './demo-parts.js';

const SETUP_TIMEOUT_MS = 120_000;
const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('data folder modes (finding 4)', () => {
  let parent: string;
  let dataDir: string;
  let previousUmask: number;

  beforeAll(() => {
    previousUmask = process.umask(0o022);
    parent = mkdtempSync(join(tmpdir(), 'ekey-modes-'));
    dataDir = join(parent, 'ekey-locks');
  });

  afterAll(() => {
    process.umask(previousUmask);
    rmSync(parent, { recursive: true, force: true });
  });

  /** Starts the service on `dataDir`, writes through the API, and returns the modes while it runs. */
  let runs = 0;
  async function runOnce(logger: RecordingLogger): Promise<Map<string, number>> {
    runs += 1;
    const test = await startTestService({ dataDir, logger });
    try {
      const { owner, client, frontDoor } = demoParts(test.demo);
      const token = (await loginOverHttp({ baseUrl: test.baseUrl, client, email: owner.email, password: owner.password })).access_token;
      expect((await call(test.baseUrl, token, 'POST', '/ekey', { email: `modes-${runs}@example.org`, lock_id: frontDoor, type: 'guest' })).status).toBe(201);
      const modes = new Map<string, number>([['.', modeOf(dataDir)]]);
      for (const name of readdirSync(dataDir)) modes.set(name, modeOf(join(dataDir, name)));
      return modes;
    } finally {
      await test.close();
    }
  }

  it('creates the folder 0700 and the database, -wal, -shm and settings-page file 0600 under umask 022', async () => {
    const logger = new RecordingLogger();
    const modes = await runOnce(logger);
    expect(modes.get('.')).toBe(0o700);
    for (const name of ['ekey-locks.sqlite', 'ekey-locks.sqlite-wal', 'ekey-locks.sqlite-shm', 'settings-ui.json']) {
      expect([name, modes.get(name)]).toEqual([name, 0o600]);
    }
    for (const [name, mode] of modes) expect([name, mode & 0o077]).toEqual([name, 0]);
    expect(logger.text()).not.toContain('readable by other users');
  }, SETUP_TIMEOUT_MS);

  it('repairs an existing install with wide modes at start, with one log line', async () => {
    chmodSync(dataDir, 0o755);
    const secret = join(dataDir, 'nuki-credentials.json');
    writeFileSync(secret, '{"version":1,"locks":{}}\n', { mode: 0o644 });
    for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);
    const logger = new RecordingLogger();
    const modes = await runOnce(logger);
    expect(modes.get('.')).toBe(0o700);
    for (const [name, mode] of modes) expect([name, mode & 0o077]).toEqual([name, 0]);
    expect(modes.get('nuki-credentials.json')).toBe(0o600);
    expect(modes.get('ekey-locks.sqlite')).toBe(0o600);
    const repairLines = logger.lines.filter((line) => line.message.includes('readable by other users'));
    expect(repairLines).toHaveLength(1);
    expect(repairLines[0]?.message).toContain('nuki-credentials.json');
  }, SETUP_TIMEOUT_MS);
});
