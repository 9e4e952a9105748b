/**
 * The web app's weekly schedule editor ↔ the spec's six-field expressions, both ways, and what the
 * expressions it writes mean to the service (the domain's isInsideSchedule) across midnight and
 * daylight-saving changes.
 */
import { describe, expect, it } from '@jest/globals';
import { isInsideSchedule, validateSchedule } from '../../../src/domain/ekey-schedule.js';
import {
  crossesMidnight,
  dayField,
  describeSchedule,
  fromExpressions,
  scheduleProblems,
  toExpressions,
  type Weekday,
  type WeeklySchedule,
} from '../../../web/src/schedule-editor.js';

const inside = (schedule: WeeklySchedule, iso: string, zone: string): boolean => {
  const { schedule_start, schedule_end } = toExpressions(schedule);
  return isInsideSchedule(schedule_start, schedule_end, Date.parse(iso), zone);
};

describe('toExpressions', () => {
  it('writes a same-day window on the same days', () => {
    expect(toExpressions({ days: [1, 2, 3, 4, 5], from: '09:00', to: '17:30' })).toEqual({ schedule_start: '0 9 * * 1-5 *', schedule_end: '30 17 * * 1-5 *' });
  });

  it('closes a window that crosses midnight on the following days', () => {
    expect(toExpressions({ days: [1, 2, 3, 4, 5], from: '22:00', to: '06:00' })).toEqual({ schedule_start: '0 22 * * 1-5 *', schedule_end: '0 6 * * 2-6 *' });
    // Saturday night ends on Sunday (6 → 0).
    expect(toExpressions({ days: [5, 6], from: '23:15', to: '02:00' })).toEqual({ schedule_start: '15 23 * * 5,6 *', schedule_end: '0 2 * * 0,6 *' });
    expect(toExpressions({ days: [0, 1, 2, 3, 4, 5, 6], from: '20:00', to: '08:00' })).toEqual({ schedule_start: '0 20 * * * *', schedule_end: '0 8 * * * *' });
  });

  it('writes only expressions the service accepts', () => {
    for (const schedule of [
      { days: [0, 3, 6] as Weekday[], from: '00:00', to: '23:59' },
      { days: [2] as Weekday[], from: '23:59', to: '00:00' },
    ]) {
      const { schedule_start, schedule_end } = toExpressions(schedule);
      expect(validateSchedule(schedule_start, '/schedule_start').ok).toBe(true);
      expect(validateSchedule(schedule_end, '/schedule_end').ok).toBe(true);
    }
  });

  it('refuses what cannot be a window', () => {
    expect(scheduleProblems({ days: [], from: '09:00', to: '10:00' })).toEqual(['Choose at least one day.']);
    expect(scheduleProblems({ days: [1], from: '09:00', to: '09:00' })).toEqual(['"From" and "To" must differ.']);
    expect(() => toExpressions({ days: [1], from: '9', to: '10:00' })).toThrow(RangeError);
  });

  it('lists days compactly', () => {
    expect(dayField([1, 2, 3, 4, 5])).toBe('1-5');
    expect(dayField([0, 1, 3, 4, 5])).toBe('0,1,3-5');
    expect(dayField([6, 0])).toBe('0,6');
    expect(dayField([0, 1, 2, 3, 4, 5, 6])).toBe('*');
  });
});

describe('fromExpressions', () => {
  it('reads back every day set and both kinds of window', () => {
    for (let mask = 1; mask < 128; mask += 1) {
      const days = [0, 1, 2, 3, 4, 5, 6].filter((day) => (mask & (1 << day)) !== 0) as Weekday[];
      for (const [from, to] of [['09:00', '17:00'], ['22:30', '06:15'], ['00:00', '23:59'], ['12:00', '00:00']] as const) {
        const schedule = { days, from, to };
        const { schedule_start, schedule_end } = toExpressions(schedule);
        expect(fromExpressions(schedule_start, schedule_end)).toEqual(schedule);
      }
    }
  });

  it('reads keys without restriction as null and what the editor cannot show as undefined', () => {
    expect(fromExpressions(null, null)).toBeNull();
    expect(fromExpressions('* * * * * *', '*  * * * * *')).toBeNull();
    expect(fromExpressions('0 9,12 * * 1 *', '0 17 * * 1 *')).toBeUndefined();
    expect(fromExpressions('0 22 * * 1-5 *', '0 6 * * 1-5 *')).toBeUndefined();
    expect(fromExpressions('0 9 * * 1 *', null)).toBeUndefined();
    expect(fromExpressions('0 9 1 * 1 *', '0 17 * * 1 *')).toBeUndefined();
    expect(fromExpressions('0 9 * * 1-5/2 *', '0 17 * * 1-5/2 *')).toEqual({ days: [1, 3, 5], from: '09:00', to: '17:00' });
  });
});

describe('what the written expressions mean to the service', () => {
  const nights: WeeklySchedule = { days: [1, 2, 3, 4, 5], from: '22:00', to: '06:00' };

  it('keeps a weekday night open across midnight, and Friday night into Saturday', () => {
    expect(crossesMidnight(nights)).toBe(true);
    // Wednesday 10 June 2026, Berlin (UTC+2).
    expect(inside(nights, '2026-06-10T19:59:00Z', 'Europe/Berlin')).toBe(false);
    expect(inside(nights, '2026-06-10T20:00:00Z', 'Europe/Berlin')).toBe(true);
    expect(inside(nights, '2026-06-10T23:30:00Z', 'Europe/Berlin')).toBe(true);
    expect(inside(nights, '2026-06-11T03:59:00Z', 'Europe/Berlin')).toBe(true);
    expect(inside(nights, '2026-06-11T04:00:00Z', 'Europe/Berlin')).toBe(false);
    // Friday night runs into Saturday morning; Saturday night is not a weekday night.
    expect(inside(nights, '2026-06-13T02:00:00Z', 'Europe/Berlin')).toBe(true);
    expect(inside(nights, '2026-06-13T21:00:00Z', 'Europe/Berlin')).toBe(false);
  });

  it('follows the lock clock when the clocks go forward (Europe/Berlin, 29 March 2026)', () => {
    const early: WeeklySchedule = { days: [0], from: '01:30', to: '03:30' };
    expect(inside(early, '2026-03-29T00:29:00Z', 'Europe/Berlin')).toBe(false); // 01:29 CET
    expect(inside(early, '2026-03-29T00:45:00Z', 'Europe/Berlin')).toBe(true); // 01:45 CET
    expect(inside(early, '2026-03-29T01:15:00Z', 'Europe/Berlin')).toBe(true); // 03:15 CEST
    expect(inside(early, '2026-03-29T01:30:00Z', 'Europe/Berlin')).toBe(false); // 03:30 CEST
  });

  it('follows the lock clock when the clocks go back (America/New_York, 1 November 2026), across midnight', () => {
    const late: WeeklySchedule = { days: [6], from: '23:00', to: '01:30' };
    // Saturday 23:00 EDT = 03:00Z; the first 01:29 EDT = 05:29Z; the repeated 01:00-01:30 EST = 06:00-06:30Z.
    expect(inside(late, '2026-11-01T02:59:00Z', 'America/New_York')).toBe(false);
    expect(inside(late, '2026-11-01T03:00:00Z', 'America/New_York')).toBe(true);
    expect(inside(late, '2026-11-01T05:29:00Z', 'America/New_York')).toBe(true);
    expect(inside(late, '2026-11-01T05:30:00Z', 'America/New_York')).toBe(false);
  });

  it('describes itself in words, 24-hour times with the zone (never the expressions)', () => {
    expect(describeSchedule({ days: [1, 2, 3, 4, 5], from: '09:00', to: '17:00' }, 'Europe/Berlin')).toBe('weekdays 09:00–17:00 (Europe/Berlin)');
    expect(describeSchedule(nights, 'Europe/Berlin')).toBe('weekdays 22:00–06:00 the next day (Europe/Berlin)');
    expect(describeSchedule({ days: [0, 6], from: '10:00', to: '12:00' }, 'UTC')).toBe('weekends 10:00–12:00 (UTC)');
    expect(describeSchedule({ days: [1, 3], from: '07:05', to: '08:00' }, 'UTC')).toBe('Mon, Wed 07:05–08:00 (UTC)');
  });
});
