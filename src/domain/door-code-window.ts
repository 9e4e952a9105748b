/**
 * From an eKey's window to what a keypad can hold (docs/design.md §4c). A keypad code holds one
 * date range, plus one daily window that does not cross midnight on a set of weekdays, read on the
 * lock's clock in the lock's zone. A key whose window fits is enforced by the lock (`lock`);
 * any other key is enforced by the service (`service`): the lock holds the date range, and the
 * service enables the code at each window start and disables it at each end
 * ({@link nextDoorCodeEdge} says when the next one is). Pure: no clock, no I/O.
 */
import { DateTime } from 'luxon';
import { isUnrestrictedSchedule, occurrencesAfter, scheduleCrons, validateSchedule, wallClockAsUtc, type ParsedSchedule } from './ekey-schedule.js';
import type { EKey } from './ekey-types.js';

/** Who keeps a door code inside its key's window. */
export type DoorCodeEnforcer = 'lock' | 'service';

/**
 * What the lock holds for a door code. `allowedFrom`/`allowedUntil`: epoch ms (the lock's clock is
 * UTC) or null for no bound; `weekdays`: 0–6 (Sunday 0), ascending, empty for every day;
 * `fromTime`/`untilTime`: `HH:MM` on the lock's local clock, `untilTime` exclusive, both null for
 * the whole day.
 */
export interface KeypadWindow {
  allowedFrom: number | null;
  allowedUntil: number | null;
  weekdays: number[];
  fromTime: string | null;
  untilTime: string | null;
}

/** The window a door code is written with, and who enforces the rest. */
export interface DoorCodeWindow {
  enforcedBy: DoorCodeEnforcer;
  window: KeypadWindow;
}

/** The parts of an eKey that decide its door code's window. */
export type DoorCodeWindowFields = Pick<EKey, 'valid_from' | 'valid_to' | 'schedule_start' | 'schedule_end'>;

/**
 * The window the lock holds for a key's code. The date range is always the key's
 * (`valid_from`/`valid_to`, whole seconds); the schedule becomes weekdays + a daily window when
 * it is one start time and one end time on the same days with the start before the end. Anything
 * else (a window across midnight, several start times, different days at each end, an open end)
 * is `service`: the lock holds the date range only. So is every schedule on a keypad that holds no
 * weekly window (`keypad.weeklyWindow` false; default true, the Nuki Keypad's rule).
 *
 * @example
 * doorCodeWindow({ valid_from: null, valid_to: null, schedule_start: '0 9 * * 1-5 *', schedule_end: '0 17 * * 1-5 *' })
 * // { enforcedBy: 'lock', window: { allowedFrom: null, allowedUntil: null, weekdays: [1,2,3,4,5], fromTime: '09:00', untilTime: '17:00' } }
 */
export function doorCodeWindow(key: DoorCodeWindowFields, keypad: { weeklyWindow: boolean } = { weeklyWindow: true }): DoorCodeWindow {
  const dates: KeypadWindow = { allowedFrom: key.valid_from, allowedUntil: key.valid_to, weekdays: [], fromTime: null, untilTime: null };
  const startOpen = isUnrestrictedSchedule(key.schedule_start);
  const endOpen = isUnrestrictedSchedule(key.schedule_end);
  if (startOpen && endOpen) return { enforcedBy: 'lock', window: dates };
  // A keypad that holds a date range only leaves every schedule to the service.
  if (!keypad.weeklyWindow) return { enforcedBy: 'service', window: dates };
  const start = startOpen ? null : parsed(key.schedule_start);
  const end = endOpen ? null : parsed(key.schedule_end);
  if (end === null || !isSingleTime(end)) return { enforcedBy: 'service', window: dates };
  // An open start opens the window at the midnight of each day the end falls on (ekey-schedule.ts).
  const days = start === null ? end.daysOfWeek : start.daysOfWeek;
  if (start !== null && (!isSingleTime(start) || !sameDays(start.daysOfWeek, end.daysOfWeek))) return { enforcedBy: 'service', window: dates };
  const fromMinute = start === null ? 0 : minuteOfDay(start);
  const untilMinute = minuteOfDay(end);
  if (fromMinute >= untilMinute) return { enforcedBy: 'service', window: dates };
  return {
    enforcedBy: 'lock',
    window: { ...dates, weekdays: days.length === 7 ? [] : [...days], fromTime: hhmm(fromMinute), untilTime: hhmm(untilMinute) },
  };
}

/**
 * The next instant after `afterMs` at which a key's usability may change: its `valid_from`, its
 * `valid_to`, or a start or end of its schedule on the wall clock of `zone`. A service-enforced
 * code is enabled or disabled there (the caller re-evaluates usability at that instant, so an
 * edge that changes nothing — e.g. a start inside an open window — is harmless). Null when
 * nothing will ever change.
 *
 * @throws RangeError for an invalid zone or a corrupt stored schedule.
 */
export function nextDoorCodeEdge(key: DoorCodeWindowFields, afterMs: number, zone: string): number | null {
  const candidates: number[] = [];
  if (key.valid_from !== null && key.valid_from > afterMs) candidates.push(key.valid_from);
  if (key.valid_to !== null && key.valid_to > afterMs) candidates.push(key.valid_to);
  const crons = scheduleCrons(key.schedule_start, key.schedule_end);
  if (crons !== null && (key.valid_to === null || key.valid_to > afterMs)) {
    const wallClock = wallClockAsUtc(afterMs, zone);
    let scheduleEdge = Number.POSITIVE_INFINITY;
    for (const cron of [crons.startCron, crons.endCron]) {
      // From an hour back: a time in a repeated hour may come round again after afterMs.
      for (const occurrence of occurrencesAfter(cron, wallClock - HOUR_MS - 1, 4)) {
        const instant = instantsShowing(occurrence, zone).find((candidate) => candidate > afterMs);
        if (instant !== undefined) {
          scheduleEdge = Math.min(scheduleEdge, instant);
          break;
        }
      }
    }
    if (Number.isFinite(scheduleEdge)) candidates.push(scheduleEdge);
    // The clock going back an hour can reopen a window that had closed: the jump is an edge too.
    const jump = offsetChangeBetween(afterMs, Number.isFinite(scheduleEdge) ? scheduleEdge : afterMs + 8 * DAY_MS, zone);
    if (jump !== null) candidates.push(jump);
  }
  return candidates.length === 0 ? null : Math.min(...candidates);
}

/**
 * When the window a key is in at `atMs` closes: the first instant after it at which the key stops
 * being usable (its `valid_to`, a schedule end, the clock going forward past the end), found by
 * walking {@link nextDoorCodeEdge}. Null when the key is not usable at `atMs`, or when no end lies
 * within `horizonMs` (a key without end). A keypad that cannot switch a code off holds each window
 * of a service-enforced code with this end as its date range (docs/door-codes.md).
 *
 * @throws RangeError for an invalid zone or a corrupt stored schedule.
 */
export function currentWindowEnd(
  key: DoorCodeWindowFields,
  atMs: number,
  zone: string,
  usableAt: (instantMs: number) => boolean,
  horizonMs: number = 400 * DAY_MS,
): number | null {
  if (!usableAt(atMs)) return null;
  let edge = nextDoorCodeEdge(key, atMs, zone);
  // Edges that change nothing (a start inside an open window, an offset change) are stepped over.
  while (edge !== null && edge - atMs <= horizonMs) {
    if (!usableAt(edge)) return edge;
    edge = nextDoorCodeEdge(key, edge, zone);
  }
  return null;
}

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

function offsetMsAt(instantMs: number, zone: string): number {
  return DateTime.fromMillis(instantMs, { zone }).offset * 60_000;
}

/**
 * The instants, ascending, at which the clock of `zone` shows this wall-clock reading: one
 * usually, two in a repeated hour, and for a skipped time the instant of the jump past it (the
 * clock shows a later time from then on, as ekey-schedule.ts reads a skipped start or end).
 */
function instantsShowing(wallClockMs: number, zone: string): number[] {
  const offsets = new Set([offsetMsAt(wallClockMs - DAY_MS, zone), offsetMsAt(wallClockMs, zone), offsetMsAt(wallClockMs + DAY_MS, zone)]);
  const found = [...offsets].map((offset) => wallClockMs - offset).filter((instant) => wallClockAsUtc(instant, zone) === wallClockMs);
  if (found.length > 0) return [...new Set(found)].sort((a, b) => a - b);
  const guesses = [...offsets].map((offset) => wallClockMs - offset);
  const jump = offsetChangeBetween(Math.min(...guesses) - HOUR_MS, Math.max(...guesses) + HOUR_MS, zone);
  return jump === null ? [] : [jump];
}

/** The first instant in (fromMs, toMs] at which the zone's offset differs from its offset at fromMs (to the second), or null. */
function offsetChangeBetween(fromMs: number, toMs: number, zone: string): number | null {
  const before = offsetMsAt(fromMs, zone);
  if (offsetMsAt(toMs, zone) === before) return null;
  let low = fromMs;
  let high = toMs;
  while (high - low > 1_000) {
    const middle = low + Math.floor((high - low) / 2);
    if (offsetMsAt(middle, zone) === before) low = middle;
    else high = middle;
  }
  return Math.ceil((low + 1) / 1_000) * 1_000;
}

function parsed(expression: string | null): ParsedSchedule {
  const result = validateSchedule(expression ?? '', '');
  if (!result.ok) throw new RangeError(`Invalid stored schedule "${expression ?? ''}"`);
  return result.schedule;
}

function isSingleTime(schedule: ParsedSchedule): boolean {
  return schedule.minutes.length === 1 && schedule.hours.length === 1;
}

function sameDays(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((day, index) => day === b[index]);
}

function minuteOfDay(schedule: ParsedSchedule): number {
  return (schedule.hours[0] ?? 0) * 60 + (schedule.minutes[0] ?? 0);
}

function hhmm(minuteOfDayValue: number): string {
  return `${String(Math.floor(minuteOfDayValue / 60)).padStart(2, '0')}:${String(minuteOfDayValue % 60).padStart(2, '0')}`;
}
