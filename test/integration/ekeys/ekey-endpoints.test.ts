/**
 * Every eKey endpoint and alias over real HTTP: success bodies, status codes, and bad input that
 * must always be a 4xx problem+json, never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildHousehold, call, type Household } from './household.js';

/** Setup signs several users in (scrypt) and may share the machine with other suites. */
const SETUP_TIMEOUT_MS = 120_000;

let household: Household;

beforeAll(async () => {
  household = await buildHousehold({ config: { users: [] } });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await household.test.close();
});

describe('POST /ekey', () => {
  it('answers 201 with the eKey in the spec field order, guest window 24 hours in lock time', async () => {
    const { members, frontDoor } = household;
    const answer = await household.request(members.owner, 'POST', '/ekey', {
      email: 'stranger@example.com',
      lock_id: frontDoor.id.toUpperCase(),
      type: 'guest',
      valid_from: '2026-06-10T14:00:00Z',
      message: 'See you at 4',
    });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(['id', 'name', 'type', 'status', 'valid_from', 'valid_to', 'schedule_start', 'schedule_end', 'message', 'user_id', 'lock_id', 'door_code']);
    expect(answer.body).toMatchObject({ type: 'guest', status: 'accepted', schedule_start: null, schedule_end: null, message: 'See you at 4', user_id: members.stranger.id, lock_id: frontDoor.id });
    expect(answer.body.valid_from).toMatch(/^\d{1,2}\/\d{1,2}\/2026 \d{1,2}:00:00 (AM|PM)$/);
    const again = await household.request(members.owner, 'POST', '/ekey', { email: 'STRANGER@example.com', lock_id: frontDoor.id, type: 'anytime' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('ekey_exists');
  });

  it('answers 401 without a token', async () => {
    const answer = await call(household.test.baseUrl, undefined, 'POST', '/ekey', { email: 'a@example.com', lock_id: household.frontDoor.id, type: 'guest' });
    expect(answer.status).toBe(401);
    expect(answer.contentType).toContain('application/problem+json');
  });

  const badBodies: [string, unknown, string?][] = [
    ['malformed JSON', '{"email": "a@example.com", ', 'malformed_json'],
    ['an array body', '[]'],
    ['a missing type', { email: 'a@example.com', lock_id: '00000000-0000-4000-8000-000000000000' }],
    ['an unknown type', { email: 'a@example.com', lock_id: '00000000-0000-4000-8000-000000000000', type: 'superuser' }],
    ['a number for email', { email: 42, lock_id: '00000000-0000-4000-8000-000000000000', type: 'guest' }],
    ['an unknown property', { email: 'a@example.com', lock_id: '00000000-0000-4000-8000-000000000000', type: 'guest', colour: 'red' }],
    ['an id in the body', { id: '00000000-0000-4000-8000-000000000001', email: 'a@example.com', lock_id: '00000000-0000-4000-8000-000000000000', type: 'guest' }],
    ['a bad UUID', { email: 'a@example.com', lock_id: 'front-door', type: 'guest' }],
  ];
  it.each(badBodies.map(([label, body, code]) => ({ label, body, code })))('answers 400 problem+json for $label', async ({ body, code }) => {
    const answer = await household.request(household.members.owner, 'POST', '/ekey', body);
    expect(answer.status).toBe(400);
    expect(answer.contentType).toContain('application/problem+json');
    expect(answer.body.code).toBe(code ?? 'validation_failed');
  });

  const badFields: [string, Record<string, unknown>, string][] = [
    ['an impossible date', { type: 'anytime', valid_to: '2/30/2027 1:00:00 PM' }, '/valid_to'],
    ['a 24-hour clock time', { type: 'anytime', valid_to: '2/3/2027 13:00:00' }, '/valid_to'],
    ['ISO without an offset', { type: 'anytime', valid_from: '2027-02-03T13:00:00' }, '/valid_from'],
    ['valid_to before valid_from', { type: 'anytime', valid_from: '2/3/2027 1:00:00 PM', valid_to: '2/2/2027 1:00:00 PM' }, '/valid_to'],
    ['a scheduled key without schedules', { type: 'scheduled' }, '/schedule_start'],
    ['a five-field schedule', { type: 'scheduled', schedule_start: '0 9 * * 1', schedule_end: '0 17 * * 1 *' }, '/schedule_start'],
    ['an hour out of range', { type: 'scheduled', schedule_start: '0 24 * * * *', schedule_end: '0 17 * * * *' }, '/schedule_start'],
    ['a day of month', { type: 'scheduled', schedule_start: '0 9 1 * * *', schedule_end: '0 17 * * * *' }, '/schedule_start'],
    ['a schedule on an anytime key', { type: 'anytime', schedule_start: '0 9 * * * *' }, '/schedule_start'],
    ['a guest valid_to', { type: 'guest', valid_to: '2/3/2027 1:00:00 PM' }, '/valid_to'],
    ['a bad e-mail', { type: 'guest', email: 'nobody' }, '/email'],
  ];
  it.each(badFields)('answers 400 with field errors for %s', async (_label, fields, field) => {
    const answer = await household.request(household.members.owner, 'POST', '/ekeys', { email: 'fresh@example.com', lock_id: household.frontDoor.id, ...fields });
    expect(answer.status).toBe(400);
    expect(answer.contentType).toContain('application/problem+json');
    expect((answer.body.errors as { field: string }[]).map((error) => error.field)).toContain(field);
  });

  it('answers 415 for a form body and 406 for Accept: text/html', async () => {
    const form = await household.request(household.members.owner, 'POST', '/ekey', 'email=a', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    const html = await household.request(household.members.owner, 'GET', `/ekey/${household.bystander.keyId}`, undefined, { accept: 'text/html' });
    expect(html.status).toBe(406);
  });
});

describe('every eKey and lock-list route', () => {
  const routes = (): [string, string, unknown?][] => [
    ['POST', '/ekey', { email: 'x@example.com', lock_id: household.frontDoor.id, type: 'guest' }],
    ['POST', '/ekeys', { email: 'x@example.com', lock_id: household.frontDoor.id, type: 'guest' }],
    ['GET', `/ekey/${household.bystander.keyId}`],
    ['GET', `/ekeys/${household.bystander.keyId}`],
    ['PUT', `/ekey/${household.bystander.keyId}`, { name: 'x' }],
    ['PUT', `/ekeys/${household.bystander.keyId}`, { name: 'x' }],
    ['DELETE', `/ekey/${household.bystander.keyId}`],
    ['DELETE', `/ekeys/${household.bystander.keyId}`],
    ['GET', `/locks/${household.frontDoor.id}/ekeys`],
    ['GET', `/users/${household.members.owner.id}/locks`],
    ['GET', `/user/${household.members.owner.id}/locks`],
  ];

  it('answers 401 problem+json with a Bearer challenge without a valid token, and changes nothing', async () => {
    for (const [method, path, body] of routes()) {
      for (const token of [undefined, 'not-a-real-token']) {
        const response = await fetch(`${household.test.baseUrl}${path}`, {
          method,
          headers: {
            accept: 'application/json',
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect([method, path, response.status]).toEqual([method, path, 401]);
        expect(response.headers.get('content-type')).toContain('application/problem+json');
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    }
    const still = await household.request(household.members.owner, 'GET', `/ekey/${household.bystander.keyId}`);
    expect(still.body.status).toBe('accepted');
  });

  it('answers 406 when Accept excludes JSON', async () => {
    for (const [method, path, body] of routes()) {
      const answer = await household.request(household.members.owner, method, path, body, { accept: 'text/html' });
      expect([method, path, answer.status]).toEqual([method, path, 406]);
    }
  });
});

describe('GET /ekey/{id}', () => {
  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const unknown = await household.request(household.members.owner, 'GET', '/ekey/00000000-0000-4000-8000-000000000000');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    const malformed = await household.request(household.members.owner, 'GET', '/ekeys/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.contentType).toContain('application/problem+json');
  });
});

describe('PUT /ekey/{id}', () => {
  it('ignores a body id, resets null properties and leaves absent ones', async () => {
    const { owner } = household.members;
    const target = household.bystander.keyId;
    const named = await household.request(owner, 'PUT', `/ekey/${target}`, { id: '00000000-0000-4000-8000-000000000000', name: 'Porch', message: 'Hello' });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ id: target, name: 'Porch', message: 'Hello' });
    const reset = await household.request(owner, 'PUT', `/ekeys/${target.toUpperCase()}`, { message: null });
    expect(reset.body).toMatchObject({ id: target, name: 'Porch', message: null });
  });

  it.each([
    ['an unknown property', { nickname: 'x' }],
    ['a wrong type', { name: 7 }],
    ['type null', { type: null }],
    ['a bad schedule', { schedule_start: 'every day' }],
    ['a bad date', { valid_to: 'tomorrow' }],
    ['malformed JSON', '{"name":'],
  ])('answers 400 problem+json for %s', async (_label, body) => {
    const answer = await household.request(household.members.owner, 'PUT', `/ekey/${household.bystander.keyId}`, body);
    expect(answer.status).toBe(400);
    expect(answer.contentType).toContain('application/problem+json');
  });
});

describe('DELETE /ekey/{id}', () => {
  it('returns the truthful revoked status and stops the key at once', async () => {
    const { owner } = household.members;
    const sent = await household.request(owner, 'POST', '/ekey', { email: 'doomed@example.com', lock_id: household.frontDoor.id, type: 'anytime' });
    const revoked = await household.request(owner, 'DELETE', `/ekey/${String(sent.body.id).toUpperCase()}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: sent.body.id, status: 'revoked' });
    expect(household.test.service.services.ekeys.usableKeyFor(String(sent.body.user_id), household.frontDoor.id, household.test.clock.now())).toBeUndefined();
  });

  it('answers 400 for purge=maybe', async () => {
    const answer = await household.request(household.members.owner, 'DELETE', `/ekey/${household.bystander.keyId}?purge=maybe`);
    expect(answer.status).toBe(400);
  });
});

describe('GET /locks/{lock_id}/ekeys', () => {
  it('answers 404 for an unknown lock and 400 for a malformed id', async () => {
    expect((await household.request(household.members.owner, 'GET', '/locks/00000000-0000-4000-8000-000000000000/ekeys')).status).toBe(404);
    expect((await household.request(household.members.owner, 'GET', '/locks/front/ekeys')).status).toBe(400);
  });
});

describe('GET /users/{user_id}/locks', () => {
  it('lists the lock with the spec fields first and useful extras', async () => {
    const answer = await household.request(household.members.anytime, 'GET', `/users/${household.members.anytime.id}/locks`);
    expect(answer.status).toBe(200);
    const [lock] = answer.body.locks ?? [];
    expect(Object.keys(lock ?? {})).toEqual(['id', 'name', 'bolt_state', 'online_status', 'time_zone', 'battery_level', 'last_seen_at', 'your_role', 'ekey_id', 'keypad']);
    expect(lock).toMatchObject({ id: household.frontDoor.id, name: 'Front Door', your_role: 'guest', ekey_id: household.members.anytime.keyId });
  });

  it('answers 400 for a malformed user id', async () => {
    expect((await household.request(household.members.owner, 'GET', '/user/me/locks')).status).toBe(400);
  });
});

describe('quota and withdrawn sending right over HTTP', () => {
  it('answers 402 ekey_quota_exhausted and 422 ekey_sending_withdrawn with problem+json', async () => {
    const { service } = household.test;
    const admin = household.members.admin;
    const record = service.repositories.users.findById(admin.id);
    if (!record) throw new Error('admin missing');
    const sentSoFar = service.repositories.ekeys.countLiveSentBy(admin.id);
    service.repositories.users.update({ ...record, ekeyQuota: sentSoFar });
    const quota = await household.request(admin, 'POST', '/ekey', { email: 'quota@example.com', lock_id: household.frontDoor.id, type: 'guest' });
    expect(quota.status).toBe(402);
    expect(quota.contentType).toContain('application/problem+json');
    expect(quota.body).toMatchObject({ status: 402, code: 'ekey_quota_exhausted' });

    service.repositories.users.update({ ...record, ekeyQuota: null, canSendEkeys: false });
    const withdrawn = await household.request(admin, 'POST', '/ekey', { email: 'withdrawn@example.com', lock_id: household.frontDoor.id, type: 'guest' });
    expect(withdrawn.status).toBe(422);
    expect(withdrawn.body).toMatchObject({ status: 422, code: 'ekey_sending_withdrawn' });
    service.repositories.users.update(record);
  });
});
