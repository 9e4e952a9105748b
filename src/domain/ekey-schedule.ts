/**
 * Daily schedules of eKeys: the spec's six-field expressions `minute hour * * day-of-week *`,
 * validated field by field, and the "is this instant inside the window" test.
 *
 * Schedules are evaluated on the lock's wall clock: an instant is first turned into the local
 * date and time the lock's zone shows, and the window is judged on that clock face. So on a
 * spring-forward day a start or end in the skipped hour takes effect when the clock jumps past it,
 * and on a fall-back day a window inside the repeated hour is open during both passes.
 */
import { CronExpressionParser } from 'cron-parser';
import type { CronExpression } from 'cron-parser';
import { DateTime } from 'luxon';
import { assertValidTimeZone } from './ekey-datetime.js';
import type { FieldError } from './errors.js';

/** Six asterisks: "no restriction" (spec: Resources › eKey › schedule expression format). */
export const UNRESTRICTED_SCHEDULE = '* * * * * *';

/** A schedule expression that passed {@link validateSchedule}. */
export interface ParsedSchedule {
  /** The six fields joined by single spaces. */
  expression: string;
  /** True for six asterisks. */
  unrestricted: boolean;
  /** Expanded, sorted values of each restricting field. */
  minutes: readonly number[];
  hours: readonly number[];
  /** 0-6, Sunday = 0. */
  daysOfWeek: readonly number[];
}

/** Outcome of {@link validateSchedule}: the parsed schedule or one error per offending field. */
export type ScheduleValidation = { ok: true; schedule: ParsedSchedule } | { ok: false; errors: FieldError[] };

interface FieldSpec {
  position: number;
  label: string;
  min: number;
  max: number;
}

// Spec: Limits — minute 0-59, hour 0-23, day of week 0-6 (Sunday to Saturday).
const MINUTE: FieldSpec = { position: 1, label: 'minute', min: 0, max: 59 };
const HOUR: FieldSpec = { position: 2, label: 'hour', min: 0, max: 23 };
const DAY_OF_WEEK: FieldSpec = { position: 5, label: 'day of week', min: 0, max: 6 };
// Spec: the third, fourth and sixth fields must be an asterisk.
const FIXED_FIELDS = [
  { index: 2, label: 'day of month' },
  { index: 3, label: 'month' },
  { index: 5, label: 'sixth field' },
] as const;

const ITEM_PATTERN = /^(?:(\*)|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,2}))?$/;

/**
 * Validates a schedule expression: exactly six whitespace-separated fields; minute, hour and day of
 * week each `*`, a number, a range `a-b`, a step `*\/n` or `a-b/n`, or a comma list of those; the
 * third, fourth and sixth fields exactly `*`. Returns one error per offending field, each on the
 * path `field` with the cron field named in the message.
 *
 * @example validateSchedule('0 22 * * 1-5 *', '/schedule_start') // ok, hours [22], days 1..5
 */
export function validateSchedule(expression: string, field: string): ScheduleValidation {
  const parts = expression.trim().split(/\s+/).filter((part) => part !== '');
  if (parts.length !== 6) {
    return {
      ok: false,
      errors: [{ field, message: `must have six space-separated fields "minute hour * * day-of-week *"; got ${parts.length}` }],
    };
  }
  const errors: FieldError[] = [];
  const expand = (spec: FieldSpec, text: string): number[] => {
    const result = expandField(spec, text);
    if (typeof result === 'string') {
      errors.push({ field, message: `${spec.label} (field ${spec.position}): ${result}` });
      return [];
    }
    return result;
  };
  const minutes = expand(MINUTE, parts[0] ?? '');
  const hours = expand(HOUR, parts[1] ?? '');
  const daysOfWeek = expand(DAY_OF_WEEK, parts[4] ?? '');
  for (const fixed of FIXED_FIELDS) {
    const text = parts[fixed.index] ?? '';
    if (text !== '*') {
      errors.push({ field, message: `${fixed.label} (field ${fixed.index + 1}) must be "*"; got "${text}"` });
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  const normalized = parts.join(' ');
  return {
    ok: true,
    schedule: { expression: normalized, unrestricted: normalized === UNRESTRICTED_SCHEDULE, minutes, hours, daysOfWeek },
  };
}

/** True for `null` and for six asterisks: neither restricts the time of day. */
export function isUnrestrictedSchedule(expression: string | null): boolean {
  return expression === null || expression.trim().split(/\s+/).join(' ') === UNRESTRICTED_SCHEDULE;
}

/**
 * Turns a valid six-field schedule into the five-field cron form `minute hour * * day-of-week`
 * that cron-parser expects. Handing cron-parser the six fields would make it read the first one as
 * seconds, shifting every field one place — a silent bug this conversion exists to prevent.
 *
 * @throws RangeError when the expression is not a valid schedule.
 * @example toFiveFieldCron('30 9 * * 1 *') // '30 9 * * 1'
 */
export function toFiveFieldCron(expression: string): string {
  const parsed = parseOrThrow(expression);
  const [minute = '*', hour = '*', , , dayOfWeek = '*'] = parsed.expression.split(' ');
  return `${minute} ${hour} * * ${dayOfWeek}`;
}

/**
 * Whether `instantMs` lies inside the daily window opened by `start` and closed by `end`, read on
 * the wall clock of `zone`: inside when the most recent start occurrence at or before the instant
 * is later than the most recent end occurrence at or before it (docs/design.md §3 eKeys). So the window
 * includes its start minute and excludes its end minute, windows may cross midnight or span days,
 * and when a start and an end fall on the same minute the end wins.
 *
 * `null` or six asterisks on both sides: always inside. On one side only: that side is the day
 * boundary — an unrestricted start opens at the midnight beginning each day on which the end
 * occurs, an unrestricted end closes at the midnight ending each day on which the start occurs.
 *
 * Cost is bounded: two `prev()` look-ups on cron-parser, each at most a week back, on parsed
 * expressions kept in a small cache.
 *
 * @throws RangeError for an invalid expression or zone (stored data is validated on the way in).
 * @example isInsideSchedule('0 22 * * * *', '0 6 * * * *', Date.parse('2026-06-01T03:00:00Z'), 'UTC') // true
 */
export function isInsideSchedule(start: string | null, end: string | null, instantMs: number, zone: string): boolean {
  assertValidTimeZone(zone);
  const crons = scheduleCrons(start, end);
  if (crons === null) return true;
  const wallClock = wallClockAsUtc(instantMs, zone);
  return latestOccurrenceAtOrBefore(crons.startCron, wallClock) > latestOccurrenceAtOrBefore(crons.endCron, wallClock);
}

/**
 * The five-field crons that open and close a schedule's window (see {@link isInsideSchedule} for
 * the unrestricted side), or null when neither side restricts.
 *
 * @throws RangeError for an invalid expression.
 */
export function scheduleCrons(start: string | null, end: string | null): { startCron: string; endCron: string } | null {
  const startSchedule = isUnrestrictedSchedule(start) || start === null ? null : parseOrThrow(start);
  const endSchedule = isUnrestrictedSchedule(end) || end === null ? null : parseOrThrow(end);
  if (startSchedule === null && endSchedule === null) return null;
  const startCron = startSchedule
    ? toFiveFieldCron(startSchedule.expression)
    : `0 0 * * ${dayList(endSchedule?.daysOfWeek ?? [])}`;
  const endCron = endSchedule
    ? toFiveFieldCron(endSchedule.expression)
    : `0 0 * * ${dayList((startSchedule?.daysOfWeek ?? []).map((day) => (day + 1) % 7))}`;
  return { startCron, endCron };
}

/**
 * The local wall-clock reading of `instantMs` in `zone`, expressed as if it were UTC. On that
 * timeline there are no daylight-saving jumps, so cron arithmetic in UTC matches the clock face.
 */
export function wallClockAsUtc(instantMs: number, zone: string): number {
  return instantMs + DateTime.fromMillis(instantMs, { zone }).offset * 60_000;
}

/**
 * The occurrences of a five-field cron strictly after `wallClockMs` on the wall-clock timeline
 * (see {@link wallClockAsUtc}), at most `limit` of them, in order.
 */
export function occurrencesAfter(fiveFieldCron: string, wallClockMs: number, limit: number): number[] {
  const cron = CronExpressionParser.parse(fiveFieldCron, { tz: 'UTC', currentDate: new Date(wallClockMs) });
  const found: number[] = [];
  while (found.length < limit && cron.hasNext()) found.push(cron.next().getTime());
  return found;
}

function latestOccurrenceAtOrBefore(fiveFieldCron: string, wallClockMs: number): number {
  const cron = parsedCron(fiveFieldCron);
  // prev() is strictly before the current date; one millisecond later makes "at or before" inclusive.
  cron.reset(new Date(wallClockMs + 1));
  return cron.prev().getTime();
}

// Parsing costs as much as a look-up, and a lock has few distinct schedules: keep the parsed
// expressions. Bounded, so unusual input cannot grow it without limit; used synchronously only.
const CRON_CACHE_LIMIT = 500;
const cronCache = new Map<string, CronExpression>();

function parsedCron(fiveFieldCron: string): CronExpression {
  let cron = cronCache.get(fiveFieldCron);
  if (cron === undefined) {
    if (cronCache.size >= CRON_CACHE_LIMIT) cronCache.clear();
    cron = CronExpressionParser.parse(fiveFieldCron, { tz: 'UTC' });
    cronCache.set(fiveFieldCron, cron);
  }
  return cron;
}

function dayList(days: readonly number[]): string {
  const unique = [...new Set(days)].sort((a, b) => a - b);
  return unique.length === 7 ? '*' : unique.join(',');
}

function parseOrThrow(expression: string): ParsedSchedule {
  const result = validateSchedule(expression, '');
  if (!result.ok) {
    throw new RangeError(`Invalid schedule "${expression}": ${result.errors.map((error) => error.message).join('; ')}`);
  }
  return result.schedule;
}

/** Expands one restricting field to its sorted values, or returns why it is invalid. */
function expandField(spec: FieldSpec, text: string): number[] | string {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const match = ITEM_PATTERN.exec(item);
    if (!match) {
      return item === ''
        ? `"${text}" has an empty list item`
        : `"${item}" is not a number, range (a-b), step (*/n, a-b/n) or list of those`;
    }
    const [, star, fromText, toText, stepText] = match;
    let from = spec.min;
    let to = spec.max;
    if (star === undefined) {
      from = Number(fromText);
      // A bare number with a step ("5/15") means different things in different crons; refuse it.
      if (toText === undefined && stepText !== undefined) return `"${item}" is ambiguous; write a range such as ${from}-${spec.max}/${stepText}`;
      to = toText === undefined ? from : Number(toText);
      for (const value of [from, to]) {
        if (value < spec.min || value > spec.max) return `${value} is outside ${spec.min}-${spec.max}`;
      }
      if (from > to) return `range "${item}" runs backwards`;
    }
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1 || step > spec.max) return `step ${step} in "${item}" is outside 1-${spec.max}`;
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return [...values].sort((a, b) => a - b);
}
