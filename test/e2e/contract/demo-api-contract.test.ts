/**
 * Black-box contract suite: drives the real `ekey-locks demo` CLI over HTTP and its stdin control
 * protocol, checking the API specification (docs/api.md) and the decisions of docs/design.md.
 * The tests in this file run in order against one demo process and build on each other.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from '../../../src/store/sqlite-driver.js';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, startDemo, type DemoProcess, type HttpAnswer } from '../../support/demo-process.js';
import { authorize, type OAuthTokens } from '../../support/oauth-login.js';
import { untilCommandFinished } from '../../support/polling.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const EKEY_DATETIME = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2}):(\d{2}) (AM|PM)$/;
const EKEY_FIELDS = ['id', 'name', 'type', 'status', 'valid_from', 'valid_to', 'schedule_start', 'schedule_end', 'message', 'user_id', 'lock_id', 'door_code'];
const NO_SUCH_ID = '0b5e0f4e-1111-4c1e-9a40-0c1b2a3d4e5f';

/** `M/D/YYYY h:mm:ss AM|PM` read as a naive wall-clock time (ms). */
function parseEKeyDateTime(text: unknown): number {
  const match = EKEY_DATETIME.exec(String(text));
  if (!match) throw new Error(`not an eKey DateTime: ${String(text)}`);
  const [, month, day, year, hour, minute, second, half] = match;
  const hour12 = Number(hour);
  expect(hour12).toBeGreaterThanOrEqual(1);
  expect(hour12).toBeLessThanOrEqual(12);
  const hour24 = (hour12 % 12) + (half === 'PM' ? 12 : 0);
  return Date.UTC(Number(year), Number(month) - 1, Number(day), hour24, Number(minute), Number(second));
}

/** Every error answer of the API is RFC 9457 problem+json with a stable code. */
function expectProblem(answer: HttpAnswer, status: number, code?: string): void {
  expect({ status: answer.status, text: answer.text.slice(0, 300) }).toMatchObject({ status });
  expect(answer.headers.get('content-type') ?? '').toMatch(/^application\/problem\+json/);
  expect(answer.json).toMatchObject({ status, type: expect.any(String), title: expect.any(String), code: expect.any(String) });
  if (code !== undefined) expect(answer.json.code).toBe(code);
}

let dataDir: string;
let demo: DemoProcess;
let base: string;
let owner: OAuthTokens;
let alex: OAuthTokens;
let stranger: OAuthTokens;
let gatewayLock: string;
let bareLock: string;
let nukiLock: string;
let openerLock: string;
/** Side Door, the demo's simulated TTLock (docs/design.md §4f). */
let ttlockLock: string;
let ownerId: string;
/** Every response body seen, to search for lock keys afterwards. */
const seenBodies: string[] = [];
/** The lock keys from the demo's database (secret: must never leave the service). */
let lockKeys: string[] = [];

const api = async (method: string, path: string, options: Parameters<typeof call>[3] = {}): Promise<HttpAnswer> => {
  const answer = await call(base, method, path, options);
  seenBodies.push(answer.text);
  return answer;
};
const asOwner = (method: string, path: string, body?: unknown): Promise<HttpAnswer> =>
  api(method, path, body === undefined ? { token: owner.access_token } : { token: owner.access_token, body });
const userIdAt = (index: number): string => demo.demo.users[index]?.id ?? '';
const emailAt = (index: number): string => demo.demo.users[index]?.email ?? '';

async function lockRow(lockId = gatewayLock): Promise<Record<string, unknown>> {
  const answer = await asOwner('GET', `/users/${ownerId}/locks`);
  expect(answer.status).toBe(200);
  const locks = answer.json.locks as Record<string, unknown>[];
  const row = locks.find((lock) => lock.id === lockId);
  if (!row) throw new Error(`lock ${lockId} not in the owner's list: ${answer.text}`);
  return row;
}

function pollCommand(commandId: string, path = `/locks/${gatewayLock}/commands/${commandId}`): Promise<Record<string, unknown>> {
  const read = async (): Promise<Record<string, unknown>> => {
    const answer = await asOwner('GET', path);
    expect(answer.status).toBe(200);
    return answer.json;
  };
  return untilCommandFinished(read, { timeoutMs: 8_000, everyMs: 50 });
}

async function eventCount(): Promise<number> {
  const answer = await asOwner('GET', `/locks/${gatewayLock}/events`);
  expect(answer.status).toBe(200);
  return (answer.json.metadata as { count: number }).count;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ekey-contract-'));
  demo = await startDemo({ dataDir });
  base = demo.demo.base_url;
  ownerId = userIdAt(0);
  gatewayLock = demo.demo.locks.find((lock) => lock.gateway)?.id ?? '';
  bareLock = demo.demo.locks.find((lock) => !lock.gateway)?.id ?? '';
  nukiLock = demo.demo.locks.find((lock) => lock.family === 'nuki')?.id ?? '';
  openerLock = demo.demo.locks.find((lock) => lock.family === 'nuki-opener')?.id ?? '';
  ttlockLock = demo.demo.locks.find((lock) => lock.family === 'ttlock')?.id ?? '';
  [owner, alex, stranger] = await Promise.all([demo.login(0), demo.login(1), demo.login(3)]);
}, 40_000);

afterAll(async () => {
  if (demo.child.process.exitCode === null) await demo.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('demo line', () => {
  it('is one JSON object with the documented shape: one owner with five locks (our profile, one without gateway, a Nuki Smart Lock, a Nuki Opener, a TTLock)', () => {
    const line = demo.demo;
    expect(Object.keys(line)).toEqual(['base_url', 'clients', 'users', 'locks']);
    expect(line.base_url).toMatch(/^http:\/\/[^/]+:\d+$/);
    expect(line.clients.length).toBeGreaterThanOrEqual(1);
    for (const client of line.clients) {
      expect(Object.keys(client).sort()).toEqual(['client_id', 'client_secret', 'redirect_uri']);
      expect(client.client_id).toMatch(UUID);
    }
    expect(line.users).toHaveLength(4);
    for (const user of line.users) expect(Object.keys(user).sort()).toEqual(['email', 'id', 'name', 'password']);
    expect(line.locks).toHaveLength(5);
    for (const lock of line.locks) {
      expect(Object.keys(lock).sort()).toEqual(['family', 'gateway', 'id', 'name', 'owner_id']);
      expect(lock.owner_id).toBe(ownerId);
    }
    expect(line.locks.map((lock) => [lock.name, lock.gateway, lock.family])).toEqual([
      ['Front Door', true, 'ekey'],
      ['Garden Gate', false, 'ekey'],
      ['Back Door', true, 'nuki'],
      ['Building Door', true, 'nuki-opener'],
      ['Side Door', true, 'ttlock'],
    ]);
  });
});

describe('OAuth', () => {
  it('authorization step: the form post redirects to the redirect_uri with a code and the state', async () => {
    const client = demo.demo.clients[0];
    const user = demo.demo.users[2];
    if (!client || !user) throw new Error('demo line incomplete');
    const code = await authorize({ baseUrl: base, client, email: user.email, password: user.password });
    expect(code.code.length).toBeGreaterThanOrEqual(16);
    // The code exchanges once (200 with the OAuth Token fields) ...
    const body = { grant_type: 'authorization_code', client_id: client.client_id, client_secret: client.client_secret, code: code.code };
    const first = await api('POST', '/oauth/token', { body });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: expect.any(Number) });
    expect(String(first.json.token_type).toLowerCase()).toBe('bearer');
    expect(Number.isInteger(first.json.expires_in)).toBe(true);
    // ... and never twice; the tokens issued from it are revoked (RFC 6749 §4.1.2).
    const second = await api('POST', '/oauth/token', { body });
    expect(second.status).toBe(400);
    expect(second.json.error).toBe('invalid_grant');
    expect((await api('GET', '/me', { token: String(first.json.access_token) })).status).toBe(401);
  });

  it('a wrong password issues no code; an unregistered redirect_uri is never redirected to', async () => {
    const client = demo.demo.clients[0];
    if (!client) throw new Error('no client');
    const params = { response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, state: 'st' };
    const post = (form: Record<string, string>): Promise<Response> =>
      fetch(`${base}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: new URLSearchParams(form).toString(),
      });
    const wrong = await post({ ...params, email: emailAt(0), password: 'not-the-password' });
    expect(wrong.headers.get('location') ?? '').not.toContain('code=');
    expect(wrong.status).not.toBe(302);
    expect(await wrong.text()).toMatch(/<form/i);
    const evil = await post({ ...params, redirect_uri: 'https://evil.example/cb', email: emailAt(0), password: demo.demo.users[0]?.password ?? '' });
    expect(evil.headers.get('location') ?? '').not.toContain('evil.example');
    expect(evil.status).toBeGreaterThanOrEqual(400);
  });

  it('rejects a wrong client_secret with 401 invalid_client', async () => {
    const client = demo.demo.clients[0];
    const answer = await api('POST', '/oauth/token', {
      body: { grant_type: 'refresh_token', client_id: client?.client_id, client_secret: 'wrong', refresh_token: alex.refresh_token },
    });
    expect(answer.status).toBe(401);
    expect(answer.json.error).toBe('invalid_client');
  });

  it('accepts the token request as application/x-www-form-urlencoded too', async () => {
    const client = demo.demo.clients[0];
    const answer = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: client?.client_id ?? '', client_secret: 'wrong', refresh_token: 'x' }).toString(),
    });
    // Parsed (client authentication failed), not refused as a media type.
    expect(answer.status).toBe(401);
  });
});

describe('authentication and content negotiation', () => {
  it('no token: 401 problem+json with WWW-Authenticate: Bearer', async () => {
    const answer = await api('GET', '/me');
    expectProblem(answer, 401);
    expect(answer.headers.get('www-authenticate') ?? '').toMatch(/^Bearer\b/);
  });

  it('an invalid token: 401 with error="invalid_token"', async () => {
    const answer = await api('GET', '/me', { token: 'not-a-real-token' });
    expectProblem(answer, 401);
    expect(answer.headers.get('www-authenticate') ?? '').toMatch(/^Bearer\b.*error="invalid_token"/);
  });

  it('matches the Bearer scheme case-insensitively', async () => {
    const answer = await api('GET', '/me', { headers: { authorization: `bearer ${owner.access_token}` } });
    expect(answer.status).toBe(200);
  });

  it('Accept excluding JSON: 406; missing Accept: treated as */*', async () => {
    expectProblem(await api('GET', '/me', { token: owner.access_token, headers: { accept: 'text/html' } }), 406);
    expectProblem(await api('GET', '/me', { token: owner.access_token, headers: { accept: 'application/xml' } }), 406);
    const none = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${owner.access_token}` } });
    expect(none.status).toBe(200);
  });

  it('a text/plain body: 415; malformed JSON: 400', async () => {
    const body = JSON.stringify({ email: emailAt(2), lock_id: gatewayLock, type: 'anytime' });
    expectProblem(await api('POST', '/ekey', { token: owner.access_token, rawBody: body, headers: { 'content-type': 'text/plain' } }), 415);
    expectProblem(await api('POST', '/ekey', { token: owner.access_token, rawBody: '{"email": "a@b.c",' }), 400);
    expectProblem(await api('POST', `/locks/${gatewayLock}/commands`, { token: owner.access_token, rawBody: '{type: lock}' }), 400);
  });
});

describe('users and lock lists', () => {
  it('GET /me is the current user {id, name}', async () => {
    const answer = await asOwner('GET', '/me');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ id: ownerId, name: demo.demo.users[0]?.name });
  });

  it('GET /users/{id} answers for oneself, with an upper-case id too', async () => {
    const answer = await asOwner('GET', `/users/${ownerId.toUpperCase()}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: ownerId, name: demo.demo.users[0]?.name });
  });

  it('GET /users/{id}/locks and the /user/{id}/locks alias list all five locks with the four spec fields first', async () => {
    for (const path of [`/users/${ownerId}/locks`, `/user/${ownerId}/locks`, `/users/${ownerId.toUpperCase()}/locks`]) {
      const answer = await asOwner('GET', path);
      expect(answer.status).toBe(200);
      const locks = answer.json.locks as Record<string, unknown>[];
      expect(locks.map((lock) => String(lock.id).toLowerCase()).sort()).toEqual([gatewayLock, bareLock, nukiLock, openerLock, ttlockLock].sort());
      for (const lock of locks) {
        expect(Object.keys(lock).slice(0, 4)).toEqual(['id', 'name', 'bolt_state', 'online_status']);
        expect(['locked', 'unlocked', 'jammed', 'unknown']).toContain(lock.bolt_state);
        expect(['online', 'offline']).toContain(lock.online_status);
      }
    }
    expect((await lockRow()).online_status).toBe('online');
  });

  it('a user without keys has an empty lock list', async () => {
    const answer = await api('GET', `/users/${userIdAt(3)}/locks`, { token: stranger.access_token });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ locks: [] });
  });
});

let guestKey: Record<string, unknown>;
let scheduledKey: Record<string, unknown>;
let adminKey: Record<string, unknown>;
let pendingKey: Record<string, unknown>;

describe('eKeys', () => {
  it('POST /ekey guest: 201 accepted, valid_to = valid_from + 24 h in M/D/YYYY h:mm:ss AM|PM, schedules null', async () => {
    const before = Date.now();
    const answer = await asOwner('POST', '/ekey', { email: emailAt(1), lock_id: gatewayLock, type: 'guest', message: 'Welcome' });
    expect(answer.status).toBe(201);
    guestKey = answer.json;
    expect(Object.keys(guestKey)).toEqual(expect.arrayContaining(EKEY_FIELDS));
    expect(guestKey).toMatchObject({ type: 'guest', status: 'accepted', user_id: userIdAt(1), lock_id: gatewayLock, message: 'Welcome' });
    expect(guestKey.id).toMatch(UUID);
    expect(guestKey.valid_from).toMatch(EKEY_DATETIME);
    expect(guestKey.valid_to).toMatch(EKEY_DATETIME);
    expect(guestKey.schedule_start).toBeNull();
    expect(guestKey.schedule_end).toBeNull();
    const from = parseEKeyDateTime(guestKey.valid_from);
    expect(parseEKeyDateTime(guestKey.valid_to) - from).toBe(24 * 3600 * 1000);
    // valid_from defaults to now (the demo runs with TZ=UTC and lock zone = host zone).
    expect(Math.abs(from - before)).toBeLessThan(120_000);
  });

  it('POST /ekey guest with an explicit valid_from keeps it and ends 24 h later', async () => {
    // Blake gets a guest key with a start date, then it is retyped below to scheduled.
    const answer = await asOwner('POST', '/ekey', { email: emailAt(2), lock_id: gatewayLock, type: 'guest', valid_from: '2/3/2030 9:05:00 AM' });
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ valid_from: '2/3/2030 9:05:00 AM', valid_to: '2/4/2030 9:05:00 AM', schedule_start: null, schedule_end: null });
    expect((await asOwner('DELETE', `/ekey/${String(answer.json.id)}?purge=true`)).status).toBe(200);
  });

  it('POST /ekey scheduled echoes the schedule expressions', async () => {
    const answer = await asOwner('POST', '/ekey', {
      email: emailAt(2),
      lock_id: gatewayLock,
      type: 'scheduled',
      schedule_start: '0 9 * * 1-5 *',
      schedule_end: '30 17 * * 1-5 *',
    });
    expect(answer.status).toBe(201);
    scheduledKey = answer.json;
    expect(scheduledKey).toMatchObject({ type: 'scheduled', status: 'accepted', schedule_start: '0 9 * * 1-5 *', schedule_end: '30 17 * * 1-5 *', user_id: userIdAt(2) });
  });

  it('POST /ekey admin and anytime (on the gateway-less lock) to existing users: accepted', async () => {
    const admin = await asOwner('POST', '/ekey', { email: emailAt(2), lock_id: bareLock, type: 'admin' });
    expect(admin.status).toBe(201);
    adminKey = admin.json;
    expect(adminKey).toMatchObject({ type: 'admin', status: 'accepted', lock_id: bareLock });
    expect([null, '* * * * * *']).toContain(adminKey.schedule_start);
    const anytime = await asOwner('POST', '/ekey', { email: emailAt(1).toUpperCase(), lock_id: bareLock.toUpperCase(), type: 'anytime' });
    expect(anytime.status).toBe(201);
    expect(anytime.json).toMatchObject({ type: 'anytime', status: 'accepted', user_id: userIdAt(1), lock_id: bareLock });
  });

  it('POST /ekey to an unknown e-mail: 201 pending', async () => {
    const answer = await asOwner('POST', '/ekey', { email: 'newcomer@example.org', lock_id: gatewayLock, type: 'anytime' });
    expect(answer.status).toBe(201);
    pendingKey = answer.json;
    expect(pendingKey).toMatchObject({ type: 'anytime', status: 'pending', lock_id: gatewayLock });
    expect(pendingKey.user_id).toMatch(UUID);
  });

  it('a second key for the same user and lock: 409 ekey_exists', async () => {
    expectProblem(await asOwner('POST', '/ekey', { email: emailAt(1), lock_id: gatewayLock, type: 'anytime' }), 409, 'ekey_exists');
  });

  it('an unknown lock: 404', async () => {
    expectProblem(await asOwner('POST', '/ekey', { email: emailAt(3), lock_id: NO_SUCH_ID, type: 'anytime' }), 404);
  });

  it.each([
    ['hour 24', { schedule_start: '0 24 * * 1 *', schedule_end: '0 17 * * 1 *' }],
    ['minute 60', { schedule_start: '60 9 * * 1 *', schedule_end: '0 17 * * 1 *' }],
    ['day of week 7', { schedule_start: '0 9 * * 7 *', schedule_end: '0 17 * * 1 *' }],
    ['day of month set', { schedule_start: '0 9 1 * 1 *', schedule_end: '0 17 * * 1 *' }],
    ['month set', { schedule_start: '0 9 * 5 1 *', schedule_end: '0 17 * * 1 *' }],
    ['sixth field set', { schedule_start: '0 9 * * 1 2026', schedule_end: '0 17 * * 1 *' }],
    ['five fields', { schedule_start: '0 9 * * 1', schedule_end: '0 17 * * 1' }],
    ['seven fields', { schedule_start: '0 9 * * 1 * *', schedule_end: '0 17 * * 1 *' }],
    ['missing schedule', {}],
    ['not a string', { schedule_start: 9, schedule_end: '0 17 * * 1 *' }],
  ])('schedule validation (%s): 400', async (_label, fields) => {
    expectProblem(await asOwner('POST', '/ekey', { email: emailAt(3), lock_id: gatewayLock, type: 'scheduled', ...fields }), 400, 'validation_failed');
  });

  it.each([
    ['2/30/2026', { valid_from: '2/30/2026 9:00:00 AM' }],
    ['2/29/2027 (not a leap year)', { valid_from: '2/29/2027 9:00:00 AM' }],
    ['month 13', { valid_from: '13/1/2030 9:00:00 AM' }],
    ['hour 13 PM', { valid_from: '1/1/2030 13:00:00 PM' }],
    ['hour 0', { valid_from: '1/1/2030 0:00:00 AM' }],
    ['minute 60', { valid_from: '1/1/2030 9:60:00 AM' }],
    ['no AM/PM', { valid_from: '1/1/2030 9:00:00' }],
    ['garbage', { valid_from: 'tomorrow' }],
    ['a number', { valid_from: 1_700_000_000 }],
    ['valid_to before valid_from', { valid_from: '1/2/2030 9:00:00 AM', valid_to: '1/1/2030 9:00:00 AM' }],
  ])('DateTime validation (%s): 400', async (_label, fields) => {
    expectProblem(await asOwner('POST', '/ekey', { email: emailAt(3), lock_id: gatewayLock, type: 'anytime', ...fields }), 400, 'validation_failed');
  });

  it.each([
    ['unknown property', { email: 'x@example.org', lock_id: NO_SUCH_ID, type: 'anytime', colour: 'red' }],
    ['id in a POST body', { email: 'x@example.org', lock_id: NO_SUCH_ID, type: 'anytime', id: NO_SUCH_ID }],
    ['unknown type', { email: 'x@example.org', lock_id: NO_SUCH_ID, type: 'superuser' }],
    ['missing email', { lock_id: NO_SUCH_ID, type: 'anytime' }],
    ['email an array', { email: ['x@example.org'], lock_id: NO_SUCH_ID, type: 'anytime' }],
    ['lock_id not a UUID', { email: 'x@example.org', lock_id: 'front-door', type: 'anytime' }],
    ['nested object', { email: 'x@example.org', lock_id: NO_SUCH_ID, type: 'anytime', message: { a: { b: { c: [1] } } } }],
    ['huge message', { email: 'x@example.org', lock_id: NO_SUCH_ID, type: 'anytime', message: 'x'.repeat(20_000) }],
    ['huge name', { email: 'x@example.org', lock_id: NO_SUCH_ID, type: 'anytime', name: 'n'.repeat(5_000) }],
    ['array body', [{ email: 'x@example.org', lock_id: NO_SUCH_ID, type: 'anytime' }]],
    ['null body', null],
    ['string body', 'anytime'],
  ])('POST /ekey with a bad body (%s): 400 problem, never 500', async (_label, body) => {
    expectProblem(await api('POST', '/ekey', { token: owner.access_token, rawBody: JSON.stringify(body) }), 400);
  });

  it('GET /ekey/{id}, /ekeys/{id} and an upper-case id answer the same key', async () => {
    const id = String(guestKey.id);
    for (const path of [`/ekey/${id}`, `/ekeys/${id}`, `/ekey/${id.toUpperCase()}`]) {
      const answer = await asOwner('GET', path);
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual(guestKey);
    }
    // The holder sees their own key too.
    expect((await api('GET', `/ekey/${id}`, { token: alex.access_token })).json).toEqual(guestKey);
    expectProblem(await asOwner('GET', '/ekey/not-a-uuid'), 400);
    expectProblem(await asOwner('GET', `/ekey/${NO_SUCH_ID}`), 404);
  });

  it('PUT /ekey/{id}: changes given fields, ignores an id in the body, leaves absent ones, resets null ones', async () => {
    const id = String(guestKey.id);
    const renamed = await asOwner('PUT', `/ekey/${id}`, { name: 'Alex (guest)', id: NO_SUCH_ID });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toEqual({ ...guestKey, name: 'Alex (guest)' });
    const reset = await asOwner('PUT', `/ekeys/${id.toUpperCase()}`, { message: null });
    expect(reset.status).toBe(200);
    expect(reset.json).toEqual({ ...guestKey, name: 'Alex (guest)', message: null });
    guestKey = reset.json;
    expect((await asOwner('GET', `/ekey/${id}`)).json).toEqual(guestKey);
  });

  it('PUT reschedules a scheduled key; a bad schedule or unknown property is 400', async () => {
    const id = String(scheduledKey.id);
    const changed = await asOwner('PUT', `/ekey/${id}`, { schedule_start: '0 8 * * 0,6 *' });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ schedule_start: '0 8 * * 0,6 *', schedule_end: '30 17 * * 1-5 *' });
    expectProblem(await asOwner('PUT', `/ekey/${id}`, { schedule_end: '0 9 * * 8 *' }), 400);
    expectProblem(await asOwner('PUT', `/ekey/${id}`, { colour: 'red' }), 400);
    expectProblem(await asOwner('PUT', `/ekey/${id}`, { valid_from: '2/30/2030 9:00:00 AM' }), 400);
    expectProblem(await asOwner('PUT', `/ekey/${id}`, { name: { first: 'x' } }), 400);
    expectProblem(await api('PUT', `/ekey/${id}`, { token: owner.access_token, rawBody: '[]' }), 400);
    expectProblem(await api('PUT', `/ekey/${id}`, { token: owner.access_token, rawBody: '{"name":' }), 400);
  });

  it('GET /locks/{id}/ekeys lists the lock keys under "ekeys"', async () => {
    const answer = await asOwner('GET', `/locks/${gatewayLock.toUpperCase()}/ekeys`);
    expect(answer.status).toBe(200);
    const keys = answer.json.ekeys as Record<string, unknown>[];
    const ids = keys.map((key) => key.id);
    expect(ids).toEqual(expect.arrayContaining([guestKey.id, scheduledKey.id, pendingKey.id]));
    expect(keys.some((key) => key.type === 'owner' && key.user_id === ownerId)).toBe(true);
    for (const key of keys) {
      expect(Object.keys(key)).toEqual(expect.arrayContaining(EKEY_FIELDS));
      expect(key.lock_id).toBe(gatewayLock);
    }
  });

  it('DELETE /ekey/{id} (and /ekeys/{id}) answers the key with status revoked', async () => {
    const answer = await asOwner('DELETE', `/ekeys/${String(pendingKey.id)}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ ...pendingKey, status: 'revoked' });
    expect((await asOwner('GET', `/ekey/${String(pendingKey.id)}`)).json.status).toBe('revoked');
  });
});

describe('permissions by role (spec table; docs/design.md §3 eKeys)', () => {
  let blake: OAuthTokens;
  let alexBareKey: string;
  let friendKey: string;

  beforeAll(async () => {
    blake = await demo.login(2);
    const keys = (await asOwner('GET', `/locks/${bareLock}/ekeys`)).json.ekeys as Record<string, unknown>[];
    alexBareKey = String(keys.find((key) => key.user_id === userIdAt(1))?.id);
  });

  it('the owner may read a user who holds a key on their lock', async () => {
    const answer = await asOwner('GET', `/users/${userIdAt(1)}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: userIdAt(1), name: demo.demo.users[1]?.name });
  });

  it('an admin sends keys (201) but not an owner key (403)', async () => {
    const sent = await api('POST', '/ekey', { token: blake.access_token, body: { email: 'friend@example.org', lock_id: bareLock, type: 'anytime' } });
    expect(sent.status).toBe(201);
    friendKey = String(sent.json.id);
    expectProblem(await api('POST', '/ekey', { token: blake.access_token, body: { email: 'boss@example.org', lock_id: bareLock, type: 'owner' } }), 403);
  });

  it('a guest-role holder (anytime) may not send (403) nor reschedule its key (403), but may rename it (200)', async () => {
    expectProblem(await api('POST', '/ekey', { token: alex.access_token, body: { email: 'pal@example.org', lock_id: bareLock, type: 'guest' } }), 403);
    expectProblem(await api('PUT', `/ekey/${alexBareKey}`, { token: alex.access_token, body: { valid_to: '1/1/2040 9:00:00 AM' } }), 403);
    const renamed = await api('PUT', `/ekey/${alexBareKey}`, { token: alex.access_token, body: { name: 'My gate key' } });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ id: alexBareKey, name: 'My gate key', type: 'anytime' });
  });

  it('an admin revokes a guest-role key (200 revoked) but not the owner key (403)', async () => {
    const revoked = await api('DELETE', `/ekey/${friendKey}`, { token: blake.access_token });
    expect(revoked.status).toBe(200);
    expect(revoked.json.status).toBe('revoked');
    const ownerKey = ((await asOwner('GET', `/locks/${bareLock}/ekeys`)).json.ekeys as Record<string, unknown>[]).find((key) => key.type === 'owner');
    expectProblem(await api('DELETE', `/ekey/${String(ownerKey?.id)}`, { token: blake.access_token }), 403);
  });

  it('the last owner key cannot be revoked: 409', async () => {
    const ownerKey = ((await asOwner('GET', `/locks/${bareLock}/ekeys`)).json.ekeys as Record<string, unknown>[]).find((key) => key.type === 'owner');
    expectProblem(await asOwner('DELETE', `/ekey/${String(ownerKey?.id)}`), 409, 'last_owner_key');
  });

  it('a guest-role holder deleting its own key gives it up', async () => {
    const gone = await api('DELETE', `/ekey/${alexBareKey}`, { token: alex.access_token });
    expect(gone.status).toBe(200);
    expect(gone.json.status).toBe('revoked');
    expectProblem(await asOwner('GET', `/ekey/${alexBareKey}`), 404);
  });

  it('an admin whose admin key was revoked may no longer send: 422', async () => {
    const revoked = await asOwner('DELETE', `/ekey/${String(adminKey.id)}`);
    expect(revoked.status).toBe(200);
    expectProblem(await api('POST', '/ekey', { token: blake.access_token, body: { email: 'late@example.org', lock_id: bareLock, type: 'guest' } }), 422);
  });
});

describe('a stranger (no key) never sees other users objects: 404', () => {
  it.each([
    ['GET /ekey/{id}', 'GET', () => `/ekey/${String(guestKey.id)}`, undefined],
    ['PUT /ekey/{id}', 'PUT', () => `/ekey/${String(guestKey.id)}`, { name: 'mine now' }],
    ['DELETE /ekey/{id}', 'DELETE', () => `/ekey/${String(guestKey.id)}`, undefined],
    ['GET /locks/{id}/ekeys', 'GET', () => `/locks/${gatewayLock}/ekeys`, undefined],
    ['GET /locks/{id}/events', 'GET', () => `/locks/${gatewayLock}/events`, undefined],
    ['POST /locks/{id}/commands', 'POST', () => `/locks/${gatewayLock}/commands`, { type: 'unlock' }],
    ['GET /users/{owner}', 'GET', () => `/users/${ownerId}`, undefined],
    ['GET /users/{owner}/locks', 'GET', () => `/users/${ownerId}/locks`, undefined],
    ['POST /ekey on their lock', 'POST', () => '/ekey', () => ({ email: emailAt(3), lock_id: gatewayLock, type: 'owner' })],
  ])('%s', async (_label, method, path, body) => {
    const payload: unknown = typeof body === 'function' ? body() : body;
    expectProblem(await api(method, path(), payload === undefined ? { token: stranger.access_token } : { token: stranger.access_token, body: payload }), 404);
    // Nothing changed on the way.
    expect((await asOwner('GET', `/ekey/${String(guestKey.id)}`)).json).toEqual(guestKey);
  });
});

let firstCommand: Record<string, unknown>;

describe('remote commands', () => {
  it('POST /locks/{ID}/commands (upper-case id) on the gateway lock: 201 processing/created, then completed', async () => {
    expect((await lockRow()).bolt_state).toBe('locked');
    const answer = await asOwner('POST', `/locks/${gatewayLock.toUpperCase()}/commands`, { type: 'unlock' });
    expect(answer.status).toBe(201);
    firstCommand = answer.json;
    expect(firstCommand).toMatchObject({ lock_id: gatewayLock, type: 'unlock' });
    expect(firstCommand.id).toMatch(UUID);
    expect(['created', 'processing']).toContain(firstCommand.status);
    expect(firstCommand.created_at).toMatch(ISO_MS_Z);
    const done = await pollCommand(String(firstCommand.id), `/locks/${gatewayLock.toUpperCase()}/commands/${String(firstCommand.id).toUpperCase()}`);
    expect(done).toMatchObject({ id: firstCommand.id, lock_id: gatewayLock, type: 'unlock', status: 'completed', created_at: firstCommand.created_at });
    expect((await lockRow()).bolt_state).toBe('unlocked');
  });

  it('a completed remote command is in the event history with the requester as performer', async () => {
    const answer = await asOwner('GET', `/locks/${gatewayLock}/events?limit=1`);
    expect(answer.status).toBe(200);
    const [event] = answer.json.lock_events as Record<string, unknown>[];
    expect(event).toMatchObject({ type: 'unlock', lock_id: gatewayLock, performer: { id: ownerId, name: demo.demo.users[0]?.name } });
  });

  it('the gateway-less lock: 400', async () => {
    expectProblem(await asOwner('POST', `/locks/${bareLock}/commands`, { type: 'lock' }), 400);
  });

  it.each([
    ['unknown type', { type: 'open' }],
    ['type array', { type: ['lock'] }],
    ['missing type', {}],
    ['extra property', { type: 'lock', force: true }],
  ])('a bad command body (%s): 400', async (_label, body) => {
    expectProblem(await asOwner('POST', `/locks/${gatewayLock}/commands`, body), 400);
  });

  it('bad or unknown ids in command paths: 400 / 404', async () => {
    expectProblem(await asOwner('POST', '/locks/not-a-uuid/commands', { type: 'lock' }), 400);
    expectProblem(await asOwner('GET', `/locks/${gatewayLock}/commands/not-a-uuid`), 400);
    expectProblem(await asOwner('GET', `/locks/${gatewayLock}/commands/${NO_SUCH_ID}`), 404);
    expectProblem(await asOwner('GET', `/locks/${bareLock}/commands/${String(firstCommand.id)}`), 404);
    expectProblem(await asOwner('POST', `/locks/${NO_SUCH_ID}/commands`, { type: 'lock' }), 404);
  });

  it('a key holder may command; another user never reads the owners command', async () => {
    const own = await api('POST', `/locks/${gatewayLock}/commands`, { token: alex.access_token, body: { type: 'lock' } });
    expect(own.status).toBe(201);
    expect(own.json.requested_by ?? userIdAt(1)).toBe(userIdAt(1));
    const done = await pollCommand(String(own.json.id));
    expect(done.status).toBe('completed');
    expectProblem(await api('GET', `/locks/${gatewayLock}/commands/${String(firstCommand.id)}`, { token: stranger.access_token }), 404);
  });
});

describe('control lines and events', () => {
  let tapUnlockId: string;

  it('tap with an eKey id: an unlock event with that key user as performer; the answer echoes the id', async () => {
    const before = await eventCount();
    const answer = await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: guestKey.id, action: 'unlock' });
    expect(answer.ok).toBe(true);
    expect(String(answer.id)).toMatch(/^ctl-/);
    expect(await eventCount()).toBe(before + 1);
    const page = await asOwner('GET', `/locks/${gatewayLock}/events?limit=1`);
    const [event] = page.json.lock_events as Record<string, unknown>[];
    expect(event).toMatchObject({ type: 'unlock', lock_id: gatewayLock, performer: { id: userIdAt(1), name: demo.demo.users[1]?.name } });
    expect(event?.id).toMatch(UUID);
    expect(event?.timestamp).toMatch(ISO_MS_Z);
    expect(event).not.toHaveProperty('value');
    tapUnlockId = String(event?.id);
    expect((await lockRow()).bolt_state).toBe('unlocked');
  });

  it('tap lock with an upper-case lock id works as well', async () => {
    const answer = await demo.control({ op: 'tap', lock_id: gatewayLock.toUpperCase(), ekey_id: String(guestKey.id).toUpperCase(), action: 'lock' });
    expect(answer.ok).toBe(true);
    const page = await asOwner('GET', `/locks/${gatewayLock}/events?limit=1`);
    expect((page.json.lock_events as Record<string, unknown>[])[0]).toMatchObject({ type: 'lock', performer: { id: userIdAt(1) } });
    expect((await lockRow()).bolt_state).toBe('locked');
  });

  it('manual turn: the bolt changes but no event is recorded', async () => {
    const before = await eventCount();
    expect((await demo.control({ op: 'manual', lock_id: gatewayLock, bolt: 'unlocked' })).ok).toBe(true);
    expect((await lockRow()).bolt_state).toBe('unlocked');
    expect(await eventCount()).toBe(before);
    expect((await demo.control({ op: 'manual', lock_id: gatewayLock, bolt: 'locked' })).ok).toBe(true);
    expect((await lockRow()).bolt_state).toBe('locked');
    expect(await eventCount()).toBe(before);
    // Proof that nothing is merely late: a tap after the turns is answered once the service has
    // stored the lock's activity up to the tap, the turns' records included — only the tap counts.
    expect((await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: guestKey.id, action: 'unlock' })).ok).toBe(true);
    const page = await asOwner('GET', `/locks/${gatewayLock}/events?limit=200`);
    expect(page.json.metadata).toMatchObject({ count: before + 1 });
    expect((page.json.lock_events as Record<string, unknown>[])[0]).toMatchObject({ type: 'unlock', performer: { id: userIdAt(1) } });
    expect((await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: guestKey.id, action: 'lock' })).ok).toBe(true);
    expect((await lockRow()).bolt_state).toBe('locked');
  });

  it('battery 0.42: a battery event with value 0.42 and no performer', async () => {
    expect((await demo.control({ op: 'battery', lock_id: gatewayLock, level: 0.42 })).ok).toBe(true);
    const page = await asOwner('GET', `/locks/${gatewayLock}/events?type=battery&limit=1`);
    expect(page.status).toBe(200);
    const [event] = page.json.lock_events as Record<string, unknown>[];
    expect(event).toMatchObject({ type: 'battery', lock_id: gatewayLock, value: 0.42 });
    expect(event).not.toHaveProperty('performer');
    expect(event?.timestamp).toMatch(ISO_MS_Z);
  });

  it('malformed and unknown control lines answer ok:false (id echoed) and the demo keeps running', async () => {
    const unknown = await demo.control({ op: 'explode', lock_id: gatewayLock });
    expect(unknown.ok).toBe(false);
    expect(typeof unknown.error).toBe('string');
    expect(String(unknown.id)).toMatch(/^ctl-/);
    const garbage = await demo.controlRaw('this is not json');
    expect(garbage.ok).toBe(false);
    const badLevel = await demo.control({ op: 'battery', lock_id: gatewayLock, level: 7 });
    expect(badLevel.ok).toBe(false);
    expect((await asOwner('GET', '/me')).status).toBe(200);
  });

  it('events: newest first, type filter, count, limit, next/previous links that walk every event once', async () => {
    const all = await asOwner('GET', `/locks/${gatewayLock}/events?limit=200`);
    expect(all.status).toBe(200);
    const events = all.json.lock_events as Record<string, unknown>[];
    const metadata = all.json.metadata as Record<string, unknown>;
    expect(metadata.limit).toBe(200);
    expect(metadata.count).toBe(events.length);
    expect(events.length).toBeGreaterThanOrEqual(5);
    const stamps = events.map((event) => Date.parse(String(event.timestamp)));
    expect([...stamps].sort((a, b) => b - a)).toEqual(stamps);
    for (const event of events) {
      expect(['lock', 'unlock', 'battery']).toContain(event.type);
      if (event.type === 'battery') expect(event).not.toHaveProperty('performer');
      else expect(event.performer).toEqual({ id: expect.stringMatching(UUID), name: expect.any(String) });
    }

    const filtered = await asOwner('GET', `/locks/${gatewayLock}/events?type=lock,unlock`);
    const filteredEvents = filtered.json.lock_events as Record<string, unknown>[];
    expect(filteredEvents.every((event) => event.type !== 'battery')).toBe(true);
    expect((filtered.json.metadata as Record<string, unknown>).count).toBe(events.filter((event) => event.type !== 'battery').length);

    // Walk with limit=2 via next, then back via previous.
    const visited: unknown[] = [];
    let page = await asOwner('GET', `/locks/${gatewayLock}/events?limit=2`);
    expect((page.json.metadata as Record<string, unknown>).previous).toBeUndefined();
    const pages: HttpAnswer[] = [page];
    for (;;) {
      expect(page.status).toBe(200);
      const pageEvents = page.json.lock_events as Record<string, unknown>[];
      expect(pageEvents.length).toBeLessThanOrEqual(2);
      visited.push(...pageEvents.map((event) => event.id));
      const next = (page.json.metadata as Record<string, unknown>).next;
      if (typeof next !== 'string') break;
      expect(next.startsWith('/')).toBe(true);
      expect(next).toMatch(/[?&]limit=2(&|$)/);
      expect(next).toMatch(/[?&]after=[0-9a-f-]{36}/);
      page = await asOwner('GET', next);
      pages.push(page);
    }
    expect(visited).toEqual(events.map((event) => event.id));
    const last = pages[pages.length - 1];
    const previous = (last?.json.metadata as Record<string, unknown>).previous;
    if (pages.length > 1) {
      expect(typeof previous).toBe('string');
      const back = await asOwner('GET', String(previous));
      expect(back.status).toBe(200);
      expect(back.json.lock_events).toEqual(pages[pages.length - 2]?.json.lock_events);
    }

    // after = an event id starts right after it.
    const after = await asOwner('GET', `/locks/${gatewayLock}/events?after=${tapUnlockId}&limit=200`);
    const index = events.findIndex((event) => event.id === tapUnlockId);
    expect((after.json.lock_events as Record<string, unknown>[]).map((event) => event.id)).toEqual(events.slice(index + 1).map((event) => event.id));
    // before = the newer neighbours, still newest first.
    const before = await asOwner('GET', `/locks/${gatewayLock}/events?before=${tapUnlockId}&limit=1`);
    expect((before.json.lock_events as Record<string, unknown>[]).map((event) => event.id)).toEqual([events[index - 1]?.id]);
  });

  it.each([
    ['limit=0', 'limit=0'],
    ['limit=201', 'limit=201'],
    ['limit=abc', 'limit=abc'],
    ['type=foo', 'type=foo'],
    ['unknown after', `after=${NO_SUCH_ID}`],
    ['after not a UUID', 'after=xyz'],
  ])('event query %s: 400', async (_label, query) => {
    expectProblem(await asOwner('GET', `/locks/${gatewayLock}/events?${query}`), 400);
  });

  it('the SSE stream delivers a tap as an id:/data: message with the LockEvent JSON', async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/locks/${gatewayLock.toUpperCase()}/events/stream`, {
      headers: { authorization: `Bearer ${owner.access_token}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type') ?? '').toMatch(/^text\/event-stream/);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no stream body');
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (predicate: () => boolean, ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!predicate() && Date.now() < deadline) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<null>((resolve) => {
          timer = setTimeout(() => {
            resolve(null);
          }, deadline - Date.now());
        });
        const chunk = await Promise.race([reader.read(), timeout]);
        clearTimeout(timer);
        if (chunk === null || chunk.done) break;
        text += decoder.decode(chunk.value as Uint8Array, { stream: true });
      }
    };
    try {
      await readUntil(() => text.includes(':'), 3_000);
      expect((await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: guestKey.id, action: 'unlock' })).ok).toBe(true);
      await readUntil(() => /data: .*"unlock"/.test(text), 5_000);
      const block = text.split('\n\n').find((part) => part.includes('data: ') && part.includes('"unlock"')) ?? '';
      const id = /^id: (.+)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.+)$/m.exec(block)?.[1] ?? '{}') as Record<string, unknown>;
      expect(data).toMatchObject({ type: 'unlock', lock_id: gatewayLock, performer: { id: userIdAt(1) } });
      expect(id).toBe(data.id);
    } finally {
      controller.abort();
    }
    expect((await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: guestKey.id, action: 'lock' })).ok).toBe(true);
  });

  it('a restricted holder (guest) sees only the events they performed, never battery events', async () => {
    const page = await api('GET', `/locks/${gatewayLock}/events?limit=200`, { token: alex.access_token });
    expect(page.status).toBe(200);
    const events = page.json.lock_events as Record<string, unknown>[];
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect(event.performer).toMatchObject({ id: userIdAt(1) });
  });

  it('jam: the next motorised command fails with failure_reason jammed and bolt_state becomes jammed', async () => {
    expect((await lockRow()).bolt_state).toBe('locked');
    expect((await demo.control({ op: 'jam', lock_id: gatewayLock })).ok).toBe(true);
    const answer = await asOwner('POST', `/locks/${gatewayLock}/commands`, { type: 'unlock' });
    expect(answer.status).toBe(201);
    const done = await pollCommand(String(answer.json.id));
    expect(done).toMatchObject({ status: 'failed', failure_reason: 'jammed' });
    expect((await lockRow()).bolt_state).toBe('jammed');
    // A manual turn clears the jam.
    expect((await demo.control({ op: 'manual', lock_id: gatewayLock, bolt: 'locked' })).ok).toBe(true);
    expect((await lockRow()).bolt_state).toBe('locked');
  });

  it('offline: online_status offline within 5 s and commands 400; online again: commands work', async () => {
    // The demo answers plainly ok only once the service shows the lock offline, and adds
    // observed:false when its 5 s window (docs/design.md §6) runs out first — the window is the demo's own.
    const offline = await demo.control({ op: 'offline', lock_id: gatewayLock }, 10_000);
    expect(offline.ok).toBe(true);
    expect(offline).not.toHaveProperty('observed');
    expect((await lockRow()).online_status).toBe('offline');
    expectProblem(await asOwner('POST', `/locks/${gatewayLock}/commands`, { type: 'unlock' }), 400);

    const online = await demo.control({ op: 'online', lock_id: gatewayLock }, 10_000);
    expect(online.ok).toBe(true);
    expect(online).not.toHaveProperty('observed');
    expect((await lockRow()).online_status).toBe('online');
    const command = await asOwner('POST', `/locks/${gatewayLock}/commands`, { type: 'unlock' });
    expect(command.status).toBe(201);
    expect((await pollCommand(String(command.json.id))).status).toBe('completed');
  });
});

describe('revocation takes effect at once (docs/design.md §3: "the key stops working at once")', () => {
  it('a tap with a revoked eKey neither moves the bolt nor records an event for its holder', async () => {
    expect((await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: guestKey.id, action: 'lock' })).ok).toBe(true);
    expect((await lockRow()).bolt_state).toBe('locked');
    const revoked = await asOwner('DELETE', `/ekey/${String(guestKey.id)}`);
    expect(revoked.json.status).toBe('revoked');
    const before = await eventCount();
    await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: guestKey.id, action: 'unlock' });
    expect({ bolt: (await lockRow()).bolt_state, events: await eventCount() }).toEqual({ bolt: 'locked', events: before });
    // Proof that nothing is merely late: the owner's tap after it is answered once the service has
    // stored the lock's activity up to that tap — a record of the refused tap would be stored by then.
    const keys = (await asOwner('GET', `/locks/${gatewayLock}/ekeys`)).json.ekeys as Record<string, unknown>[];
    const ownerKey = keys.find((key) => key.type === 'owner' && key.user_id === ownerId);
    expect(ownerKey).toBeDefined();
    expect((await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: ownerKey?.id, action: 'unlock' })).ok).toBe(true);
    const page = await asOwner('GET', `/locks/${gatewayLock}/events?limit=200`);
    expect(page.json.metadata).toMatchObject({ count: before + 1 });
    expect((page.json.lock_events as Record<string, unknown>[]).map((event) => [event.type, (event.performer as { id?: string } | undefined)?.id])[0]).toEqual(['unlock', ownerId]);
    expect((await demo.control({ op: 'tap', lock_id: gatewayLock, ekey_id: ownerKey?.id, action: 'lock' })).ok).toBe(true);
    expect((await lockRow()).bolt_state).toBe('locked');
  });
});

describe('refresh tokens', () => {
  it('rotate on use; presenting a used one again revokes the whole family', async () => {
    const client = demo.demo.clients[0];
    const mine = await demo.login(2);
    const body = (refreshToken: string): Record<string, unknown> => ({
      grant_type: 'refresh_token',
      client_id: client?.client_id,
      client_secret: client?.client_secret,
      refresh_token: refreshToken,
    });
    const rotated = await api('POST', '/oauth/token', { body: body(mine.refresh_token) });
    expect(rotated.status).toBe(200);
    expect(rotated.json.access_token).not.toBe(mine.access_token);
    expect(rotated.json.refresh_token).not.toBe(mine.refresh_token);
    expect((await api('GET', '/me', { token: String(rotated.json.access_token) })).json.id).toBe(userIdAt(2));

    const reuse = await api('POST', '/oauth/token', { body: body(mine.refresh_token) });
    expect(reuse.status).toBe(400);
    expect(reuse.json.error).toBe('invalid_grant');
    // The family is gone: the rotated access and refresh tokens no longer work.
    expect((await api('GET', '/me', { token: String(rotated.json.access_token) })).status).toBe(401);
    expect((await api('POST', '/oauth/token', { body: body(String(rotated.json.refresh_token)) })).status).toBe(400);
  });
});

describe('robustness', () => {
  it.each([
    ['an over-long path id', 'GET', () => `/users/${'x'.repeat(2_000)}/locks`, {}],
    ['a 36-digit non-UUID id', 'GET', () => `/ekey/${'9'.repeat(36)}`, {}],
    ['a UUID with a trailing space', 'GET', () => `/locks/${gatewayLock}%20/events`, {}],
    ['a repeated query parameter', 'GET', () => `/locks/${gatewayLock}/events?limit=1&limit=2`, {}],
    ['a non-ASCII Idempotency-Key', 'POST', () => `/locks/${gatewayLock}/commands`, { body: { type: 'lock' }, headers: { 'idempotency-key': '\u00fc'.repeat(3) } }],
    ['a __proto__ key in the body', 'PUT', () => `/ekey/${String(guestKey.id)}`, { rawBody: '{"name":"a","__proto__":{"admin":true}}' }],
    ['purge neither true nor false', 'DELETE', () => `/ekey/${String(guestKey.id)}?purge=perhaps`, {}],
    ['an unknown route', 'GET', () => '/lockz', {}],
  ])('%s: a 4xx problem+json, never a 500', async (_label, method, path, options) => {
    const answer = await api(method, path(), { token: owner.access_token, ...options });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.headers.get('content-type') ?? '').toMatch(/^application\/problem\+json/);
    expect(answer.json).toMatchObject({ status: answer.status, code: expect.any(String) });
  });

  it('no lock key appears in any response', () => {
    const file = readdirSync(dataDir).find((name) => name.endsWith('.sqlite') || name.endsWith('.db'));
    if (!file) throw new Error(`no database in ${dataDir}`);
    const db = new Database(join(dataDir, file), { readonly: true, fileMustExist: true });
    let keys: string[];
    try {
      keys = (db.prepare('SELECT lock_key FROM locks WHERE lock_key IS NOT NULL').all() as { lock_key: string }[]).map((row) => row.lock_key);
    } finally {
      db.close();
    }
    expect(keys.length).toBeGreaterThan(0);
    lockKeys = keys;
    const everything = [...seenBodies, demo.child.stdout()].join('\n').toLowerCase();
    for (const key of keys) expect(everything.includes(key.toLowerCase())).toBe(false);
  });
});

describe('rate limiting and shutdown', () => {
  it('POST /oauth/token is rate limited: 429 with Retry-After', async () => {
    const client = demo.demo.clients[0];
    let limited: Response | undefined;
    for (let i = 0; i < 150 && !limited; i++) {
      const response = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ grant_type: 'refresh_token', client_id: client?.client_id, client_secret: client?.client_secret, refresh_token: 'nope' }),
      });
      if (response.status === 429) limited = response;
      else await response.arrayBuffer();
    }
    if (!limited) throw new Error('no 429 within 150 token requests');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as Record<string, unknown>).error).toEqual(expect.any(String));
  });

  it('logs hold no token, password, client secret or lock key; SIGTERM exits 0', async () => {
    const exit = await demo.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    const stderr = demo.child.stderr();
    const secrets = [
      owner.access_token,
      owner.refresh_token,
      alex.access_token,
      alex.refresh_token,
      stranger.access_token,
      ...demo.demo.users.map((user) => user.password),
      ...demo.demo.clients.map((client) => client.client_secret),
      ...lockKeys,
    ];
    for (const secret of secrets) expect(stderr.includes(secret)).toBe(false);
    // stdout: the demo line, then one JSON answer per control line, nothing else.
    for (const line of demo.child.stdoutLines.slice(1)) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});
