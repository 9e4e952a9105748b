import { describe, expect, it } from '@jest/globals';
import { CronExpressionParser } from 'cron-parser';
import {
  isInsideSchedule,
  isUnrestrictedSchedule,
  toFiveFieldCron,
  UNRESTRICTED_SCHEDULE,
  validateSchedule,
} from '../../../src/domain/ekey-schedule.js';

const NEW_YORK = 'America/New_York';
const BERLIN = 'Europe/Berlin';
const utc = (iso: string): number => Date.parse(iso);

describe('validateSchedule accepts', () => {
  it.each([
    ['0 9 * * * *', [0], [9], [0, 1, 2, 3, 4, 5, 6]],
    ['59 23 * * 6 *', [59], [23], [6]],
    ['0 0 * * 0 *', [0], [0], [0]],
    ['0,30 8,12 * * 1,3,5 *', [0, 30], [8, 12], [1, 3, 5]],
    ['0 9-11 * * 1-5 *', [0], [9, 10, 11], [1, 2, 3, 4, 5]],
    ['*/15 9 * * * *', [0, 15, 30, 45], [9], [0, 1, 2, 3, 4, 5, 6]],
    ['10-40/10 */6 * * 0-6/2 *', [10, 20, 30, 40], [0, 6, 12, 18], [0, 2, 4, 6]],
    ['05 07 * * 0 *', [5], [7], [0]],
    ['  0   9 * * 1 *  ', [0], [9], [1]],
  ])('%j', (expression, minutes, hours, daysOfWeek) => {
    const result = validateSchedule(expression, '/schedule_start');
    expect(result).toEqual({
      ok: true,
      schedule: expect.objectContaining({ minutes, hours, daysOfWeek, unrestricted: false }),
    });
  });

  it('six asterisks as "no restriction", normalized to single spaces', () => {
    expect(validateSchedule('*  * * * * *', '/schedule_end')).toEqual({
      ok: true,
      schedule: expect.objectContaining({ expression: UNRESTRICTED_SCHEDULE, unrestricted: true }),
    });
  });
});

describe('validateSchedule refuses, naming the field', () => {
  it.each([
    // field count
    ['', 'six space-separated fields'],
    ['0 9 * * *', 'got 5'],
    ['0 0 9 * * * *', 'got 7'],
    // minute (field 1)
    ['60 9 * * * *', 'minute (field 1): 60 is outside 0-59'],
    ['-1 9 * * * *', 'minute (field 1): "-1" is not a number'],
    ['a 9 * * * *', 'minute (field 1): "a" is not a number'],
    ['100 9 * * * *', 'minute (field 1): "100" is not a number'],
    ['1.5 9 * * * *', 'minute (field 1): "1.5" is not a number'],
    ['30-10 9 * * * *', 'minute (field 1): range "30-10" runs backwards'],
    ['*/0 9 * * * *', 'minute (field 1): step 0'],
    ['*/60 9 * * * *', 'minute (field 1): step 60'],
    ['5/15 9 * * * *', 'minute (field 1): "5/15" is ambiguous'],
    ['1,,2 9 * * * *', 'minute (field 1): "1,,2" has an empty list item'],
    ['? 9 * * * *', 'minute (field 1): "?" is not a number'],
    // hour (field 2)
    ['0 24 * * * *', 'hour (field 2): 24 is outside 0-23'],
    ['0 22-25 * * * *', 'hour (field 2): 25 is outside 0-23'],
    ['0 H * * * *', 'hour (field 2): "H" is not a number'],
    ['0 */24 * * * *', 'hour (field 2): step 24'],
    // day of month (field 3), month (field 4), sixth field
    ['0 9 1 * * *', 'day of month (field 3) must be "*"; got "1"'],
    ['0 9 */2 * * *', 'day of month (field 3) must be "*"'],
    ['0 9 * 1 * *', 'month (field 4) must be "*"; got "1"'],
    ['0 9 * JAN * *', 'month (field 4) must be "*"'],
    ['0 9 * * * 2026', 'sixth field (field 6) must be "*"; got "2026"'],
    ['0 9 * * * ?', 'sixth field (field 6) must be "*"'],
    // day of week (field 5)
    ['0 9 * * 7 *', 'day of week (field 5): 7 is outside 0-6'],
    ['0 9 * * 1-7 *', 'day of week (field 5): 7 is outside 0-6'],
    ['0 9 * * MON *', 'day of week (field 5): "MON" is not a number'],
    ['0 9 * * 5#2 *', 'day of week (field 5): "5#2" is not a number'],
    ['0 9 * * 5L *', 'day of week (field 5): "5L" is not a number'],
    ['0 9 * * */7 *', 'day of week (field 5): step 7'],
  ])('%j: %s', (expression, message) => {
    const result = validateSchedule(expression, '/schedule_start');
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({
      errors: expect.arrayContaining([{ field: '/schedule_start', message: expect.stringContaining(message) }]),
    });
  });

  it('reports every offending field at once, one error each', () => {
    const result = validateSchedule('60 24 1 1 7 1', '/schedule_end');
    expect(result).toEqual({
      ok: false,
      errors: [
        { field: '/schedule_end', message: expect.stringMatching(/^minute \(field 1\)/) },
        { field: '/schedule_end', message: expect.stringMatching(/^hour \(field 2\)/) },
        { field: '/schedule_end', message: expect.stringMatching(/^day of week \(field 5\)/) },
        { field: '/schedule_end', message: expect.stringMatching(/^day of month \(field 3\)/) },
        { field: '/schedule_end', message: expect.stringMatching(/^month \(field 4\)/) },
        { field: '/schedule_end', message: expect.stringMatching(/^sixth field \(field 6\)/) },
      ],
    });
  });
});

describe('isUnrestrictedSchedule', () => {
  it.each([
    [null, true],
    ['* * * * * *', true],
    ['*  * * * *  *', true],
    ['0 9 * * * *', false],
    ['* * * * 1 *', false],
  ])('%j → %s', (expression, expected) => {
    expect(isUnrestrictedSchedule(expression)).toBe(expected);
  });
});

describe('toFiveFieldCron (cron-parser reads six fields seconds-first)', () => {
  it.each([
    ['30 9 * * 1 *', '30 9 * * 1'],
    ['*/15 9-17 * * 1-5 *', '*/15 9-17 * * 1-5'],
    ['0  22 * * * *', '0 22 * * *'],
  ])('%j → %j', (six, five) => {
    expect(toFiveFieldCron(six)).toBe(five);
  });

  it('gives cron-parser minute 30, hour 9, Monday — not second 30, minute 9, January', () => {
    const fields = CronExpressionParser.parse(toFiveFieldCron('30 9 * * 1 *')).fields;
    expect(fields.minute.values).toEqual([30]);
    expect(fields.hour.values).toEqual([9]);
    expect(fields.dayOfWeek.values).toEqual([1]);
    expect(fields.month.values).toHaveLength(12);
  });

  it('refuses an invalid schedule', () => {
    expect(() => toFiveFieldCron('0 9 * * 7 *')).toThrow(RangeError);
  });
});

type Case = [label: string, start: string | null, end: string | null, instant: string, zone: string, inside: boolean];

describe('isInsideSchedule', () => {
  const nineToFive = ['0 9 * * * *', '0 17 * * * *'] as const;
  const night = ['0 22 * * * *', '0 6 * * * *'] as const;
  const weekdays = ['0 9 * * 1-5 *', '0 17 * * 1-5 *'] as const;
  const weekend = ['0 22 * * 5 *', '0 6 * * 1 *'] as const; // Friday 22:00 to Monday 06:00

  // 2026-06-01 is a Monday.
  it.each<Case>([
    ['9-17, before start', ...nineToFive, '2026-06-01T08:59:59Z', 'UTC', false],
    ['9-17, exactly at start: inside', ...nineToFive, '2026-06-01T09:00:00Z', 'UTC', true],
    ['9-17, within start minute', ...nineToFive, '2026-06-01T09:00:30.500Z', 'UTC', true],
    ['9-17, midday', ...nineToFive, '2026-06-01T12:00:00Z', 'UTC', true],
    ['9-17, last millisecond', ...nineToFive, '2026-06-01T16:59:59.999Z', 'UTC', true],
    ['9-17, exactly at end: outside', ...nineToFive, '2026-06-01T17:00:00Z', 'UTC', false],
    ['9-17, evening', ...nineToFive, '2026-06-01T23:00:00Z', 'UTC', false],
    ['9-17, just after midnight', ...nineToFive, '2026-06-02T00:00:00Z', 'UTC', false],
    ['22-6 crosses midnight, before start', ...night, '2026-06-01T21:59:59Z', 'UTC', false],
    ['22-6, at start', ...night, '2026-06-01T22:00:00Z', 'UTC', true],
    ['22-6, before midnight', ...night, '2026-06-01T23:59:59Z', 'UTC', true],
    ['22-6, at midnight', ...night, '2026-06-02T00:00:00Z', 'UTC', true],
    ['22-6, small hours', ...night, '2026-06-02T05:59:59Z', 'UTC', true],
    ['22-6, at end', ...night, '2026-06-02T06:00:00Z', 'UTC', false],
    ['22-6, noon', ...night, '2026-06-02T12:00:00Z', 'UTC', false],
    ['weekdays, Monday 9:00', ...weekdays, '2026-06-01T09:00:00Z', 'UTC', true],
    ['weekdays, Friday 16:59', ...weekdays, '2026-06-05T16:59:00Z', 'UTC', true],
    ['weekdays, Friday 17:00', ...weekdays, '2026-06-05T17:00:00Z', 'UTC', false],
    ['weekdays, Saturday 10:00', ...weekdays, '2026-06-06T10:00:00Z', 'UTC', false],
    ['weekdays, Sunday 10:00', ...weekdays, '2026-06-07T10:00:00Z', 'UTC', false],
    ['weekdays, Monday 8:59', ...weekdays, '2026-06-08T08:59:00Z', 'UTC', false],
    ['weekend, Friday 21:59', ...weekend, '2026-06-05T21:59:00Z', 'UTC', false],
    ['weekend, Friday 22:00', ...weekend, '2026-06-05T22:00:00Z', 'UTC', true],
    ['weekend, Saturday noon', ...weekend, '2026-06-06T12:00:00Z', 'UTC', true],
    ['weekend, Sunday noon', ...weekend, '2026-06-07T12:00:00Z', 'UTC', true],
    ['weekend, Monday 5:59', ...weekend, '2026-06-08T05:59:00Z', 'UTC', true],
    ['weekend, Monday 6:00', ...weekend, '2026-06-08T06:00:00Z', 'UTC', false],
    ['weekend, Wednesday noon', ...weekend, '2026-06-10T12:00:00Z', 'UTC', false],
    ['lists: opens 9 and 13, closes 12 and 17; 12:30', '0 9,13 * * * *', '0 12,17 * * * *', '2026-06-01T12:30:00Z', 'UTC', false],
    ['lists: 13:30', '0 9,13 * * * *', '0 12,17 * * * *', '2026-06-01T13:30:00Z', 'UTC', true],
    ['same minute opens and closes: the end wins', '0 9,12 * * * *', '0 12,17 * * * *', '2026-06-01T12:30:00Z', 'UTC', false],
    ['read in the lock zone: 9:00 New York is 13:00 UTC', ...nineToFive, '2026-06-01T13:00:00Z', NEW_YORK, true],
    ['read in the lock zone: 12:59 UTC is 8:59 New York', ...nineToFive, '2026-06-01T12:59:00Z', NEW_YORK, false],
    ['read in the lock zone: Monday 23:30 New York is Tuesday UTC', '0 23 * * 1 *', '59 23 * * 1 *', '2026-06-02T03:30:00Z', NEW_YORK, true],
  ])('%s', (_label, start, end, instant, zone, inside) => {
    expect(isInsideSchedule(start, end, utc(instant), zone)).toBe(inside);
  });

  // 2026-03-08 New York: 2:00 EST jumps to 3:00 EDT. 2026-11-01: 2:00 EDT falls back to 1:00 EST.
  // 2026-03-29 Berlin: 2:00 CET to 3:00 CEST. 2026-10-25: 3:00 CEST back to 2:00 CET.
  it.each<Case>([
    ['spring forward, 9-17: 8:59 EDT', ...nineToFive, '2026-03-08T12:59:00Z', NEW_YORK, false],
    ['spring forward, 9-17: 9:00 EDT', ...nineToFive, '2026-03-08T13:00:00Z', NEW_YORK, true],
    ['spring forward, 9-17: 17:00 EDT', ...nineToFive, '2026-03-08T21:00:00Z', NEW_YORK, false],
    ['spring forward, 22-6: 1:59 EST', ...night, '2026-03-08T06:59:00Z', NEW_YORK, true],
    ['spring forward, 22-6: 5:59 EDT', ...night, '2026-03-08T09:59:00Z', NEW_YORK, true],
    ['spring forward, 22-6: 6:00 EDT', ...night, '2026-03-08T10:00:00Z', NEW_YORK, false],
    ['start in the gap (2:30): closed at 1:59 EST', '30 2 * * * *', '0 5 * * * *', '2026-03-08T06:59:00Z', NEW_YORK, false],
    ['start in the gap (2:30): open at 3:00 EDT, when the clock passes it', '30 2 * * * *', '0 5 * * * *', '2026-03-08T07:00:00Z', NEW_YORK, true],
    ['end in the gap (2:30): open at 1:59 EST', '0 1 * * * *', '30 2 * * * *', '2026-03-08T06:59:00Z', NEW_YORK, true],
    ['end in the gap (2:30): closed at 3:00 EDT, not open for a day', '0 1 * * * *', '30 2 * * * *', '2026-03-08T07:00:00Z', NEW_YORK, false],
    ['fall back, 9-17: 8:59 EST', ...nineToFive, '2026-11-01T13:59:00Z', NEW_YORK, false],
    ['fall back, 9-17: 9:00 EST', ...nineToFive, '2026-11-01T14:00:00Z', NEW_YORK, true],
    ['fall back, 9-17: 17:00 EST', ...nineToFive, '2026-11-01T22:00:00Z', NEW_YORK, false],
    ['fall back, 22-6: 5:59 EST', ...night, '2026-11-01T10:59:00Z', NEW_YORK, true],
    ['fall back, 22-6: 6:00 EST', ...night, '2026-11-01T11:00:00Z', NEW_YORK, false],
    ['repeated hour, 1:00-1:30: 1:15 EDT (first pass)', '0 1 * * * *', '30 1 * * * *', '2026-11-01T05:15:00Z', NEW_YORK, true],
    ['repeated hour, 1:00-1:30: 1:45 EDT', '0 1 * * * *', '30 1 * * * *', '2026-11-01T05:45:00Z', NEW_YORK, false],
    ['repeated hour, 1:00-1:30: 1:15 EST (second pass, same clock face)', '0 1 * * * *', '30 1 * * * *', '2026-11-01T06:15:00Z', NEW_YORK, true],
    ['repeated hour, 1:00-1:30: 1:45 EST', '0 1 * * * *', '30 1 * * * *', '2026-11-01T06:45:00Z', NEW_YORK, false],
    ['Berlin spring forward, 9-17: 8:59 CEST', ...nineToFive, '2026-03-29T06:59:00Z', BERLIN, false],
    ['Berlin spring forward, 9-17: 9:00 CEST', ...nineToFive, '2026-03-29T07:00:00Z', BERLIN, true],
    ['Berlin spring forward, start in the gap 2:15: open at 3:00 CEST', '15 2 * * * *', '0 4 * * * *', '2026-03-29T01:00:00Z', BERLIN, true],
    ['Berlin fall back, 9-17: 16:59 CET', ...nineToFive, '2026-10-25T15:59:00Z', BERLIN, true],
    ['Berlin fall back, 9-17: 17:00 CET', ...nineToFive, '2026-10-25T16:00:00Z', BERLIN, false],
  ])('DST: %s', (_label, start, end, instant, zone, inside) => {
    expect(isInsideSchedule(start, end, utc(instant), zone)).toBe(inside);
  });

  it.each<Case>([
    ['both null: always inside', null, null, '2026-06-01T03:00:00Z', 'UTC', true],
    ['both six asterisks: always inside', UNRESTRICTED_SCHEDULE, UNRESTRICTED_SCHEDULE, '2026-06-06T03:00:00Z', 'UTC', true],
    ['open start, close 17 weekdays: Monday 00:00 (opens at midnight)', null, '0 17 * * 1-5 *', '2026-06-01T00:00:00Z', 'UTC', true],
    ['open start, close 17 weekdays: Monday 16:59', UNRESTRICTED_SCHEDULE, '0 17 * * 1-5 *', '2026-06-01T16:59:00Z', 'UTC', true],
    ['open start, close 17 weekdays: Monday 17:00', UNRESTRICTED_SCHEDULE, '0 17 * * 1-5 *', '2026-06-01T17:00:00Z', 'UTC', false],
    ['open start, close 17 weekdays: Monday 23:59', UNRESTRICTED_SCHEDULE, '0 17 * * 1-5 *', '2026-06-01T23:59:00Z', 'UTC', false],
    ['open start, close 17 weekdays: Saturday noon (no end that day, so no window)', null, '0 17 * * 1-5 *', '2026-06-06T12:00:00Z', 'UTC', false],
    ['open end, open 9 weekdays: Monday 8:59', '0 9 * * 1-5 *', null, '2026-06-01T08:59:00Z', 'UTC', false],
    ['open end, open 9 weekdays: Monday 23:59 (closes at midnight)', '0 9 * * 1-5 *', UNRESTRICTED_SCHEDULE, '2026-06-01T23:59:00Z', 'UTC', true],
    ['open end, open 9 weekdays: Tuesday 00:00', '0 9 * * 1-5 *', UNRESTRICTED_SCHEDULE, '2026-06-02T00:00:00Z', 'UTC', false],
    ['open end, open 9 weekdays: Friday 23:59', '0 9 * * 1-5 *', null, '2026-06-05T23:59:00Z', 'UTC', true],
    ['open end, open 9 weekdays: Saturday 00:00', '0 9 * * 1-5 *', null, '2026-06-06T00:00:00Z', 'UTC', false],
    ['open end, open Saturday 23:00: Sunday 00:00 wraps the week', '0 23 * * 6 *', null, '2026-06-07T00:00:00Z', 'UTC', false],
    ['open end, open Saturday 23:00: Saturday 23:30', '0 23 * * 6 *', null, '2026-06-06T23:30:00Z', 'UTC', true],
  ])('one side unrestricted: %s', (_label, start, end, instant, zone, inside) => {
    expect(isInsideSchedule(start, end, utc(instant), zone)).toBe(inside);
  });

  it('refuses corrupt stored data and unknown zones', () => {
    expect(() => isInsideSchedule('0 9 * * 7 *', null, 0, 'UTC')).toThrow(RangeError);
    expect(() => isInsideSchedule('0 9 * * * *', '0 17 * * * *', 0, 'Nowhere/Special')).toThrow(RangeError);
  });

  it('finds the one open minute of the sparsest schedule (one minute a week) in a sweep of the week', () => {
    // Speed is a benchmark concern, not a unit-test one; this sweep pins correctness only.
    const weekStart = utc('2026-06-01T00:00:00Z');
    const insideAt: number[] = [];
    for (let minute = 0; minute < 7 * 24 * 60; minute += 1) {
      if (isInsideSchedule('0 12 * * 0 *', '1 12 * * 0 *', weekStart + minute * 60_000, 'UTC')) insideAt.push(minute);
    }
    // 2026-06-07 is a Sunday: day 6 of the sweep, 12:00.
    expect(insideAt).toEqual([6 * 24 * 60 + 12 * 60]);
  });
});
