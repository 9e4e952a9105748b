import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { StoredEvent } from '../../../src/store/event-repository.js';
import { ADMIN, GUEST, GUEST_KEY, LOCK, OTHER_LOCK, OWNER, OWNER_KEY, START, STRANGER_KEY, eventFixture, type EventFixture } from './event-fixture.js';

let fixture: EventFixture;
let published: StoredEvent[];

beforeEach(() => {
  fixture = eventFixture();
  published = [];
  fixture.events.hub.subscribe(LOCK, (event) => published.push(event));
});
afterEach(() => {
  fixture.close();
});

const all = (): StoredEvent[] => fixture.events.repository.history(LOCK, 1000);

const tap = (sequence: number, credential: string | null, action: 'lock' | 'unlock' = 'unlock', timestamp = START) =>
  fixture.events.recorder.recordActivity({ lockId: LOCK, sequence, action, source: 'tap', credential, timestamp });

describe('EventRecorder.recordActivity', () => {
  it('records a tap as a lock/unlock event performed by the tapping eKey holder', () => {
    const recorded = tap(1, GUEST_KEY, 'unlock', START + 5);
    expect(recorded).toMatchObject({ lockId: LOCK, type: 'unlock', performerId: GUEST.id, timestamp: START + 5, value: null });
    const [stored] = all();
    expect(stored).toMatchObject({ id: recorded?.id, performerName: GUEST.name, source: 'tap', ekeyId: GUEST_KEY, lockSequence: 1, flagged: false });
    expect(published.map((event) => event.id)).toEqual([recorded?.id]);
    expect(fixture.logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('records a tap by a key that was not usable at that instant, flagged, and logs a warning', () => {
    const afterGuestWindow = START + 2 * 86_400_000;
    const recorded = tap(7, GUEST_KEY, 'lock', afterGuestWindow);
    expect(recorded).toMatchObject({ type: 'lock', performerId: GUEST.id });
    expect(all()[0]).toMatchObject({ flagged: true, ekeyId: GUEST_KEY });
    const warnings = fixture.logger.lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain(GUEST_KEY);
    expect(warnings[0]?.message).toContain('flagged');
  });

  it('flags a tap whose credential is unknown or belongs to another lock, with no performer', () => {
    expect(tap(1, 'ffffffff-0000-4000-8000-00000000ffff')).toMatchObject({ performerId: null });
    expect(tap(2, STRANGER_KEY)).toMatchObject({ performerId: null });
    expect(all().map((event) => event.flagged)).toEqual([true, true]);
    expect(fixture.logger.lines.filter((line) => line.level === 'warn')).toHaveLength(2);
  });

  it.each(['manual', 'triple_tap', 'fob', 'auto', 'remote'] as const)('records no event for source %s', (source) => {
    const recorded = fixture.events.recorder.recordActivity({ lockId: LOCK, sequence: 3, action: 'lock', source, credential: null, timestamp: START });
    expect(recorded).toBeNull();
    expect(all()).toEqual([]);
    expect(published).toEqual([]);
  });

  it('records an activity record once, whether it arrives live or is read back after a reconnect', () => {
    const live = tap(10, OWNER_KEY, 'unlock');
    expect(live).not.toBeNull();
    expect(tap(10, OWNER_KEY, 'unlock')).toBeNull();
    expect(all()).toHaveLength(1);
    expect(published).toHaveLength(1);
  });

  it('reads back a backlog of events that happened while out of reach exactly once, in order', () => {
    tap(1, OWNER_KEY, 'unlock', START);
    // The lock went out of reach; sequences 2–4 happened meanwhile (3 was a manual turn).
    const backlog = [
      { kind: 'activity' as const, lockId: LOCK, sequence: 1, action: 'unlock' as const, source: 'tap' as const, credential: OWNER_KEY, timestamp: START },
      { kind: 'activity' as const, lockId: LOCK, sequence: 2, action: 'lock' as const, source: 'tap' as const, credential: GUEST_KEY, timestamp: START + 1000 },
      { kind: 'activity' as const, lockId: LOCK, sequence: 3, action: 'unlock' as const, source: 'manual' as const, credential: null, timestamp: START + 2000 },
      { kind: 'activity' as const, lockId: LOCK, sequence: 4, action: 'unlock' as const, source: 'tap' as const, credential: OWNER_KEY, timestamp: START + 3000 },
    ];
    const first = fixture.events.recorder.recordBatch(backlog);
    expect(first.map((result) => result?.type ?? null)).toEqual([null, 'lock', null, 'unlock']);
    // A second reconnect reads the same records again: nothing new.
    expect(fixture.events.recorder.recordBatch(backlog)).toEqual([null, null, null, null]);
    expect(all().map((event) => [event.lockSequence, event.type, event.performerId])).toEqual([
      [1, 'unlock', OWNER.id],
      [2, 'lock', GUEST.id],
      [4, 'unlock', OWNER.id],
    ]);
    expect(published.map((event) => event.lockSequence)).toEqual([1, 2, 4]);
  });

  it('keeps sequences per lock: the same number on another lock is another event', () => {
    tap(5, OWNER_KEY);
    fixture.events.recorder.recordActivity({ lockId: OTHER_LOCK, sequence: 5, action: 'lock', source: 'tap', credential: STRANGER_KEY, timestamp: START });
    expect(fixture.events.repository.count({ lockId: OTHER_LOCK, types: ['lock', 'unlock', 'battery'] })).toBe(1);
    expect(all()).toHaveLength(1);
  });

  it('matches lock ids and credentials case-insensitively', () => {
    const recorded = fixture.events.recorder.recordActivity({
      lockId: LOCK.toUpperCase(),
      sequence: 1,
      action: 'lock',
      source: 'tap',
      credential: OWNER_KEY.toUpperCase(),
      timestamp: START,
    });
    expect(recorded).toMatchObject({ lockId: LOCK, performerId: OWNER.id });
    expect(all()[0]?.flagged).toBe(false);
  });
});

describe('EventRecorder.recordActivity: taps by a lock-side authorization (docs/design.md §4b)', () => {
  const authorizationTap = (sequence: number, actor: string, linkedUserId: string | null | undefined, action: 'lock' | 'unlock' = 'unlock') =>
    fixture.events.recorder.recordActivity({
      lockId: LOCK,
      sequence,
      action,
      source: 'tap',
      credential: null,
      timestamp: START + sequence,
      actor,
      ...(linkedUserId === undefined ? {} : { linkedUserId }),
    });

  it('records a tap by a linked authorization as that user\'s, not flagged, with no eKey', () => {
    const recorded = authorizationTap(1, "Olivia's iPhone", OWNER.id);
    expect(recorded).toMatchObject({ lockId: LOCK, type: 'unlock', performerId: OWNER.id, timestamp: START + 1 });
    expect(all()[0]).toMatchObject({ id: recorded?.id, performerName: OWNER.name, source: 'tap', ekeyId: null, lockSequence: 1, flagged: false });
    expect(published.map((event) => event.id)).toEqual([recorded?.id]);
    expect(fixture.logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('needs no eKey of the linked user: the Nuki authorization is what let them in', () => {
    // Gabe's guest key ended a day after START; a linked authorization is his all the same.
    const recorded = fixture.events.recorder.recordActivity({
      lockId: LOCK,
      sequence: 2,
      action: 'lock',
      source: 'tap',
      credential: null,
      timestamp: START + 3 * 86_400_000,
      actor: "Gabe's Watch",
      linkedUserId: GUEST.id.toUpperCase(),
    });
    expect(recorded).toMatchObject({ type: 'lock', performerId: GUEST.id });
    expect(all()[0]?.flagged).toBe(false);
  });

  it.each([
    ['null (the name is not in nuki_users)', null],
    ['absent', undefined],
    ['a user that does not exist', 'ffffffff-0000-4000-8000-00000000ffff'],
  ])('records nothing for an authorization linked to %s, and warns about nothing', (_case, linkedUserId) => {
    expect(authorizationTap(3, "Guest's Android", linkedUserId)).toBeNull();
    expect(all()).toEqual([]);
    expect(published).toEqual([]);
    expect(fixture.logger.lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
  });

  it('records a linked tap once: the same log index again (a read-back) records nothing', () => {
    expect(authorizationTap(4, "Olivia's iPhone", OWNER.id)).not.toBeNull();
    expect(authorizationTap(4, "Olivia's iPhone", OWNER.id)).toBeNull();
    expect(authorizationTap(4, "Olivia's iPhone", OWNER.id, 'lock')).toBeNull();
    expect(all()).toHaveLength(1);
    expect(published).toHaveLength(1);
  });

  it('records nothing for a sequence an eKey tap already recorded', () => {
    expect(tap(5, OWNER_KEY)).not.toBeNull();
    expect(authorizationTap(5, "Olivia's iPhone", OWNER.id)).toBeNull();
    expect(all()).toHaveLength(1);
  });

  it.each(['manual', 'fob', 'auto', 'remote'] as const)('records no event for source %s even with a linked actor', (source) => {
    const recorded = fixture.events.recorder.recordActivity({ lockId: LOCK, sequence: 6, action: 'unlock', source, credential: null, timestamp: START, actor: "Olivia's iPhone", linkedUserId: OWNER.id });
    expect(recorded).toBeNull();
    expect(all()).toEqual([]);
  });

  it('commits linked and unlinked taps of a read-back batch: only the linked ones become events', () => {
    const report = (sequence: number, actor: string, linkedUserId: string | null) => ({
      kind: 'activity' as const,
      lockId: LOCK,
      sequence,
      action: 'unlock' as const,
      source: 'tap' as const,
      credential: null,
      timestamp: START + sequence,
      actor,
      linkedUserId,
    });
    const results = fixture.events.recorder.recordBatch([report(7, "Olivia's iPhone", OWNER.id), report(8, 'Keypad', null), report(9, "Alex's Watch", ADMIN.id)]);
    expect(results.map((result) => result?.performerId ?? null)).toEqual([OWNER.id, null, ADMIN.id]);
    expect(all().map((event) => event.lockSequence)).toEqual([7, 9]);
  });
});

describe('EventRecorder.recordCommandCompleted', () => {
  it('records a completed remote command with its requester as performer, once', () => {
    const input = { lockId: LOCK, commandId: 'c0000000-0000-4000-8000-000000000001', action: 'lock' as const, performerId: ADMIN.id, timestamp: START + 9 };
    const recorded = fixture.events.recorder.recordCommandCompleted(input);
    expect(recorded).toMatchObject({ type: 'lock', performerId: ADMIN.id, timestamp: START + 9 });
    expect(fixture.events.recorder.recordCommandCompleted(input)).toEqual(recorded);
    expect(all()).toHaveLength(1);
    expect(all()[0]).toMatchObject({ source: 'command', commandId: input.commandId, performerName: ADMIN.name });
    expect(published).toHaveLength(1);
  });
});

describe('EventRecorder.recordBattery', () => {
  it('records a battery event only when the level changed', () => {
    const report = (level: number) => fixture.events.recorder.recordBattery({ lockId: LOCK, level, timestamp: START });
    expect(report(0.8)).toMatchObject({ type: 'battery', performerId: null, value: 0.8 });
    expect(report(0.8)).toBeNull();
    expect(report(0.79)).toMatchObject({ value: 0.79 });
    expect(report(0.79)).toBeNull();
    expect(report(0.8)).toMatchObject({ value: 0.8 });
    expect(all().map((event) => event.value)).toEqual([0.8, 0.79, 0.8]);
  });

  it('keeps the level on a 0–1 scale and ignores a report that is not a number', () => {
    expect(fixture.events.recorder.recordBattery({ lockId: LOCK, level: 1.5, timestamp: START })).toMatchObject({ value: 1 });
    expect(fixture.events.recorder.recordBattery({ lockId: LOCK, level: Number.NaN, timestamp: START })).toBeNull();
  });
});

describe('EventRecorder inside a caller’s transaction', () => {
  it('publishes an event recorded in an outer transaction only after that transaction committed', async () => {
    const input = { lockId: LOCK, commandId: 'c0000000-0000-4000-8000-000000000009', action: 'unlock' as const, performerId: OWNER.id, timestamp: START };
    fixture.db.transaction(() => {
      fixture.events.recorder.recordCommandCompleted(input);
      expect(published).toEqual([]);
    })();
    await Promise.resolve();
    expect(published.map((event) => event.commandId)).toEqual([input.commandId]);
  });

  it('never publishes an event whose outer transaction rolled back', async () => {
    const input = { lockId: LOCK, commandId: 'c0000000-0000-4000-8000-00000000000a', action: 'lock' as const, performerId: OWNER.id, timestamp: START };
    expect(() => {
      fixture.db.transaction(() => {
        fixture.events.recorder.recordCommandCompleted(input);
        throw new Error('the caller failed after recording');
      })();
    }).toThrow('the caller failed');
    await Promise.resolve();
    expect(published).toEqual([]);
    expect(all()).toEqual([]);
    expect(fixture.events.repository.count({ lockId: LOCK, types: ['lock', 'unlock', 'battery'] })).toBe(0);
  });
});
