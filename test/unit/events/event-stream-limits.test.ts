import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ServiceError } from '../../../src/domain/errors.js';
import { EventStreamService } from '../../../src/events/event-stream-service.js';
import { ADMIN, GUEST, LOCK, OWNER, OWNER_KEY, START, eventFixture, RecordingConnection, type EventFixture } from './event-fixture.js';
import { thrownError } from '../../support/thrown-error.js';

let fixture: EventFixture;
beforeEach(() => {
  fixture = eventFixture();
});
afterEach(() => {
  fixture.close();
});

let sequence = 0;
const tap = () =>
  fixture.events.recorder.recordActivity({ lockId: LOCK, sequence: ++sequence, action: 'unlock', source: 'tap', credential: OWNER_KEY, timestamp: START });

/** The error `work` throws (fails the test when it throws none). */
const thrown = (work: () => unknown): ServiceError => thrownError(ServiceError, work);

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('event stream limits (docs/design.md §9)', () => {
  it('allows 10 open streams per user; the 11th is 429 too_many_streams with Retry-After, and closing one frees a slot', () => {
    const streams = fixture.events.streams;
    const open = Array.from({ length: 10 }, () => streams.start(streams.authorize(OWNER.id, LOCK), new RecordingConnection()));
    const refused = thrown(() => streams.authorize(OWNER.id, LOCK));
    expect(refused).toMatchObject({ status: 429, code: 'too_many_streams', headers: { 'retry-after': '30' } });
    // Another user is not affected by the owner's ten.
    expect(() => streams.authorize(ADMIN.id, LOCK)).not.toThrow();
    open[0]?.close();
    open[0]?.close();
    expect(() => streams.start(streams.authorize(OWNER.id, LOCK), new RecordingConnection())).not.toThrow();
    expect(() => streams.authorize(OWNER.id, LOCK)).toThrow(ServiceError);
  });

  it('allows a bounded number of streams in all, whoever opens them', () => {
    const streams = new EventStreamService({ query: fixture.events.query, hub: fixture.events.hub, logger: fixture.logger, timer: fixture.timers.timer, limits: { total: 3 } });
    const first = streams.start(streams.authorize(OWNER.id, LOCK), new RecordingConnection());
    streams.start(streams.authorize(OWNER.id, LOCK), new RecordingConnection());
    streams.start(streams.authorize(ADMIN.id, LOCK), new RecordingConnection());
    expect(thrown(() => streams.authorize(GUEST.id, LOCK))).toMatchObject({ status: 429, code: 'too_many_streams' });
    first.close();
    expect(() => streams.start(streams.authorize(GUEST.id, LOCK), new RecordingConnection())).not.toThrow();
    expect(streams.openCount).toBe(3);
    streams.closeAll();
  });

  it('drops a client whose replay falls behind the live events instead of holding them without bound', async () => {
    const streams = new EventStreamService({ query: fixture.events.query, hub: fixture.events.hub, logger: fixture.logger, timer: fixture.timers.timer, limits: { heldEvents: 5 } });
    const seen = tap();
    for (let index = 0; index < 450; index += 1) tap();
    const connection = new RecordingConnection();
    const listeners = fixture.events.hub.listenerCount(LOCK);
    streams.start(streams.authorize(OWNER.id, LOCK), connection, seen?.id);
    // The replay yields between batches; six live events arrive before it is done.
    for (let index = 0; index < 6; index += 1) tap();
    expect(connection.ended).toBe(true);
    expect(fixture.events.hub.listenerCount(LOCK)).toBe(listeners);
    await nextTurn();
    const written = connection.ids.length;
    tap();
    expect(connection.ids.length).toBe(written);
    expect(fixture.logger.lines.some((line) => line.level === 'warn' && line.message.includes('too many live events during the replay'))).toBe(true);
  });
});

describe('event stream replay when the store fails (fault injection, real SQLite)', () => {
  it('closes that stream with one error line, never an uncaught exception, and streaming goes on for the others', async () => {
    const seen = tap();
    for (let index = 0; index < 450; index += 1) tap();
    const replaying = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), replaying, seen?.id);
    const firstBatch = replaying.ids.length;
    expect(firstBatch).toBeGreaterThan(0);
    expect(firstBatch).toBeLessThan(450);
    // The next batch runs from setImmediate: the table it reads is gone by then.
    fixture.db.exec('ALTER TABLE lock_events RENAME TO lock_events_away');
    await nextTurn();
    await nextTurn();
    expect(replaying.ended).toBe(true);
    expect(replaying.ids.length).toBe(firstBatch);
    expect(fixture.logger.lines.filter((line) => line.level === 'error' && line.message.includes('replay failed'))).toHaveLength(1);
    expect(fixture.events.streams.openCount).toBe(0);

    fixture.db.exec('ALTER TABLE lock_events_away RENAME TO lock_events');
    const live = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), live);
    const recorded = tap();
    expect(live.ids).toEqual([recorded?.id]);
  });
});
