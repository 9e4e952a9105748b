import { describe, expect, it } from '@jest/globals';
import { currentWindowEnd, doorCodeWindow, nextDoorCodeEdge, type DoorCodeWindowFields } from '../../../src/domain/door-code-window.js';
import { isUsableAt } from '../../../src/domain/ekey-validity.js';
import { keypadLimitsAllow, keypadLimitsOfWindow, windowOfKeypadLimits } from '../../../src/families/nuki/protocol/nuki-keypad-window.js';

const open: DoorCodeWindowFields = { valid_from: null, valid_to: null, schedule_start: null, schedule_end: null };
const key = (fields: Partial<DoorCodeWindowFields>): DoorCodeWindowFields => ({ ...open, ...fields });

describe('doorCodeWindow: what the lock can hold', () => {
  it('an anytime key is a code without limits, enforced by the lock', () => {
    expect(doorCodeWindow(open)).toEqual({ enforcedBy: 'lock', window: { allowedFrom: null, allowedUntil: null, weekdays: [], fromTime: null, untilTime: null } });
    expect(doorCodeWindow(key({ schedule_start: '* * * * * *', schedule_end: '* * * * * *' })).enforcedBy).toBe('lock');
  });

  it('a guest key is its date range', () => {
    const from = Date.UTC(2026, 5, 1, 10, 0, 0);
    expect(doorCodeWindow(key({ valid_from: from, valid_to: from + 86_400_000 }))).toEqual({
      enforcedBy: 'lock',
      window: { allowedFrom: from, allowedUntil: from + 86_400_000, weekdays: [], fromTime: null, untilTime: null },
    });
  });

  it('a weekday office-hours schedule is weekdays plus a daily window', () => {
    expect(doorCodeWindow(key({ schedule_start: '0 9 * * 1-5 *', schedule_end: '30 17 * * 1-5 *' })).window).toEqual({
      allowedFrom: null,
      allowedUntil: null,
      weekdays: [1, 2, 3, 4, 5],
      fromTime: '09:00',
      untilTime: '17:30',
    });
  });

  it('a daily window on every day has no weekday restriction', () => {
    expect(doorCodeWindow(key({ schedule_start: '0 8 * * * *', schedule_end: '0 12 * * 0-6 *' })).window.weekdays).toEqual([]);
  });

  it('an open start opens the window at midnight of the end days', () => {
    expect(doorCodeWindow(key({ schedule_end: '0 6 * * 6 *' }))).toEqual({
      enforcedBy: 'lock',
      window: { allowedFrom: null, allowedUntil: null, weekdays: [6], fromTime: '00:00', untilTime: '06:00' },
    });
  });

  it.each([
    ['a window across midnight', '0 22 * * * *', '0 6 * * * *'],
    ['a start on other days than the end', '0 22 * * 5 *', '0 6 * * 6 *'],
    ['two start times', '0 9,14 * * * *', '0 17 * * * *'],
    ['an open end (closes at midnight, which the lock cannot write as an end)', '0 9 * * * *', null],
    ['a start equal to the end (never open)', '0 9 * * * *', '0 9 * * * *'],
  ])('%s cannot live on the lock: service, with the date range only', (_what, start, end) => {
    const from = Date.UTC(2026, 5, 1);
    const mapped = doorCodeWindow(key({ valid_from: from, valid_to: from + 7 * 86_400_000, schedule_start: start, schedule_end: end }));
    expect(mapped).toEqual({
      enforcedBy: 'service',
      window: { allowedFrom: from, allowedUntil: from + 7 * 86_400_000, weekdays: [], fromTime: null, untilTime: null },
    });
  });
});

/** Every quarter hour (every window edge here is on one) and the seconds around it, over a span. */
function instants(fromIso: string, hours: number): number[] {
  const start = Date.parse(fromIso);
  const result: number[] = [];
  for (let minute = 0; minute < hours * 60; minute += 15) {
    const at = start + minute * 60_000;
    result.push(at - 1_000, at, at + 1_000);
  }
  return result;
}

describe('a lock-enforced code works on the lock exactly when its key is usable', () => {
  const cases: [string, string, DoorCodeWindowFields, string][] = [
    ['Berlin, spring forward (02:00 → 03:00), window 01:30–03:30', 'Europe/Berlin', key({ schedule_start: '30 1 * * * *', schedule_end: '30 3 * * * *' }), '2026-03-28T22:00:00Z'],
    ['Berlin, fall back (03:00 → 02:00), window 02:15–02:45 inside the repeated hour', 'Europe/Berlin', key({ schedule_start: '15 2 * * * *', schedule_end: '45 2 * * * *' }), '2026-10-24T22:00:00Z'],
    ['New York, spring forward, weekday window starting in the skipped hour', 'America/New_York', key({ schedule_start: '30 2 * * 0,1 *', schedule_end: '0 9 * * 0,1 *' }), '2026-03-08T04:00:00Z'],
    ['New York, fall back, Sunday window', 'America/New_York', key({ schedule_start: '0 1 * * 0 *', schedule_end: '0 4 * * 0 *' }), '2026-11-01T03:00:00Z'],
    ['Berlin, date range with a weekday window', 'Europe/Berlin', key({ valid_from: Date.parse('2026-03-27T10:00:00Z'), valid_to: Date.parse('2026-03-30T07:00:00Z'), schedule_start: '0 8 * * 1,5 *', schedule_end: '0 12 * * 1,5 *' }), '2026-03-26T22:00:00Z'],
  ];

  it.each(cases)('%s', (_what, zone, fields, fromIso) => {
    const mapped = doorCodeWindow(fields);
    expect(mapped.enforcedBy).toBe('lock');
    const limits = keypadLimitsOfWindow(mapped.window);
    const accepted = { ...fields, status: 'accepted' as const };
    let inside = 0;
    for (const at of instants(fromIso, 72)) {
      const usable = isUsableAt(accepted, at, zone);
      if (usable) inside += 1;
      expect([new Date(at).toISOString(), keypadLimitsAllow(limits, at, zone)]).toEqual([new Date(at).toISOString(), usable]);
    }
    expect(inside).toBeGreaterThan(0);
  });

  it('reads back from the lock\'s limits as the window it was written with', () => {
    const mapped = doorCodeWindow(key({ valid_from: 1_780_000_000_000, valid_to: 1_780_086_400_000, schedule_start: '0 9 * * 1-5 *', schedule_end: '0 17 * * 1-5 *' }));
    expect(windowOfKeypadLimits(keypadLimitsOfWindow(mapped.window))).toEqual(mapped.window);
    expect(windowOfKeypadLimits(keypadLimitsOfWindow(doorCodeWindow(open).window))).toEqual(doorCodeWindow(open).window);
  });
});

describe('nextDoorCodeEdge: when the service enables or disables a code', () => {
  it('finds each start and end of a window across midnight, in the lock\'s zone', () => {
    const fields = key({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    const noon = Date.parse('2026-06-01T10:00:00Z'); // 12:00 in Berlin (CEST)
    const start = nextDoorCodeEdge(fields, noon, 'Europe/Berlin');
    expect(start).toBe(Date.parse('2026-06-01T20:00:00Z'));
    const end = nextDoorCodeEdge(fields, start ?? 0, 'Europe/Berlin');
    expect(end).toBe(Date.parse('2026-06-02T04:00:00Z'));
  });

  it('usability is constant between consecutive edges, across DST in both zones', () => {
    for (const [zone, fromIso] of [
      ['Europe/Berlin', '2026-03-27T00:00:00Z'],
      ['Europe/Berlin', '2026-10-23T00:00:00Z'],
      ['America/New_York', '2026-03-06T00:00:00Z'],
      ['America/New_York', '2026-10-30T00:00:00Z'],
    ] as const) {
      const fields = key({ schedule_start: '30 23 * * 0,3,6 *', schedule_end: '30 2 * * 1,4,0 *', valid_to: Date.parse(fromIso) + 5 * 86_400_000 });
      const accepted = { ...fields, status: 'accepted' as const };
      let at = Date.parse(fromIso);
      let edges = 0;
      for (;;) {
        const edge = nextDoorCodeEdge(fields, at, zone);
        if (edge === null) break;
        expect(edge).toBeGreaterThan(at);
        const state = isUsableAt(accepted, at, zone);
        for (const probe of [at, edge - 1_000, ...Array.from({ length: Math.floor((edge - at) / (15 * 60_000)) }, (_, index) => at + index * 15 * 60_000)]) expect([zone, new Date(probe).toISOString(), isUsableAt(accepted, probe, zone)]).toEqual([zone, new Date(probe).toISOString(), state]);
        at = edge;
        edges += 1;
      }
      expect(edges).toBeGreaterThanOrEqual(5);
      expect(at).toBe(fields.valid_to);
    }
  });

  it('the date range alone: valid_from, then valid_to, then nothing', () => {
    const fields = key({ valid_from: 1_000_000, valid_to: 2_000_000 });
    expect(nextDoorCodeEdge(fields, 0, 'UTC')).toBe(1_000_000);
    expect(nextDoorCodeEdge(fields, 1_000_000, 'UTC')).toBe(2_000_000);
    expect(nextDoorCodeEdge(fields, 2_000_000, 'UTC')).toBeNull();
  });
});

describe('currentWindowEnd: when the window a key is in closes', () => {
  const usableIn = (fields: DoorCodeWindowFields, zone: string) => (instant: number): boolean =>
    isUsableAt({ ...fields, status: 'accepted' }, instant, zone);

  it('is the schedule end after midnight for a window across midnight, in the lock’s zone', () => {
    const fields = key({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    const at = Date.parse('2026-06-13T21:30:00Z');
    expect(currentWindowEnd(fields, at, 'Europe/Berlin', usableIn(fields, 'Europe/Berlin'))).toBe(Date.parse('2026-06-14T04:00:00Z'));
  });

  it('steps over a start inside an open window (a second start time)', () => {
    const fields = key({ schedule_start: '0 8,10 * * * *', schedule_end: '0 12 * * * *' });
    const at = Date.parse('2026-06-13T06:30:00Z');
    expect(currentWindowEnd(fields, at, 'Europe/Berlin', usableIn(fields, 'Europe/Berlin'))).toBe(Date.parse('2026-06-13T10:00:00Z'));
  });

  it('is valid_to when the key ends inside the window', () => {
    const validTo = Date.parse('2026-06-14T01:00:00Z');
    const fields = key({ valid_to: validTo, schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    expect(currentWindowEnd(fields, Date.parse('2026-06-13T21:00:00Z'), 'Europe/Berlin', usableIn(fields, 'Europe/Berlin'))).toBe(validTo);
  });

  it('is the end on summer time for a window across the spring-forward night', () => {
    const fields = key({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    expect(currentWindowEnd(fields, Date.parse('2026-03-28T21:00:00Z'), 'Europe/Berlin', usableIn(fields, 'Europe/Berlin'))).toBe(Date.parse('2026-03-29T04:00:00Z'));
  });

  it('is null outside a window, and for a key that never ends', () => {
    const fields = key({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    expect(currentWindowEnd(fields, Date.parse('2026-06-13T10:00:00Z'), 'Europe/Berlin', usableIn(fields, 'Europe/Berlin'))).toBeNull();
    expect(currentWindowEnd(open, Date.parse('2026-06-13T10:00:00Z'), 'Europe/Berlin', usableIn(open, 'Europe/Berlin'))).toBeNull();
  });
});
