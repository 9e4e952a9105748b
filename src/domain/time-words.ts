/**
 * Times as people read them (docs/design.md §7: a time is never ambiguous, one date format across
 * the app, never the spec's wire format, the zone with every time): "Thu 26 Nov 2026, 17:05 (UTC)"
 * — 24-hour, on the lock's clock, its zone beside it. Pure (Intl only): the web app and the
 * service's own pages (the invitation page) share it.
 */
import { fromExpressions, describeSchedule } from './weekly-schedule.js';

const FORMATS = new Map<string, Intl.DateTimeFormat>();

function formatIn(zone: string): Intl.DateTimeFormat {
  let format = FORMATS.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    FORMATS.set(zone, format);
  }
  return format;
}

/** "Thu 26 Nov 2026, 17:05" on the clock of `zone`, without the zone. */
export function clockText(at: number | string | Date, zone: string): string {
  const instant = at instanceof Date ? at : new Date(at);
  // en-GB writes "Thu 26 Nov 2026, 17:05" (some engines put "at" or no comma: one form everywhere).
  const parts = formatIn(zone).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((entry) => entry.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}, ${part('hour')}:${part('minute')}`;
}

/** "Thu 26 Nov 2026, 17:05 (Europe/Berlin)": an instant on the lock's clock, with its zone. */
export function whenText(at: number | string | Date, zone: string): string {
  return `${clockText(at, zone)} (${zone})`;
}

const WIRE = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2}):\d{2} ([AaPp][Mm])$/;

/**
 * An eKey DateTime in the spec's wire format (`11/26/2026 5:05:00 PM`, a wall-clock time in the
 * lock's zone) in the app's one format: "Thu 26 Nov 2026, 17:05 (Europe/Berlin)". The wall clock is
 * shown as it is, never converted; an ISO 8601 value is read as an instant. Unreadable: as given.
 */
export function wireTimeText(value: string, zone: string): string {
  const match = WIRE.exec(value.trim());
  if (match === null) {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? value : whenText(parsed, zone);
  }
  const [, month, day, year, hour, minute, half] = match;
  const hours = (Number(hour) % 12) + (half?.toUpperCase() === 'PM' ? 12 : 0);
  // The wall clock's own fields, formatted through UTC so that nothing shifts them.
  return `${clockText(Date.UTC(Number(year), Number(month) - 1, Number(day), hours, Number(minute)), 'UTC')} (${zone})`;
}

/** What of a key decides when it works. */
export interface KeyWindow {
  type?: string;
  valid_from: string | null;
  valid_to: string | null;
  schedule_start: string | null;
  schedule_end: string | null;
}

/**
 * When a key works, in words, without a subject: "weekdays 09:00–17:00 (UTC) from Thu 26 Nov
 * 2026, 09:00 (UTC) until …", "at any time", "for 24 hours from …". Expressions the schedule editor
 * cannot show are described as a custom weekly schedule, never printed.
 */
export function keyWindowText(key: KeyWindow, zone: string): string {
  const schedule = fromExpressions(key.schedule_start, key.schedule_end);
  const parts: string[] = [];
  if (schedule === null) parts.push(key.type === 'guest' ? 'for 24 hours' : 'at any time');
  else if (schedule === undefined) parts.push(`on a custom weekly schedule (${zone})`);
  else parts.push(describeSchedule(schedule, zone));
  if (key.valid_from !== null) parts.push(`from ${wireTimeText(key.valid_from, zone)}`);
  if (key.valid_to !== null) parts.push(`until ${wireTimeText(key.valid_to, zone)}`);
  return parts.join(' ');
}
