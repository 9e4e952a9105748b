/**
 * The demo's passwords after `listen` (src/service-options.ts `demoPasswordsAfterListen`, what the
 * service inside Homebridge does): a first start seeds the household with no password hashes, so
 * HomeKit gets the locks without waiting for four scrypt derivations; the demo line (and demo.json)
 * only comes once every login it lists works. A start cut short before the hashes were stored
 * gets them on the next start, whichever way that one hashes.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceRoot } from '../../../src/service-root.js';
import { hashDemoPasswords } from '../../../src/demo/demo-household.js';
import { DemoFile } from '../../../src/store/demo-file.js';
import { signInDemoUser } from '../../support/demo-process.js';
import { RecordingLogger } from '../../support/recording-logger.js';

const work = mkdtempSync(join(tmpdir(), 'ekey-demo-passwords-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const open = (dataDir: string, later: boolean): Promise<ServiceRoot> =>
  ServiceRoot.open({ config: { demo: true }, dataDir, logger: new RecordingLogger(), demoHistory: false, ...(later ? { demoPasswordsAfterListen: true } : {}) });

const storedHashes = (service: ServiceRoot): (string | null)[] =>
  (service.demo?.household.users ?? []).map((user) => service.repositories.users.findById(user.id)?.passwordHash ?? null);

describe('demo passwords hashed after listen', () => {
  it('opens with no hashes, listens, then gives the demo line once every login works', async () => {
    const dataDir = mkdtempSync(join(work, 'first-'));
    const service = await open(dataDir, true);
    try {
      const household = service.demo?.household;
      if (!household) throw new Error('no demo household');
      expect(household.users).toHaveLength(4);
      // Seeded, locks and all, but nobody can sign in yet.
      expect(storedHashes(service)).toEqual([null, null, null, null]);
      expect(service.repositories.locks.list().map((lock) => lock.name).sort()).toEqual(['Back Door', 'Building Door', 'Front Door', 'Garden Gate']);

      const url = await service.listen(0, '127.0.0.1');
      // Listening does not wait for the hashes; the line does.
      expect(service.demoInfo()).toBeUndefined();
      const line = await service.demoReady();
      expect(line?.base_url).toBe(url);
      expect(line?.users.map((user) => user.email)).toEqual(household.users.map((user) => user.email));
      for (const hash of storedHashes(service)) expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
      for (const user of household.users) {
        const tokens = await signInDemoUser(url, household, user.email);
        expect(tokens.access_token).toEqual(expect.any(String));
      }
      // demo.json is written with the line, not before.
      expect(existsSync(new DemoFile(dataDir).path)).toBe(true);
      expect(service.demoInfo()).toEqual(line);
    } finally {
      await service.close();
    }
  });

  it('a start stopped before the hashes were stored gets them on the next start', async () => {
    const dataDir = mkdtempSync(join(work, 'cut-'));
    const first = await open(dataDir, true);
    const household = first.demo?.household;
    await first.close();
    if (!household) throw new Error('no demo household');
    expect(existsSync(new DemoFile(dataDir).path)).toBe(false);

    // The next start hashes before open resolves (the CLI's way): the same household, now usable.
    const second = await open(dataDir, false);
    try {
      expect(second.demo?.household.users.map((user) => user.id)).toEqual(household.users.map((user) => user.id));
      for (const hash of storedHashes(second)) expect(hash).toMatch(/^scrypt\$/);
      const url = await second.listen(0, '127.0.0.1');
      expect((await second.demoReady())?.base_url).toBe(url);
      const tokens = await signInDemoUser(url, household, household.users[3]?.email);
      expect(tokens.access_token).toEqual(expect.any(String));
    } finally {
      await second.close();
    }
  });

  it('closing while the hashes are under way stores what it started and loses nothing', async () => {
    const dataDir = mkdtempSync(join(work, 'close-'));
    const first = await open(dataDir, true);
    await first.listen(0, '127.0.0.1');
    await first.close();
    // Whatever was hashed is kept; the rest follows on the next start.
    const second = await open(dataDir, true);
    try {
      const url = await second.listen(0, '127.0.0.1');
      const line = await second.demoReady();
      const household = second.demo?.household;
      if (!line || !household) throw new Error('no demo line');
      for (const hash of storedHashes(second)) expect(hash).toMatch(/^scrypt\$/);
      expect((await signInDemoUser(url, household)).access_token).toEqual(expect.any(String));
    } finally {
      await second.close();
    }
  });

  it('leaves a password set meanwhile alone', async () => {
    const dataDir = mkdtempSync(join(work, 'changed-'));
    const service = await open(dataDir, true);
    try {
      const household = service.demo?.household;
      const owner = household?.users[0];
      const stored = owner === undefined ? undefined : service.repositories.users.findById(owner.id);
      if (!household || !stored) throw new Error('no demo owner');
      service.repositories.users.update({ ...stored, passwordHash: 'scrypt$32768$8$1$set$meanwhile' });
      await hashDemoPasswords(service.repositories, household);
      expect(storedHashes(service)[0]).toBe('scrypt$32768$8$1$set$meanwhile');
      for (const hash of storedHashes(service).slice(1)) expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    } finally {
      await service.close();
    }
  });
});
