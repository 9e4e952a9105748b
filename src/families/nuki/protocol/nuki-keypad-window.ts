/**
 * A door code's window (domain/door-code-window.ts) as the Nuki stores it, and the lock's own
 * judgement of a typed code against what it stores: the date range on its UTC clock, the weekday
 * and the daily window on its local clock in its time zone (DST included), the daily window's
 * end exclusive. The simulated Nuki judges codes with {@link keypadLimitsAllow}; the tests hold it
 * against the service's usability rule.
 */
import { DateTime } from 'luxon';
import type { KeypadWindow } from '../../../domain/door-code-window.js';
import { UNLIMITED_KEYPAD_TIME, weekdayMask, weekdaysOfMask, type NukiKeypadTimeLimits, type NukiTimeOfDay } from './nuki-keypad-messages.js';

/** The limits the lock is written with for a window (no bound at all: not time limited). */
export function keypadLimitsOfWindow(window: KeypadWindow): NukiKeypadTimeLimits {
  const limited = window.allowedFrom !== null || window.allowedUntil !== null || window.weekdays.length > 0 || window.fromTime !== null || window.untilTime !== null;
  if (!limited) return UNLIMITED_KEYPAD_TIME;
  return {
    timeLimited: true,
    allowedFrom: window.allowedFrom,
    allowedUntil: window.allowedUntil,
    allowedWeekdays: weekdayMask(window.weekdays),
    allowedFromTime: timeOf(window.fromTime),
    allowedUntilTime: timeOf(window.untilTime),
  };
}

/** What a lock holds, read back as a window (00:00–00:00 is the whole day). */
export function windowOfKeypadLimits(limits: NukiKeypadTimeLimits): KeypadWindow {
  if (!limits.timeLimited) return { allowedFrom: null, allowedUntil: null, weekdays: [], fromTime: null, untilTime: null };
  const wholeDay = isMidnight(limits.allowedFromTime) && isMidnight(limits.allowedUntilTime);
  return {
    allowedFrom: limits.allowedFrom,
    allowedUntil: limits.allowedUntil,
    weekdays: weekdaysOfMask(limits.allowedWeekdays),
    fromTime: wholeDay ? null : text(limits.allowedFromTime),
    untilTime: wholeDay ? null : text(limits.allowedUntilTime),
  };
}

/**
 * Whether the lock lets a code with these limits in at `instantMs` (its UTC clock), reading
 * weekdays and the daily window on its local clock in `zone`.
 */
export function keypadLimitsAllow(limits: NukiKeypadTimeLimits, instantMs: number, zone: string): boolean {
  if (!limits.timeLimited) return true;
  if (limits.allowedFrom !== null && instantMs < limits.allowedFrom) return false;
  if (limits.allowedUntil !== null && instantMs >= limits.allowedUntil) return false;
  const local = DateTime.fromMillis(instantMs, { zone });
  const weekdays = weekdaysOfMask(limits.allowedWeekdays);
  if (weekdays.length > 0 && !weekdays.includes(local.weekday % 7)) return false;
  if (isMidnight(limits.allowedFromTime) && isMidnight(limits.allowedUntilTime)) return true;
  const minute = local.hour * 60 + local.minute;
  const from = limits.allowedFromTime.hour * 60 + limits.allowedFromTime.minute;
  const until = limits.allowedUntilTime.hour * 60 + limits.allowedUntilTime.minute;
  return minute >= from && minute < until;
}

function timeOf(hhmm: string | null): NukiTimeOfDay {
  if (hhmm === null) return { hour: 0, minute: 0 };
  const [hour = 0, minute = 0] = hhmm.split(':').map(Number);
  return { hour, minute };
}

function text(time: NukiTimeOfDay): string {
  return `${String(time.hour).padStart(2, '0')}:${String(time.minute).padStart(2, '0')}`;
}

function isMidnight(time: NukiTimeOfDay): boolean {
  return time.hour === 0 && time.minute === 0;
}
