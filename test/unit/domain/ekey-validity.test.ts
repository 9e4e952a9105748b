import { describe, expect, it } from '@jest/globals';
import { isUsableAt, usabilityAt } from '../../../src/domain/ekey-validity.js';
import type { EKeyUsability, UsabilityFields } from '../../../src/domain/ekey-validity.js';

const utc = (iso: string): number => Date.parse(iso);

const anytime: UsabilityFields = {
  status: 'accepted',
  valid_from: null,
  valid_to: null,
  schedule_start: null,
  schedule_end: null,
};
const windowed: UsabilityFields = {
  ...anytime,
  valid_from: utc('2026-06-01T10:00:00Z'),
  valid_to: utc('2026-06-02T10:00:00Z'),
};
const officeHours: UsabilityFields = {
  ...windowed,
  valid_to: utc('2026-07-01T00:00:00Z'),
  schedule_start: '0 9 * * 1-5 *',
  schedule_end: '0 17 * * 1-5 *',
};

describe('usabilityAt', () => {
  it.each<[string, UsabilityFields, string, string, EKeyUsability]>([
    ['accepted, no bounds', anytime, '2026-06-01T00:00:00Z', 'UTC', 'usable'],
    ['pending', { ...anytime, status: 'pending' }, '2026-06-01T00:00:00Z', 'UTC', 'not_accepted'],
    ['revoked', { ...anytime, status: 'revoked' }, '2026-06-01T00:00:00Z', 'UTC', 'not_accepted'],
    ['revoked outside its window: status is checked first', { ...windowed, status: 'revoked' }, '2030-01-01T00:00:00Z', 'UTC', 'not_accepted'],
    ['a millisecond before valid_from', windowed, '2026-06-01T09:59:59.999Z', 'UTC', 'not_yet_valid'],
    ['exactly at valid_from: usable', windowed, '2026-06-01T10:00:00Z', 'UTC', 'usable'],
    ['a millisecond before valid_to', windowed, '2026-06-02T09:59:59.999Z', 'UTC', 'usable'],
    ['exactly at valid_to: expired', windowed, '2026-06-02T10:00:00Z', 'UTC', 'expired'],
    ['only valid_from set, long after', { ...anytime, valid_from: utc('2026-01-01T00:00:00Z') }, '2099-01-01T00:00:00Z', 'UTC', 'usable'],
    ['only valid_to set, long before', { ...anytime, valid_to: utc('2026-01-01T00:00:00Z') }, '1999-01-01T00:00:00Z', 'UTC', 'usable'],
    ['scheduled, Monday noon in the window', officeHours, '2026-06-01T12:00:00Z', 'UTC', 'usable'],
    ['scheduled, Monday 17:00', officeHours, '2026-06-01T17:00:00Z', 'UTC', 'outside_schedule'],
    ['scheduled, Saturday', officeHours, '2026-06-06T12:00:00Z', 'UTC', 'outside_schedule'],
    ['scheduled, before valid_from although inside the schedule', officeHours, '2026-06-01T09:30:00Z', 'UTC', 'not_yet_valid'],
    ['scheduled, after valid_to although inside the schedule', officeHours, '2026-07-01T12:00:00Z', 'UTC', 'expired'],
    ['schedule read in the lock zone: 12:00 UTC is 8:00 in New York', officeHours, '2026-06-02T12:00:00Z', 'America/New_York', 'outside_schedule'],
    ['schedule read in the lock zone: 14:00 UTC is 10:00 in New York', officeHours, '2026-06-02T14:00:00Z', 'America/New_York', 'usable'],
  ])('%s → %s', (_label, key, instant, zone, expected) => {
    expect(usabilityAt(key, utc(instant), zone)).toBe(expected);
    expect(isUsableAt(key, utc(instant), zone)).toBe(expected === 'usable');
  });
});
