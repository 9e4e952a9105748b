/**
 * The stays in a rental calendar's iCal feed (docs/design.md §12), read with ical.js (RFC 5545:
 * line folding, escapes, recurrence with EXDATE and RECURRENCE-ID, VTIMEZONE) and placed in time
 * with luxon. Pure: text in, stays out. Why ical.js: docs/architecture.md "Rental calendars".
 */
import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { DateTime, IANAZone } from 'luxon';

/** One stay as the feed gives it: days (an all-day event) or instants (a timed event). */
export type FeedStay =
  | { uid: string; summary: string; kind: 'days'; startDate: string; endDate: string }
  | { uid: string; summary: string; kind: 'times'; startsAt: number; endsAt: number };

/** What a feed held: its stays, and how many events it had at all (blocks included). */
export type FeedReading = { ok: true; stays: FeedStay[]; events: number } | { ok: false; error: string };

export interface FeedReadingOptions {
  /** The zone of a floating time when the feed names none (`X-WR-TIMEZONE`): the first lock's. */
  fallbackZone: string;
  /** Occurrences of a recurring event are read from here (ms) … */
  fromMs: number;
  /** … to here. */
  untilMs: number;
}

/** What ical.js says of one occurrence (its published types leave this one out). */
interface OccurrenceDetails {
  recurrenceId: ICAL.Time;
  item: ICAL.Event;
  startDate: ICAL.Time;
  endDate: ICAL.Time;
}

const BROKEN = 'The calendar could not be read: it is not valid iCal. If it stays so, ask the platform, or connect its link again.';

/** At most this many occurrences of one recurring event are read. */
const MAX_OCCURRENCES = 1_000;

/**
 * Whether an event is a block rather than a stay: Airbnb's "Airbnb (Not available)", Booking.com's
 * "CLOSED - Not available", Vrbo's "Blocked", and the same words in French feeds ("Indisponible").
 */
export function isBlockSummary(summary: string): boolean {
  const text = summary.trim().toLowerCase();
  return /\bnot available\b/.test(text) || /^blocked\b/.test(text) || /^unavailable\b/.test(text) || /^indisponible\b/.test(text);
}

/**
 * Reads a feed. An empty body is an empty calendar (Booking.com answers one when nothing is
 * booked); a web page or anything else that is not iCal is an error in words, never an exception.
 *
 * @example readFeed('BEGIN:VCALENDAR\r\n…END:VCALENDAR\r\n', { fallbackZone: 'Europe/Berlin', fromMs, untilMs })
 */
export function readFeed(text: string, options: FeedReadingOptions): FeedReading {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (body === '') return { ok: true, stays: [], events: 0 };
  if (!/^BEGIN:VCALENDAR/i.test(body)) {
    return {
      ok: false,
      error: body.startsWith('<')
        ? 'The link opened a web page, not a calendar: copy the calendar (iCal) export link instead.'
        : 'The link did not return a calendar in iCal format.',
    };
  }
  let calendar: ICAL.Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(body) as unknown[]);
  } catch {
    // ical.js quotes the offending line, which may hold a guest's details: not repeated here.
    return { ok: false, error: BROKEN };
  }
  if (calendar.name !== 'vcalendar') return { ok: false, error: 'The link did not return a calendar in iCal format.' };
  for (const zone of calendar.getAllSubcomponents('vtimezone')) {
    const tzid = zone.getFirstPropertyValue('tzid');
    // A zone the host knows is read from the host's IANA data; the feed's own definition only for others (e.g. Windows names).
    if (typeof tzid === 'string' && !IANAZone.isValidZone(tzid) && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(zone);
  }
  const declared = calendar.getFirstPropertyValue('x-wr-timezone');
  const floatingZone = typeof declared === 'string' && IANAZone.isValidZone(declared) ? declared : options.fallbackZone;
  const vevents = calendar.getAllSubcomponents('vevent');
  const masters = new Map<string, ICAL.Event>();
  const exceptions: ICAL.Component[] = [];
  for (const vevent of vevents) {
    if (vevent.hasProperty('recurrence-id')) exceptions.push(vevent);
    else masters.set(uidOf(vevent), new ICAL.Event(vevent));
  }
  for (const exception of exceptions) {
    const master = masters.get(uidOf(exception));
    if (master !== undefined) master.relateException(exception);
    else masters.set(uidOf(exception), new ICAL.Event(exception));
  }
  const stays: FeedStay[] = [];
  try {
    for (const [uid, event] of masters) {
      if (!event.isRecurring()) {
        const stay = stayOf(uid, event.summary, event.startDate, endOf(event.startDate, event.endDate), event, floatingZone);
        if (stay !== null) stays.push(stay);
        continue;
      }
      const iterator = event.iterator();
      for (let count = 0; count < MAX_OCCURRENCES; count += 1) {
        // ical.js returns nothing once the rule has no more occurrences (its types say otherwise).
        const next = iterator.next() as ICAL.Time | undefined;
        if (next === undefined) break;
        const details: OccurrenceDetails = event.getOccurrenceDetails(next);
        const start = details.startDate;
        const startMs = instantOf(start, details.item, floatingZone);
        if (startMs > options.untilMs) break;
        const end = endOf(start, details.endDate);
        if (instantOf(end, details.item, floatingZone) < options.fromMs) continue;
        const stay = stayOf(`${uid}#${details.recurrenceId.toICALString()}`, details.item.summary, start, end, details.item, floatingZone);
        if (stay !== null) stays.push(stay);
      }
    }
  } catch {
    return { ok: false, error: BROKEN };
  }
  return { ok: true, stays, events: vevents.length };
}

/** An event's UID; one without (not valid iCal, but seen) gets one from its start and summary, stable across refreshes. */
function uidOf(vevent: ICAL.Component): string {
  const uid = vevent.getFirstPropertyValue('uid');
  if (typeof uid === 'string' && uid.trim() !== '') return uid.trim();
  const start = vevent.getFirstProperty('dtstart')?.toICALString() ?? '';
  const summary = String(vevent.getFirstPropertyValue('summary') ?? '');
  return `no-uid-${createHash('sha256').update(`${start}\u0000${summary}`).digest('hex').slice(0, 16)}`;
}

/** The end of an event: DTEND (or the start plus DURATION, as ical.js reads it); a day after a bare all-day start; the start for a bare timed one. */
function endOf(start: ICAL.Time, end: ICAL.Time | undefined): ICAL.Time {
  if (end !== undefined && end.compare(start) > 0) return end;
  const next = start.clone();
  if (start.isDate) next.adjust(1, 0, 0, 0);
  return next;
}

function stayOf(uid: string, summaryValue: string | undefined, start: ICAL.Time, end: ICAL.Time, item: ICAL.Event, zone: string): FeedStay | null {
  const summary = (summaryValue ?? '').trim();
  if (isBlockSummary(summary)) return null;
  if (start.isDate) return { uid, summary, kind: 'days', startDate: isoDate(start), endDate: isoDate(end.isDate ? end : dayOf(end)) };
  const startsAt = instantOf(start, item, zone);
  const endsAt = instantOf(end, item, zone);
  if (endsAt <= startsAt) return null;
  return { uid, summary, kind: 'times', startsAt, endsAt };
}

function isoDate(time: ICAL.Time): string {
  return `${String(time.year).padStart(4, '0')}-${String(time.month).padStart(2, '0')}-${String(time.day).padStart(2, '0')}`;
}

function dayOf(time: ICAL.Time): ICAL.Time {
  const day = time.clone();
  day.isDate = true;
  return day;
}

/**
 * The instant a time of the feed stands for: UTC (`Z`); its TZID when that is an IANA zone (read
 * with the host's zone data, DST included); a zone the feed defines itself (VTIMEZONE, e.g. a
 * Windows name) through ical.js; a floating time in the feed's `X-WR-TIMEZONE` or the lock's zone.
 */
function instantOf(time: ICAL.Time, item: ICAL.Event, floatingZone: string): number {
  const fields = { year: time.year, month: time.month, day: time.day, hour: time.isDate ? 0 : time.hour, minute: time.isDate ? 0 : time.minute, second: time.isDate ? 0 : time.second };
  if (time.zone.tzid === 'UTC') return DateTime.fromObject(fields, { zone: 'UTC' }).toMillis();
  const own = (time as unknown as { timezone?: string }).timezone;
  const declaredTzid = item.component.getFirstProperty('dtstart')?.getParameter('tzid');
  const tzid = own ?? (typeof declaredTzid === 'string' ? declaredTzid : undefined) ?? (time.zone.tzid !== 'floating' ? time.zone.tzid : undefined);
  if (tzid !== undefined && IANAZone.isValidZone(tzid)) return DateTime.fromObject(fields, { zone: tzid }).toMillis();
  if (tzid !== undefined && ICAL.TimezoneService.has(tzid)) {
    const zoned = time.clone();
    zoned.zone = ICAL.TimezoneService.get(tzid);
    return zoned.toUnixTime() * 1000;
  }
  return DateTime.fromObject(fields, { zone: floatingZone }).toMillis();
}
