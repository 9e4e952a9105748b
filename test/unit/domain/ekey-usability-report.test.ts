import { describe, expect, it } from '@jest/globals';
import { instantsShowing, usabilityReport } from '../../../src/domain/ekey-usability-report.js';
import type { UsabilityFields } from '../../../src/domain/ekey-validity.js';

const key = (start: string | null, end: string | null, extra: Partial<UsabilityFields> = {}): UsabilityFields => ({
  status: 'accepted', valid_from: null, valid_to: null, schedule_start: start, schedule_end: end, ...extra,
});
const at = (iso: string): number => Date.parse(iso);
const iso = (instant: number | null): string | null => (instant === null ? null : new Date(instant).toISOString());
const report = (fields: UsabilityFields, now: string, zone = 'Europe/Berlin') => {
  const result = usabilityReport(fields, at(now), zone);
  return { ...result, next_usable_at: iso(result.next_usable_at), usable_until: iso(result.usable_until) };
};

describe('usabilityReport', () => {
  it('opens a window whose start falls in the skipped hour when the clock jumps past it', () => {
    // 02:30-04:00 every day; on 29 March 2026 02:00-03:00 does not exist in Berlin.
    expect(report(key('30 2 * * * *', '0 4 * * * *'), '2026-03-28T12:00:00Z')).toEqual({
      usable_now: false, not_usable_because: 'outside_schedule', next_usable_at: '2026-03-29T01:00:00.000Z', usable_until: '2026-03-29T02:00:00.000Z',
    });
  });

  it('closes a window at the first pass of a repeated hour', () => {
    expect(report(key('0 1 * * * *', '30 2 * * * *'), '2026-10-24T12:00:00Z')).toMatchObject({
      next_usable_at: '2026-10-24T23:00:00.000Z', usable_until: '2026-10-25T00:30:00.000Z',
    });
  });

  it('starts a not-yet-valid key at its first opening after valid_from, and ends at valid_to', () => {
    const weekdays = key('0 9 * * 1-5 *', '0 17 * * 1-5 *', { valid_from: at('2026-04-04T00:00:00Z'), valid_to: at('2026-04-06T10:00:00Z') });
    // valid_from is a Saturday: the first opening is Monday 09:00 CEST; valid_to cuts the day short.
    expect(report(weekdays, '2026-03-27T12:00:00Z')).toEqual({
      usable_now: false, not_usable_because: 'not_yet_valid', next_usable_at: '2026-04-06T07:00:00.000Z', usable_until: '2026-04-06T10:00:00.000Z',
    });
  });

  it('reports no opening when valid_to comes first', () => {
    const short = key('0 22 * * * *', '0 6 * * * *', { valid_to: at('2026-06-10T15:00:00Z') });
    expect(report(short, '2026-06-10T12:00:00Z')).toEqual({ usable_now: false, not_usable_because: 'outside_schedule', next_usable_at: null, usable_until: null });
  });

  it('never opens when start and end fall on the same minute (the end wins)', () => {
    expect(report(key('0 9 * * * *', '0 9 * * * *'), '2026-06-10T12:00:00Z', 'UTC')).toMatchObject({ not_usable_because: 'outside_schedule', next_usable_at: null });
  });

  it('tells pending from revoked', () => {
    expect(report(key(null, null, { status: 'pending' }), '2026-06-10T12:00:00Z').not_usable_because).toBe('pending');
    expect(report(key(null, null, { status: 'revoked' }), '2026-06-10T12:00:00Z').not_usable_because).toBe('revoked');
  });
});

describe('instantsShowing', () => {
  it('finds one instant normally, two in a repeated hour, the jump in a skipped one', () => {
    expect(instantsShowing(at('2026-06-10T12:00:00Z'), 'Europe/Berlin').map(iso)).toEqual(['2026-06-10T10:00:00.000Z']);
    expect(instantsShowing(at('2026-10-25T02:30:00Z'), 'Europe/Berlin').map(iso)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z']);
    expect(instantsShowing(at('2026-03-29T02:30:00Z'), 'Europe/Berlin').map(iso)).toEqual(['2026-03-29T01:00:00.000Z']);
  });
});
