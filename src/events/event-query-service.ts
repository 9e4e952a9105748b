import type { Clock } from '../domain/clock.js';
import { badRequest, notFound } from '../domain/errors.js';
import { buildPageLinks, parseEventPageQuery, takeWindow, type EventPageQuery, type RawEventPageQuery } from '../domain/event-paging.js';
import { isUuid, normalizeId } from '../domain/ids.js';
import type { EventFilter, EventRepository, EventSummary } from '../store/event-repository.js';
import { eventViewFor, type EventView, type LockRoles } from './event-access.js';
import type { DerivedCache } from '../store/derived-cache.js';
import { toLockEventJson, type LockEventJson } from './lock-event-json.js';

/** The body of `GET /locks/{lock_id}/events` (spec: lock_events + Pagination metadata). */
export interface LockEventPage {
  lock_events: LockEventJson[];
  metadata: {
    limit: number;
    count: number;
    previous?: string;
    next?: string;
  };
}

/** What a caller may see of one lock's events: the lock and the visibility filter. */
export interface EventAudience {
  lockId: string;
  callerId: string;
  view: EventView;
}

export interface EventQueryServiceDependencies {
  events: EventRepository;
  /** Who may see a lock's events: the role from a usable key (null for an unknown lock too). */
  roles: LockRoles;
  clock: Clock;
  /**
   * Serialized pages already served, kept until an event or a user is written (docs/architecture.md
   * "Caches"); without it every page is read from the store.
   */
  pageCache?: DerivedCache<string>;
}

/** Pages kept by default: about 11 KB each at limit 50 (3 MB), 45 KB at the largest limit, 200 (12 MB at most). */
export const DEFAULT_EVENT_PAGE_CACHE_LIMIT = 256;

/** Batch size of a Last-Event-ID replay read. */
const REPLAY_BATCH = 200;

/**
 * Reads the event history (docs/design.md §3 Events): who may see what, keyset pages, cheap counts.
 * Visibility: owners and admins see every event of the lock; other holders of a usable key see
 * only events they performed; anyone else gets 404, exactly as for an unknown lock.
 */
export class EventQueryService {
  constructor(private readonly deps: EventQueryServiceDependencies) {}

  /**
   * The caller's view of the lock's events now; 404 when the lock is unknown or not theirs. The
   * role check alone decides: a usable key exists only on a lock that exists (EKeyService.roleOn
   * answers null for an unknown lock).
   */
  audience(callerId: string, lockId: string): EventAudience {
    if (!isUuid(lockId)) throw notFound('lock');
    const id = normalizeId(lockId);
    const view = eventViewFor(this.deps.roles.roleOn(callerId, id, this.deps.clock.now()));
    if (view === null) throw notFound('lock');
    return { lockId: id, callerId, view };
  }

  /** Whether the audience may see this event (the restricted view: own events only). */
  canSee(audience: EventAudience, event: Pick<EventSummary, 'lockId' | 'performerId'>): boolean {
    return event.lockId === audience.lockId && (audience.view === 'all' || event.performerId === audience.callerId);
  }

  /** `GET /locks/{lock_id}/events`: 404 first (visibility), then 400 for a bad query or cursor. */
  list(callerId: string, lockId: string, raw: RawEventPageQuery): LockEventPage {
    const audience = this.audience(callerId, lockId);
    return this.readPage(audience, this.parseQuery(raw));
  }

  /**
   * {@link list} serialized, as the API sends it. The caller's view is decided first, on every
   * request; the page itself comes from the page cache when nothing it depends on was written
   * since it was last served (the page cache), else from the store.
   */
  listJson(callerId: string, lockId: string, raw: RawEventPageQuery): string {
    const audience = this.audience(callerId, lockId);
    const query = this.parseQuery(raw);
    const cache = this.deps.pageCache;
    if (!cache) return JSON.stringify(this.readPage(audience, query));
    const cursor = query.cursor ? `${query.cursor.kind}:${query.cursor.eventId}` : '';
    // Links repeat `type` only when the request named types, so that is part of the key too.
    const types = query.typeFiltered ? query.types.join(',') : '-';
    // The scope is the caller for the restricted view (own events), the lock for owners and admins.
    const scope = audience.view === 'all' ? '*' : audience.callerId;
    const key = `${audience.lockId} ${scope} ${types} ${cursor} ${query.limit}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const body = JSON.stringify(this.readPage(audience, query));
    cache.set(key, body);
    return body;
  }

  private parseQuery(raw: RawEventPageQuery): EventPageQuery {
    const parsed = parseEventPageQuery(raw);
    if (!parsed.ok) throw badRequest(parsed.error.code, `Invalid event query: ${parsed.error.message}.`, parsed.error.errors);
    return parsed.query;
  }

  private readPage(audience: EventAudience, query: EventPageQuery): LockEventPage {
    const filter = this.filterFor(audience, query.types);
    const cursor = query.cursor ? this.cursorEvent(audience, query.cursor.eventId, query.cursor.kind) : null;
    const cursorSeq = cursor?.seq ?? null;
    // The cursor's own event, when the filter keeps it, proves the far side is not empty: no probe.
    const cursorListed = cursor !== null && filter.types.includes(cursor.type);

    let items: EventSummary[];
    let hasNewer: boolean;
    let hasOlder: boolean;
    if (query.cursor?.kind === 'before') {
      const window = takeWindow(this.deps.events.page(filter, 'newer', cursorSeq, query.limit + 1), query.limit);
      items = window.items.reverse();
      hasNewer = window.more;
      hasOlder = items.length > 0 && (cursorListed || this.exists(filter, 'older', items.at(-1)?.seq ?? null));
    } else {
      const window = takeWindow(this.deps.events.page(filter, 'older', cursorSeq, query.limit + 1), query.limit);
      items = window.items;
      hasOlder = window.more;
      // The first page (no cursor) is the newest: nothing is newer.
      hasNewer = items.length > 0 && cursor !== null && (cursorListed || this.exists(filter, 'newer', items[0]?.seq ?? null));
    }
    return {
      lock_events: items.map(toLockEventJson),
      metadata: {
        limit: query.limit,
        count: this.deps.events.count(filter),
        ...buildPageLinks({
          lockId: audience.lockId,
          query,
          firstId: items[0]?.id,
          lastId: items.at(-1)?.id,
          hasNewer,
          hasOlder,
        }),
      },
    };
  }

  /**
   * Events newer than `lastEventId` that the audience may see, oldest first, for a stream's
   * `Last-Event-ID` resume; read in batches so one replay never holds the store long.
   * Returns null when the id is not a visible event of this lock (the stream then starts live).
   */
  replayAfter(audience: EventAudience, lastEventId: string, afterSeq?: number): { events: EventSummary[]; done: boolean } | null {
    let fromSeq = afterSeq;
    if (fromSeq === undefined) {
      const anchor = isUuid(lastEventId) ? this.deps.events.findById(lastEventId) : undefined;
      if (!anchor || !this.canSee(audience, anchor)) return null;
      fromSeq = anchor.seq;
    }
    const events = this.deps.events.page(this.filterFor(audience, ['lock', 'unlock', 'battery']), 'newer', fromSeq, REPLAY_BATCH);
    return { events, done: events.length < REPLAY_BATCH };
  }

  private filterFor(audience: EventAudience, types: EventFilter['types']): EventFilter {
    if (audience.view === 'all') return { lockId: audience.lockId, types };
    // Battery events have no performer, so the restricted view never contains them.
    const own = types.filter((type) => type !== 'battery');
    return { lockId: audience.lockId, types: own, performerId: audience.callerId };
  }

  /** The event a cursor names; 400 `invalid_cursor` unless it is a visible event of this lock. */
  private cursorEvent(audience: EventAudience, eventId: string, kind: 'after' | 'before'): { seq: number; type: EventSummary['type'] } {
    const event = this.deps.events.findCursor(eventId);
    if (!event || !this.canSee(audience, event)) {
      throw badRequest('invalid_cursor', `Unknown cursor: ${kind} must be the id of an event of this lock.`, [
        { field: `querystring/${kind}`, message: 'is not an event of this lock' },
      ]);
    }
    return event;
  }

  private exists(filter: EventFilter, direction: 'older' | 'newer', fromSeq: number | null): boolean {
    return fromSeq !== null && this.deps.events.page(filter, direction, fromSeq, 1).length > 0;
  }
}
