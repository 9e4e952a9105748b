/**
 * The demo household's past week (docs/design.md §7: the demo starts with a week of history and
 * battery readings, so every page shows real data on first start). Written once, when the
 * household is seeded, in the same transaction; the same pattern every time (no randomness): the
 * owner's comings and goings on weekdays and weekends, and a battery that drains slowly. The locks'
 * stored state ends where the history ends (locked, at the last reading), so the simulated locks
 * start there and report nothing new until driven.
 */
import { DateTime } from 'luxon';
import { newEventId } from '../events/event-id.js';
import type { EventRepository, NewEvent } from '../store/event-repository.js';

/** How many days of history the demo starts with. */
export const DEMO_HISTORY_DAYS = 7;

/**
 * One lock's routine: local times (hour, minute) of an unlock each followed a minute later by a
 * lock; at an Opener (`rings`), of a ring at the intercom each answered by the owner opening the
 * door (the strike opens once; nothing to lock after).
 */
interface Routine {
  weekday: readonly (readonly [number, number])[];
  weekend: readonly (readonly [number, number])[];
  /** Battery level seven days ago and now (whole percent); absent where the lock reports only a critical flag (the Opener). */
  battery?: readonly [number, number];
  rings?: true;
}

/** By lock name; a lock not named here (one without a gateway connection) gets no history. */
const ROUTINES: Readonly<Record<string, Routine>> = {
  'Front Door': {
    weekday: [[7, 34], [12, 58], [18, 12]],
    weekend: [[10, 15], [16, 40]],
    battery: [93, 87],
  },
  'Back Door': {
    weekday: [[8, 5], [19, 30]],
    weekend: [[9, 20], [14, 5], [17, 45]],
    battery: [81, 76],
  },
  'Building Door': {
    weekday: [[7, 31], [18, 9]],
    weekend: [[10, 12]],
    rings: true,
  },
};

export interface DemoHistoryLock {
  id: string;
  name: string;
  /** The lock's IANA zone: the routine happens on its clock. */
  zone: string;
  /** The owner's key on it (the taps are made with it). */
  ownerKeyId: string;
}

/** What the seeding wrote for one lock: where its state ends. */
export interface SeededHistory {
  lockId: string;
  /** The last reading; null for a lock without readings. */
  batteryLevel: number | null;
  events: number;
}

/**
 * The events of the past {@link DEMO_HISTORY_DAYS} days before `now`, for the locks that have a
 * routine. Pure: the same `now` and locks give the same events (but for their ids).
 */
export function demoHistoryEvents(locks: readonly DemoHistoryLock[], owner: { id: string; name: string }, now: number): { events: NewEvent[]; seeded: SeededHistory[] } {
  const events: NewEvent[] = [];
  const seeded: SeededHistory[] = [];
  for (const lock of locks) {
    const routine = ROUTINES[lock.name];
    if (routine === undefined) continue;
    const today = DateTime.fromMillis(now, { zone: lock.zone }).startOf('day');
    const lockEvents: NewEvent[] = [];
    const ring = (at: number): void => {
      lockEvents.push({
        id: newEventId(at),
        lockId: lock.id,
        type: 'ring',
        performerId: null,
        performerName: null,
        occurredAt: at,
        value: null,
        detail: null,
        source: 'ring',
        ekeyId: null,
        commandId: null,
        lockSequence: null,
        flagged: false,
        recordedAt: at,
      });
    };
    const tap = (at: number, type: 'lock' | 'unlock'): void => {
      lockEvents.push({
        id: newEventId(at),
        lockId: lock.id,
        type,
        performerId: owner.id,
        performerName: owner.name,
        occurredAt: at,
        value: null,
        detail: null,
        source: 'tap',
        ekeyId: lock.ownerKeyId,
        commandId: null,
        lockSequence: null,
        flagged: false,
        recordedAt: at,
      });
    };
    for (let day = DEMO_HISTORY_DAYS; day >= 1; day -= 1) {
      const date = today.minus({ days: day });
      if (routine.battery !== undefined) {
        const [first, last] = routine.battery;
        // One reading a night, draining evenly from the first level to the last.
        const level = Math.round(first - ((first - last) * (DEMO_HISTORY_DAYS - day)) / (DEMO_HISTORY_DAYS - 1)) / 100;
        const nightly = date.set({ hour: 3, minute: 0 }).toMillis();
        lockEvents.push({
          id: newEventId(nightly),
          lockId: lock.id,
          type: 'battery',
          performerId: null,
          performerName: null,
          occurredAt: nightly,
          value: level,
          detail: null,
          source: 'battery',
          ekeyId: null,
          commandId: null,
          lockSequence: null,
          flagged: false,
          recordedAt: nightly,
        });
      }
      const times = date.weekday >= 6 ? routine.weekend : routine.weekday;
      // A few minutes' difference from day to day, the same on every run.
      times.forEach(([hour, minute], index) => {
        const at = date.set({ hour, minute: (minute + ((day * 7 + index * 3) % 11)) % 60 }).toMillis();
        if (routine.rings === true) {
          ring(at);
          tap(at + 15_000 + ((day + index) % 3) * 5_000, 'unlock');
          return;
        }
        tap(at, 'unlock');
        tap(at + 60_000 + ((day + index) % 3) * 20_000, 'lock');
      });
    }
    const kept = lockEvents.filter((event) => event.occurredAt < now).sort((a, b) => a.occurredAt - b.occurredAt);
    events.push(...kept);
    seeded.push({ lockId: lock.id, batteryLevel: routine.battery === undefined ? null : routine.battery[1] / 100, events: kept.length });
  }
  return { events, seeded };
}

/** Writes the history (call inside the seeding transaction) and keeps the event counters exact. */
export function seedDemoHistory(repository: EventRepository, locks: readonly DemoHistoryLock[], owner: { id: string; name: string }, now: number): SeededHistory[] {
  const { events, seeded } = demoHistoryEvents(locks, owner, now);
  for (const event of events) repository.insert(event);
  repository.countInserted(events);
  return seeded;
}
