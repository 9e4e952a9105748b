/** A rental stay and its door code in plain words (docs/design.md §7, §12). */
import type { Booking, BookingDoorCode } from './api.js';
import { doorCodeStateText } from './door-code-text.js';

export const BOOKING_STATE_WORDS: Readonly<Record<Booking['state'], string>> = {
  upcoming: 'Upcoming',
  active: 'Staying now',
  ended: 'Checked out',
  cancelled: 'Cancelled',
};

/** Where a stay's code stands on the lock. */
export function stayCodeText(code: BookingDoorCode, zone: string): string {
  if (code.state === 'waiting') return 'Kept for this stay: it goes onto the lock 30 days before check-in.';
  if (code.state === 'removing') return 'Being taken off the lock (the stay ended or was cancelled); until the lock is in reach, the lock still holds it.';
  return doorCodeStateText(code, zone);
}
