import { DateTime } from 'luxon';

/**
 * A TTLock keeps local wall-clock time with no zone (docs/ttlock.md "The lock's clock"): its
 * frames carry dates as decimal bytes (year 2026 → 26 = 0x1A, not BCD; the Android SDK's
 * `DigitUtil.convertTimeToByteArray`, confirmed on the wire by the DEF CON 34 capture
 * `1A 03 04 10 37` = 2026-03-04 16:55). The service reads and writes them in the lock's zone.
 */

/** A wall-clock reading: year (2000–2099), month 1–12, day, hour, minute, second. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** A date field that is not a date. */
export class TtlockDateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TtlockDateError';
  }
}

/** YY MM DD hh mm (5 bytes, minutes: passcode windows, check-user-time). */
export function encodeDate5(time: WallClock): Buffer {
  return Buffer.from([time.year % 100, time.month, time.day, time.hour, time.minute]);
}

/** YY MM DD hh mm ss (6 bytes: the lock's clock, log records). */
export function encodeDate6(time: WallClock): Buffer {
  return Buffer.from([time.year % 100, time.month, time.day, time.hour, time.minute, time.second]);
}

/** Reads 5 or 6 date bytes. @throws TtlockDateError when they are not a valid date. */
export function decodeDate(bytes: Buffer): WallClock {
  if (bytes.length !== 5 && bytes.length !== 6) throw new TtlockDateError(`a date has 5 or 6 bytes, not ${bytes.length}`);
  const time: WallClock = {
    year: 2000 + (bytes[0] ?? 0),
    month: bytes[1] ?? 0,
    day: bytes[2] ?? 0,
    hour: bytes[3] ?? 0,
    minute: bytes[4] ?? 0,
    second: bytes.length === 6 ? (bytes[5] ?? 0) : 0,
  };
  if (!DateTime.utc(time.year, time.month, time.day, time.hour, time.minute, time.second).isValid || time.year > 2099) {
    throw new TtlockDateError(`not a date: ${bytes.toString('hex')}`);
  }
  return time;
}

/** What the clock of a lock in `zone` shows at `instantMs` (to the second). */
export function wallClockAt(instantMs: number, zone: string): WallClock {
  const local = DateTime.fromMillis(instantMs, { zone });
  if (!local.isValid) throw new RangeError(`invalid time zone "${zone}"`);
  return { year: local.year, month: local.month, day: local.day, hour: local.hour, minute: local.minute, second: local.second };
}

/**
 * The instant at which the clock of a lock in `zone` shows this reading. A reading in the hour
 * the clocks skip is read as the instant of the jump's later side (luxon shifts it forward); one
 * in the repeated hour as its first occurrence.
 */
export function instantOf(time: WallClock, zone: string): number {
  const local = DateTime.fromObject({ ...time }, { zone });
  if (!local.isValid) throw new TtlockDateError(`not a time in ${zone}: ${formatWallClock(time)}`);
  return local.toMillis();
}

/** The reading as ms on a clock whose zone is UTC: readings compare and subtract without any zone. */
export function wallClockMs(time: WallClock): number {
  return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
}

/** The reading for a ms value of {@link wallClockMs}. */
export function wallClockOfMs(ms: number): WallClock {
  const date = new Date(ms);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: date.getUTCHours(), minute: date.getUTCMinutes(), second: date.getUTCSeconds() };
}

/** ISO 8601 without an offset (the lock holds no zone): `2026-03-04T16:55:00`. */
export function formatWallClock(time: WallClock): string {
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${String(time.year).padStart(4, '0')}-${two(time.month)}-${two(time.day)}T${two(time.hour)}:${two(time.minute)}:${two(time.second)}`;
}
