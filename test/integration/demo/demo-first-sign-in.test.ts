/**
 * The demo's passwords are hashed at each user's first sign-in (src/auth/password-check.ts,
 * src/demo/demo-household.ts): a start does no password work, the demo line comes as soon as the
 * API listens, and every login it lists works from then on; the first sign-in stores the user's
 * scrypt hash (the same parameters as every other), a wrong password stores nothing, and nothing
 * that does not know the demo's passwords can sign in with the stand-in.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceRoot } from '../../../src/service-root.js';
import { HASHED_AT_FIRST_SIGN_IN } from '../../../src/auth/password-check.js';
import { DemoFile } from '../../../src/store/demo-file.js';
import { call, signInDemoUser } from '../../support/demo-process.js';
import { OAuthLoginError, loginOverHttp } from '../../support/oauth-login.js';
import { RecordingLogger } from '../../support/recording-logger.js';

const work = mkdtempSync(join(tmpdir(), 'ekey-demo-passwords-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const open = (dataDir: string, demo = true): Promise<ServiceRoot> =>
  ServiceRoot.open({ config: { demo }, dataDir, logger: new RecordingLogger(), demoHistory: false, ...(demo ? {} : { applyConfig: false }) });

const storedHashes = (service: ServiceRoot, ids: readonly string[]): (string | null)[] =>
  ids.map((id) => service.repositories.users.findById(id)?.passwordHash ?? null);

/** A data folder whose demo household was seeded by one start, now closed; `prepare` runs on it before the close. */
async function seededFolder(prefix: string, prepare: (service: ServiceRoot) => void = () => undefined) {
  const dataDir = mkdtempSync(join(work, prefix));
  const first = await open(dataDir);
  const household = first.demo?.household;
  const owner = household?.users[0];
  const client = household?.clients[0];
  if (!household || !owner || !client) throw new Error('no demo household');
  prepare(first);
  await first.close();
  return { dataDir, household, owner, client };
}

const SCRYPT = /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/;

describe('demo passwords hashed at the first sign-in', () => {
  it('a first start stores no hash; the demo line and demo.json come with listen; each first sign-in stores its hash', async () => {
    const dataDir = mkdtempSync(join(work, 'first-'));
    const service = await open(dataDir);
    try {
      const household = service.demo?.household;
      if (!household) throw new Error('no demo household');
      const ids = household.users.map((user) => user.id);
      expect(storedHashes(service, ids)).toEqual(Array(4).fill(HASHED_AT_FIRST_SIGN_IN));
      // No plain password in the users table.
      for (const user of household.users) expect(storedHashes(service, [user.id])[0]).not.toContain(user.password);

      const url = await service.listen(0, '127.0.0.1');
      expect(service.demoInfo()?.base_url).toBe(url);
      expect(existsSync(new DemoFile(dataDir).path)).toBe(true);
      // The owner's invited-or-not status is "has a password" from the start: an eKey to Alex is accepted.
      const owner = await signInDemoUser(url, household);
      expect(storedHashes(service, ids)[0]).toMatch(SCRYPT);
      expect(storedHashes(service, ids).slice(1)).toEqual(Array(3).fill(HASHED_AT_FIRST_SIGN_IN));
      const frontDoor = household.locks.find((lock) => lock.name === 'Front Door');
      const sent = await call(url, 'POST', '/ekey', {
        token: owner.access_token,
        body: { lock_id: frontDoor?.id, email: household.users[1]?.email, type: 'anytime' },
      });
      expect(sent.status).toBe(201);
      expect(sent.json.status).toBe('accepted');

      for (const user of household.users.slice(1)) {
        expect((await signInDemoUser(url, household, user.email)).access_token).toEqual(expect.any(String));
      }
      const hashes = storedHashes(service, ids);
      for (const hash of hashes) expect(hash).toMatch(SCRYPT);
      // Signing in again checks against the stored hash and leaves it as it is.
      expect((await signInDemoUser(url, household)).access_token).toEqual(expect.any(String));
      expect(storedHashes(service, ids)).toEqual(hashes);
    } finally {
      await service.close();
    }
  });

  it('a wrong password fails and stores nothing; the right one works after it', async () => {
    const dataDir = mkdtempSync(join(work, 'wrong-'));
    const service = await open(dataDir);
    try {
      const household = service.demo?.household;
      const user = household?.users[2];
      const client = household?.clients[0];
      if (!household || !user || !client) throw new Error('no demo household');
      const url = await service.listen(0, '127.0.0.1');
      for (const password of [`${user.password}x`, user.password.slice(0, -1), '', household.users[1]?.password ?? 'other']) {
        await expect(loginOverHttp({ baseUrl: url, client, email: user.email, password })).rejects.toBeInstanceOf(OAuthLoginError);
      }
      expect(storedHashes(service, [user.id])).toEqual([HASHED_AT_FIRST_SIGN_IN]);
      expect((await loginOverHttp({ baseUrl: url, client, email: user.email, password: user.password })).access_token).toEqual(expect.any(String));
      expect(storedHashes(service, [user.id])[0]).toMatch(SCRYPT);
    } finally {
      await service.close();
    }
  });

  it('the stand-in signs nobody in where the demo passwords are not known, and a password set meanwhile stands', async () => {
    const { dataDir, owner, client } = await seededFolder('unknown-');

    // The same data folder opened without the demo (the CLI's tools do that): no known passwords.
    const tool = await open(dataDir, false);
    try {
      expect(tool.demo).toBeUndefined();
      expect(tool.repositories.users.findById(owner.id)?.passwordHash).toBe(HASHED_AT_FIRST_SIGN_IN);
      const url = await tool.listen(0, '127.0.0.1');
      await expect(loginOverHttp({ baseUrl: url, client, email: owner.email, password: owner.password })).rejects.toBeInstanceOf(OAuthLoginError);
      await expect(loginOverHttp({ baseUrl: url, client, email: owner.email, password: HASHED_AT_FIRST_SIGN_IN })).rejects.toBeInstanceOf(OAuthLoginError);
      expect(tool.repositories.users.findById(owner.id)?.passwordHash).toBe(HASHED_AT_FIRST_SIGN_IN);
    } finally {
      await tool.close();
    }

    // A reset from the command line sets a real hash: the next demo start keeps it, the printed password no longer signs in.
    const again = await open(dataDir);
    try {
      await again.services.passwords.reset(owner.email, 'a-new-password-123');
      const url = await again.listen(0, '127.0.0.1');
      await expect(loginOverHttp({ baseUrl: url, client, email: owner.email, password: owner.password })).rejects.toBeInstanceOf(OAuthLoginError);
      expect((await loginOverHttp({ baseUrl: url, client, email: owner.email, password: 'a-new-password-123' })).access_token).toEqual(expect.any(String));
    } finally {
      await again.close();
    }
  });

  it('a household stored by an earlier version with no hashes yet (a start cut short) signs in with its printed passwords', async () => {
    // What an earlier version left when stopped before hashing: the users with no password hash.
    const { dataDir, household } = await seededFolder('cut-', (first) => {
      for (const user of first.demo?.household.users ?? []) {
        const stored = first.repositories.users.findById(user.id);
        if (stored) first.repositories.users.update({ ...stored, passwordHash: null });
      }
    });

    const second = await open(dataDir);
    try {
      const ids = household.users.map((user) => user.id);
      expect(storedHashes(second, ids)).toEqual(Array(4).fill(HASHED_AT_FIRST_SIGN_IN));
      const url = await second.listen(0, '127.0.0.1');
      expect((await signInDemoUser(url, household, household.users[3]?.email)).access_token).toEqual(expect.any(String));
      expect(storedHashes(second, ids)[3]).toMatch(SCRYPT);
    } finally {
      await second.close();
    }
  });
});
