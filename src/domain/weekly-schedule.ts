/**
 * The weekly schedule editor's model ↔ the spec's six-field expressions (docs/design.md §3 eKeys):
 * weekdays plus a from and a to time on the lock's clock. A window whose "to" is not after its
 * "from" crosses midnight: it closes on the following day, so the end expression's weekdays are
 * the start's shifted by one (weekdays 22:00–06:00 → `0 22 * * 1-5 *` / `0 6 * * 2-6 *`). Pure:
 * no DOM, no Node: the web app (web/src/schedule-editor.ts) and the invitation page share it;
 * unit-tested in test/unit/web.
 */

/** 0–6, Sunday = 0, as in the expressions. */
export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export interface WeeklySchedule {
  /** The days the window opens on, sorted, at least one. */
  days: Weekday[];
  /** `HH:MM`, 24-hour. */
  from: string;
  /** `HH:MM`; not after `from` = the next day. */
  to: string;
}

export const WEEKDAYS: readonly Weekday[] = [1, 2, 3, 4, 5, 6, 0];
export const DAY_NAMES: Readonly<Record<Weekday, string>> = { 0: 'Sun', 1: 'Mon', 2: 'Tue', 3: 'Wed', 4: 'Thu', 5: 'Fri', 6: 'Sat' };
const UNRESTRICTED = '* * * * * *';

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

function minutesOf(time: string): number {
  const match = TIME.exec(time);
  if (!match) throw new RangeError(`not a time: ${time}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

/** Whether the window ends on the day after it opens. */
export function crossesMidnight(schedule: Pick<WeeklySchedule, 'from' | 'to'>): boolean {
  return minutesOf(schedule.to) <= minutesOf(schedule.from);
}

/** A day list as the expressions write it: `*` for all seven, ranges for runs (`1-5`, `0,6`). */
export function dayField(days: readonly number[]): string {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  if (sorted.length === 7) return '*';
  const parts: string[] = [];
  let index = 0;
  while (index < sorted.length) {
    const first = sorted[index] ?? 0;
    let last = first;
    while (sorted[index + 1] === last + 1) {
      index += 1;
      last = sorted[index] ?? last;
    }
    parts.push(last - first >= 2 ? `${first}-${last}` : last === first ? `${first}` : `${first},${last}`);
    index += 1;
  }
  return parts.join(',');
}

/** Problems with an editor state, in words; empty when it can be saved. */
export function scheduleProblems(schedule: WeeklySchedule): string[] {
  const problems: string[] = [];
  if (schedule.days.length === 0) problems.push('Choose at least one day.');
  if (!TIME.test(schedule.from) || !TIME.test(schedule.to)) problems.push('Enter the times as hours and minutes.');
  else if (schedule.from === schedule.to) problems.push('"From" and "To" must differ.');
  return problems;
}

/** The editor state as `schedule_start` and `schedule_end`. @throws RangeError when it has problems. */
export function toExpressions(schedule: WeeklySchedule): { schedule_start: string; schedule_end: string } {
  const problems = scheduleProblems(schedule);
  if (problems.length > 0) throw new RangeError(problems.join(' '));
  const from = minutesOf(schedule.from);
  const to = minutesOf(schedule.to);
  const endDays = crossesMidnight(schedule) ? schedule.days.map((day) => (day + 1) % 7) : schedule.days;
  return {
    schedule_start: `${from % 60} ${Math.floor(from / 60)} * * ${dayField(schedule.days)} *`,
    schedule_end: `${to % 60} ${Math.floor(to / 60)} * * ${dayField(endDays)} *`,
  };
}

/** Expands a day-of-week field (`*`, lists, ranges, steps); undefined when it is not one. */
function expandDays(field: string): Weekday[] | undefined {
  const days = new Set<number>();
  for (const item of field.split(',')) {
    const match = /^(?:(\*)|(\d)(?:-(\d))?)(?:\/(\d))?$/.exec(item);
    if (!match) return undefined;
    const from = match[1] === '*' ? 0 : Number(match[2]);
    const to = match[1] === '*' ? 6 : match[3] === undefined ? from : Number(match[3]);
    const step = match[4] === undefined ? 1 : Number(match[4]);
    if (from > 6 || to > 6 || from > to || step < 1) return undefined;
    for (let day = from; day <= to; day += step) days.add(day);
  }
  return [...days].sort((a, b) => a - b) as Weekday[];
}

function timeOf(minute: string, hour: string): string | undefined {
  if (!/^\d{1,2}$/.test(minute) || !/^\d{1,2}$/.test(hour)) return undefined;
  const m = Number(minute);
  const h = Number(hour);
  if (m > 59 || h > 23) return undefined;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}

/**
 * Reads a pair of expressions back into the editor: null when the key has no restriction (null or
 * six asterisks on both sides); undefined when the editor cannot show it (several start times,
 * end days that do not follow the start days) — the app then shows the expressions as they are.
 */
export function fromExpressions(start: string | null, end: string | null): WeeklySchedule | null | undefined {
  const isFree = (value: string | null): boolean => value === null || value.trim().split(/\s+/).join(' ') === UNRESTRICTED;
  if (isFree(start) && isFree(end)) return null;
  if (start === null || end === null) return undefined;
  const [sMinute = '', sHour = '', sDom, sMonth, sDow = '', sSixth, ...sRest] = start.trim().split(/\s+/);
  const [eMinute = '', eHour = '', eDom, eMonth, eDow = '', eSixth, ...eRest] = end.trim().split(/\s+/);
  if (sRest.length > 0 || eRest.length > 0 || [sDom, sMonth, sSixth, eDom, eMonth, eSixth].some((field) => field !== '*')) return undefined;
  const from = timeOf(sMinute, sHour);
  const to = timeOf(eMinute, eHour);
  const days = expandDays(sDow);
  const endDays = expandDays(eDow);
  if (from === undefined || to === undefined || days === undefined || endDays === undefined || days.length === 0 || from === to) return undefined;
  const schedule: WeeklySchedule = { days, from, to };
  const expected = crossesMidnight(schedule) ? days.map((day) => (day + 1) % 7).sort((a, b) => a - b) : days;
  return expected.join(',') === endDays.join(',') ? schedule : undefined;
}

/** "weekdays", "every day", "weekends", or the days by name. */
export function describeDays(days: readonly Weekday[]): string {
  const key = [...days].sort((a, b) => a - b).join(',');
  if (key === '0,1,2,3,4,5,6') return 'every day';
  if (key === '1,2,3,4,5') return 'weekdays';
  if (key === '0,6') return 'weekends';
  return WEEKDAYS.filter((day) => days.includes(day)).map((day) => DAY_NAMES[day]).join(', ');
}

/**
 * "weekdays 09:00–17:00 (Europe/Berlin)": 24-hour times, the lock's zone with them (docs/design.md
 * §7: a time is never ambiguous); a window into the next day says so.
 */
export function describeSchedule(schedule: WeeklySchedule, zone: string): string {
  const next = crossesMidnight(schedule) ? ' the next day' : '';
  return `${describeDays(schedule.days)} ${schedule.from}–${schedule.to}${next} (${zone})`;
}
