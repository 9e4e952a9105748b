/**
 * GET /users/{user_id}/ekeys (docs/design.md §7): one's own keys with their lock and usability — every
 * not_usable_because, next_usable_at across midnight and a DST change, 404 for anyone else — and
 * the same evaluation in the 403 of a refused command.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call, type ApiResponse } from './household.js';

const PASSWORD = 'correct horse battery';
const BERLIN = 'Europe/Berlin';

interface OwnKey {
  id: string;
  lock_id: string;
  lock_name: string;
  lock_time_zone: string;
  status: string;
  type: string;
  usable_now: boolean;
  not_usable_because: string | null;
  next_usable_at: string | null;
  usable_until: string | null;
}

describe('GET /users/{user_id}/ekeys', () => {
  let test: TestService;
  let ada: { id: string; email: string };
  let bo: { id: string; email: string };
  const locks: Record<'front' | 'garden' | 'back', string> = { front: '', garden: '', back: '' };
  const keys: Record<string, string> = {};

  const tokenOf = async (email: string): Promise<string> => {
    const client = test.demo.clients[0];
    if (!client) throw new Error('no demo client');
    return (await loginOverHttp({ baseUrl: test.baseUrl, client, email, password: PASSWORD })).access_token;
  };

  /** The user's own list at `instant` (the service clock is moved there; a fresh sign-in). */
  const listAt = async (user: { id: string; email: string }, instant: string): Promise<Map<string, OwnKey>> => {
    test.clock.set(Date.parse(instant));
    const answer = await call(test.baseUrl, await tokenOf(user.email), 'GET', `/users/${user.id}/ekeys`);
    expect(answer.status).toBe(200);
    const list = (answer.body as unknown as { ekeys: OwnKey[] }).ekeys;
    return new Map(list.map((key) => [key.lock_name, key]));
  };

  beforeAll(async () => {
    test = await startTestService();
    test.clock.set(Date.parse('2026-03-01T10:00:00Z'));
    const { repositories, services } = test.service;
    for (const info of test.demo.locks) {
      const record = repositories.locks.findById(info.id);
      if (!record) throw new Error('demo lock missing');
      // Every demo lock runs on Berlin time here, so the schedules below meet a DST change.
      repositories.locks.upsert({ ...record, timeZone: BERLIN });
      if (info.name === 'Front Door') locks.front = info.id;
      if (info.name === 'Garden Gate') locks.garden = info.id;
      if (info.name === 'Back Door') locks.back = info.id;
    }
    ada = { id: (await services.users.create({ email: 'ada@example.com', name: 'Ada', password: PASSWORD })).id, email: 'ada@example.com' };
    bo = { id: (await services.users.create({ email: 'bo@example.com', name: 'Bo', password: PASSWORD })).id, email: 'bo@example.com' };
    const owner = test.demo.users[0];
    if (!owner) throw new Error('no demo owner');
    const client = test.demo.clients[0];
    if (!client) throw new Error('no demo client');
    const ownerToken = (await loginOverHttp({ baseUrl: test.baseUrl, client, email: owner.email, password: owner.password })).access_token;
    const send = async (name: string, body: Record<string, unknown>): Promise<void> => {
      const answer: ApiResponse = await call(test.baseUrl, ownerToken, 'POST', '/ekey', body);
      if (answer.status !== 201) throw new Error(`${name}: ${answer.status} ${answer.text}`);
      keys[name] = String(answer.body.id);
    };
    // Ada: every night 22:00-06:00 on the Front Door; the Garden Gate from December; the Back Door revoked.
    await send('ada-front', { email: ada.email, lock_id: locks.front, type: 'scheduled', schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await send('ada-garden', { email: ada.email, lock_id: locks.garden, type: 'anytime', valid_from: '2026-12-01T00:00:00+01:00' });
    await send('ada-back', { email: ada.email, lock_id: locks.back, type: 'anytime' });
    expect((await call(test.baseUrl, ownerToken, 'DELETE', `/ekey/${keys['ada-back'] ?? ''}`)).status).toBe(200);
    // Bo: the Front Door at any time; the Garden Gate until 20 March; the Back Door waiting for acceptance.
    await send('bo-front', { email: bo.email, lock_id: locks.front, type: 'anytime' });
    await send('bo-garden', { email: bo.email, lock_id: locks.garden, type: 'anytime', valid_to: '2026-03-20T00:00:00+01:00' });
    await send('bo-back', { email: bo.email, lock_id: locks.back, type: 'anytime' });
    // No API turns an accepted key back to pending (only an invitation makes one, and its holder
    // cannot sign in before accepting): the store does, to show what a pending key reports.
    const stored = repositories.ekeys.findById(keys['bo-back'] ?? '');
    if (!stored) throw new Error('bo-back missing');
    repositories.ekeys.update({ ...stored, status: 'pending' });
  }, 120_000);

  afterAll(async () => {
    await test.close();
  });

  it('explains every reason, with the lock name and time zone', async () => {
    const adas = await listAt(ada, '2026-06-10T12:00:00Z');
    expect([...adas.keys()].sort()).toEqual(['Back Door', 'Front Door', 'Garden Gate']);
    expect(adas.get('Front Door')).toMatchObject({
      id: keys['ada-front'], lock_id: locks.front, lock_time_zone: BERLIN, type: 'scheduled', status: 'accepted',
      schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *',
      usable_now: false, not_usable_because: 'outside_schedule',
    });
    expect(adas.get('Garden Gate')).toMatchObject({
      usable_now: false, not_usable_because: 'not_yet_valid', next_usable_at: '2026-11-30T23:00:00.000Z', usable_until: null,
    });
    expect(adas.get('Back Door')).toMatchObject({ status: 'revoked', usable_now: false, not_usable_because: 'revoked', next_usable_at: null, usable_until: null });

    const bos = await listAt(bo, '2026-06-10T12:00:00Z');
    expect(bos.get('Front Door')).toMatchObject({ usable_now: true, not_usable_because: null, next_usable_at: null, usable_until: null });
    expect(bos.get('Garden Gate')).toMatchObject({ usable_now: false, not_usable_because: 'expired', next_usable_at: null, usable_until: null });
    expect(bos.get('Back Door')).toMatchObject({ status: 'pending', usable_now: false, not_usable_because: 'pending', next_usable_at: null, usable_until: null });
  }, 60_000);

  it('gives next_usable_at and usable_until across midnight, on the lock clock', async () => {
    // Wednesday 14:00 in Berlin (CEST): the night window opens 22:00 and closes 06:00 on Thursday.
    const noon = await listAt(ada, '2026-06-10T12:00:00Z');
    expect(noon.get('Front Door')).toMatchObject({ next_usable_at: '2026-06-10T20:00:00.000Z', usable_until: '2026-06-11T04:00:00.000Z' });
    // 01:00 on Thursday: inside the window, usable until 06:00.
    const night = await listAt(ada, '2026-06-10T23:00:00Z');
    expect(night.get('Front Door')).toMatchObject({ usable_now: true, not_usable_because: null, next_usable_at: null, usable_until: '2026-06-11T04:00:00.000Z' });
  }, 60_000);

  it('follows the lock clock through daylight-saving changes', async () => {
    // Saturday 28 March 2026: the window opens at 22:00 CET (21:00 UTC) and closes at 06:00 CEST
    // on Sunday (04:00 UTC) — seven hours, since the clocks go forward in between.
    const spring = await listAt(ada, '2026-03-28T12:00:00Z');
    expect(spring.get('Front Door')).toMatchObject({ next_usable_at: '2026-03-28T21:00:00.000Z', usable_until: '2026-03-29T04:00:00.000Z' });
    // Saturday 24 October 2026: opens 22:00 CEST (20:00 UTC), closes 06:00 CET (05:00 UTC) — nine hours.
    const autumn = await listAt(ada, '2026-10-24T12:00:00Z');
    expect(autumn.get('Front Door')).toMatchObject({ next_usable_at: '2026-10-24T20:00:00.000Z', usable_until: '2026-10-25T05:00:00.000Z' });
  }, 60_000);

  it('is 404 for anyone else, 401 without a token', async () => {
    test.clock.set(Date.parse('2026-06-10T12:00:00Z'));
    const adaToken = await tokenOf(ada.email);
    const others = await call(test.baseUrl, adaToken, 'GET', `/users/${bo.id}/ekeys`);
    expect(others.status).toBe(404);
    expect(others.contentType).toContain('application/problem+json');
    expect((await call(test.baseUrl, adaToken, 'GET', '/users/00000000-0000-4000-8000-000000000000/ekeys')).status).toBe(404);
    expect((await call(test.baseUrl, adaToken, 'GET', `/users/${ada.id.toUpperCase()}/ekeys`)).status).toBe(200);
    expect((await call(test.baseUrl, undefined, 'GET', `/users/${ada.id}/ekeys`)).status).toBe(401);
  }, 60_000);

  it('lists a purged key no more', async () => {
    test.clock.set(Date.parse('2026-06-10T12:00:00Z'));
    const adaToken = await tokenOf(ada.email);
    expect((await call(test.baseUrl, adaToken, 'DELETE', `/ekey/${keys['ada-back'] ?? ''}?purge=true`)).status).toBe(200);
    const after = await call(test.baseUrl, adaToken, 'GET', `/users/${ada.id}/ekeys`);
    expect((after.body as unknown as { ekeys: OwnKey[] }).ekeys.map((key) => key.lock_name).sort()).toEqual(['Front Door', 'Garden Gate']);
  }, 60_000);

  it('reports the same evaluation when a command is refused', async () => {
    const listed = (await listAt(ada, '2026-06-10T12:00:00Z')).get('Front Door');
    const refused = await call(test.baseUrl, await tokenOf(ada.email), 'POST', `/locks/${locks.front}/commands`, { type: 'unlock' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'ekey_not_usable',
      ekey_id: keys['ada-front'],
      lock_time_zone: BERLIN,
      not_usable_because: 'outside_schedule',
      next_usable_at: listed?.next_usable_at,
      usable_until: listed?.usable_until,
    });
    expect(refused.body.detail).toBe('Your eKey for Front Door is outside its schedule now. It works next from Wed 10 Jun 2026, 22:00 (Europe/Berlin) until Thu 11 Jun 2026, 06:00 (Europe/Berlin).');
    const expired = await call(test.baseUrl, await tokenOf(bo.email), 'POST', `/locks/${locks.garden}/commands`, { type: 'unlock' });
    expect(expired.body).toMatchObject({ status: 403, not_usable_because: 'expired', next_usable_at: null, usable_until: null });
  }, 60_000);
});
