/** The typed axios client against the real service: the README walk-through, in code. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiError, EKeyLocksClient } from '../../../src/client/index.js';
import { signInDemoUser } from '../../support/demo-process.js';
import { startTestService, type TestService } from '../../support/test-service.js';

/** Setup signs several users in (scrypt) and may share the machine with other suites. */
const SETUP_TIMEOUT_MS = 120_000;

let test: TestService;
let client: EKeyLocksClient;

beforeAll(async () => {
  test = await startTestService();
  const tokens = await signInDemoUser(test.baseUrl, test.demo);
  client = new EKeyLocksClient({ baseUrl: test.baseUrl, accessToken: () => tokens.access_token, userAgent: 'ekey-tests/1' });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await test.close();
});

describe('EKeyLocksClient', () => {
  it('sends a guest key, lists the keys, revokes it', async () => {
    const me = await client.me();
    const [frontDoor] = await client.listUserLocks(me.id);
    if (!frontDoor) throw new Error('owner sees no lock');
    const guest = test.demo.users[1];
    if (!guest) throw new Error('demo household incomplete');

    const key = await client.sendEKey({ email: guest.email, lock_id: frontDoor.id, type: 'guest', name: 'Weekend' });
    expect(key).toMatchObject({ type: 'guest', status: 'accepted', user_id: guest.id, name: 'Weekend' });
    expect((await client.getUser(guest.id)).name).toBe(guest.name);
    expect((await client.listLockEKeys(frontDoor.id)).map((entry) => entry.id)).toContain(key.id);
    expect((await client.updateEKey(key.id, { name: null })).name).toBeNull();
    expect((await client.revokeEKey(key.id)).status).toBe('revoked');
    expect((await client.getEKey(key.id)).status).toBe('revoked');
    expect((await client.deleteEKey(key.id)).status).toBe('revoked');
  });

  it('rejects with an ApiError carrying the problem code', async () => {
    const error = await client.getEKey('00000000-0000-4000-8000-000000000000').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
  });
});
