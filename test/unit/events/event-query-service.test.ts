import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { LockEventPage } from '../../../src/events/event-query-service.js';
import type { RawEventPageQuery } from '../../../src/domain/event-paging.js';
import { ServiceError } from '../../../src/domain/errors.js';
import { ADMIN, ADMIN_KEY, GUEST, GUEST_KEY, LOCK, OTHER_LOCK, OWNER, OWNER_KEY, START, STRANGER, eventFixture, type EventFixture } from './event-fixture.js';

let fixture: EventFixture;
beforeEach(() => {
  fixture = eventFixture();
});
afterEach(() => {
  fixture.close();
});

/** 37 taps (owner, admin, guest in turn, alternating lock/unlock) with a battery change every 5th. */
function seedHistory(): void {
  const keys = [OWNER_KEY, ADMIN_KEY, GUEST_KEY];
  for (let index = 0; index < 37; index += 1) {
    fixture.events.recorder.recordActivity({
      lockId: LOCK,
      sequence: index + 1,
      action: index % 2 === 0 ? 'unlock' : 'lock',
      source: 'tap',
      credential: keys[index % 3] ?? OWNER_KEY,
      timestamp: START + index * 1000,
    });
    if (index % 5 === 0) fixture.events.recorder.recordBattery({ lockId: LOCK, level: 1 - index / 100, timestamp: START + index * 1000 });
  }
}

/** The page as the API serves it: listJson, through the page cache. */
const list = (callerId: string, query: RawEventPageQuery): LockEventPage => JSON.parse(fixture.events.query.listJson(callerId, LOCK, query)) as LockEventPage;

/** Follows `next` from the first page, then `previous` back; returns the ids seen each way. */
function walk(callerId: string, query: RawEventPageQuery): { forward: string[][]; backward: string[][]; counts: number[] } {
  const forward: string[][] = [];
  const backward: string[][] = [];
  const counts: number[] = [];
  let page = list(callerId, query);
  for (;;) {
    forward.push(page.lock_events.map((event) => event.id));
    counts.push(page.metadata.count);
    if (!page.metadata.next) break;
    page = list(callerId, Object.fromEntries(new URL(page.metadata.next, 'http://x').searchParams));
  }
  for (;;) {
    backward.unshift(page.lock_events.map((event) => event.id));
    if (!page.metadata.previous) break;
    page = list(callerId, Object.fromEntries(new URL(page.metadata.previous, 'http://x').searchParams));
  }
  return { forward, backward, counts };
}

const expectNewestFirst = (ids: string[], callerId: string): void => {
  const seqs = ids.map((id) => fixture.events.repository.findById(id)?.seq ?? 0);
  expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
  expect(callerId).toBeDefined();
};

describe('GET /locks/{id}/events paging (EventQueryService.list)', () => {
  it.each<[string, RawEventPageQuery]>([
    ['everything, limit 7', { limit: '7' }],
    ['lock,unlock, limit 5', { type: 'lock,unlock', limit: '5' }],
    ['battery only, limit 2', { type: 'battery', limit: '2' }],
    ['unlock only, default limit', { type: 'unlock' }],
    ['limit equal to the total', { type: 'battery', limit: '8' }],
  ])('walks %s forwards and backwards, seeing every event exactly once', (_name, query) => {
    seedHistory();
    const { forward, backward, counts } = walk(OWNER.id, query);
    const seen = forward.flat();
    expect(new Set(seen).size).toBe(seen.length);
    expect(backward).toEqual(forward);
    expect(counts.every((count) => count === seen.length)).toBe(true);
    const types = query.type?.split(',') ?? ['lock', 'unlock', 'battery'];
    const expected = fixture.events.repository
      .page({ lockId: LOCK, types: ['lock', 'unlock', 'battery'] }, 'older', null, 1000)
      .filter((event) => types.includes(event.type))
      .map((event) => event.id);
    expect(seen).toEqual(expected);
    expectNewestFirst(seen, OWNER.id);
    for (const page of forward.slice(0, -1)) expect(page).toHaveLength(Number(query.limit ?? 20));
  });

  it('answers an empty history with no events, count 0 and no links', () => {
    expect(list(OWNER.id, {})).toEqual({ lock_events: [], metadata: { limit: 20, count: 0 } });
  });

  it('shapes LockEvents as the spec does: performer on taps, value on battery, ISO timestamps', () => {
    fixture.events.recorder.recordActivity({ lockId: LOCK, sequence: 1, action: 'unlock', source: 'tap', credential: GUEST_KEY, timestamp: START + 1 });
    fixture.events.recorder.recordBattery({ lockId: LOCK, level: 0.42, timestamp: START + 2 });
    const page = list(OWNER.id, {});
    expect(page.lock_events).toEqual([
      { id: expect.any(String), type: 'battery', lock_id: LOCK, timestamp: new Date(START + 2).toISOString(), value: 0.42 },
      { id: expect.any(String), type: 'unlock', lock_id: LOCK, performer: { id: GUEST.id, name: GUEST.name }, timestamp: '2026-01-15T12:00:00.001Z' },
    ]);
    expect(Object.keys(page.lock_events[1] ?? {})).toEqual(['id', 'type', 'lock_id', 'performer', 'timestamp']);
  });

  it('names the performer by their current name', () => {
    fixture.events.recorder.recordActivity({ lockId: LOCK, sequence: 1, action: 'lock', source: 'tap', credential: GUEST_KEY, timestamp: START });
    fixture.db.prepare('UPDATE users SET name = ? WHERE id = ?').run('Gabe Renamed', GUEST.id);
    expect(list(OWNER.id, {}).lock_events[0]?.performer).toEqual({ id: GUEST.id, name: 'Gabe Renamed' });
  });

  it('refuses an unknown cursor, a cursor of another lock and a malformed one with 400 invalid_cursor', () => {
    seedHistory();
    fixture.events.recorder.recordActivity({ lockId: OTHER_LOCK, sequence: 1, action: 'lock', source: 'tap', credential: null, timestamp: START });
    const otherLockEvent = fixture.events.repository.page({ lockId: OTHER_LOCK, types: ['lock'] }, 'older', null, 1)[0]?.id ?? '';
    for (const query of [{ after: 'f0000000-0000-4000-8000-000000000000' }, { before: otherLockEvent }, { after: 'x' }]) {
      expect(() => list(OWNER.id, query)).toThrow(expect.objectContaining({ status: 400, code: 'invalid_cursor' }));
    }
    expect(() => list(OWNER.id, { limit: '201' })).toThrow(expect.objectContaining({ status: 400, code: 'invalid_limit' }));
    expect(() => list(OWNER.id, { after: otherLockEvent, before: otherLockEvent })).toThrow(
      expect.objectContaining({ status: 400, code: 'conflicting_cursors' }),
    );
  });

  it('returns the page just newer than a `before` cursor, still newest first', () => {
    seedHistory();
    const everything = list(OWNER.id, { limit: '200' }).lock_events.map((event) => event.id);
    const anchor = everything[10] ?? '';
    const page = list(OWNER.id, { limit: '4', before: anchor });
    expect(page.lock_events.map((event) => event.id)).toEqual(everything.slice(6, 10));
    expect(page.metadata.previous).toContain(`before=${everything[6] ?? ''}`);
    expect(page.metadata.next).toContain(`after=${everything[9] ?? ''}`);
    const top = list(OWNER.id, { limit: '4', before: everything[2] ?? '' });
    expect(top.lock_events.map((event) => event.id)).toEqual(everything.slice(0, 2));
    expect(top.metadata.previous).toBeUndefined();
  });
});

describe('event visibility', () => {
  it('shows owners and admins every event, a guest only their own, and strangers a 404', () => {
    seedHistory();
    const ownerView = list(OWNER.id, { limit: '200' });
    const adminView = list(ADMIN.id, { limit: '200' });
    const guestView = list(GUEST.id, { limit: '200' });
    expect(ownerView.metadata.count).toBe(37 + 8);
    expect(adminView.lock_events).toEqual(ownerView.lock_events);
    expect(guestView.lock_events.length).toBe(12);
    expect(guestView.metadata.count).toBe(12);
    expect(guestView.lock_events.every((event) => event.performer?.id === GUEST.id)).toBe(true);
    expect(list(GUEST.id, { type: 'battery' })).toEqual({ lock_events: [], metadata: { limit: 20, count: 0 } });
    expect(() => list(STRANGER.id, {})).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => fixture.events.query.list(OWNER.id, 'f0000000-0000-4000-8000-000000000000', {})).toThrow(ServiceError);
  });

  it('walks a guest through their own events only, with count equal to what they walked', () => {
    seedHistory();
    const { forward, backward, counts } = walk(GUEST.id, { limit: '5', type: 'lock,unlock' });
    expect(backward).toEqual(forward);
    expect(forward.flat()).toHaveLength(12);
    expect(counts.every((count) => count === 12)).toBe(true);
  });

  it('does not accept another performer’s event as a guest’s cursor', () => {
    seedHistory();
    const ownerEvent = list(OWNER.id, { type: 'battery', limit: '1' }).lock_events[0]?.id ?? '';
    expect(() => list(GUEST.id, { after: ownerEvent })).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
  });

  it('hides the lock from a guest once their key has expired', () => {
    fixture.clock.advance(2 * 86_400_000);
    expect(() => list(GUEST.id, {})).toThrow(expect.objectContaining({ status: 404 }));
  });
});

describe('the page cache (EventQueryService.listJson)', () => {
  const tap = (sequence: number, credential: string, action: 'lock' | 'unlock' = 'unlock'): void => {
    fixture.events.recorder.recordActivity({ lockId: LOCK, sequence, action, source: 'tap', credential, timestamp: START + sequence * 1000 });
  };

  it('serves exactly what the store says, for every query shape and view', () => {
    seedHistory();
    const cursor = list(OWNER.id, { limit: '3' }).lock_events[2]?.id ?? '';
    const guestCursor = list(GUEST.id, { limit: '2' }).lock_events[1]?.id ?? '';
    const cases: [string, RawEventPageQuery][] = [
      [OWNER.id, {}],
      [OWNER.id, { limit: '7', type: 'battery,unlock' }],
      [OWNER.id, { limit: '5', after: cursor }],
      [ADMIN.id, { limit: '5', before: cursor }],
      [GUEST.id, { limit: '4', after: guestCursor }],
    ];
    for (const [caller, query] of cases) {
      const fromStore = fixture.events.query.list(caller, LOCK, query);
      // Asked twice: the second answer comes from the cache and must not differ.
      expect(fixture.events.query.listJson(caller, LOCK, query)).toBe(JSON.stringify(fromStore));
      expect(fixture.events.query.listJson(caller, LOCK, query)).toBe(JSON.stringify(fromStore));
    }
  });

  it('shows an event recorded after a page was served on the next request, with the new count', () => {
    seedHistory();
    const before = list(OWNER.id, { limit: '5' });
    const olderPage = list(OWNER.id, { limit: '5', after: before.lock_events[4]?.id ?? '' });
    tap(100, ADMIN_KEY, 'lock');
    const after = list(OWNER.id, { limit: '5' });
    expect(after.metadata.count).toBe(before.metadata.count + 1);
    expect(after.lock_events[0]).toMatchObject({ type: 'lock', performer: { id: ADMIN.id } });
    expect(after.lock_events.slice(1).map((event) => event.id)).toEqual(before.lock_events.slice(0, 4).map((event) => event.id));
    // A deeper page lists the same events, but its count moved too.
    expect(list(OWNER.id, { limit: '5', after: before.lock_events[4]?.id ?? '' })).toEqual({
      ...olderPage,
      metadata: { ...olderPage.metadata, count: before.metadata.count + 1 },
    });
  });

  it('shows a performer’s new name on the next request', () => {
    seedHistory();
    expect(list(OWNER.id, { type: 'lock,unlock', limit: '3' }).lock_events.map((event) => event.performer?.name)).toContain('Olivia Owner');
    const owner = fixture.users.findById(OWNER.id);
    if (!owner) throw new Error('no owner');
    fixture.users.update({ ...owner, name: 'Olivia Renamed' });
    const names = list(OWNER.id, { type: 'lock,unlock', limit: '3' }).lock_events.map((event) => event.performer?.name);
    expect(names).toContain('Olivia Renamed');
    expect(names).not.toContain('Olivia Owner');
  });

  it('follows retention: pruned events and their cursors are gone on the next request', () => {
    seedHistory();
    const oldest = list(OWNER.id, { limit: '200' }).lock_events.at(-1)?.id ?? '';
    const oldestPage = list(OWNER.id, { limit: '3', before: oldest });
    expect(oldestPage.lock_events).toHaveLength(3);
    const total = list(OWNER.id, {}).metadata.count;
    fixture.db.transaction(() => fixture.events.repository.deleteSeqs(fixture.events.repository.oldestSeqs(LOCK, 1)))();
    expect(list(OWNER.id, {}).metadata.count).toBe(total - 1);
    expect(() => list(OWNER.id, { limit: '3', before: oldest })).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
  });

  it('decides who may see the lock on every request, never from the cache', () => {
    seedHistory();
    const guestPage = fixture.events.query.listJson(GUEST.id, LOCK, {});
    const ownerPage = fixture.events.query.listJson(OWNER.id, LOCK, {});
    expect(guestPage).not.toBe(ownerPage);
    expect((JSON.parse(guestPage) as LockEventPage).lock_events.every((event) => event.performer?.id === GUEST.id)).toBe(true);
    expect(() => fixture.events.query.listJson(STRANGER.id, LOCK, {})).toThrow(expect.objectContaining({ status: 404 }));
    fixture.clock.advance(2 * 86_400_000);
    expect(() => fixture.events.query.listJson(GUEST.id, LOCK, {})).toThrow(expect.objectContaining({ status: 404 }));
    expect(fixture.events.query.listJson(OWNER.id, LOCK, {})).toBe(ownerPage);
  });
});
