/**
 * Issue #32, finding 2 (docs/design.md §4d): a guest could leave the building door open. The
 * Opener's modes are for owners and admins only (403 for others; a guest still opens the strike
 * once); a mode switched on by a key that ends — revoked, expired — is switched off by the service,
 * retried until the Opener confirms (also once it is back in reach); the lock list says which mode
 * is on and who set it; an owner can cap Continuous Mode. Real HTTP on loopback against the demo's
 * Building Door (a simulated Nuki Opener) rung through the demo's `ring` control line; time moves
 * on the service's manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginOverHttp } from '../../support/oauth-login.js';
import { readUntil } from '../../support/polling.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call, type ApiResponse } from '../ekeys/household.js';

type Body = Record<string, unknown>;

describe('the Opener’s modes (finding 2)', () => {
  let test: TestService;
  let buildingDoor: string;
  let frontDoor: string;
  const tokens = new Map<number, string>();
  const OWNER = 0;
  const ADMIN = 1;
  const GUEST = 2;
  const SECOND_ADMIN = 3;

  const userOf = (index: number): { id: string; email: string; password: string } => {
    const user = test.demo.users[index];
    if (!user) throw new Error(`no demo user ${index}`);
    return user;
  };
  const tokenOf = async (index: number): Promise<string> => {
    const known = tokens.get(index);
    if (known !== undefined) return known;
    const user = userOf(index);
    const client = test.demo.clients[0];
    if (!client) throw new Error('no client');
    const token = (await loginOverHttp({ baseUrl: test.baseUrl, client, email: user.email, password: user.password })).access_token;
    tokens.set(index, token);
    return token;
  };
  /** Moves the service's clock; access tokens may have expired, so everyone signs in again. */
  const advance = (ms: number): void => {
    test.clock.advance(ms);
    tokens.clear();
  };
  const api = async (index: number, method: string, path: string, body?: unknown): Promise<ApiResponse> => call(test.baseUrl, await tokenOf(index), method, path, body);
  const entryFor = async (index: number): Promise<Body> => {
    const locks = (await api(index, 'GET', `/users/${userOf(index).id}/locks`)).body.locks as unknown as Body[];
    const found = locks.find((lock) => lock.id === buildingDoor);
    if (!found) throw new Error('Building Door is not in the list');
    return found;
  };
  const modeOnceIs = async (mode: string): Promise<Body> => readUntil(() => entryFor(OWNER), (entry) => entry.opener_mode === mode);
  /** Runs a command as `index` and waits until it finished. */
  const command = async (index: number, type: string): Promise<Body> => {
    const created = await api(index, 'POST', `/locks/${buildingDoor}/commands`, { type });
    expect(created.status).toBe(201);
    return readUntil(
      async () => (await api(index, 'GET', `/locks/${buildingDoor}/commands/${String(created.body.id)}`)).body,
      (body) => body.status === 'completed' || body.status === 'failed',
    );
  };
  const control = async (line: Body): Promise<Body> => JSON.parse((await test.service.demoControl?.handleLine(JSON.stringify({ lock_id: buildingDoor, ...line }))) ?? '{}') as Body;
  /** Rings; whether the Opener opened the door on it (the ring event the owner sees). */
  const ringOpens = async (): Promise<boolean> => {
    expect(await control({ op: 'ring' })).toMatchObject({ ok: true });
    const [ring] = (await api(OWNER, 'GET', `/locks/${buildingDoor}/events?type=ring&limit=1`)).body.lock_events as Body[];
    return ring?.opened === true;
  };
  const sendKey = async (index: number, body: Body): Promise<string> => {
    const sent = await api(OWNER, 'POST', '/ekey', { email: userOf(index).email, lock_id: buildingDoor, ...body });
    expect(sent.status).toBe(201);
    return String(sent.body.id);
  };

  beforeAll(async () => {
    test = await startTestService();
    await test.service.lockSubsystem.ready();
    for (const lock of test.demo.locks) {
      if (lock.name === 'Building Door') buildingDoor = lock.id;
      if (lock.name === 'Front Door') frontDoor = lock.id;
    }
    await sendKey(GUEST, { type: 'anytime' });
  });

  afterAll(async () => {
    await test.close();
  });

  it('refuses the modes to a guest (403 mode_needs_admin), who may still open the strike once', async () => {
    for (const type of ['continuous_mode_on', 'ring_to_open_on', 'continuous_mode_off', 'ring_to_open_off']) {
      const answer = await api(GUEST, 'POST', `/locks/${buildingDoor}/commands`, { type });
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('mode_needs_admin');
    }
    expect(await command(GUEST, 'unlock')).toMatchObject({ status: 'completed' });
    expect((await entryFor(GUEST)).opener_mode).toBe('none');
    expect(await ringOpens()).toBe(false);
  });

  it('shows the mode and who set it; revoking the admin who set Continuous Mode switches it off, and the door stops opening on a ring', async () => {
    const adminKey = await sendKey(ADMIN, { type: 'admin' });
    expect(await command(ADMIN, 'continuous_mode_on')).toMatchObject({ status: 'completed' });
    const admin = userOf(ADMIN);
    expect(await modeOnceIs('continuous')).toMatchObject({ opener_mode: 'continuous', opener_mode_set_by: { id: admin.id }, opener_mode_until: null, continuous_mode_limit_minutes: null });
    // A guest sees the mode, not who set it.
    expect(await entryFor(GUEST)).toMatchObject({ opener_mode: 'continuous', opener_mode_set_by: null });
    expect(await ringOpens()).toBe(true);

    expect((await api(OWNER, 'DELETE', `/ekey/${adminKey}`)).status).toBe(200);
    expect(await modeOnceIs('none')).toMatchObject({ opener_mode: 'none', opener_mode_set_by: null });
    expect(await ringOpens()).toBe(false);
    // The owners and admins read why in the history: the service switched it off (no performer).
    const [switchedOff] = ((await api(OWNER, 'GET', `/locks/${buildingDoor}/events?type=lock&limit=1`)).body.lock_events as Body[]);
    expect(switchedOff).toMatchObject({ type: 'lock', mode: 'continuous_mode' });
    expect(switchedOff).not.toHaveProperty('performer');
  });

  it('switches Ring to Open off when the key of whoever set it expires', async () => {
    const expires = new Date(test.clock.now() + 3_600_000).toISOString();
    await sendKey(SECOND_ADMIN, { type: 'admin', valid_to: expires });
    expect(await command(SECOND_ADMIN, 'ring_to_open_on')).toMatchObject({ status: 'completed' });
    expect(await modeOnceIs('ring_to_open')).toMatchObject({ opener_mode_set_by: { id: userOf(SECOND_ADMIN).id } });
    advance(3_600_000);
    await test.service.openerModes.reevaluate();
    expect(await modeOnceIs('none')).toMatchObject({ opener_mode: 'none' });
    expect(await ringOpens()).toBe(false);
  });

  it('owes the switch-off while the Opener is out of reach, and makes it as soon as it is back', async () => {
    const adminKey = await sendKey(ADMIN, { type: 'admin' });
    expect(await command(ADMIN, 'continuous_mode_on')).toMatchObject({ status: 'completed' });
    await modeOnceIs('continuous');
    expect(await control({ op: 'offline' })).toMatchObject({ ok: true });
    expect((await api(OWNER, 'DELETE', `/ekey/${adminKey}`)).status).toBe(200);
    await test.service.openerModes.settled();
    // Out of reach the Opener still opens on every ring; the debt is stored, not forgotten.
    const row = test.service.db.prepare('SELECT mode, switching_off FROM opener_modes WHERE lock_id = ?').get(buildingDoor) as Body;
    expect(row).toEqual({ mode: 'continuous', switching_off: 'key_ended' });
    expect(await control({ op: 'online' })).toMatchObject({ ok: true });
    expect(await modeOnceIs('none')).toMatchObject({ opener_mode: 'none' });
    await test.service.openerModes.settled();
    expect(test.service.db.prepare('SELECT mode, switching_off FROM opener_modes WHERE lock_id = ?').get(buildingDoor)).toEqual({ mode: 'none', switching_off: null });
    expect(await ringOpens()).toBe(false);
  });

  it('lets an owner cap Continuous Mode: switched off when the cap runs out; only owners set it, only on an Opener', async () => {
    const cap = await api(OWNER, 'PUT', `/locks/${buildingDoor}/opener-settings`, { continuous_mode_limit_minutes: 30 });
    expect(cap.status).toBe(200);
    expect(cap.body).toEqual({ continuous_mode_limit_minutes: 30 });
    await sendKey(ADMIN, { type: 'admin' });
    const byAdmin = await api(ADMIN, 'PUT', `/locks/${buildingDoor}/opener-settings`, { continuous_mode_limit_minutes: null });
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 'owner_only']);
    expect((await api(GUEST, 'PUT', `/locks/${buildingDoor}/opener-settings`, { continuous_mode_limit_minutes: null })).status).toBe(403);
    const elsewhere = await api(OWNER, 'PUT', `/locks/${frontDoor}/opener-settings`, { continuous_mode_limit_minutes: 30 });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toMatchObject({ code: 'lock_has_no_opener_modes', errors: [{ field: '/continuous_mode_limit_minutes' }] });
    const tooLong = await api(OWNER, 'PUT', `/locks/${buildingDoor}/opener-settings`, { continuous_mode_limit_minutes: 0 });
    expect(tooLong.status).toBe(400);

    const onAt = test.clock.now();
    expect(await command(OWNER, 'continuous_mode_on')).toMatchObject({ status: 'completed' });
    expect(await modeOnceIs('continuous')).toMatchObject({ continuous_mode_limit_minutes: 30, opener_mode_until: new Date(onAt + 30 * 60_000).toISOString() });
    advance(29 * 60_000);
    await test.service.openerModes.reevaluate();
    expect((await entryFor(OWNER)).opener_mode).toBe('continuous');
    advance(60_000);
    await test.service.openerModes.reevaluate();
    expect(await modeOnceIs('none')).toMatchObject({ opener_mode: 'none', opener_mode_until: null });
    expect(await ringOpens()).toBe(false);
  });
});
