import { describe, expect, it } from '@jest/globals';
import { ServiceError } from '../../../src/domain/errors.js';
import {
  fieldsOrThrow,
  GUEST_VALIDITY_MS,
  mergeEKeyUpdate,
  normalizeEKeyCreation,
} from '../../../src/domain/ekey-rules.js';
import type { EKeyCreateInput, EKeyPatch, EKeyRulesContext } from '../../../src/domain/ekey-rules.js';
import type { EKeyFields } from '../../../src/domain/ekey-types.js';

const utc = (iso: string): number => Date.parse(iso);
const HOUR = 3_600_000;
const NOW = utc('2026-06-01T12:00:00.750Z'); // Monday; sub-second on purpose
const NOW_SECOND = utc('2026-06-01T12:00:00Z');
const context: EKeyRulesContext = { now: NOW, zone: 'America/New_York' };

const blank: EKeyFields = {
  name: null,
  type: 'anytime',
  message: null,
  valid_from: null,
  valid_to: null,
  schedule_start: null,
  schedule_end: null,
};

function ok(fields: Partial<EKeyFields>): { ok: true; fields: EKeyFields } {
  return { ok: true, fields: { ...blank, ...fields } };
}

/** The exact list of errors, each matched by field and a part of its message. */
function failsWith(...errors: [field: string, messagePart: string][]): { ok: false; errors: { field: string; message: unknown }[] } {
  return {
    ok: false,
    errors: errors.map(([field, messagePart]) => ({ field, message: expect.stringContaining(messagePart) })),
  };
}

describe('normalizeEKeyCreation: guest keys last 24 hours', () => {
  it.each<[string, EKeyCreateInput, ReturnType<typeof ok> | ReturnType<typeof failsWith>]>([
    ['no valid_from: starts now (whole second), ends 24 h later', { type: 'guest' }, ok({ type: 'guest', valid_from: NOW_SECOND, valid_to: NOW_SECOND + GUEST_VALIDITY_MS })],
    [
      'valid_from given: ends 24 h after it',
      { type: 'guest', valid_from: '6/5/2026 6:00:00 PM' },
      ok({ type: 'guest', valid_from: utc('2026-06-05T22:00:00Z'), valid_to: utc('2026-06-06T22:00:00Z') }),
    ],
    [
      '24 elapsed hours across fall-back: 9 AM EDT to 8 AM EST',
      { type: 'guest', valid_from: '10/31/2026 9:00:00 AM' },
      ok({ type: 'guest', valid_from: utc('2026-10-31T13:00:00Z'), valid_to: utc('2026-10-31T13:00:00Z') + 24 * HOUR }),
    ],
    [
      'valid_to equal to valid_from + 24 h is accepted',
      { type: 'guest', valid_from: '6/5/2026 6:00:00 PM', valid_to: '6/6/2026 6:00:00 PM' },
      ok({ type: 'guest', valid_from: utc('2026-06-05T22:00:00Z'), valid_to: utc('2026-06-06T22:00:00Z') }),
    ],
    ['any other valid_to is refused', { type: 'guest', valid_to: '6/10/2026 6:00:00 PM' }, failsWith(['/valid_to', 'exactly 24 hours'])],
    ['six-asterisk schedules are stored as null', { type: 'guest', schedule_start: '* * * * * *', schedule_end: '* * * * * *' }, ok({ type: 'guest', valid_from: NOW_SECOND, valid_to: NOW_SECOND + GUEST_VALIDITY_MS })],
    ['null schedules', { type: 'guest', schedule_start: null, schedule_end: null }, ok({ type: 'guest', valid_from: NOW_SECOND, valid_to: NOW_SECOND + GUEST_VALIDITY_MS })],
    ['a restricting schedule is refused', { type: 'guest', schedule_start: '0 9 * * * *' }, failsWith(['/schedule_start', 'only scheduled eKeys'])],
    ['a window already over is refused', { type: 'guest', valid_from: '5/30/2026 8:00:00 AM' }, failsWith(['/valid_from', 'already have expired'])],
  ])('%s', (_label, input, expected) => {
    expect(normalizeEKeyCreation(input, context)).toEqual(expected);
  });
});

describe('normalizeEKeyCreation: owner, admin and anytime keys have no schedule', () => {
  const types = ['owner', 'admin', 'anytime'] as const;
  it.each(types)('%s: omitted fields default to null', (type) => {
    expect(normalizeEKeyCreation({ type }, context)).toEqual(ok({ type }));
  });
  it.each(types)('%s: six asterisks are stored as null', (type) => {
    expect(normalizeEKeyCreation({ type, schedule_start: '* * * * * *', schedule_end: '*  * * * * *' }, context)).toEqual(ok({ type }));
  });
  it.each(types)('%s: restricting schedules are refused on both fields', (type) => {
    expect(normalizeEKeyCreation({ type, schedule_start: '0 9 * * * *', schedule_end: '0 17 * * * *' }, context)).toEqual(
      failsWith(['/schedule_start', `for a ${type} eKey`], ['/schedule_end', `for a ${type} eKey`]),
    );
  });
  it('anytime with a validity window', () => {
    expect(normalizeEKeyCreation({ type: 'anytime', valid_from: '6/1/2026 9:00:00 AM', valid_to: '2026-07-01T00:00:00Z' }, context)).toEqual(
      ok({ valid_from: utc('2026-06-01T13:00:00Z'), valid_to: utc('2026-07-01T00:00:00Z') }),
    );
  });
});

describe('normalizeEKeyCreation: scheduled keys need both schedules', () => {
  it.each<[string, EKeyCreateInput, ReturnType<typeof ok> | ReturnType<typeof failsWith>]>([
    [
      'both given, whitespace normalized',
      { type: 'scheduled', schedule_start: '0  9 * * 1-5 *', schedule_end: '0 17 * * 1-5 *' },
      ok({ type: 'scheduled', schedule_start: '0 9 * * 1-5 *', schedule_end: '0 17 * * 1-5 *' }),
    ],
    [
      'crossing midnight',
      { type: 'scheduled', schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' },
      ok({ type: 'scheduled', schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' }),
    ],
    [
      'one side unrestricted is kept as six asterisks (until midnight)',
      { type: 'scheduled', schedule_start: '0 9 * * * *', schedule_end: '* * * * * *' },
      ok({ type: 'scheduled', schedule_start: '0 9 * * * *', schedule_end: '* * * * * *' }),
    ],
    ['start missing', { type: 'scheduled', schedule_end: '0 17 * * * *' }, failsWith(['/schedule_start', 'required'])],
    ['end null', { type: 'scheduled', schedule_start: '0 9 * * * *', schedule_end: null }, failsWith(['/schedule_end', 'required'])],
    ['both missing', { type: 'scheduled' }, failsWith(['/schedule_start', 'required'], ['/schedule_end', 'required'])],
    ['both unrestricted', { type: 'scheduled', schedule_start: '* * * * * *', schedule_end: '* * * * * *' }, failsWith(['/schedule_start', 'use type anytime'])],
    ['start equals end', { type: 'scheduled', schedule_start: '0 9 * * * *', schedule_end: '0  9 * * * *' }, failsWith(['/schedule_end', 'must differ'])],
    [
      'invalid fields are reported per field and per property',
      { type: 'scheduled', schedule_start: '60 9 * * * *', schedule_end: '0 17 1 * 7 *' },
      failsWith(['/schedule_start', 'minute (field 1)'], ['/schedule_end', 'day of week (field 5)'], ['/schedule_end', 'day of month (field 3)']),
    ],
  ])('%s', (_label, input, expected) => {
    expect(normalizeEKeyCreation(input, context)).toEqual(expected);
  });
});

describe('normalizeEKeyCreation: validity window, DateTimes, type', () => {
  it.each<[string, EKeyCreateInput, ReturnType<typeof ok> | ReturnType<typeof failsWith>]>([
    ['valid_to before valid_from', { type: 'anytime', valid_from: '7/1/2026 9:00:00 AM', valid_to: '6/30/2026 9:00:00 AM' }, failsWith(['/valid_to', 'after valid_from'])],
    ['valid_to equal to valid_from', { type: 'anytime', valid_from: '7/1/2026 9:00:00 AM', valid_to: '7/1/2026 9:00:00 AM' }, failsWith(['/valid_to', 'after valid_from'])],
    ['valid_to in the past', { type: 'admin', valid_to: '6/1/2026 7:59:59 AM' }, failsWith(['/valid_to', 'in the future'])],
    ['valid_to one second ahead', { type: 'admin', valid_to: '6/1/2026 8:00:01 AM' }, ok({ type: 'admin', valid_to: utc('2026-06-01T12:00:01Z') })],
    ['valid_from in the past is fine', { type: 'anytime', valid_from: '1/1/2026 12:00:00 AM' }, ok({ valid_from: utc('2026-01-01T05:00:00Z') })],
    ['3/8/2027 2:30 AM is an ordinary time (DST starts 3/14 in 2027)', { type: 'anytime', valid_from: '3/8/2027 2:30:00 AM' }, ok({ valid_from: utc('2027-03-08T07:30:00Z') })],
    ['valid_from in the spring-forward gap (2027-03-14)', { type: 'anytime', valid_from: '3/14/2027 2:30:00 AM' }, failsWith(['/valid_from', 'does not exist'])],
    ['unparsable valid_from', { type: 'anytime', valid_from: '2026-06-01' }, failsWith(['/valid_from', 'offset'])],
    ['unparsable valid_to', { type: 'anytime', valid_to: '2/30/2027 1:00:00 AM' }, failsWith(['/valid_to', 'day 30'])],
    ['unknown type', { type: 'superuser' }, failsWith(['/type', 'one of owner, admin, anytime, scheduled, guest'])],
    [
      'all input problems at once',
      { type: 'visitor', name: '', valid_from: 'soon', schedule_start: '0 9 * * 7 *' },
      failsWith(['/type', 'one of'], ['/name', 'empty'], ['/valid_from', 'M/D/YYYY'], ['/schedule_start', 'day of week']),
    ],
  ])('%s', (_label, input, expected) => {
    expect(normalizeEKeyCreation(input, context)).toEqual(expected);
  });
});

describe('normalizeEKeyCreation: name and message', () => {
  it.each<[string, string | null, string | null]>([
    ['omitted name is null', null, null],
    ['a plain name', 'Cleaner', 'Cleaner'],
    ['100 characters', 'n'.repeat(100), 'n'.repeat(100)],
    ['100 emoji count as 100 characters', '🔑'.repeat(100), '🔑'.repeat(100)],
  ])('name: %s', (_label, name, stored) => {
    expect(normalizeEKeyCreation({ type: 'anytime', name }, context)).toEqual(ok({ name: stored }));
  });
  it.each<[string, string, string]>([
    ['101 characters', 'n'.repeat(101), 'at most 100'],
    ['empty', '', 'empty'],
    ['blank', '   ', 'empty'],
    ['a line break', 'Front\ndoor', 'control characters'],
    ['a NUL', 'Front\u0000door', 'control characters'],
  ])('name refused: %s', (_label, name, messagePart) => {
    expect(normalizeEKeyCreation({ type: 'anytime', name }, context)).toEqual(failsWith(['/name', messagePart]));
  });
  it.each<[string, string]>([
    ['500 characters', 'm'.repeat(500)],
    ['lines and tabs', 'Hi!\r\n\tThe code is in the box.'],
    ['empty', ''],
  ])('message kept: %s', (_label, message) => {
    expect(normalizeEKeyCreation({ type: 'anytime', message }, context)).toEqual(ok({ message }));
  });
  it.each<[string, string, string]>([
    ['501 characters', 'm'.repeat(501), 'at most 500'],
    ['a bell character', 'ding\u0007', 'control characters'],
  ])('message refused: %s', (_label, message, messagePart) => {
    expect(normalizeEKeyCreation({ type: 'anytime', message }, context)).toEqual(failsWith(['/message', messagePart]));
  });
});

describe('mergeEKeyUpdate (PUT: null resets, absent keeps)', () => {
  const anytimeKey: EKeyFields = {
    ...blank,
    name: 'Cleaner',
    message: 'Welcome',
    valid_from: utc('2026-05-01T00:00:00Z'),
    valid_to: utc('2026-12-31T00:00:00Z'),
  };
  const guestKey: EKeyFields = {
    ...blank,
    type: 'guest',
    valid_from: utc('2026-06-01T10:00:00Z'),
    valid_to: utc('2026-06-02T10:00:00Z'),
  };
  const expiredGuestKey: EKeyFields = { ...guestKey, valid_from: utc('2026-05-01T10:00:00Z'), valid_to: utc('2026-05-02T10:00:00Z') };
  const scheduledKey: EKeyFields = { ...anytimeKey, type: 'scheduled', schedule_start: '0 9 * * 1-5 *', schedule_end: '0 17 * * 1-5 *' };

  it.each<[string, EKeyFields, EKeyPatch, ReturnType<typeof ok> | ReturnType<typeof failsWith>]>([
    ['empty patch keeps an anytime key', anytimeKey, {}, ok(anytimeKey)],
    ['empty patch keeps a guest key', guestKey, {}, ok(guestKey)],
    ['empty patch keeps a scheduled key', scheduledKey, {}, ok(scheduledKey)],
    ['renaming an expired guest key is fine', expiredGuestKey, { name: 'Old visit' }, ok({ ...expiredGuestKey, name: 'Old visit' })],
    ['name null resets to null', anytimeKey, { name: null }, ok({ ...anytimeKey, name: null })],
    ['message null resets to null', anytimeKey, { message: null }, ok({ ...anytimeKey, message: null })],
    ['valid_to null removes the expiry', anytimeKey, { valid_to: null }, ok({ ...anytimeKey, valid_to: null })],
    ['valid_from null removes the lower bound', anytimeKey, { valid_from: null }, ok({ ...anytimeKey, valid_from: null })],
    ['type null is refused', anytimeKey, { type: null }, failsWith(['/type', 'cannot be reset'])],
    ['unknown type is refused', anytimeKey, { type: 'visitor' }, failsWith(['/type', 'one of'])],
    ['valid_from moved past valid_to', anytimeKey, { valid_from: '2027-01-01T00:00:00Z' }, failsWith(['/valid_to', 'after valid_from'])],
    ['valid_to moved into the past', anytimeKey, { valid_to: '5/31/2026 12:00:00 PM' }, failsWith(['/valid_to', 'in the future'])],
    ['to admin keeps the window', anytimeKey, { type: 'admin' }, ok({ ...anytimeKey, type: 'admin' })],
    [
      'to guest: a new 24 h window from now, whatever valid_from was',
      anytimeKey,
      { type: 'guest' },
      ok({ ...anytimeKey, type: 'guest', valid_from: NOW_SECOND, valid_to: NOW_SECOND + GUEST_VALIDITY_MS }),
    ],
    [
      'to guest with valid_from: 24 h from it',
      anytimeKey,
      { type: 'guest', valid_from: '2026-06-03T00:00:00Z' },
      ok({ ...anytimeKey, type: 'guest', valid_from: utc('2026-06-03T00:00:00Z'), valid_to: utc('2026-06-04T00:00:00Z') }),
    ],
    ['to guest with another valid_to is refused', anytimeKey, { type: 'guest', valid_to: '2026-06-20T00:00:00Z' }, failsWith(['/valid_to', 'exactly 24 hours'])],
    [
      'guest: new valid_from moves valid_to along',
      guestKey,
      { valid_from: '2026-06-03T00:00:00Z' },
      ok({ ...guestKey, valid_from: utc('2026-06-03T00:00:00Z'), valid_to: utc('2026-06-04T00:00:00Z') }),
    ],
    [
      'guest: valid_from null restarts the window now',
      guestKey,
      { valid_from: null },
      ok({ ...guestKey, valid_from: NOW_SECOND, valid_to: NOW_SECOND + GUEST_VALIDITY_MS }),
    ],
    ['guest: valid_to echoed back unchanged is accepted', guestKey, { valid_to: '2026-06-02T10:00:00Z' }, ok(guestKey)],
    ['guest: valid_to null resets to the 24 h default', guestKey, { valid_to: null }, ok(guestKey)],
    ['guest: another valid_to is refused', guestKey, { valid_to: '2026-06-09T10:00:00Z' }, failsWith(['/valid_to', 'exactly 24 hours'])],
    ['guest: a restricting schedule is refused', guestKey, { schedule_start: '0 9 * * * *' }, failsWith(['/schedule_start', 'for a guest eKey'])],
    ['guest to anytime keeps valid_to (absent is unchanged)', guestKey, { type: 'anytime' }, ok({ ...guestKey, type: 'anytime' })],
    ['guest to anytime with valid_to null drops the expiry', guestKey, { type: 'anytime', valid_to: null }, ok({ ...guestKey, type: 'anytime', valid_to: null })],
    ['to scheduled without schedules is refused', anytimeKey, { type: 'scheduled' }, failsWith(['/schedule_start', 'required'], ['/schedule_end', 'required'])],
    [
      'to scheduled with schedules',
      anytimeKey,
      { type: 'scheduled', schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' },
      ok({ ...anytimeKey, type: 'scheduled', schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' }),
    ],
    ['scheduled: new end only', scheduledKey, { schedule_end: '0 18 * * 1-5 *' }, ok({ ...scheduledKey, schedule_end: '0 18 * * 1-5 *' })],
    ['scheduled: start null is refused (required)', scheduledKey, { schedule_start: null }, failsWith(['/schedule_start', 'required'])],
    ['scheduled: invalid start', scheduledKey, { schedule_start: '0 9 * 6 1-5 *' }, failsWith(['/schedule_start', 'month (field 4)'])],
    ['scheduled to anytime clears the schedules', scheduledKey, { type: 'anytime' }, ok({ ...scheduledKey, type: 'anytime', schedule_start: null, schedule_end: null })],
    ['scheduled to guest clears the schedules and starts a window', scheduledKey, { type: 'guest' }, ok({ ...scheduledKey, type: 'guest', schedule_start: null, schedule_end: null, valid_from: NOW_SECOND, valid_to: NOW_SECOND + GUEST_VALIDITY_MS })],
    ['scheduled to anytime with a restricting schedule is refused', scheduledKey, { type: 'anytime', schedule_end: '0 17 * * * *' }, failsWith(['/schedule_end', 'for a anytime eKey'])],
    [
      'several problems at once',
      anytimeKey,
      { type: null, name: 'x'.repeat(101), valid_to: 'later' },
      failsWith(['/type', 'cannot be reset'], ['/name', 'at most 100'], ['/valid_to', 'M/D/YYYY']),
    ],
  ])('%s', (_label, stored, patch, expected) => {
    expect(mergeEKeyUpdate(stored, patch, context)).toEqual(expected);
  });
});

describe('fieldsOrThrow', () => {
  it('returns the fields of a valid result', () => {
    expect(fieldsOrThrow(normalizeEKeyCreation({ type: 'owner' }, context))).toEqual({ ...blank, type: 'owner' });
  });
  it('throws a 400 validation_failed ServiceError carrying the field errors', () => {
    const result = normalizeEKeyCreation({ type: 'scheduled' }, context);
    let thrown: unknown;
    try {
      fieldsOrThrow(result);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect(thrown).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [
        { field: '/schedule_start', message: 'is required for a scheduled eKey' },
        { field: '/schedule_end', message: 'is required for a scheduled eKey' },
      ],
    });
  });
});
