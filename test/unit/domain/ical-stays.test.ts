/**
 * Reading rental calendars (docs/design.md §12) from realistic exports in test/fixtures/calendars:
 * an Airbnb export (CRLF, folded lines, blocks), a Vrbo-style export (LF, X-WR-TIMEZONE, blocks,
 * floating times), a property manager's timed events (TZID, UTC, a Windows zone defined by its
 * own VTIMEZONE, a weekly recurrence with EXDATE and a moved occurrence), and what is not iCal.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { isBlockSummary, readFeed, type FeedStay } from '../../../src/domain/ical-stays.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/calendars/${name}`, import.meta.url), 'utf8');
const window = { fromMs: Date.UTC(2026, 0, 1), untilMs: Date.UTC(2027, 11, 31) };
const iso = (ms: number): string => new Date(ms).toISOString();

function stays(text: string, fallbackZone = 'UTC'): FeedStay[] {
  const reading = readFeed(text, { fallbackZone, ...window });
  if (!reading.ok) throw new Error(reading.error);
  return reading.stays;
}

describe('reading rental calendars', () => {
  it('an Airbnb export: the stays by UID with their days; the "Not available" block is no stay; CRLF and folded lines read', () => {
    const text = fixture('airbnb-export.ics');
    expect(text).toContain('\r\n ails/HMNXK8J99Q');
    const reading = readFeed(text, { fallbackZone: 'Europe/Berlin', ...window });
    expect(reading).toMatchObject({ ok: true, events: 4 });
    expect(stays(text)).toEqual([
      { uid: '1418fb94e984-c36acd4341234567e6515e5ef948f56a@airbnb.com', summary: 'Reserved', kind: 'days', startDate: '2026-08-12', endDate: '2026-08-15' },
      { uid: '2b7d0e4f9a11-77aa01c2d3e4f5a6b7c8d9e0f1a2b3c4@airbnb.com', summary: 'Reserved', kind: 'days', startDate: '2026-10-01', endDate: '2026-10-05' },
      { uid: '9c1e55aa2b3c-0011223344556677889900aabbccddee@airbnb.com', summary: 'Reserved', kind: 'days', startDate: '2026-07-01', endDate: '2026-07-05' },
    ]);
  });

  it('a Vrbo-style export: "Blocked" is no stay; floating times are read in its X-WR-TIMEZONE', () => {
    expect(stays(fixture('vrbo-export.ics'), 'Europe/Berlin')).toEqual([
      { uid: '4661712-3b59-4b8e-8ad8-2f1f1d3c9e71@vrbo.com', summary: 'Reserved - Anna Schmidt', kind: 'days', startDate: '2026-08-13', endDate: '2026-08-16' },
      // 19:00 and 14:00 in New York (EDT, UTC−4), not in the lock's Berlin.
      { uid: '4661712-aa00-4cde-8f90-0123456789ab@vrbo.com', summary: "Reserved - Owner's friend (floating times)", kind: 'times', startsAt: Date.UTC(2026, 7, 21, 23), endsAt: Date.UTC(2026, 7, 23, 18) },
    ]);
  });

  it('timed events keep their times: an IANA TZID, UTC, a Windows zone from its VTIMEZONE across the clock change, a weekly recurrence with EXDATE and a moved occurrence', () => {
    const read = stays(fixture('timed-events.ics'));
    const byUid = new Map(read.map((stay) => [stay.uid, stay]));
    const times = (uid: string): [string, string] => {
      const stay = byUid.get(uid);
      if (stay?.kind !== 'times') throw new Error(`${uid} is not a timed stay`);
      return [iso(stay.startsAt), iso(stay.endsAt)];
    };
    expect(times('pm-stay-1001@example.test')).toEqual(['2026-08-14T13:00:00.000Z', '2026-08-16T08:00:00.000Z']);
    expect(byUid.get('pm-stay-1001@example.test')?.summary).toBe('Stay 1001 – Müller, party of 3, arriving late in the evening after a long drive');
    expect(times('pm-stay-1002@example.test')).toEqual(['2026-08-17T13:00:00.000Z', '2026-08-19T09:00:00.000Z']);
    // 15:00 CEST (UTC+2) on the 24th, 10:00 CET (UTC+1) on the 26th: the clocks went back between.
    expect(times('pm-stay-1003@example.test')).toEqual(['2026-10-24T13:00:00.000Z', '2026-10-26T09:00:00.000Z']);
    const weekly = read.filter((stay) => stay.uid.startsWith('pm-weekly@example.test#')).map((stay) => (stay.kind === 'times' ? [stay.uid, stay.summary, iso(stay.startsAt)] : []));
    expect(weekly).toEqual([
      ['pm-weekly@example.test#20260901T090000', 'Weekly workshop guest', '2026-09-01T07:00:00.000Z'],
      ['pm-weekly@example.test#20260908T090000', 'Weekly workshop guest (moved)', '2026-09-08T08:00:00.000Z'],
      ['pm-weekly@example.test#20260922T090000', 'Weekly workshop guest', '2026-09-22T07:00:00.000Z'],
    ]);
  });

  it('an empty body is an empty calendar (Booking.com with nothing booked); a calendar without events too', () => {
    expect(readFeed('', { fallbackZone: 'UTC', ...window })).toEqual({ ok: true, stays: [], events: 0 });
    expect(readFeed('BEGIN:VCALENDAR\nVERSION:2.0\nEND:VCALENDAR\n', { fallbackZone: 'UTC', ...window })).toEqual({ ok: true, stays: [], events: 0 });
  });

  it('a web page or other text is not a calendar, said in words; a broken calendar too', () => {
    expect(readFeed('<!doctype html><html><body>Sign in</body></html>', { fallbackZone: 'UTC', ...window })).toEqual({
      ok: false,
      error: 'The link opened a web page, not a calendar: copy the calendar (iCal) export link instead.',
    });
    expect(readFeed('{"events":[]}', { fallbackZone: 'UTC', ...window })).toEqual({ ok: false, error: 'The link did not return a calendar in iCal format.' });
    // ical.js quotes the broken line (it may hold a guest's details): the error does not.
    expect(readFeed('BEGIN:VCALENDAR\nPhone 0049 170 1234567\nEND:VCALENDAR\n', { fallbackZone: 'UTC', ...window })).toEqual({
      ok: false,
      error: 'The calendar could not be read: it is not valid iCal. If it stays so, ask the platform, or connect its link again.',
    });
  });

  it('tells blocks from stays by their summary', () => {
    for (const block of ['Not available', 'Airbnb (Not available)', 'Blocked', 'CLOSED - Not available', 'Blocked By Guesty', 'Indisponible']) expect(isBlockSummary(block)).toBe(true);
    for (const stay of ['Reserved', 'Reserved - Anna', 'CLOSED - Anna', 'Réservée - Melanie', 'Booked: Not a block']) expect(isBlockSummary(stay)).toBe(false);
  });
});
