import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { openSse } from './sse-client.js';
import { LockStateRepository } from '../../../src/store/lock-state-repository.js';
import { DEMO_LINK_TIMINGS } from '../../../src/demo/demo-locks.js';
import { until } from '../../support/polling.js';

interface LockEventBody {
  id: string;
  type: string;
  lock_id: string;
  performer?: { id: string; name: string };
  timestamp: string;
  value?: number;
}
interface PageBody {
  lock_events: LockEventBody[];
  metadata: { limit: number; count: number; previous?: string; next?: string };
  code?: string;
}

let test: TestService;
let frontDoor: string;
let gardenGate: string;
const people = {} as Record<'owner' | 'admin' | 'guest' | 'stranger', { id: string; name: string; token: string; keyId?: string }>;

async function get(token: string | undefined, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: PageBody }> {
  const response = await fetch(`${test.baseUrl}${path}`, {
    headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: (await response.json()) as PageBody };
}

async function drive(line: Record<string, unknown>): Promise<void> {
  const control = test.service.demoControl;
  if (!control) throw new Error('demo control missing');
  const answer = JSON.parse(await control.handleLine(JSON.stringify(line))) as { ok: boolean; error?: string };
  expect(answer).toEqual({ ok: true });
}

/** A tap that moves the bolt (a tap towards the current position moves nothing and reports nothing). */
async function tapMoving(keyId: string | undefined): Promise<'lock' | 'unlock'> {
  const bolt = new LockStateRepository(test.service.db).read(frontDoor)?.boltState;
  const action = bolt === 'locked' ? 'unlock' : 'lock';
  await drive({ op: 'tap', lock_id: frontDoor, ekey_id: keyId, action });
  return action;
}

/**
 * Takes the Front Door out of reach; the service shows it offline only once `offline_after_s`
 * has passed without a word from it. Instead of moving the clock on in steps and sleeping
 * between them, waits for the event that matters (the gateway lost the link), then moves the
 * manual clock past the window and lets the gateway re-evaluate reachability at once: the lock
 * turns offline there and then, and the demo answers.
 */
async function goOutOfReach(): Promise<void> {
  const gateway = test.service.lockSubsystem.runtime.gateway;
  const answer = drive({ op: 'offline', lock_id: frontDoor });
  await until(() => gateway.getSnapshot(frontDoor)?.connected === false, 'the link to drop');
  expect(gateway.getSnapshot(frontDoor)?.online).toBe(true); // still within the window
  test.clock.advance(DEMO_LINK_TIMINGS.offlineAfterS * 1000);
  gateway.checkPresence();
  expect(gateway.getSnapshot(frontDoor)?.online).toBe(false);
  await answer;
}

/** Resolves once the recorder has published `count` more events for the lock. */
function nextEvents(lockId: string, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const stop = test.service.events.hub.subscribe(lockId, () => {
      seen += 1;
      if (seen === count) {
        stop();
        resolve();
      }
    });
  });
}

beforeAll(async () => {
  test = await startTestService();
  const [owner, alex, blake, casey] = test.demo.users;
  const client = test.demo.clients[0];
  if (!owner || !alex || !blake || !casey || !client) throw new Error('demo household incomplete');
  frontDoor = test.demo.locks[0]?.id ?? '';
  gardenGate = test.demo.locks[1]?.id ?? '';
  const login = async (user: { email: string; password: string }): Promise<string> =>
    (await loginOverHttp({ baseUrl: test.baseUrl, client, email: user.email, password: user.password })).access_token;
  people.owner = { id: owner.id, name: owner.name, token: await login(owner) };
  people.admin = { id: alex.id, name: alex.name, token: await login(alex) };
  people.guest = { id: blake.id, name: blake.name, token: await login(blake) };
  people.stranger = { id: casey.id, name: casey.name, token: await login(casey) };
  for (const [who, type] of [
    ['admin', 'admin'],
    ['guest', 'guest'],
  ] as const) {
    const response = await fetch(`${test.baseUrl}/ekey`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${people.owner.token}` },
      body: JSON.stringify({ email: test.demo.users.find((user) => user.id === people[who].id)?.email, lock_id: frontDoor, type }),
    });
    expect(response.status).toBe(201);
    people[who].keyId = ((await response.json()) as { id: string }).id;
  }
  people.owner.keyId = test.service.repositories.ekeys.findLive(people.owner.id, frontDoor)?.id;
});

afterAll(async () => {
  await test.close();
});

describe('recording through the lock runtime (demo locks)', () => {
  it('records taps with their performer, and nothing for a manual turn', async () => {
    const before = (await get(people.owner.token, `/locks/${frontDoor}/events`)).body.metadata.count;
    const recorded = nextEvents(frontDoor, 2);
    const guestAction = await tapMoving(people.guest.keyId);
    await drive({ op: 'manual', lock_id: frontDoor, bolt: guestAction === 'lock' ? 'unlocked' : 'locked' });
    const ownerAction = await tapMoving(people.owner.keyId);
    await recorded;
    const page = await get(people.owner.token, `/locks/${frontDoor}/events?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.metadata.count).toBe(before + 2);
    expect(page.body.lock_events.map((event) => [event.type, event.performer?.id])).toEqual([
      [ownerAction, people.owner.id],
      [guestAction, people.guest.id],
    ]);
    expect(page.body.lock_events[0]?.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(page.body.lock_events[0]?.performer).toEqual({ id: people.owner.id, name: people.owner.name });
  });

  it('records a battery event only when the level changes', async () => {
    const before = (await get(people.owner.token, `/locks/${frontDoor}/events?type=battery`)).body.metadata.count;
    await drive({ op: 'battery', lock_id: frontDoor, level: 0.42 });
    await drive({ op: 'battery', lock_id: frontDoor, level: 0.42 });
    await drive({ op: 'battery', lock_id: frontDoor, level: 0.41 });
    const page = (await get(people.owner.token, `/locks/${frontDoor}/events?type=battery`)).body;
    expect(page.metadata.count - before).toBeGreaterThanOrEqual(1);
    expect(page.metadata.count - before).toBeLessThanOrEqual(2);
    expect(page.lock_events[0]).toMatchObject({ type: 'battery', value: 0.41 });
    expect(page.lock_events[0]?.performer).toBeUndefined();
  });

  it('reads back taps made while the lock was out of reach, once, even across another reconnect', async () => {
    const before = (await get(people.owner.token, `/locks/${frontDoor}/events?type=lock,unlock&limit=200`)).body;
    const bolt = new LockStateRepository(test.service.db).read(frontDoor)?.boltState;
    const firstAction = bolt === 'locked' ? 'unlock' : 'lock';
    const secondAction = firstAction === 'lock' ? 'unlock' : 'lock';
    await goOutOfReach();
    await drive({ op: 'tap', lock_id: frontDoor, ekey_id: people.owner.keyId, action: firstAction });
    await drive({ op: 'tap', lock_id: frontDoor, ekey_id: people.guest.keyId, action: secondAction });
    // Out of reach: nothing is recorded yet.
    expect((await get(people.owner.token, `/locks/${frontDoor}/events?type=lock,unlock`)).body.metadata.count).toBe(before.metadata.count);
    await drive({ op: 'online', lock_id: frontDoor });
    await goOutOfReach();
    await drive({ op: 'online', lock_id: frontDoor });
    const after = (await get(people.owner.token, `/locks/${frontDoor}/events?type=lock,unlock&limit=200`)).body;
    expect(after.metadata.count).toBe(before.metadata.count + 2);
    expect(after.lock_events.slice(0, 2).map((event) => [event.type, event.performer?.id])).toEqual([
      [secondAction, people.guest.id],
      [firstAction, people.owner.id],
    ]);
    expect(new Set(after.lock_events.map((event) => event.id)).size).toBe(after.lock_events.length);
  });
});

describe('GET /locks/{lock_id}/events', () => {
  beforeAll(() => {
    // Bulk history on the Garden Gate (no gateway, so no live sequences to collide with).
    const recorder = test.service.events.recorder;
    const start = Date.UTC(2026, 0, 1);
    recorder.recordBatch(
      Array.from({ length: 95 }, (_, index) =>
        index % 4 === 3
          ? { kind: 'battery' as const, lockId: gardenGate, level: (100 - index) / 100, timestamp: start + index * 60_000 }
          : {
              kind: 'command' as const,
              lockId: gardenGate,
              commandId: `c${String(index).padStart(7, '0')}-0000-4000-8000-000000000000`,
              action: index % 2 === 0 ? ('lock' as const) : ('unlock' as const),
              performerId: people.owner.id,
              timestamp: start + index * 60_000,
            },
      ),
    );
  });

  it.each([
    ['type=lock,unlock&limit=7', 'lock,unlock'],
    ['type=battery&limit=5', 'battery'],
    ['limit=200', 'lock,unlock,battery'],
    ['', 'lock,unlock,battery'],
  ])('walks ?%s forwards and backwards over HTTP: every event once, count = number walked', async (query, types) => {
    const pages: string[][] = [];
    const counts = new Set<number>();
    let page = await get(people.owner.token, `/locks/${gardenGate}/events${query ? `?${query}` : ''}`);
    for (;;) {
      expect(page.status).toBe(200);
      pages.push(page.body.lock_events.map((event) => event.id));
      counts.add(page.body.metadata.count);
      expect(page.body.lock_events.every((event) => types.split(',').includes(event.type))).toBe(true);
      if (!page.body.metadata.next) break;
      expect(page.body.metadata.next).toContain(`limit=${page.body.metadata.limit}`);
      if (query.includes('type=')) expect(page.body.metadata.next).toContain(`type=${types}`);
      page = await get(people.owner.token, page.body.metadata.next);
    }
    const back: string[][] = [];
    for (;;) {
      back.unshift(page.body.lock_events.map((event) => event.id));
      if (!page.body.metadata.previous) break;
      page = await get(people.owner.token, page.body.metadata.previous);
    }
    const walked = pages.flat();
    expect(new Set(walked).size).toBe(walked.length);
    expect(back).toEqual(pages);
    expect([...counts]).toEqual([walked.length]);
    const times = walked.length;
    expect(times).toBe(types === 'battery' ? 23 : types === 'lock,unlock' ? 72 : 95);
  });

  it.each([
    ['limit=0', 'invalid_limit'],
    ['limit=201', 'invalid_limit'],
    ['limit=2.5', 'invalid_limit'],
    ['type=lock,open', 'invalid_type'],
    ['after=9a1e1c52-7d7e-4b1e-8f0c-1a2b3c4d5e6f', 'invalid_cursor'],
    ['before=nope', 'invalid_cursor'],
    ['after=9a1e1c52-7d7e-4b1e-8f0c-1a2b3c4d5e6f&before=9a1e1c52-7d7e-4b1e-8f0c-1a2b3c4d5e6f', 'conflicting_cursors'],
  ])('answers ?%s with 400 problem+json %s', async (query, code) => {
    const answer = await get(people.owner.token, `/locks/${gardenGate}/events?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.type).toContain('application/problem+json');
    expect(answer.body.code).toBe(code);
  });

  it('refuses a cursor from another lock', async () => {
    const frontEvent = (await get(people.owner.token, `/locks/${frontDoor}/events?limit=1`)).body.lock_events[0]?.id ?? '';
    expect((await get(people.owner.token, `/locks/${gardenGate}/events?after=${frontEvent}`)).body.code).toBe('invalid_cursor');
  });

  it('shows owners and admins everything, a guest only their own events, and others 404', async () => {
    const ownerView = await get(people.owner.token, `/locks/${frontDoor}/events?limit=200`);
    const adminView = await get(people.admin.token, `/locks/${frontDoor}/events?limit=200`);
    const guestView = await get(people.guest.token, `/locks/${frontDoor}/events?limit=200`);
    expect(adminView.body).toEqual(ownerView.body);
    expect(guestView.status).toBe(200);
    expect(guestView.body.lock_events.length).toBeGreaterThan(0);
    expect(guestView.body.lock_events.every((event) => event.performer?.id === people.guest.id)).toBe(true);
    expect(guestView.body.metadata.count).toBe(guestView.body.lock_events.length);
    expect(ownerView.body.metadata.count).toBeGreaterThan(guestView.body.metadata.count);
    expect((await get(people.guest.token, `/locks/${gardenGate}/events`)).status).toBe(404);
    expect((await get(people.stranger.token, `/locks/${frontDoor}/events`)).status).toBe(404);
    expect((await get(people.owner.token, '/locks/f0000000-0000-4000-8000-000000000000/events')).status).toBe(404);
    expect((await get(undefined, `/locks/${frontDoor}/events`)).status).toBe(401);
  });

  it('answers a page asked again with what changed in between: a new event, a new name, a revoked key', async () => {
    const path = `/locks/${frontDoor}/events?limit=5`;
    const first = await get(people.owner.token, path);
    expect(first.status).toBe(200);
    expect(first.type).toBe('application/json; charset=utf-8');
    expect((await get(people.owner.token, path)).body).toEqual(first.body);

    const recorded = nextEvents(frontDoor, 1);
    const action = await tapMoving(people.admin.keyId);
    await recorded;
    const afterTap = (await get(people.owner.token, path)).body;
    expect(afterTap.metadata.count).toBe(first.body.metadata.count + 1);
    expect(afterTap.lock_events[0]).toMatchObject({ type: action, performer: { id: people.admin.id, name: people.admin.name } });
    expect(afterTap.lock_events.slice(1).map((event) => event.id)).toEqual(first.body.lock_events.slice(0, 4).map((event) => event.id));

    const users = test.service.repositories.users;
    const admin = users.findById(people.admin.id);
    if (!admin) throw new Error('admin missing');
    users.update({ ...admin, name: 'Alex Renamed' });
    try {
      expect((await get(people.owner.token, path)).body.lock_events[0]?.performer?.name).toBe('Alex Renamed');
    } finally {
      users.update(admin);
    }

    // A stranger given a key sees their (empty) history; revoked, the lock is gone at once.
    const sent = await fetch(`${test.baseUrl}/ekey`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${people.owner.token}` },
      body: JSON.stringify({ email: test.demo.users.find((user) => user.id === people.stranger.id)?.email, lock_id: frontDoor, type: 'anytime' }),
    });
    expect(sent.status).toBe(201);
    const strangerKey = ((await sent.json()) as { id: string }).id;
    expect((await get(people.stranger.token, path)).body).toEqual({ lock_events: [], metadata: { limit: 5, count: 0 } });
    const revoked = await fetch(`${test.baseUrl}/ekey/${strangerKey}`, { method: 'DELETE', headers: { accept: 'application/json', authorization: `Bearer ${people.owner.token}` } });
    expect(revoked.status).toBe(200);
    expect((await get(people.stranger.token, path)).status).toBe(404);
  });

  it('matches the lock id case-insensitively', async () => {
    const upper = await get(people.owner.token, `/locks/${gardenGate.toUpperCase()}/events?limit=3`);
    expect(upper.status).toBe(200);
    expect(upper.body.metadata.next).toContain(`/locks/${gardenGate}/events`);
  });
});

describe('GET /locks/{lock_id}/events/stream', () => {
  const streamUrl = (): string => `${test.baseUrl}/locks/${frontDoor}/events/stream`;

  it('delivers an event produced after the client connected, then resumes from Last-Event-ID', async () => {
    const baseline = test.service.events.hub.listenerCount();
    const first = await openSse(streamUrl(), { authorization: `Bearer ${people.owner.token}` });
    expect(first.status).toBe(200);
    expect(first.contentType).toContain('text/event-stream');
    expect(await first.until((client) => client.text.includes(': connected'))).toBe(true);

    const action = await tapMoving(people.guest.keyId);
    expect(await first.until((client) => client.messages().length === 1)).toBe(true);
    const [message] = first.messages();
    const event = JSON.parse(message?.data ?? '{}') as LockEventBody;
    expect(event).toMatchObject({ id: message?.id, type: action, lock_id: frontDoor, performer: { id: people.guest.id } });
    first.close();

    // While nobody listens, two more events happen; the resumed stream gets them first, then live ones.
    const missed = nextEvents(frontDoor, 2);
    const missedAction = await tapMoving(people.owner.keyId);
    test.service.events.recorder.recordCommandCompleted({
      lockId: frontDoor,
      commandId: 'd0000000-0000-4000-8000-000000000001',
      action: 'lock',
      performerId: people.admin.id,
      timestamp: Date.now(),
    });
    await missed;
    const resumed = await openSse(streamUrl(), { authorization: `Bearer ${people.owner.token}`, 'last-event-id': message?.id ?? '' });
    expect(await resumed.until((client) => client.messages().length === 2)).toBe(true);
    const liveAction = await tapMoving(people.owner.keyId);
    expect(await resumed.until((client) => client.messages().length === 3)).toBe(true);
    const received = resumed.messages().map((entry) => JSON.parse(entry.data) as LockEventBody);
    expect(received.map((entry) => [entry.type, entry.performer?.id])).toEqual([
      [missedAction, people.owner.id],
      ['lock', people.admin.id],
      [liveAction, people.owner.id],
    ]);
    const history = (await get(people.owner.token, `/locks/${frontDoor}/events?limit=3`)).body.lock_events.map((entry) => entry.id);
    expect(resumed.messages().map((entry) => entry.id)).toEqual([...history].reverse());

    resumed.close();
    await until(() => test.service.events.hub.listenerCount() === baseline, 'the listeners to be released');
    expect(test.service.events.streams.openCount).toBe(0);
  });

  it('streams to a guest only the events they performed', async () => {
    const stream = await openSse(streamUrl(), { authorization: `Bearer ${people.guest.token}` });
    await stream.until((client) => client.text.includes(': connected'));
    await tapMoving(people.owner.keyId);
    await tapMoving(people.guest.keyId);
    expect(await stream.until((client) => client.messages().length >= 1)).toBe(true);
    const events = stream.messages().map((entry) => JSON.parse(entry.data) as LockEventBody);
    expect(events.map((entry) => entry.performer?.id)).toEqual([people.guest.id]);
    stream.close();
  });

  it('answers 404 to others, 401 without a token and 406 to a client that only accepts JSON', async () => {
    expect((await fetch(streamUrl(), { headers: { accept: 'text/event-stream', authorization: `Bearer ${people.stranger.token}` } })).status).toBe(404);
    expect((await fetch(streamUrl(), { headers: { accept: 'text/event-stream' } })).status).toBe(401);
    const json = await fetch(streamUrl(), { headers: { accept: 'application/json', authorization: `Bearer ${people.owner.token}` } });
    expect(json.status).toBe(406);
    expect(json.headers.get('content-type')).toContain('application/problem+json');
    const any = await openSse(streamUrl(), { authorization: `Bearer ${people.owner.token}`, accept: '*/*' });
    expect(any.status).toBe(200);
    any.close();
    await until(() => test.service.events.streams.openCount === 0, 'the streams to close');
  });
});

/** Waits for the server to observe something the client did (a closed socket): polls, bounded at ~5 s. */
describe('service shutdown', () => {
  it('ends every open event stream and releases its listeners', async () => {
    const stream = await openSse(`${test.baseUrl}/locks/${frontDoor}/events/stream`, { authorization: `Bearer ${people.owner.token}` });
    expect(await stream.until((client) => client.text.includes(': connected'))).toBe(true);
    expect(test.service.events.streams.openCount).toBe(1);
    await test.close();
    expect(await stream.until((client) => client.ended)).toBe(true);
    expect(test.service.events.hub.listenerCount()).toBe(0);
    expect(test.service.events.streams.openCount).toBe(0);
  });
});
