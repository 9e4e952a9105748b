/**
 * The eKey DateTime wire format, `M/D/YYYY h:mm:ss AM|PM`, read and written in a lock's IANA
 * time zone. Requests may also carry ISO 8601 with an explicit offset (docs/design.md §3 Paths and
 * conventions). Pure: no clock, no I/O.
 */
import { DateTime, IANAZone } from 'luxon';

/** Outcome of parsing a client-supplied DateTime. */
export type DateTimeParseResult =
  | { ok: true; epochMs: number }
  | { ok: false; message: string };

const SPEC_FORMAT_HINT = 'M/D/YYYY h:mm:ss AM|PM (e.g. 3/8/2026 9:05:00 AM) or ISO 8601 with an offset';

// Spec: Resources › eKey › DateTime format. Month, day and hour take one or two digits (a leading
// zero is tolerated because common formatters emit one); minutes and seconds take exactly two.
const SPEC_PATTERN = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2}):(\d{2}) ([AaPp][Mm])$/;
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}[Tt]/;
const ISO_WITH_OFFSET =
  /^\d{4}-\d{2}-\d{2}[Tt](\d{2}):\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/;
/** The offsets clocks on Earth use: UTC−12:00 to UTC+14:00. */
const MIN_OFFSET_MINUTES = -12 * 60;
const MAX_OFFSET_MINUTES = 14 * 60;

const MIN_YEAR = 1970;
const MAX_YEAR = 9999;

/** Zones already found valid (a valid IANA zone stays valid for the life of the process). */
const VALID_ZONES = new Set<string>();

/** True when `zone` names an IANA time zone luxon knows (e.g. `Europe/Berlin`, `UTC`). */
export function isValidTimeZone(zone: string): boolean {
  // luxon builds an Intl.DateTimeFormat per call (~40 µs); every usability check asks, so remember the answer.
  if (VALID_ZONES.has(zone)) return true;
  const valid = IANAZone.isValidZone(zone);
  if (valid) VALID_ZONES.add(zone);
  return valid;
}

/**
 * Throws a `RangeError` for an unknown zone. A lock's zone comes from configuration, not from the
 * client, so a bad one is a setup fault rather than a validation error.
 */
export function assertValidTimeZone(zone: string): void {
  if (!isValidTimeZone(zone)) throw new RangeError(`Unknown IANA time zone "${zone}".`);
}

/**
 * Parses a client-supplied eKey DateTime into epoch milliseconds.
 *
 * Accepts the spec's `M/D/YYYY h:mm:ss AM|PM` read in `zone`, or ISO 8601 with `Z` or an offset
 * (ISO without an offset is refused as ambiguous). A local time skipped by a daylight-saving jump
 * is refused; a local time that occurs twice resolves to the earlier instant. Sub-second
 * precision is dropped (floored) so stored values match what the wire format can express.
 *
 * @throws RangeError when `zone` is not a valid IANA zone.
 * @example parseEKeyDateTime('3/8/2026 9:05:00 AM', 'America/New_York') // { ok: true, epochMs: 1772975100000 }
 */
export function parseEKeyDateTime(text: string, zone: string): DateTimeParseResult {
  assertValidTimeZone(zone);
  if (ISO_LIKE.test(text)) return parseIsoWithOffset(text);
  const match = SPEC_PATTERN.exec(text);
  if (!match) return { ok: false, message: `must be a date-time in the form ${SPEC_FORMAT_HINT}` };
  const [, monthText = '', dayText = '', yearText = '', hourText = '', minuteText = '', secondText = '', meridiem = ''] =
    match;
  const month = Number(monthText);
  const day = Number(dayText);
  const year = Number(yearText);
  const hour12 = Number(hourText);
  const minute = Number(minuteText);
  const second = Number(secondText);
  if (year < MIN_YEAR || year > MAX_YEAR) return { ok: false, message: `year ${year} is outside ${MIN_YEAR}-${MAX_YEAR}` };
  if (month < 1 || month > 12) return { ok: false, message: `month ${month} is outside 1-12` };
  const daysInMonth = DateTime.utc(year, month).daysInMonth ?? 31;
  if (day < 1 || day > daysInMonth) return { ok: false, message: `day ${day} does not exist in ${month}/${year}` };
  if (hour12 < 1 || hour12 > 12) return { ok: false, message: `hour ${hour12} is outside 1-12 (12-hour clock)` };
  if (minute > 59) return { ok: false, message: `minute ${minute} is outside 00-59` };
  if (second > 59) return { ok: false, message: `second ${second} is outside 00-59` };
  const pm = meridiem.toUpperCase() === 'PM';
  // 12 AM is the first hour of the day, 12 PM the hour after 11 AM.
  const hour = (hour12 % 12) + (pm ? 12 : 0);
  const epochMs = localTimeToInstant({ year, month, day, hour, minute, second }, zone);
  if (epochMs === null) {
    return { ok: false, message: `${text} does not exist in ${zone} (the clocks skip it for daylight-saving time)` };
  }
  return { ok: true, epochMs };
}

/**
 * Formats epoch milliseconds as the spec's `M/D/YYYY h:mm:ss AM|PM` in `zone`: no leading zeros
 * on month, day and hour, two-digit minutes and seconds, upper-case AM/PM. Milliseconds are
 * dropped.
 *
 * @throws RangeError when `zone` is not a valid IANA zone.
 * @example formatEKeyDateTime(1772975100000, 'America/New_York') // '3/8/2026 9:05:00 AM'
 */
export function formatEKeyDateTime(epochMs: number, zone: string): string {
  assertValidTimeZone(zone);
  const local = DateTime.fromMillis(epochMs, { zone });
  const hour12 = local.hour % 12 === 0 ? 12 : local.hour % 12;
  const meridiem = local.hour < 12 ? 'AM' : 'PM';
  const mm = String(local.minute).padStart(2, '0');
  const ss = String(local.second).padStart(2, '0');
  return `${local.month}/${local.day}/${local.year} ${hour12}:${mm}:${ss} ${meridiem}`;
}

/** Wall-clock fields in a zone; `hour` is 0-23. */
export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * The instant at which the wall clock of `zone` shows `local`: the earlier one when the time
 * occurs twice (fall-back), `null` when it never occurs (spring-forward gap).
 */
export function localTimeToInstant(local: LocalDateTime, zone: string): number | null {
  const tz = IANAZone.create(zone);
  const wallAsUtc = DateTime.utc(local.year, local.month, local.day, local.hour, local.minute, local.second).toMillis();
  // Every offset in force within two days either side is a candidate; an instant is a real
  // reading of the wall clock only if the zone uses that very offset at that instant.
  const hour = 3_600_000;
  const offsets = new Set([-48, -24, 0, 24, 48].map((h) => tz.offset(wallAsUtc + h * hour)));
  const instants = [...offsets]
    .map((offsetMinutes) => wallAsUtc - offsetMinutes * 60_000)
    .filter((instant) => tz.offset(instant) * 60_000 === wallAsUtc - instant);
  return instants.length === 0 ? null : Math.min(...instants);
}

function parseIsoWithOffset(text: string): DateTimeParseResult {
  const match = ISO_WITH_OFFSET.exec(text);
  if (!match) {
    return {
      ok: false,
      message: 'an ISO 8601 date-time must carry Z or an offset such as +01:00 (without one it is ambiguous)',
    };
  }
  // luxon reads `T24:00:00` as the next midnight and `+99:99` as an offset of four days: both are
  // refused, so a window means what it says (issue #32, finding 11).
  const [, hourText = '', sign, offsetHours, offsetMinutes = '00'] = match;
  if (Number(hourText) > 23) return { ok: false, message: `hour ${hourText} is outside 00-23 (write the next day's 00:00 instead of 24:00)` };
  if (sign !== undefined && offsetHours !== undefined) {
    const minutes = Number(offsetMinutes);
    const total = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + minutes);
    if (minutes > 59 || total < MIN_OFFSET_MINUTES || total > MAX_OFFSET_MINUTES) {
      return { ok: false, message: `the offset ${sign}${offsetHours}:${offsetMinutes} is outside -12:00 to +14:00` };
    }
  }
  const parsed = DateTime.fromISO(text, { setZone: true });
  if (!parsed.isValid) return { ok: false, message: `${text} is not a valid ISO 8601 date-time` };
  if (parsed.year < MIN_YEAR || parsed.year > MAX_YEAR) {
    return { ok: false, message: `year ${parsed.year} is outside ${MIN_YEAR}-${MAX_YEAR}` };
  }
  return { ok: true, epochMs: Math.floor(parsed.toMillis() / 1000) * 1000 };
}
