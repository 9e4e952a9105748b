/**
 * Times on the lock's clock. eKey DateTimes travel in the spec's `M/D/YYYY h:mm:ss AM|PM` in the
 * lock's zone, which is also how a `datetime-local` field reads there — so the validity window
 * is edited as plain wall-clock text and never converted through the browser's own zone.
 */

/** `2026-06-10T09:05` (datetime-local) → `6/10/2026 9:05:00 AM`. */
export function localInputToSpec(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(value);
  if (!match) throw new RangeError(`not a date and time: ${value}`);
  const [, year, month, day, hour, minute] = match;
  const h = Number(hour);
  const twelve = h % 12 === 0 ? 12 : h % 12;
  return `${Number(month)}/${Number(day)}/${year} ${twelve}:${minute}:00 ${h < 12 ? 'AM' : 'PM'}`;
}

/** `6/10/2026 9:05:00 AM` → `2026-06-10T09:05` (for a datetime-local field); '' when unreadable. */
export function specToLocalInput(value: string | null): string {
  if (value === null) return '';
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2}):\d{2} (AM|PM)$/.exec(value.trim());
  if (!match) return '';
  const [, month = '', day = '', year, hour, minute, half] = match;
  const h = (Number(hour) % 12) + (half === 'PM' ? 12 : 0);
  return `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}T${String(h).padStart(2, '0')}:${minute}`;
}

export { clockText, keyWindowText, whenText, wireTimeText } from '../../src/domain/time-words.js';
export { guestMessage, stayDatesText } from '../../src/domain/booking-words.js';
