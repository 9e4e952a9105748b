/**
 * The calendar service reads every calendar at start and then every 10 minutes
 * (docs/design.md §12), on a real SQLite store in memory; its timer never holds the process open,
 * and stop() ends it.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { CalendarService } from '../../../src/calendars/calendar-service.js';
import type { FeedFetchResult } from '../../../src/calendars/feed-fetch.js';
import { StayCodeHolders } from '../../../src/calendars/stay-code-holders.js';
import { openDatabase, transactionRunner, type SqliteDatabase } from '../../../src/store/database.js';
import { CalendarRepository } from '../../../src/store/calendar-repository.js';
import { DoorCodeRepository } from '../../../src/store/door-code-repository.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';

describe('the calendar refresh timer', () => {
  let db: SqliteDatabase;
  let service: CalendarService;
  const fetched: string[] = [];

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    db = openDatabase(':memory:');
    const clock = new ManualClock(Date.UTC(2026, 7, 10, 8));
    const logger = new RecordingLogger();
    const calendars = new CalendarRepository(db);
    const doorCodes = new DoorCodeRepository(db);
    const locks = { findById: () => undefined };
    for (const id of ['0b6a1f2e-0000-4000-8000-000000000001', '0b6a1f2e-0000-4000-8000-000000000002']) {
      calendars.insert({
        id, url: `https://example.test/${id}.ics`, lockIds: [], checkIn: '16:00', checkOut: '11:00', doorCode: false, state: 'ok',
        lastRefreshAt: null, lastError: null, etag: null, lastModified: null, emptyFetches: 0, createdBy: null, createdAt: 0, updatedAt: 0,
      });
    }
    service = new CalendarService({
      calendars,
      doorCodes,
      locks,
      holders: new StayCodeHolders({ calendars, doorCodes, locks, clock, logger }),
      roleOn: () => null,
      keypadRulesOf: () => undefined,
      clock,
      logger,
      transaction: transactionRunner(db),
      fetch: (url): Promise<FeedFetchResult> => {
        fetched.push(url);
        return Promise.resolve({ kind: 'not_modified' });
      },
    });
    fetched.length = 0;
  });

  afterEach(async () => {
    await service.stop();
    jest.useRealTimers();
    db.close();
  });

  const flush = async (): Promise<void> => {
    for (let turn = 0; turn < 20; turn += 1) await Promise.resolve();
  };

  it('reads every calendar at start, again after 10 minutes and not before, and no more after stop()', async () => {
    service.start();
    await flush();
    expect(fetched).toHaveLength(2);
    jest.advanceTimersByTime(10 * 60_000 - 1);
    await flush();
    expect(fetched).toHaveLength(2);
    jest.advanceTimersByTime(1);
    await flush();
    expect(fetched).toHaveLength(4);
    expect(new Set(fetched)).toEqual(new Set(['https://example.test/0b6a1f2e-0000-4000-8000-000000000001.ics', 'https://example.test/0b6a1f2e-0000-4000-8000-000000000002.ics']));
    await service.stop();
    jest.advanceTimersByTime(30 * 60_000);
    await flush();
    expect(fetched).toHaveLength(4);
  });
});
