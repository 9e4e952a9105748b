/** A stay in words (docs/design.md §12): the guest's message as the design writes it, dates on the lock's clock. */
import { describe, expect, it } from '@jest/globals';
import { guestMessage, stayDatesText } from '../../../src/domain/booking-words.js';

describe('a stay in words', () => {
  it('writes the guest\'s message as docs/design.md §12 shows it, on the lock\'s clock', () => {
    // 14 Aug 2026 16:00 and 17 Aug 11:00 in Berlin (CEST, UTC+2).
    expect(guestMessage('Front Door', '482913', '2026-08-14T14:00:00.000Z', '2026-08-17T09:00:00.000Z', 'Europe/Berlin')).toBe(
      'Your door code for Front Door: 482913 — from Fri 14 Aug, 16:00 to Mon 17 Aug, 11:00',
    );
    expect(guestMessage('Cabin', '048213', '2026-11-01T04:30:00.000Z', '2026-11-02T16:00:00.000Z', 'America/New_York')).toBe(
      'Your door code for Cabin: 048213 — from Sun 1 Nov, 00:30 to Mon 2 Nov, 11:00',
    );
  });

  it('writes a stay\'s dates 24-hour with the zone', () => {
    expect(stayDatesText('2026-08-12T14:00:00.000Z', '2026-08-15T09:00:00.000Z', 'Europe/Berlin')).toBe('Wed 12 Aug 2026, 16:00 to Sat 15 Aug 2026, 11:00 (Europe/Berlin)');
  });
});
