/** A stay's window on the lock's clock (docs/design.md §12), across the clock changes of Europe/Berlin and America/New_York. */
import { describe, expect, it } from '@jest/globals';
import { bookingState, stayWindow } from '../../../src/domain/booking-window.js';

const days = (startDate: string, endDate: string) => ({ startDate, endDate, startsAt: null, endsAt: null });
const iso = (window: { startsAt: number; endsAt: number }): [string, string] => [new Date(window.startsAt).toISOString(), new Date(window.endsAt).toISOString()];

describe('a stay\'s window', () => {
  it('places all-day stays at the check-in and check-out times of the lock\'s zone, DST included', () => {
    // Berlin: clocks forward on 29 March 2026 (CET +1 → CEST +2), back on 25 October.
    expect(iso(stayWindow(days('2026-03-27', '2026-03-30'), '16:00', '11:00', 'Europe/Berlin'))).toEqual(['2026-03-27T15:00:00.000Z', '2026-03-30T09:00:00.000Z']);
    expect(iso(stayWindow(days('2026-10-24', '2026-10-26'), '16:00', '11:00', 'Europe/Berlin'))).toEqual(['2026-10-24T14:00:00.000Z', '2026-10-26T10:00:00.000Z']);
    // New York: forward on 8 March 2026 (EST −5 → EDT −4), back on 1 November.
    expect(iso(stayWindow(days('2026-03-06', '2026-03-09'), '16:00', '11:00', 'America/New_York'))).toEqual(['2026-03-06T21:00:00.000Z', '2026-03-09T15:00:00.000Z']);
    expect(iso(stayWindow(days('2026-10-31', '2026-11-02'), '16:00', '11:00', 'America/New_York'))).toEqual(['2026-10-31T20:00:00.000Z', '2026-11-02T16:00:00.000Z']);
  });

  it('a check-in time the spring-forward night skips is the first instant after the jump', () => {
    expect(iso(stayWindow(days('2026-03-29', '2026-03-30'), '02:30', '11:00', 'Europe/Berlin'))[0]).toBe('2026-03-29T01:30:00.000Z');
  });

  it('timed stays keep their times; a same-day stay runs to the next check-out', () => {
    expect(stayWindow({ startDate: null, endDate: null, startsAt: 1000, endsAt: 2000 }, '16:00', '11:00', 'UTC')).toEqual({ startsAt: 1000, endsAt: 2000 });
    expect(iso(stayWindow(days('2026-08-12', '2026-08-12'), '16:00', '11:00', 'UTC'))).toEqual(['2026-08-12T16:00:00.000Z', '2026-08-13T11:00:00.000Z']);
  });

  it('is upcoming, active, ended or cancelled', () => {
    const window = { startsAt: 100, endsAt: 200 };
    expect([bookingState(window, false, 99), bookingState(window, false, 100), bookingState(window, false, 200), bookingState(window, true, 150)]).toEqual(['upcoming', 'active', 'ended', 'cancelled']);
  });
});
