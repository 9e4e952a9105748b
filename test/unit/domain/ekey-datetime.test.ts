import { describe, expect, it } from '@jest/globals';
import {
  formatEKeyDateTime,
  isValidTimeZone,
  localTimeToInstant,
  parseEKeyDateTime,
} from '../../../src/domain/ekey-datetime.js';

const NEW_YORK = 'America/New_York';
const BERLIN = 'Europe/Berlin';
const utc = (iso: string): number => Date.parse(iso);

describe('parseEKeyDateTime (spec format, read in the lock zone)', () => {
  it.each([
    ['1/2/2026 3:04:05 AM', NEW_YORK, '2026-01-02T08:04:05Z'],
    ['12/31/2026 11:59:59 PM', NEW_YORK, '2027-01-01T04:59:59Z'],
    ['6/15/2026 12:00:00 AM', NEW_YORK, '2026-06-15T04:00:00Z'],
    ['6/15/2026 12:00:00 PM', NEW_YORK, '2026-06-15T16:00:00Z'],
    ['6/15/2026 12:30:00 pm', NEW_YORK, '2026-06-15T16:30:00Z'],
    ['6/15/2026 1:00:00 Pm', NEW_YORK, '2026-06-15T17:00:00Z'],
    ['06/05/2026 09:05:00 AM', NEW_YORK, '2026-06-05T13:05:00Z'],
    ['2/29/2028 10:00:00 AM', 'UTC', '2028-02-29T10:00:00Z'],
    ['7/1/2026 9:00:00 AM', BERLIN, '2026-07-01T07:00:00Z'],
    ['1/1/2026 9:00:00 AM', BERLIN, '2026-01-01T08:00:00Z'],
    ['7/1/2026 9:00:00 AM', 'Asia/Kolkata', '2026-07-01T03:30:00Z'],
  ])('reads %s in %s as %s', (text, zone, expected) => {
    expect(parseEKeyDateTime(text, zone)).toEqual({ ok: true, epochMs: utc(expected) });
  });

  it.each([
    ['3/8/2026 1:59:59 AM', NEW_YORK, '2026-03-08T06:59:59Z', 'last second before the spring-forward gap'],
    ['3/8/2026 3:00:00 AM', NEW_YORK, '2026-03-08T07:00:00Z', 'first second after the gap'],
    ['11/1/2026 1:30:00 AM', NEW_YORK, '2026-11-01T05:30:00Z', 'repeated hour: the earlier (EDT) instant'],
    ['11/1/2026 1:00:00 AM', NEW_YORK, '2026-11-01T05:00:00Z', 'start of the repeated hour: EDT'],
    ['11/1/2026 2:00:00 AM', NEW_YORK, '2026-11-01T07:00:00Z', 'after the repeated hour: EST'],
    ['3/29/2026 3:00:00 AM', BERLIN, '2026-03-29T01:00:00Z', 'Berlin, first second after the gap'],
    ['10/25/2026 2:30:00 AM', BERLIN, '2026-10-25T00:30:00Z', 'Berlin repeated hour: the earlier (CEST) instant'],
    ['10/25/2026 3:00:00 AM', BERLIN, '2026-10-25T02:00:00Z', 'Berlin after the repeated hour: CET'],
  ])('DST day: %s in %s is %s (%s)', (text, zone, expected) => {
    expect(parseEKeyDateTime(text, zone)).toEqual({ ok: true, epochMs: utc(expected) });
  });

  it.each([
    ['3/8/2026 2:00:00 AM', NEW_YORK],
    ['3/8/2026 2:30:00 AM', NEW_YORK],
    ['3/8/2026 2:59:59 AM', NEW_YORK],
    ['3/29/2026 2:15:00 AM', BERLIN],
  ])('refuses %s in %s: the clocks skip it', (text, zone) => {
    const result = parseEKeyDateTime(text, zone);
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ message: expect.stringContaining('does not exist') });
  });

  it.each([
    ['2/30/2026 1:00:00 AM', 'day 30 does not exist'],
    ['2/29/2026 1:00:00 AM', 'day 29 does not exist'],
    ['4/31/2026 1:00:00 AM', 'day 31 does not exist'],
    ['13/1/2026 1:00:00 AM', 'month 13'],
    ['0/1/2026 1:00:00 AM', 'month 0'],
    ['1/0/2026 1:00:00 AM', 'day 0'],
    ['1/1/2026 0:00:00 AM', 'hour 0'],
    ['1/1/2026 13:00:00 PM', 'hour 13'],
    ['1/1/2026 1:60:00 AM', 'minute 60'],
    ['1/1/2026 1:00:60 AM', 'second 60'],
    ['1/1/1969 1:00:00 AM', 'year 1969'],
    ['1/1/2026 1:00 AM', 'M/D/YYYY'],
    ['1/1/2026 1:0:00 AM', 'M/D/YYYY'],
    ['1/1/2026 1:00:0 AM', 'M/D/YYYY'],
    ['1/1/26 1:00:00 AM', 'M/D/YYYY'],
    ['1/1/2026 1:00:00', 'M/D/YYYY'],
    ['1/1/2026 1:00:00 XM', 'M/D/YYYY'],
    ['1/1/2026 13:00:00', 'M/D/YYYY'],
    ['1/1/2026  1:00:00 AM', 'M/D/YYYY'],
    [' 1/1/2026 1:00:00 AM', 'M/D/YYYY'],
    ['1-1-2026 1:00:00 AM', 'M/D/YYYY'],
    ['', 'M/D/YYYY'],
    ['tomorrow', 'M/D/YYYY'],
  ])('refuses %j (%s)', (text, messagePart) => {
    const result = parseEKeyDateTime(text, NEW_YORK);
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ message: expect.stringContaining(messagePart) });
  });
});

describe('parseEKeyDateTime (ISO 8601 with an offset)', () => {
  it.each([
    ['2026-03-08T07:30:00Z', '2026-03-08T07:30:00Z'],
    ['2026-03-08T07:30:00z', '2026-03-08T07:30:00Z'],
    ['2026-03-08T09:30:00+02:00', '2026-03-08T07:30:00Z'],
    ['2026-03-08T02:30:00-0500', '2026-03-08T07:30:00Z'],
    ['2026-03-08T12:30:00+05', '2026-03-08T07:30:00Z'],
    ['2026-03-08T07:30Z', '2026-03-08T07:30:00Z'],
    ['2026-03-08T07:30:00.999Z', '2026-03-08T07:30:00Z'],
  ])('reads %s as %s, whatever the lock zone (milliseconds floored)', (text, expected) => {
    expect(parseEKeyDateTime(text, NEW_YORK)).toEqual({ ok: true, epochMs: utc(expected) });
  });

  it.each([
    ['2026-03-08T07:30:00', 'offset'],
    ['2026-03-08T07:30', 'offset'],
    ['2026-03-08', 'offset'],
    ['2026-02-30T07:30:00Z', 'not a valid'],
    ['2026-03-08T25:00:00Z', 'hour 25'],
    // Issue #32, finding 11: luxon would read these as the next midnight and as a four-day offset.
    ['2026-03-08T24:00:00Z', 'hour 24'],
    ['2026-03-08T10:00:00+99:99', 'outside -12:00 to +14:00'],
    ['2026-03-08T10:00:00+05:60', 'outside -12:00 to +14:00'],
    ['2026-03-08T10:00:00+1430', 'outside -12:00 to +14:00'],
    ['2026-03-08T10:00:00-12:30', 'outside -12:00 to +14:00'],
    ['1969-12-31T23:59:59Z', 'year 1969'],
  ])('refuses %s (%s)', (text, messagePart) => {
    const result = parseEKeyDateTime(text, NEW_YORK);
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ message: expect.stringContaining(messagePart) });
  });
});

describe('formatEKeyDateTime', () => {
  it.each([
    ['2026-01-02T08:04:05Z', NEW_YORK, '1/2/2026 3:04:05 AM'],
    ['2026-06-15T04:00:00Z', NEW_YORK, '6/15/2026 12:00:00 AM'],
    ['2026-06-15T16:00:00Z', NEW_YORK, '6/15/2026 12:00:00 PM'],
    ['2026-12-31T23:59:59.999Z', 'UTC', '12/31/2026 11:59:59 PM'],
    ['2026-11-01T05:30:00Z', NEW_YORK, '11/1/2026 1:30:00 AM'],
    ['2026-11-01T06:30:00Z', NEW_YORK, '11/1/2026 1:30:00 AM'],
    ['2026-03-08T07:00:00Z', NEW_YORK, '3/8/2026 3:00:00 AM'],
    ['2026-07-01T07:00:00Z', BERLIN, '7/1/2026 9:00:00 AM'],
    ['2026-07-01T03:30:00Z', 'Asia/Kolkata', '7/1/2026 9:00:00 AM'],
  ])('writes %s in %s as %s', (iso, zone, expected) => {
    expect(formatEKeyDateTime(utc(iso), zone)).toBe(expected);
  });
});

describe('round trip across DST days', () => {
  const cases: [string, string, string][] = [
    [NEW_YORK, '2026-03-08T00:00:00Z', '2026-03-09T12:00:00Z'],
    [NEW_YORK, '2026-10-31T12:00:00Z', '2026-11-02T00:00:00Z'],
    [BERLIN, '2026-03-28T12:00:00Z', '2026-03-30T00:00:00Z'],
    [BERLIN, '2026-10-24T12:00:00Z', '2026-10-26T00:00:00Z'],
  ];
  it.each(cases)('every 15 minutes in %s from %s to %s formats and parses back', (zone, from, to) => {
    const step = 15 * 60 * 1000;
    for (let instant = utc(from); instant <= utc(to); instant += step) {
      const text = formatEKeyDateTime(instant, zone);
      // In a repeated hour both instants print alike and parse to the earlier one, an hour back.
      const secondPass = formatEKeyDateTime(instant - 3_600_000, zone) === text;
      const expected = secondPass ? instant - 3_600_000 : instant;
      const parsed = parseEKeyDateTime(text, zone);
      expect({ instant: new Date(instant).toISOString(), parsed }).toEqual({
        instant: new Date(instant).toISOString(),
        parsed: { ok: true, epochMs: expected },
      });
      if (!parsed.ok) continue;
      expect(formatEKeyDateTime(parsed.epochMs, zone)).toBe(text);
    }
  });

  it('the repeated hour parses back to the earlier instant, the rest of the day to itself', () => {
    const secondPass = utc('2026-11-01T06:15:00Z'); // 1:15 AM EST, the second 1:15
    expect(parseEKeyDateTime(formatEKeyDateTime(secondPass, NEW_YORK), NEW_YORK)).toEqual({
      ok: true,
      epochMs: secondPass - 3_600_000,
    });
    const after = utc('2026-11-01T07:15:00Z'); // 2:15 AM EST, unique
    expect(parseEKeyDateTime(formatEKeyDateTime(after, NEW_YORK), NEW_YORK)).toEqual({ ok: true, epochMs: after });
  });
});

describe('time zones', () => {
  it.each([
    ['America/New_York', true],
    ['Europe/Berlin', true],
    ['UTC', true],
    ['Mars/Olympus_Mons', false],
    ['', false],
  ])('%j valid: %s', (zone, valid) => {
    expect(isValidTimeZone(zone)).toBe(valid);
  });

  it('parsing or formatting in an unknown zone is a setup fault (RangeError), not a client error', () => {
    expect(() => parseEKeyDateTime('1/1/2026 1:00:00 AM', 'Mars/Olympus_Mons')).toThrow(RangeError);
    expect(() => formatEKeyDateTime(0, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });

  it('a whole skipped day (Samoa, 12/30/2011) has no instants', () => {
    expect(localTimeToInstant({ year: 2011, month: 12, day: 30, hour: 12, minute: 0, second: 0 }, 'Pacific/Apia')).toBeNull();
  });
});
