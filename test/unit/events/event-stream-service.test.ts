import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { GUEST, GUEST_KEY, LOCK, OWNER, OWNER_KEY, START, STRANGER, eventFixture, RecordingConnection, type EventFixture } from './event-fixture.js';

let fixture: EventFixture;
beforeEach(() => {
  fixture = eventFixture();
});
afterEach(() => {
  fixture.close();
});

let sequence = 0;
const tap = (credential: string) =>
  fixture.events.recorder.recordActivity({ lockId: LOCK, sequence: ++sequence, action: 'unlock', source: 'tap', credential, timestamp: START });

describe('EventStreamService', () => {
  it('delivers an event recorded after the stream opened, as id: + data: LockEvent JSON', () => {
    const connection = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), connection);
    expect(connection.text).toBe(': connected\n\n');
    const recorded = tap(OWNER_KEY);
    expect(connection.messages()).toEqual([{ id: recorded?.id, data: expect.objectContaining({ id: recorded?.id, type: 'unlock', lock_id: LOCK }) }]);
  });

  it('gives a guest only the events they performed', () => {
    const connection = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(GUEST.id, LOCK), connection);
    tap(OWNER_KEY);
    const own = tap(GUEST_KEY);
    fixture.events.recorder.recordBattery({ lockId: LOCK, level: 0.5, timestamp: START });
    expect(connection.messages().map((message) => message.id)).toEqual([own?.id]);
  });

  it('refuses a stranger with 404 before anything is written', () => {
    expect(() => fixture.events.streams.authorize(STRANGER.id, LOCK)).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('resumes from Last-Event-ID: the missed events first, oldest first, then live, none twice', () => {
    const seen = tap(OWNER_KEY);
    const missed = Array.from({ length: 450 }, () => tap(OWNER_KEY)?.id);
    const connection = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), connection, seen?.id);
    // The first replay batch is written at once; the rest follow on later turns of the event loop.
    return new Promise<void>((resolve) => {
      const check = (): void => {
        if (connection.messages().length < missed.length) {
          setImmediate(check);
          return;
        }
        const live = tap(OWNER_KEY);
        expect(connection.messages().map((message) => message.id)).toEqual([...missed, live?.id]);
        resolve();
      };
      check();
    });
  });

  it('does not lose or repeat events recorded while a long replay is under way', async () => {
    const seen = tap(OWNER_KEY);
    const missed = Array.from({ length: 450 }, () => tap(OWNER_KEY)?.id);
    const connection = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), connection, seen?.id);
    const during = tap(OWNER_KEY)?.id;
    await new Promise((resolve) => setImmediate(resolve));
    const alsoDuring = tap(OWNER_KEY)?.id;
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (connection.messages().length < missed.length + 2) setImmediate(check);
        else resolve();
      };
      check();
    });
    expect(connection.messages().map((message) => message.id)).toEqual([...missed, during, alsoDuring]);
  });

  it('starts live when Last-Event-ID is unknown', () => {
    tap(OWNER_KEY);
    const connection = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), connection, 'not-an-event');
    expect(connection.messages()).toEqual([]);
    const live = tap(OWNER_KEY);
    expect(connection.messages().map((message) => message.id)).toEqual([live?.id]);
  });

  it('writes a heartbeat comment on each tick', () => {
    const connection = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), connection);
    fixture.timers.fire();
    fixture.timers.fire();
    expect(connection.text).toBe(': connected\n\n: heartbeat\n\n: heartbeat\n\n');
  });

  it('closes a guest’s stream at the next heartbeat once their key no longer works', () => {
    const connection = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(GUEST.id, LOCK), connection);
    fixture.clock.advance(2 * 86_400_000);
    fixture.timers.fire();
    expect(connection.ended).toBe(true);
    expect(fixture.events.hub.listenerCount()).toBe(0);
  });

  it('releases its listener and timer on close, and closeAll ends every stream', () => {
    const baseline = fixture.events.hub.listenerCount();
    const first = new RecordingConnection();
    const second = new RecordingConnection();
    const stream = fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), first);
    fixture.events.streams.start(fixture.events.streams.authorize(GUEST.id, LOCK), second);
    expect(fixture.events.hub.listenerCount(LOCK)).toBe(baseline + 2);
    expect(fixture.timers.active).toBe(2);
    stream.close();
    stream.close();
    expect(first.ended).toBe(true);
    expect(fixture.events.hub.listenerCount()).toBe(baseline + 1);
    tap(OWNER_KEY);
    expect(first.messages()).toEqual([]);
    fixture.events.streams.closeAll();
    expect(second.ended).toBe(true);
    expect(fixture.events.hub.listenerCount()).toBe(baseline);
    expect(fixture.timers.active).toBe(0);
    expect(fixture.events.streams.openCount).toBe(0);
  });

  it('drops a client that stops reading instead of buffering without bound', () => {
    const connection = new RecordingConnection();
    fixture.events.streams.start(fixture.events.streams.authorize(OWNER.id, LOCK), connection);
    connection.pendingBytes = 2 * 1024 * 1024;
    tap(OWNER_KEY);
    expect(connection.ended).toBe(true);
    expect(fixture.events.hub.listenerCount()).toBe(0);
  });
});
