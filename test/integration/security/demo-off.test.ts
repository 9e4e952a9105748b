/**
 * docs/design.md §9b, issue finding 5: demo accounts do not outlive the demo. Run the demo on a
 * data folder, then the service with `demo` off on the same folder: the demo's users can no longer
 * sign in (their passwords were printed), their tokens are dead, the demo's locks and client are
 * gone, one log line says so — and a user created by the operator is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceRoot } from '../../../src/service-root.js';
import { ManualClock } from '../../support/manual-clock.js';
import { loginOverHttp } from '../../support/oauth-login.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { startTestService } from '../../support/test-service.js';
import { call } from '../ekeys/household.js';
import { demoParts } from './demo-parts.js';

const SETUP_TIMEOUT_MS = 120_000;
const KEPT = { email: 'kept@example.org', name: 'Kept Person', password: 'kept-password-1' };

describe('demo off on the same storage (finding 5)', () => {
  let dataDir: string;
  let parts: ReturnType<typeof demoParts>;
  let demoToken: string;
  let keptId: string;
  let demoLocks: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ekey-demo-off-'));
    const demo = await startTestService({ dataDir });
    try {
      parts = demoParts(demo.demo);
      demoLocks = demo.demo.locks.length;
      demoToken = (await loginOverHttp({ baseUrl: demo.baseUrl, client: parts.client, email: parts.owner.email, password: parts.owner.password })).access_token;
      // A person the operator added (as `ekey-locks user add` does), holding a key on a demo lock.
      keptId = (await demo.service.services.users.create(KEPT)).id;
      expect((await call(demo.baseUrl, demoToken, 'POST', '/ekey', { email: KEPT.email, lock_id: parts.frontDoor, type: 'anytime' })).status).toBe(201);
    } finally {
      await demo.close();
    }
  }, SETUP_TIMEOUT_MS);

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startWithoutDemo(logger: RecordingLogger): Promise<{ service: ServiceRoot; baseUrl: string }> {
    const service = await ServiceRoot.open({
      config: { api: { oauth_rate_limit_per_minute: 10_000 } },
      dataDir,
      logger,
      clock: new ManualClock(Date.now()),
    });
    return { service, baseUrl: await service.listen(0, '127.0.0.1') };
  }

  it('removes the demo users, client and locks with one log line, and keeps the operator’s user', async () => {
    const logger = new RecordingLogger();
    const { service, baseUrl } = await startWithoutDemo(logger);
    try {
      const lines = logger.lines.filter((line) => line.message.startsWith('Demo is off'));
      expect(lines).toHaveLength(1);
      expect(lines[0]?.message).toContain(`4 user(s), ${demoLocks} lock(s)`);

      // The demo owner's printed password opens nothing, and their token is dead.
      for (const user of [parts.owner, ...parts.others]) {
        expect(service.services.users.findByEmail(user.email)).toBeUndefined();
      }
      expect((await call(baseUrl, demoToken, 'GET', '/me')).status).toBe(401);
      const refused = await fetch(`${baseUrl}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: new URLSearchParams({
          response_type: 'code',
          client_id: parts.client.client_id,
          redirect_uri: parts.client.redirect_uri,
          email: parts.owner.email,
          password: parts.owner.password,
        }).toString(),
      });
      expect(refused.status).toBe(400); // the demo client is gone too: an error page, no redirect
      expect(refused.headers.get('location')).toBeNull();
      expect(service.repositories.locks.findStored(parts.frontDoor)).toBeUndefined();

      // The operator's user is kept, password and all.
      const kept = service.services.users.findById(keptId);
      expect(kept?.email).toBe(KEPT.email);
      expect(kept?.passwordHash).not.toBeNull();
    } finally {
      await service.close();
    }
  }, SETUP_TIMEOUT_MS);

  it('says nothing more on the next start', async () => {
    const logger = new RecordingLogger();
    const { service } = await startWithoutDemo(logger);
    await service.close();
    expect(logger.text()).not.toContain('Demo is off');
  }, SETUP_TIMEOUT_MS);
});
