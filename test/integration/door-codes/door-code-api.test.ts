/**
 * Door codes through the API (docs/design.md §4c) on the demo's Back Door, a simulated Nuki with
 * a keypad: `door_code` on POST/PUT /ekey and on every eKey answer, states that follow the lock's
 * confirmation, the code the lock itself judges, revoke and purge taking it off, codes of the
 * vendor's app left alone, 400 on a lock without a keypad, 404 for anyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DateTime } from 'luxon';
import { SimulatedNuki } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call, type ApiResponse } from '../ekeys/household.js';

interface DoorCode {
  code: string | null;
  state: string;
  enforced_by: string;
  failure_reason: string | null;
  updated_at: string;
}

type Key = Record<string, unknown> & { id: string; door_code: DoorCode | null };

describe('door codes on the API', () => {
  let test: TestService;
  let backDoor: string;
  let frontDoor: string;
  let nuki: SimulatedNuki;
  const tokens = new Map<string, string>();

  const tokenOf = async (index: number): Promise<string> => {
    const user = test.demo.users[index];
    const client = test.demo.clients[0];
    if (!user || !client) throw new Error('demo household incomplete');
    const known = tokens.get(user.email);
    if (known !== undefined) return known;
    const token = (await loginOverHttp({ baseUrl: test.baseUrl, client, email: user.email, password: user.password })).access_token;
    tokens.set(user.email, token);
    return token;
  };
  const owner = (): Promise<string> => tokenOf(0);
  const api = async (token: string, method: string, path: string, body?: unknown): Promise<ApiResponse> => call(test.baseUrl, token, method, path, body);
  const settled = async (): Promise<void> => {
    await test.service.lockSubsystem.doorCodeSync?.settled();
  };
  const keyOf = async (id: string): Promise<Key> => (await api(await owner(), 'GET', `/ekey/${id}`)).body as unknown as Key;

  beforeAll(async () => {
    test = await startTestService();
    await test.service.lockSubsystem.ready();
    for (const lock of test.demo.locks) {
      if (lock.name === 'Back Door') backDoor = lock.id;
      if (lock.name === 'Front Door') frontDoor = lock.id;
    }
    const simulated = test.service.demoSimulation?.locks.get(backDoor.toLowerCase());
    if (!(simulated instanceof SimulatedNuki)) throw new Error('Back Door is not a simulated Nuki');
    nuki = simulated;
  });

  afterAll(async () => {
    await test.close();
  });

  it('gives a sent key a code that the lock confirms, then opens the door with it; revoke takes it off', async () => {
    const alex = test.demo.users[1];
    if (!alex) throw new Error('no Alex');
    const sent = await api(await owner(), 'POST', '/ekey', { email: alex.email, lock_id: backDoor, type: 'anytime', door_code: true });
    expect(sent.status).toBe(201);
    const created = sent.body as unknown as Key;
    expect(created.door_code).toMatchObject({ state: 'setting', enforced_by: 'lock', failure_reason: null });
    const code = created.door_code?.code ?? '';
    expect(code).toMatch(/^[1-9]{6}$/);
    expect(code.startsWith('12')).toBe(false);
    await settled();
    expect((await keyOf(created.id)).door_code).toMatchObject({ code, state: 'set', enforced_by: 'lock', failure_reason: null });
    expect(nuki.keypadCodes().map((entry) => String(entry.code))).toContain(code);

    // The holder sees it on their own list.
    const own = await api(await tokenOf(1), 'GET', `/users/${alex.id}/ekeys`);
    const ownKey = (own.body as unknown as { ekeys: Key[] }).ekeys.find((key) => key.id === created.id);
    expect(ownKey?.door_code?.code).toBe(code);

    expect(nuki.typeCode(code, 'unlock')).toBe('accepted');

    const revoked = await api(await owner(), 'DELETE', `/ekey/${created.id}`);
    expect(revoked.status).toBe(200);
    // docs/design.md §4c: while the lock has not confirmed the removal, nobody sees the digits.
    expect((revoked.body as unknown as Key).door_code).toMatchObject({ state: 'removing', code: null });
    await settled();
    expect((await keyOf(created.id)).door_code).toMatchObject({ state: 'removed', code: null, failure_reason: null });
    expect(nuki.keypadCodes().map((entry) => String(entry.code))).not.toContain(code);
    expect(nuki.typeCode(code, 'unlock')).toBe('refused');
  });

  it('a schedule across midnight is enforced by the service: the lock holds the code disabled outside the window', async () => {
    const blake = test.demo.users[2];
    if (!blake) throw new Error('no Blake');
    const zone = test.service.repositories.locks.findById(backDoor)?.timeZone ?? 'UTC';
    // Start at 23:00 on the lock's clock, inside the 22:00–06:00 window, whatever the hour the test
    // runs at: 12 hours later (11:00) is outside it. From 18:00 or 06:00 both would be outside.
    const local = DateTime.fromMillis(test.clock.now(), { zone });
    let start = local.set({ hour: 23, minute: 0, second: 0, millisecond: 0 });
    if (start <= local) start = start.plus({ days: 1 });
    test.clock.advance(start.toMillis() - local.toMillis());
    tokens.clear(); // the access tokens expired meanwhile
    const sent = await api(await owner(), 'POST', '/ekey', {
      email: blake.email,
      lock_id: backDoor,
      type: 'scheduled',
      schedule_start: '0 22 * * * *',
      schedule_end: '0 6 * * * *',
      door_code: true,
    });
    expect(sent.status).toBe(201);
    const key = sent.body as unknown as Key;
    expect(key.door_code?.enforced_by).toBe('service');
    await settled();
    expect((await keyOf(key.id)).door_code?.state).toBe('set');
    const { isUsableAt } = await import('../../../src/domain/ekey-validity.js');
    const stored = test.service.repositories.ekeys.findById(key.id);
    if (!stored) throw new Error('key missing');
    const onLock = nuki.keypadCodes().find((entry) => String(entry.code) === key.door_code?.code);
    expect(onLock?.enabled).toBe(isUsableAt(stored, test.clock.now(), zone));
    // Move the clock 12 hours: the window's state flips, and the service flips the code.
    const before = onLock?.enabled;
    test.clock.advance(12 * 3_600_000);
    tokens.clear(); // the access tokens expired meanwhile
    await test.service.lockSubsystem.doorCodeSync?.reevaluate();
    await settled();
    const after = nuki.keypadCodes().find((entry) => String(entry.code) === key.door_code?.code);
    expect(after?.enabled).toBe(isUsableAt(stored, test.clock.now(), zone));
    expect(after?.enabled).toBe(!before);
    expect((await keyOf(key.id)).door_code?.state).toBe('set');
    // door_code false takes it away; true again gives a new code.
    const taken = await api(await owner(), 'PUT', `/ekey/${key.id}`, { door_code: false });
    expect((taken.body as unknown as Key).door_code?.state).toBe('removing');
    await settled();
    expect((await keyOf(key.id)).door_code).toMatchObject({ state: 'removed', code: null });
    const again = await api(await owner(), 'PUT', `/ekey/${key.id}`, { door_code: true });
    expect(again.status).toBe(200);
    const fresh = (again.body as unknown as Key).door_code;
    expect(fresh?.state).toBe('setting');
    expect(fresh?.code).not.toBe(key.door_code?.code);
    await settled();
    expect((await keyOf(key.id)).door_code?.state).toBe('set');
    await api(await owner(), 'DELETE', `/ekey/${key.id}?purge=true`);
    await settled();
    expect(nuki.keypadCodes().map((entry) => String(entry.code))).not.toContain(fresh?.code);
  });

  it('a pending key waits; nothing is on the lock until the invitee signs up', async () => {
    const sent = await api(await owner(), 'POST', '/ekey', { email: 'newcomer@example.org', lock_id: backDoor, type: 'guest', door_code: true });
    expect(sent.status).toBe(201);
    const key = sent.body as unknown as Key;
    expect(key.status).toBe('pending');
    expect(key.door_code).toMatchObject({ state: 'waiting', enforced_by: 'lock' });
    await settled();
    expect(nuki.keypadCodes().map((entry) => String(entry.code))).not.toContain(key.door_code?.code);
    await api(await owner(), 'DELETE', `/ekey/${key.id}`);
    expect((await keyOf(key.id)).door_code).toMatchObject({ state: 'removed', code: null });
  });

  it('the lock list says which lock has a keypad; the invitation page says a code waits in the app, never the code', async () => {
    const me = test.demo.users[0];
    if (!me) throw new Error('no owner');
    const locks = (await api(await owner(), 'GET', `/users/${me.id}/locks`)).body as unknown as { locks: { id: string; keypad: boolean }[] };
    expect(locks.locks.find((lock) => lock.id === backDoor)?.keypad).toBe(true);
    expect(locks.locks.find((lock) => lock.id === frontDoor)?.keypad).toBe(false);

    const invitationPage = async (email: string): Promise<string> => {
      const line = test.logger.lines.find((entry) => entry.message.includes(`invitation for ${email}`));
      const link = /acceptance link: (\S+)/.exec(line?.message ?? '')?.[1];
      if (link === undefined) throw new Error(`no invitation for ${email}`);
      return (await fetch(link, { headers: { accept: 'text/html' } })).text();
    };
    const withCode = await api(await owner(), 'POST', '/ekey', { email: 'door.guest@example.org', lock_id: backDoor, type: 'anytime', door_code: true });
    const code = (withCode.body as unknown as Key).door_code?.code ?? '';
    expect(code).toMatch(/^[1-9]{6}$/);
    const page = await invitationPage('door.guest@example.org');
    expect(page).toContain('It comes with a door code for the keypad at the door: you will find it in the app once you have signed up.');
    expect(page).not.toContain(code);
    const line = test.logger.lines.find((entry) => entry.message.includes('invitation for door.guest@example.org'));
    expect(line?.message).toContain('a door code waits in the app');

    await api(await owner(), 'POST', '/ekey', { email: 'plain.guest@example.org', lock_id: backDoor, type: 'anytime' });
    expect(await invitationPage('plain.guest@example.org')).not.toContain('door code');
  });

  it('codes made in the vendor app are never changed or removed', async () => {
    nuki.addVendorCode('999999');
    const casey = test.demo.users[3];
    if (!casey) throw new Error('no Casey');
    const sent = await api(await owner(), 'POST', '/ekey', { email: casey.email, lock_id: backDoor, type: 'anytime', door_code: true });
    const key = sent.body as unknown as Key;
    await settled();
    await api(await owner(), 'DELETE', `/ekey/${key.id}`);
    await settled();
    const vendor = nuki.keypadCodes().filter((entry) => entry.code === 999999);
    expect(vendor).toHaveLength(1);
    expect(vendor[0]).toMatchObject({ name: 'Nuki App', enabled: true });
  });

  it('door_code true on a lock without a keypad is 400 lock_has_no_keypad; false or absent is fine', async () => {
    const refused = await api(await owner(), 'POST', '/ekey', { email: 'someone@example.org', lock_id: frontDoor, type: 'guest', door_code: true });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('lock_has_no_keypad');
    const plain = await api(await owner(), 'POST', '/ekey', { email: 'someone@example.org', lock_id: frontDoor, type: 'guest', door_code: false });
    expect(plain.status).toBe(201);
    expect((plain.body as unknown as Key).door_code).toBeNull();
    const notBoolean = await api(await owner(), 'PUT', `/ekey/${(plain.body as unknown as Key).id}`, { door_code: 'yes' });
    expect(notBoolean.status).toBe(400);
  });

  it('no code in any log line', () => {
    const codes = test.service.repositories.doorCodes.listOpenByLock(backDoor).map((row) => row.code);
    for (const line of test.logger.lines) for (const code of codes) if (code !== null) expect(line.message).not.toContain(code);
  });
});
