/**
 * Bookings through the API (docs/design.md §12) with a real calendar host on loopback, real SQLite
 * and the demo's simulated keypads — Back Door (a Nuki: its codes hold UTC instants) and Side Door
 * (a TTLock: digits 0–9, wall-clock times): stays become codes that the locks confirm and judge on
 * their own clocks; moved dates keep the code; a failing or non-iCal feed changes nothing; a stay
 * gone from a good feed is cancelled and its codes removed; an empty feed is believed on the second
 * refresh; conditional requests; a keypad entry with a stay's code is an event with the booking.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { EKeyLocksClient } from '../../../src/client/ekey-locks-client.js';
import { SimulatedNuki } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { loginOverHttp } from '../../support/oauth-login.js';
import { ManualClock } from '../../support/manual-clock.js';
import { FeedServer } from '../../support/feed-server.js';
import { readUntil } from '../../support/polling.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call, type ApiResponse } from '../ekeys/household.js';

interface DoorCode {
  lock_id: string;
  code: string | null;
  state: string;
  enforced_by: string;
  failure_reason: string | null;
  updated_at: string;
}
interface Booking {
  uid: string;
  summary: string;
  starts_at: string;
  ends_at: string;
  state: string;
  door_codes: DoorCode[];
}
interface Calendar {
  id: string;
  url: string;
  lock_ids: string[];
  check_in: string;
  check_out: string;
  door_code: boolean;
  state: string;
  last_refresh_at: string | null;
  last_error: string | null;
  bookings: Booking[];
}
interface KeypadCodeLine {
  code: string;
  enabled: boolean;
  allowed_from: string | null;
  allowed_until: string | null;
}

const AIRBNB = readFileSync(new URL('../../fixtures/calendars/airbnb-export.ics', import.meta.url), 'utf8');
const STAY_A = '1418fb94e984-c36acd4341234567e6515e5ef948f56a@airbnb.com';
const STAY_B = '2b7d0e4f9a11-77aa01c2d3e4f5a6b7c8d9e0f1a2b3c4@airbnb.com';
/** 10 August 2026, 08:00 UTC: stay A (12–15 Aug) is two days away, stay B (1–5 Oct) more than 30. */
const NOW = Date.UTC(2026, 7, 10, 8, 0, 0);

/** A feed of all-day stays `[uid, summary, first day, last day]` (CRLF, as the platforms send). */
function feed(events: [string, string, string, string][]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Airbnb Inc//Hosting Calendar 0.8.8//EN'];
  for (const [uid, summary, start, end] of events) {
    lines.push('BEGIN:VEVENT', `DTSTART;VALUE=DATE:${start.replaceAll('-', '')}`, `DTEND;VALUE=DATE:${end.replaceAll('-', '')}`, `UID:${uid}`, `SUMMARY:${summary}`, 'END:VEVENT');
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

function harness(clockStart: number) {
  const server = new FeedServer();
  const state = { test: undefined as TestService | undefined, tokens: new Map<string, string>() };
  const test = (): TestService => {
    if (state.test === undefined) throw new Error('no service');
    return state.test;
  };
  const lockId = (name: string): string => {
    const lock = test().demo.locks.find((candidate) => candidate.name === name);
    if (lock === undefined) throw new Error(`no ${name}`);
    return lock.id;
  };
  const tokenOf = async (index: number): Promise<string> => {
    const user = test().demo.users[index];
    const client = test().demo.clients[0];
    if (!user || !client) throw new Error('demo household incomplete');
    const known = state.tokens.get(user.email);
    if (known !== undefined) return known;
    const token = (await loginOverHttp({ baseUrl: test().baseUrl, client, email: user.email, password: user.password })).access_token;
    state.tokens.set(user.email, token);
    return token;
  };
  const api = async (method: string, path: string, body?: unknown, as = 0): Promise<ApiResponse> => call(test().baseUrl, await tokenOf(as), method, path, body);
  const calendar = (response: ApiResponse): Calendar => response.body as unknown as Calendar;
  const settled = async (): Promise<void> => {
    await test().service.lockSubsystem.doorCodeSync?.settled();
  };
  const control = async (line: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const answer = await test().service.demoControl?.handleLine(JSON.stringify(line));
    return JSON.parse(answer ?? '{}') as Record<string, unknown>;
  };
  const keypadCodes = async (lock: string): Promise<KeypadCodeLine[]> => (await control({ op: 'keypad_codes', lock_id: lock })).codes as KeypadCodeLine[];
  const start = async (options: { dataDir?: string } = {}): Promise<void> => {
    state.tokens.clear();
    state.test = await startTestService({
      clock: new ManualClock(clockStart),
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    });
    await state.test.service.lockSubsystem.ready();
  };
  return { server, state, test, lockId, tokenOf, api, calendar, settled, control, keypadCodes, start };
}

describe('bookings: a calendar\'s stays become door codes', () => {
  const h = harness(NOW);
  const { server, api, calendar, settled, keypadCodes, control, lockId } = h;
  let backDoor: string;
  let sideDoor: string;
  let calendarId: string;
  let codeA: string;
  let sideCodeA: string;
  let codeB: string;
  const bookingOf = (body: Calendar, uid: string): Booking => {
    const found = body.bookings.find((booking) => booking.uid === uid);
    if (found === undefined) throw new Error(`no booking ${uid} in ${JSON.stringify(body.bookings.map((booking) => booking.uid))}`);
    return found;
  };
  const codeOn = (booking: Booking, lock: string): DoorCode => {
    const found = booking.door_codes.find((code) => code.lock_id === lock);
    if (found === undefined) throw new Error(`no code on ${lock}`);
    return found;
  };
  const current = async (): Promise<Calendar> => calendar(await api('GET', `/calendars/${calendarId}`));
  const refresh = async (): Promise<Calendar> => {
    const answer = await api('POST', `/calendars/${calendarId}/refresh`);
    expect(answer.status).toBe(200);
    return calendar(answer);
  };

  beforeAll(async () => {
    await server.start();
    await h.start();
    backDoor = lockId('Back Door');
    sideDoor = lockId('Side Door');
    // Back Door's code holds UTC instants: put it in Berlin (CEST in August, UTC+2).
    const stored = h.test().service.repositories.locks.findById(backDoor);
    if (stored === undefined) throw new Error('no Back Door record');
    h.test().service.repositories.locks.upsert({ ...stored, timeZone: 'Europe/Berlin' });
  });

  afterAll(async () => {
    await h.state.test?.close();
    await server.close();
  });

  it('POST /calendars reads the feed at once: its stays, not its blocks nor a stay long over; codes by each keypad\'s rules', async () => {
    server.serve('/airbnb.ics', { kind: 'feed', body: AIRBNB, etag: '"a1"' });
    const created = await api('POST', '/calendars', { url: server.url('/airbnb.ics'), lock_ids: [backDoor, sideDoor], check_in: '16:00', check_out: '11:00' });
    expect(created.status).toBe(201);
    const body = calendar(created);
    calendarId = body.id;
    expect(body).toMatchObject({ url: server.url('/airbnb.ics'), lock_ids: [backDoor, sideDoor], check_in: '16:00', check_out: '11:00', door_code: true, state: 'ok', last_error: null, last_refresh_at: new Date(NOW).toISOString() });
    expect(body.bookings.map((booking) => [booking.uid, booking.summary, booking.state])).toEqual([
      [STAY_A, 'Reserved', 'upcoming'],
      [STAY_B, 'Reserved', 'upcoming'],
    ]);
    const a = bookingOf(body, STAY_A);
    // All-day: 12 Aug 16:00 to 15 Aug 11:00 on Back Door's clock (Berlin, CEST).
    expect([a.starts_at, a.ends_at]).toEqual(['2026-08-12T14:00:00.000Z', '2026-08-15T09:00:00.000Z']);
    codeA = codeOn(a, backDoor).code ?? '';
    sideCodeA = codeOn(a, sideDoor).code ?? '';
    expect(codeA).toMatch(/^[1-9]{6}$/);
    expect(codeA.startsWith('12')).toBe(false);
    expect(sideCodeA).toMatch(/^[0-9]{6}$/);
    expect(codeOn(a, backDoor)).toMatchObject({ state: 'setting', enforced_by: 'lock', failure_reason: null });
    // More than 30 days away: a code is kept for it, nothing is on the lock yet.
    const b = bookingOf(body, STAY_B);
    codeB = codeOn(b, backDoor).code ?? '';
    expect(codeB).toMatch(/^[1-9]{6}$/);
    expect(b.door_codes.map((code) => code.state)).toEqual(['waiting', 'waiting']);
  });

  it('the locks confirm stay A\'s codes with its window; stay B\'s stay off the locks; no code and no link in the log', async () => {
    await settled();
    const a = bookingOf(await current(), STAY_A);
    expect(a.door_codes.map((code) => [code.code, code.state])).toEqual([
      [codeA, 'set'],
      [sideCodeA, 'set'],
    ]);
    expect(await keypadCodes(backDoor)).toEqual([
      expect.objectContaining({ code: codeA, enabled: true, allowed_from: '2026-08-12T14:00:00.000Z', allowed_until: '2026-08-15T09:00:00.000Z' }),
    ]);
    // The TTLock holds wall-clock times in its zone.
    const sideZone = h.test().service.repositories.locks.findById(sideDoor)?.timeZone ?? 'UTC';
    const local = (date: string, time: string): string => DateTime.fromISO(`${date}T${time}`, { zone: sideZone }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
    expect((await keypadCodes(sideDoor)).map((code) => [code.code, code.allowed_from?.slice(0, 19), code.allowed_until?.slice(0, 19)])).toEqual([[sideCodeA, local('2026-08-12', '16:00'), local('2026-08-15', '11:00')]]);
    expect((await keypadCodes(backDoor)).map((code) => code.code)).not.toContain(codeB);
    // On the Nuki, the code carries the name the service knows its stays' codes by (docs/door-codes.md).
    const nuki = h.test().service.demoSimulation?.locks.get(backDoor.toLowerCase());
    if (!(nuki instanceof SimulatedNuki)) throw new Error('Back Door is not a simulated Nuki');
    expect(nuki.keypadCodes().map((entry) => [String(entry.code), entry.name])).toEqual([[codeA, expect.stringMatching(/^Stay [0-9a-f]{8}$/)]]);
    const log = h.test().logger.text();
    for (const secret of [codeA, sideCodeA, codeB, server.url('/airbnb.ics')]) expect(log).not.toContain(secret);
  });

  it('before check-in the lock refuses the code; inside the stay it opens, and the history shows the booking without a performer, to owners only', async () => {
    expect(await control({ op: 'keypad', lock_id: backDoor, code: codeA, action: 'unlock' })).toMatchObject({ ok: true, result: 'refused' });
    // 13 Aug 12:00 UTC: inside the stay on Back Door's clock (Berlin) and on Side Door's (the host's zone, whichever it is).
    h.test().clock.set(Date.UTC(2026, 7, 13, 12, 0, 0));
    h.state.tokens.clear();
    expect(await control({ op: 'keypad', lock_id: backDoor, code: codeA, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    const newest = await readUntil(
      async () => ((await api('GET', `/locks/${backDoor}/events?limit=1&type=unlock`)).body.lock_events as Record<string, unknown>[])[0],
      (event) => event?.via === 'keypad',
    );
    expect(newest).toEqual({ id: expect.any(String), type: 'unlock', lock_id: backDoor, timestamp: expect.any(String), via: 'keypad', booking: { uid: STAY_A, summary: 'Reserved' } });
    // The TTLock reads the entry back from its operation log: the same booking, no performer.
    expect(await control({ op: 'keypad', lock_id: sideDoor, code: sideCodeA, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    const side = await readUntil(
      async () => ((await api('GET', `/locks/${sideDoor}/events?limit=1&type=unlock`)).body.lock_events as Record<string, unknown>[])[0],
      (event) => event?.via === 'keypad',
    );
    expect(side).toEqual({ id: expect.any(String), type: 'unlock', lock_id: sideDoor, timestamp: expect.any(String), via: 'keypad', booking: { uid: STAY_A, summary: 'Reserved' } });
    // A guest of the lock does not see who comes and goes.
    const guest = h.test().demo.users[1];
    if (guest === undefined) throw new Error('no guest');
    expect((await api('POST', '/ekey', { email: guest.email, lock_id: backDoor, type: 'anytime' })).status).toBe(201);
    const seen = (await api('GET', `/locks/${backDoor}/events?type=unlock`, undefined, 1)).body.lock_events as Record<string, unknown>[];
    expect(seen.filter((event) => event.booking !== undefined)).toEqual([]);
    // Stay A is active now.
    expect(bookingOf(await current(), STAY_A).state).toBe('active');
  });

  it('dates that move keep the code: the window on each lock is rewritten', async () => {
    server.serve('/airbnb.ics', { kind: 'feed', etag: '"a2"', body: feed([[STAY_A, 'Reserved', '2026-08-12', '2026-08-17'], [STAY_B, 'Reserved', '2026-10-01', '2026-10-05']]) });
    const after = await refresh();
    const a = bookingOf(after, STAY_A);
    expect(a.ends_at).toBe('2026-08-17T09:00:00.000Z');
    expect(a.door_codes.map((code) => [code.code, code.state])).toEqual([
      [codeA, 'setting'],
      [sideCodeA, 'setting'],
    ]);
    await settled();
    expect(bookingOf(await current(), STAY_A).door_codes.map((code) => [code.code, code.state])).toEqual([
      [codeA, 'set'],
      [sideCodeA, 'set'],
    ]);
    expect(await keypadCodes(backDoor)).toEqual([expect.objectContaining({ code: codeA, allowed_from: '2026-08-12T14:00:00.000Z', allowed_until: '2026-08-17T09:00:00.000Z' })]);
  });

  it('asks conditionally: the same ETag back is a 304, and nothing changes', async () => {
    const before = server.requestsFor('/airbnb.ics').length;
    const after = await refresh();
    expect(after.state).toBe('ok');
    expect(server.requestsFor('/airbnb.ics').slice(before)).toEqual([{ path: '/airbnb.ics', authorization: undefined, ifNoneMatch: '"a2"', ifModifiedSince: undefined, status: 304 }]);
    expect(bookingOf(after, STAY_A).door_codes.map((code) => code.code)).toEqual([codeA, sideCodeA]);
  });

  it('a feed that answers 500 or a web page changes nothing and says why', async () => {
    const before = await current();
    server.serve('/airbnb.ics', { kind: 'status', status: 500 });
    const failing = await refresh();
    expect(failing).toMatchObject({ state: 'failing', last_error: "The calendar's site had a problem; it is tried again in 10 minutes." });
    expect(failing.bookings).toEqual(before.bookings);
    server.serve('/airbnb.ics', { kind: 'feed', body: '<!doctype html><html><head><title>Log in</title></head><body>Log in to continue</body></html>', contentType: 'text/html' });
    const html = await refresh();
    expect(html).toMatchObject({ state: 'failing', last_error: 'The link opened a web page, not a calendar: copy the calendar (iCal) export link instead.' });
    expect(html.bookings).toEqual(before.bookings);
    expect((await keypadCodes(backDoor)).map((code) => code.code)).toEqual([codeA]);
  });

  it('a stay gone from a good feed is cancelled and its codes come off the locks', async () => {
    server.serve('/airbnb.ics', { kind: 'feed', etag: '"a3"', body: feed([[STAY_B, 'Reserved', '2026-10-01', '2026-10-05'], ['block-1', 'Airbnb (Not available)', '2026-08-20', '2026-08-22']]) });
    const after = await refresh();
    expect(after.state).toBe('ok');
    const a = bookingOf(after, STAY_A);
    expect(a.state).toBe('cancelled');
    expect(a.door_codes.map((code) => [code.code, code.state])).toEqual([
      [null, 'removing'],
      [null, 'removing'],
    ]);
    await settled();
    expect(bookingOf(await current(), STAY_A).door_codes.map((code) => code.state)).toEqual(['removed', 'removed']);
    expect(await keypadCodes(backDoor)).toEqual([]);
    expect(await keypadCodes(sideDoor)).toEqual([]);
    expect(await control({ op: 'keypad', lock_id: backDoor, code: codeA, action: 'unlock' })).toMatchObject({ result: 'refused' });
  });

  it('an empty feed is believed only on the second refresh in a row', async () => {
    server.serve('/airbnb.ics', { kind: 'feed', etag: '"empty"', body: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n' });
    const once = await refresh();
    expect(once.state).toBe('ok');
    expect(bookingOf(once, STAY_B)).toMatchObject({ state: 'upcoming', door_codes: [expect.objectContaining({ code: codeB, state: 'waiting' }), expect.objectContaining({ state: 'waiting' })] });
    const twice = await refresh();
    expect(bookingOf(twice, STAY_B).state).toBe('cancelled');
    expect(bookingOf(twice, STAY_B).door_codes.map((code) => [code.code, code.state])).toEqual([
      [null, 'removed'],
      [null, 'removed'],
    ]);
    // Both empty answers were read whole: the unbelieved one's validators ("empty") were not kept, the last good answer's were.
    expect(server.requestsFor('/airbnb.ics').slice(-2).map((request) => [request.ifNoneMatch, request.status])).toEqual([
      ['"a3"', 200],
      ['"a3"', 200],
    ]);
  });

  it('a stay that comes within 30 days at a later refresh goes onto the lock then; a cancelled stay that comes back gets a new code', async () => {
    server.serve('/airbnb.ics', { kind: 'feed', etag: '"b1"', body: feed([[STAY_B, 'Reserved', '2026-10-01', '2026-10-05']]) });
    const back = bookingOf(await refresh(), STAY_B);
    expect(back.state).toBe('upcoming');
    const revived = back.door_codes[0]?.code ?? '';
    expect(revived).toMatch(/^[1-9]{6}$/);
    expect(back.door_codes.map((code) => code.state)).toEqual(['waiting', 'waiting']);
    // 10 minutes later, and 29 days before check-in: the timer's refresh puts it on the locks.
    h.test().clock.set(Date.UTC(2026, 8, 2, 12, 0, 0));
    h.state.tokens.clear();
    await h.test().service.services.calendars.refreshAll();
    await settled();
    const onLock = bookingOf(await current(), STAY_B);
    expect(onLock.door_codes.map((code) => [code.code, code.state])).toEqual([
      [revived, 'set'],
      [expect.stringMatching(/^[0-9]{6}$/), 'set'],
    ]);
    expect((await keypadCodes(backDoor)).map((code) => code.code)).toEqual([revived]);
  });

  it('refuses bad input with a clear 400, and hides what the caller may not see', async () => {
    const bad = async (body: unknown, field: string): Promise<void> => {
      const answer = await api('POST', '/calendars', body);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body.errors ?? [])).toContain(field);
    };
    await bad({ url: 'ftp://example.com/c.ics', lock_ids: [backDoor] }, '/url');
    await bad({ url: 'webcal://example.com/c.ics', lock_ids: [backDoor] }, '/url');
    await bad({ url: server.url('/x.ics') }, 'lock_ids');
    await bad({ url: server.url('/x.ics'), lock_ids: [] }, 'lock_ids');
    await bad({ url: server.url('/x.ics'), lock_ids: [backDoor], check_in: '4pm' }, 'check_in');
    await bad({ url: server.url('/x.ics'), lock_ids: [backDoor], check_out: '24:00' }, 'check_out');
    await bad({ url: server.url('/x.ics'), lock_ids: [backDoor], colour: 'red' }, 'colour');
    await bad({ url: server.url('/x.ics'), lock_ids: ['not-a-uuid'] }, 'lock_ids');
    const frontDoor = lockId('Front Door');
    const noKeypad = await api('POST', '/calendars', { url: server.url('/x.ics'), lock_ids: [frontDoor] });
    expect(noKeypad).toMatchObject({ status: 400, body: { code: 'lock_has_no_keypad' } });
    // Without door codes, a lock without a keypad is fine (the stays are shown, nothing is written).
    server.serve('/front.ics', { kind: 'feed', body: feed([['front-1', 'Reserved', '2026-09-10', '2026-09-12']]) });
    const plain = await api('POST', '/calendars', { url: server.url('/front.ics'), lock_ids: [frontDoor], door_code: false });
    expect(plain.status).toBe(201);
    expect(calendar(plain).bookings.map((booking) => [booking.uid, booking.door_codes])).toEqual([['front-1', []]]);
    expect((await api('PUT', `/calendars/${calendar(plain).id}`, { check_in: null, door_code: true })).body).toMatchObject({ code: 'lock_has_no_keypad' });
    expect((await api('PUT', `/calendars/${calendar(plain).id}`, { check_in: '15:30', url: null })).status).toBe(400);
    const changed = await api('PUT', `/calendars/${calendar(plain).id}`, { id: 'ignored', check_in: '15:30' });
    expect(changed.status).toBe(200);
    expect(calendar(changed).check_in).toBe('15:30');
    expect(calendar(await api('PUT', `/calendars/${calendar(plain).id}`, { check_in: null })).check_in).toBe('16:00');
    // A lock nobody has: 404; a stranger's view of a calendar: 404; a guest of the lock: 403.
    expect((await api('POST', '/calendars', { url: server.url('/x.ics'), lock_ids: ['00000000-0000-4000-8000-000000000000'] })).status).toBe(404);
    expect((await api('GET', `/calendars/${calendarId}`, undefined, 2)).status).toBe(404);
    expect((await api('POST', `/calendars/${calendarId}/refresh`, undefined, 2)).status).toBe(404);
    expect((await api('DELETE', `/calendars/${calendarId}`, undefined, 2)).status).toBe(404);
    expect(calendar(await api('GET', '/calendars', undefined, 2))).toEqual({ calendars: [] });
    expect((await api('POST', '/calendars', { url: server.url('/x.ics'), lock_ids: [backDoor] }, 1))).toMatchObject({ status: 403, body: { code: 'not_lock_owner' } });
    expect((await api('GET', '/calendars/not-a-calendar')).status).toBe(404);
    const list = (await api('GET', '/calendars')).body.calendars as Calendar[];
    expect(list.map((entry) => entry.id)).toEqual([calendarId, calendar(plain).id]);
  });

  it('DELETE /calendars/{id} removes the calendar and takes every code it made off the locks (through the typed client)', async () => {
    expect((await keypadCodes(backDoor)).length).toBe(1);
    const client = new EKeyLocksClient({ baseUrl: h.test().baseUrl, accessToken: await h.tokenOf(0) });
    expect((await client.listCalendars()).map((entry) => entry.id)).toContain(calendarId);
    expect((await client.refreshCalendar(calendarId)).state).toBe('ok');
    await client.deleteCalendar(calendarId);
    expect((await api('GET', `/calendars/${calendarId}`)).status).toBe(404);
    await settled();
    expect(await keypadCodes(backDoor)).toEqual([]);
    expect(await keypadCodes(sideDoor)).toEqual([]);
    const rows = h.test().service.repositories.doorCodes.listOpenByLock(backDoor);
    expect(rows).toEqual([]);
  });
});

describe('bookings over time', () => {
  it('an ended stay\'s code comes off the lock; a stay that drops out of the feed after it ended stays ended; stays long over are forgotten', async () => {
    const h = harness(Date.UTC(2026, 8, 1, 12, 0, 0));
    await h.server.start();
    await h.start();
    try {
      const backDoor = h.lockId('Back Door');
      const stored = h.test().service.repositories.locks.findById(backDoor);
      if (stored === undefined) throw new Error('no Back Door record');
      h.test().service.repositories.locks.upsert({ ...stored, timeZone: 'UTC' });
      h.server.serve('/stays.ics', { kind: 'feed', body: feed([['x@example.test', 'Reserved - X', '2026-09-03', '2026-09-05'], ['y@example.test', 'Reserved - Y', '2026-09-10', '2026-09-12']]) });
      const created = await h.api('POST', '/calendars', { url: h.server.url('/stays.ics'), lock_ids: [backDoor] });
      expect(created.status).toBe(201);
      const id = h.calendar(created).id;
      await h.settled();
      const read = async (): Promise<Calendar> => h.calendar(await h.api('GET', `/calendars/${id}`));
      expect((await read()).bookings.map((booking) => [booking.uid, booking.state, booking.door_codes[0]?.state])).toEqual([
        ['x@example.test', 'upcoming', 'set'],
        ['y@example.test', 'upcoming', 'set'],
      ]);
      expect((await h.keypadCodes(backDoor)).length).toBe(2);
      const firstCodes = (await read()).bookings.map((booking) => booking.door_codes[0]?.code);

      // door_code false takes every code off; true again gives new ones.
      const off = h.calendar(await h.api('PUT', `/calendars/${id}`, { door_code: false }));
      expect(off.bookings.map((booking) => [booking.door_codes[0]?.code, booking.door_codes[0]?.state])).toEqual([
        [null, 'removing'],
        [null, 'removing'],
      ]);
      await h.settled();
      expect(await h.keypadCodes(backDoor)).toEqual([]);
      expect(h.calendar(await h.api('PUT', `/calendars/${id}`, { door_code: null })).door_code).toBe(true);
      await h.settled();
      const again = await read();
      expect(again.bookings.map((booking) => booking.door_codes[0]?.state)).toEqual(['set', 'set']);
      for (const [index, booking] of again.bookings.entries()) expect(booking.door_codes[0]?.code).not.toBe(firstCodes[index]);

      // New times move every stay's window on the lock; the codes stay.
      const moved = h.calendar(await h.api('PUT', `/calendars/${id}`, { check_in: '14:30' }));
      expect(moved.bookings.map((booking) => [booking.starts_at, booking.door_codes[0]?.code, booking.door_codes[0]?.state])).toEqual([
        ['2026-09-03T14:30:00.000Z', again.bookings[0]?.door_codes[0]?.code, 'setting'],
        ['2026-09-10T14:30:00.000Z', again.bookings[1]?.door_codes[0]?.code, 'setting'],
      ]);
      await h.settled();
      expect((await h.keypadCodes(backDoor)).map((entry) => entry.allowed_from).sort()).toEqual(['2026-09-03T14:30:00.000Z', '2026-09-10T14:30:00.000Z']);

      // Check-out of X has passed: the sync engine takes its code off at its end.
      h.test().clock.set(Date.UTC(2026, 8, 6, 12, 0, 0));
      h.state.tokens.clear();
      await h.test().service.lockSubsystem.doorCodeSync?.reevaluate();
      await h.settled();
      expect((await read()).bookings.map((booking) => [booking.uid, booking.state, booking.door_codes[0]?.state])).toEqual([
        ['x@example.test', 'ended', 'removed'],
        ['y@example.test', 'upcoming', 'set'],
      ]);
      expect((await h.keypadCodes(backDoor)).length).toBe(1);

      // The platform drops the past stay from its feed: it is not a cancellation.
      h.server.serve('/stays.ics', { kind: 'feed', body: feed([['y@example.test', 'Reserved - Y', '2026-09-10', '2026-09-12']]) });
      await h.api('POST', `/calendars/${id}/refresh`);
      expect((await read()).bookings.map((booking) => [booking.uid, booking.state])).toEqual([
        ['x@example.test', 'ended'],
        ['y@example.test', 'upcoming'],
      ]);

      // Two months on, with every code off the lock, both are no longer listed.
      h.test().clock.set(Date.UTC(2026, 10, 20, 12, 0, 0));
      h.state.tokens.clear();
      await h.test().service.lockSubsystem.doorCodeSync?.reevaluate();
      await h.settled();
      await h.api('POST', `/calendars/${id}/refresh`);
      expect((await read()).bookings).toEqual([]);
      expect(await h.keypadCodes(backDoor)).toEqual([]);
    } finally {
      await h.state.test?.close();
      await h.server.close();
    }
  });
});

describe('bookings on a full keypad', () => {
  it('a stay whose code the full keypad refuses shows failed with the reason; the vendor\'s codes stay', async () => {
    const h = harness(Date.UTC(2026, 8, 1, 12, 0, 0));
    await h.server.start();
    await h.start();
    try {
      const backDoor = h.lockId('Back Door');
      let added = 0;
      // Codes made in the vendor's app (digits 1–9, from 311111 up) until the keypad holds no more (a Nuki Keypad holds 100).
      const vendorCode = (index: number): string => `3${[4, 3, 2, 1, 0].map((power) => String((Math.floor(index / 9 ** power) % 9) + 1)).join('')}`;
      for (let attempt = 0; attempt < 120; attempt += 1) {
        const answer = await h.control({ op: 'keypad_vendor_code', lock_id: backDoor, code: vendorCode(attempt) });
        if (answer.ok !== true) break;
        added += 1;
      }
      expect(added).toBe(100);
      h.server.serve('/full.ics', { kind: 'feed', body: feed([['z@example.test', 'Reserved', '2026-09-03', '2026-09-05']]) });
      const created = await h.api('POST', '/calendars', { url: h.server.url('/full.ics'), lock_ids: [backDoor] });
      expect(created.status).toBe(201);
      await h.settled();
      const stay = h.calendar(await h.api('GET', `/calendars/${h.calendar(created).id}`)).bookings[0];
      expect(stay?.door_codes).toEqual([expect.objectContaining({ state: 'failed', failure_reason: 'keypad_full', code: expect.stringMatching(/^[1-9]{6}$/) })]);
      expect((await h.keypadCodes(backDoor)).length).toBe(100);
    } finally {
      await h.state.test?.close();
      await h.server.close();
    }
  });
});

describe('bookings across restarts and clock changes', () => {
  it('codes survive a restart (the lock still holds them, the API says so); Berlin and New York stays across the autumn clock change', async () => {
    const h = harness(Date.UTC(2026, 9, 20, 12, 0, 0));
    await h.server.start();
    await h.start();
    const dataDir = h.test().dataDir;
    const backDoor = h.lockId('Back Door');
    const stored = h.test().service.repositories.locks.findById(backDoor);
    if (stored === undefined) throw new Error('no Back Door record');
    try {
      h.test().service.repositories.locks.upsert({ ...stored, timeZone: 'America/New_York' });
      h.server.serve('/ny.ics', { kind: 'feed', lastModified: 'Tue, 20 Oct 2026 10:00:00 GMT', body: feed([['ny-1', 'Reserved - Ana', '2026-10-31', '2026-11-02']]) });
      const created = await h.api('POST', '/calendars', { url: h.server.url('/ny.ics'), lock_ids: [backDoor] });
      expect(created.status).toBe(201);
      const id = h.calendar(created).id;
      await h.settled();
      // 16:00 EDT (UTC−4) on 31 October, 11:00 EST (UTC−5) on 2 November.
      expect(await h.keypadCodes(backDoor)).toEqual([expect.objectContaining({ allowed_from: '2026-10-31T20:00:00.000Z', allowed_until: '2026-11-02T16:00:00.000Z' })]);
      const code = h.calendar(await h.api('GET', `/calendars/${id}`)).bookings[0]?.door_codes[0]?.code;

      // The service stops and starts again on the same data: the calendar, its stay and its confirmed code are still there.
      const closing = h.state.test;
      h.state.test = undefined;
      await closing?.service.close();
      await h.start({ dataDir });
      const again = h.calendar(await h.api('GET', `/calendars/${id}`));
      expect(again.bookings.map((booking) => [booking.uid, booking.door_codes.map((entry) => [entry.code, entry.state])])).toEqual([['ny-1', [[code, 'set']]]]);
      // Asked conditionally with the stored Last-Modified.
      await h.api('POST', `/calendars/${id}/refresh`);
      expect(h.server.requestsFor('/ny.ics').at(-1)).toMatchObject({ ifModifiedSince: 'Tue, 20 Oct 2026 10:00:00 GMT', status: 304 });

      // The same stay read in Berlin (a second calendar on the same lock after a zone change).
      const relocated = h.test().service.repositories.locks.findById(backDoor);
      if (relocated === undefined) throw new Error('no Back Door record');
      h.test().service.repositories.locks.upsert({ ...relocated, timeZone: 'Europe/Berlin' });
      h.server.serve('/berlin.ics', { kind: 'feed', body: feed([['de-1', 'Reserved', '2026-10-24', '2026-10-26']]) });
      const berlin = await h.api('POST', '/calendars', { url: h.server.url('/berlin.ics'), lock_ids: [backDoor], check_in: '15:00', check_out: '10:00' });
      await h.settled();
      // 15:00 CEST (UTC+2) on 24 October, 10:00 CET (UTC+1) on 26 October.
      expect(h.calendar(berlin).bookings.map((booking) => [booking.starts_at, booking.ends_at])).toEqual([['2026-10-24T13:00:00.000Z', '2026-10-26T09:00:00.000Z']]);
      expect((await h.keypadCodes(backDoor)).map((entry) => [entry.allowed_from, entry.allowed_until])).toContainEqual(['2026-10-24T13:00:00.000Z', '2026-10-26T09:00:00.000Z']);
    } finally {
      await h.state.test?.close();
      await h.server.close();
    }
  });

});
