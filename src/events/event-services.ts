import type { Clock } from '../domain/clock.js';
import type { Logger } from '../logger.js';
import { transactionRunner, type SqliteDatabase } from '../store/database.js';
import { EventRepository } from '../store/event-repository.js';
import type { EKeyFinder, LockRoles, UsableKeys, UserNames } from './event-access.js';
import { DerivedCache, type WriteVersioned } from '../store/derived-cache.js';
import { DEFAULT_EVENT_PAGE_CACHE_LIMIT, EventQueryService } from './event-query-service.js';
import { EventRecorder } from './event-recorder.js';
import { EventRetention, type RetentionPolicy } from './event-retention.js';
import { EventStreamService, type IntervalTimer } from './event-stream-service.js';
import { LockEventHub } from './lock-event-hub.js';

/** Everything of the events layer, built together so the recorder feeds the streams. */
export interface EventServices {
  repository: EventRepository;
  /** The LockEventSink the lock runtime and the command engine report to. */
  recorder: EventRecorder;
  query: EventQueryService;
  streams: EventStreamService;
  hub: LockEventHub;
  retention: EventRetention;
}

export interface EventServicesDependencies {
  db: SqliteDatabase;
  clock: Clock;
  logger: Logger;
  /** The eKey service: roles for visibility, usability for taps. */
  access: LockRoles & UsableKeys;
  ekeys: EKeyFinder;
  /** Names of performers; its write version tells the page cache when a name may have changed. */
  users: UserNames & WriteVersioned;
  retention?: RetentionPolicy;
  /** Most serialized pages kept (default {@link DEFAULT_EVENT_PAGE_CACHE_LIMIT}; 0: no cache). */
  pageCacheLimit?: number;
  heartbeatMs?: number;
  timer?: IntervalTimer;
}

/** Builds the events layer (call `retention.start()` to prune in the background). */
export function createEventServices(deps: EventServicesDependencies): EventServices {
  const repository = new EventRepository(deps.db);
  const hub = new LockEventHub();
  const transaction = transactionRunner(deps.db);
  const recorder = new EventRecorder({
    events: repository,
    ekeys: deps.ekeys,
    usableKeys: deps.access,
    users: deps.users,
    clock: deps.clock,
    logger: deps.logger,
    transaction,
    publish: (event) => {
      hub.publish(event);
    },
    inOuterTransaction: () => deps.db.inTransaction,
  });
  // Pages depend on the events and on the performers' current names.
  const pageCache = new DerivedCache<string>(deps.db, [repository, deps.users], { limit: deps.pageCacheLimit ?? DEFAULT_EVENT_PAGE_CACHE_LIMIT });
  const query = new EventQueryService({ events: repository, roles: deps.access, clock: deps.clock, pageCache });
  const streams = new EventStreamService({
    query,
    hub,
    logger: deps.logger,
    ...(deps.heartbeatMs !== undefined ? { heartbeatMs: deps.heartbeatMs } : {}),
    ...(deps.timer ? { timer: deps.timer } : {}),
  });
  const retention = new EventRetention({
    events: repository,
    clock: deps.clock,
    logger: deps.logger,
    transaction,
    policy: deps.retention ?? {},
  });
  return { repository, recorder, query, streams, hub, retention };
}
