/**
 * A rental stay in words (docs/design.md §12), for the web app's Bookings page: its dates on the
 * lock's clock (24-hour, with the zone, as every time in the app) and the message a host copies
 * for the guest. Pure (Intl only).
 */
import { clockText } from './time-words.js';

const SHORT = new Map<string, Intl.DateTimeFormat>();

/** "Fri 14 Aug, 16:00" on the clock of `zone` (the guest's message: the year goes without saying). */
export function shortClockText(at: number | string, zone: string): string {
  let format = SHORT.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    SHORT.set(zone, format);
  }
  const parts = format.formatToParts(new Date(at));
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((entry) => entry.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')}, ${part('hour')}:${part('minute')}`;
}

/** "Wed 12 Aug 2026, 16:00 to Sat 15 Aug 2026, 11:00 (Europe/Berlin)". */
export function stayDatesText(startsAt: string, endsAt: string, zone: string): string {
  return `${clockText(startsAt, zone)} to ${clockText(endsAt, zone)} (${zone})`;
}

/**
 * The message for the guest (docs/design.md §12):
 * "Your door code for Front Door: 482913 — from Fri 14 Aug, 16:00 to Mon 17 Aug, 11:00".
 */
export function guestMessage(lockName: string, code: string, startsAt: string, endsAt: string, zone: string): string {
  return `Your door code for ${lockName}: ${code} — from ${shortClockText(startsAt, zone)} to ${shortClockText(endsAt, zone)}`;
}
