import { describe, expect, it } from '@jest/globals';
import { DEFAULT_EVENT_LIMIT, buildPageLinks, parseEventPageQuery, takeWindow, type RawEventPageQuery } from '../../../src/domain/event-paging.js';

const ID = '9a1e1c52-7d7e-4b1e-8f0c-1a2b3c4d5e6f';
const ID2 = '9a1e1c52-7d7e-4b1e-8f0c-1a2b3c4d5e70';

describe('parseEventPageQuery', () => {
  it.each<[string, RawEventPageQuery, unknown]>([
    ['no parameters: every type (an Opener ring, a refused keypad code too), limit 20, no cursor', {}, { types: ['lock', 'unlock', 'battery', 'ring', 'keypad_refused'], typeFiltered: false, limit: DEFAULT_EVENT_LIMIT, cursor: null }],
    ['one type', { type: 'battery' }, { types: ['battery'], typeFiltered: true }],
    ['a refused keypad code (issue #32, finding 6)', { type: 'keypad_refused' }, { types: ['keypad_refused'], typeFiltered: true }],
    ['comma-joined types in canonical order', { type: 'unlock,lock' }, { types: ['lock', 'unlock'] }],
    ['duplicates, spaces and case tolerated', { type: ' Lock , lock,UNLOCK' }, { types: ['lock', 'unlock'] }],
    ['limit 1', { limit: '1' }, { limit: 1 }],
    ['limit 200', { limit: '200' }, { limit: 200 }],
    ['limit as a number', { limit: 50 }, { limit: 50 }],
    ['after cursor, lower-cased', { after: ID.toUpperCase() }, { cursor: { kind: 'after', eventId: ID } }],
    ['before cursor', { before: ID }, { cursor: { kind: 'before', eventId: ID } }],
  ])('accepts %s', (_name, raw, expected) => {
    const parsed = parseEventPageQuery(raw);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.query).toMatchObject(expected as object);
  });

  it.each<[string, RawEventPageQuery, string]>([
    ['an unknown type', { type: 'lock,open' }, 'invalid_type'],
    ['an empty type', { type: '' }, 'invalid_type'],
    ['an empty item in the list', { type: 'lock,' }, 'invalid_type'],
    ['limit 0', { limit: '0' }, 'invalid_limit'],
    ['limit 201', { limit: '201' }, 'invalid_limit'],
    ['a fractional limit', { limit: '1.5' }, 'invalid_limit'],
    ['a negative limit', { limit: '-5' }, 'invalid_limit'],
    ['a word as limit', { limit: 'ten' }, 'invalid_limit'],
    ['an empty limit', { limit: '' }, 'invalid_limit'],
    ['a huge limit', { limit: '99999999999999999999' }, 'invalid_limit'],
    ['both after and before', { after: ID, before: ID2 }, 'conflicting_cursors'],
    ['a cursor that is not an event id', { after: 'page-2' }, 'invalid_cursor'],
    ['an empty before', { before: '' }, 'invalid_cursor'],
  ])('refuses %s', (_name, raw, code) => {
    const parsed = parseEventPageQuery(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe(code);
      expect(parsed.error.errors[0]?.field).toMatch(/^querystring\//);
    }
  });
});

describe('takeWindow', () => {
  it.each([
    [[1, 2, 3], 3, [1, 2, 3], false],
    [[1, 2, 3, 4], 3, [1, 2, 3], true],
    [[], 3, [], false],
    [[1], 3, [1], false],
  ])('%j with limit %i → %j, more: %s', (probe, limit, items, more) => {
    expect(takeWindow(probe, limit)).toEqual({ items, more });
  });
});

describe('buildPageLinks', () => {
  const lockId = '0b7f4c1e-2f0a-4c56-9a38-4d1f3e2a1b01';
  const base = { lockId, firstId: 'first', lastId: 'last' };
  const unfiltered = { types: ['lock', 'unlock', 'battery'] as const, typeFiltered: false, limit: 50 };
  const filtered = { types: ['lock', 'unlock'] as const, typeFiltered: true, limit: 10 };

  it.each([
    ['the only page: no links', { ...base, query: unfiltered, hasNewer: false, hasOlder: false }, {}],
    ['the newest page: next only', { ...base, query: unfiltered, hasNewer: false, hasOlder: true }, { next: `/locks/${lockId}/events?limit=50&after=last` }],
    ['the oldest page: previous only', { ...base, query: unfiltered, hasNewer: true, hasOlder: false }, { previous: `/locks/${lockId}/events?limit=50&before=first` }],
    [
      'a middle page keeps limit and type',
      { ...base, query: filtered, hasNewer: true, hasOlder: true },
      { previous: `/locks/${lockId}/events?limit=10&type=lock,unlock&before=first`, next: `/locks/${lockId}/events?limit=10&type=lock,unlock&after=last` },
    ],
    ['an empty page: no anchor, no links', { lockId, firstId: undefined, lastId: undefined, query: unfiltered, hasNewer: true, hasOlder: true }, {}],
  ])('%s', (_name, input, expected) => {
    expect(buildPageLinks({ ...input, query: { ...input.query, types: [...input.query.types] } })).toEqual(expected);
  });
});
