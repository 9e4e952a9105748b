import { afterEach, describe, expect, it } from '@jest/globals';
import { LOCK, OTHER_LOCK, OWNER, OWNER_KEY, START, STRANGER_KEY, eventFixture, type EventFixture } from './event-fixture.js';

let fixture: EventFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

const DAY = 86_400_000;

function seed(f: EventFixture, lockId: string, credential: string, count: number, startAt: number, stepMs: number): void {
  f.events.recorder.recordBatch(
    Array.from({ length: count }, (_, index) => ({
      kind: 'activity' as const,
      lockId,
      sequence: index + 1,
      action: index % 2 === 0 ? ('lock' as const) : ('unlock' as const),
      source: 'tap' as const,
      credential,
      timestamp: startAt + index * stepMs,
    })),
  );
}

/** The counters must equal what a full count finds (the test may scan; the service never does). */
function expectCountersExact(f: EventFixture, lockId: string): void {
  const actual = f.db
    .prepare<[string], { type: string; performer_id: string | null; n: number }>(
      'SELECT type, performer_id, COUNT(*) AS n FROM lock_events WHERE lock_id = ? GROUP BY type, performer_id',
    )
    .all(lockId);
  for (const type of ['lock', 'unlock', 'battery'] as const) {
    const total = actual.filter((row) => row.type === type).reduce((sum, row) => sum + row.n, 0);
    expect(f.events.repository.count({ lockId, types: [type] })).toBe(total);
    const byOwner = actual.filter((row) => row.type === type && row.performer_id === OWNER.id).reduce((sum, row) => sum + row.n, 0);
    expect(f.events.repository.count({ lockId, types: [type], performerId: OWNER.id })).toBe(byOwner);
  }
}

describe('EventRetention', () => {
  it('keeps only the newest max_per_lock events of each lock, in small batches, counters exact', () => {
    fixture = eventFixture({ retention: { maxPerLock: 100 } });
    seed(fixture, LOCK, OWNER_KEY, 1234, START, 1000);
    seed(fixture, OTHER_LOCK, STRANGER_KEY, 50, START, 1000);
    const newest = fixture.events.query.list(OWNER.id, LOCK, { limit: '100' }).lock_events.map((event) => event.id);
    const firstStep = fixture.events.retention.pruneStep();
    expect(firstStep).toBe(500);
    expect(fixture.events.retention.pruneAll()).toBe(1234 - 100 - 500);
    const page = fixture.events.query.list(OWNER.id, LOCK, { limit: '200' });
    expect(page.metadata.count).toBe(100);
    expect(page.lock_events.map((event) => event.id)).toEqual(newest);
    expect(fixture.events.repository.count({ lockId: OTHER_LOCK, types: ['lock', 'unlock', 'battery'] })).toBe(50);
    expectCountersExact(fixture, LOCK);
  });

  it('removes events recorded longer ago than max_age_days and keeps the rest', () => {
    fixture = eventFixture({ retention: { maxAgeDays: 30 } });
    const f = fixture;
    // One event recorded each day for 60 days, the last one today.
    for (let day = 0; day < 60; day += 1) {
      f.clock.set(START - (59 - day) * DAY);
      f.events.recorder.recordActivity({ lockId: LOCK, sequence: day + 1, action: 'lock', source: 'tap', credential: OWNER_KEY, timestamp: f.clock.now() });
    }
    f.clock.set(START);
    expect(f.events.retention.pruneAll()).toBe(29);
    const page = fixture.events.query.list(OWNER.id, LOCK, { limit: '200' });
    // Days -59 … -31 go; day -30 (exactly at the cutoff) … day 0 stay.
    expect(page.metadata.count).toBe(31);
    expect(page.lock_events.every((event) => Date.parse(event.timestamp) >= START - 30 * DAY)).toBe(true);
    expectCountersExact(fixture, LOCK);
  });

  it('prunes nothing without a policy', () => {
    fixture = eventFixture();
    seed(fixture, LOCK, OWNER_KEY, 10, START, 1);
    expect(fixture.events.retention.enabled).toBe(false);
    expect(fixture.events.retention.pruneAll()).toBe(0);
  });
});
