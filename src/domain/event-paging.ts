/**
 * Event history paging math (docs/design.md §3 Events): query validation, the page window, and the
 * `previous`/`next` links. Pure: the store runs the keyset queries, this decides what they mean.
 *
 * Order is newest first. `after=<id>` is the page of events older than that event; `before=<id>`
 * is the `limit` events just newer than it, still listed newest first.
 */
import type { FieldError } from './errors.js';
import { isUuid, normalizeId } from './ids.js';

/** Every event type, in the order links spell them (spec: LockEvent type values). */
export const EVENT_TYPES = ['lock', 'unlock', 'battery', 'ring', 'keypad_refused'] as const;

/** A LockEvent type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** Page size when `limit` is absent. */
export const DEFAULT_EVENT_LIMIT = 20;
/** Largest accepted `limit`; above is 400. */
export const MAX_EVENT_LIMIT = 200;

/** Where a page starts. */
export type EventCursor =
  /** Events older than this event (the next page). */
  | { kind: 'after'; eventId: string }
  /** The `limit` events newer than this event (the previous page). */
  | { kind: 'before'; eventId: string };

/** A validated `GET /locks/{id}/events` query. */
export interface EventPageQuery {
  /** Requested types in canonical order, no duplicates. */
  types: EventType[];
  /** Whether the request named types (links then repeat `type`). */
  typeFiltered: boolean;
  limit: number;
  cursor: EventCursor | null;
}

/** The raw query string values (strings as they arrive; `limit` may already be a number). */
export interface RawEventPageQuery {
  type?: string | undefined;
  limit?: string | number | undefined;
  after?: string | undefined;
  before?: string | undefined;
}

/** Why a query was refused: a stable `code` for problem+json and the offending field. */
export interface EventQueryError {
  code: 'invalid_type' | 'invalid_limit' | 'invalid_cursor' | 'conflicting_cursors';
  message: string;
  errors: FieldError[];
}

/** The outcome of {@link parseEventPageQuery}. */
export type EventQueryParse = { ok: true; query: EventPageQuery } | { ok: false; error: EventQueryError };

const fail = (code: EventQueryError['code'], field: string, message: string): EventQueryParse => ({
  ok: false,
  error: { code, message, errors: [{ field, message }] },
});

const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/**
 * Validates the query of the event list: `type` is a comma-joined list of known types (case and
 * spaces tolerated, duplicates merged); `limit` an integer 1–200 (default 20); at most one of
 * `after` and `before`, each an event id (UUID).
 */
export function parseEventPageQuery(raw: RawEventPageQuery): EventQueryParse {
  let types: EventType[] = [...EVENT_TYPES];
  const typeFiltered = raw.type !== undefined;
  if (raw.type !== undefined) {
    const requested = new Set<EventType>();
    for (const part of raw.type.split(',')) {
      const name = part.trim().toLowerCase();
      if (!isEventType(name)) {
        return fail('invalid_type', 'querystring/type', `must be a comma-joined list of ${EVENT_TYPES.join(', ')}; got "${part.trim()}"`);
      }
      requested.add(name);
    }
    types = EVENT_TYPES.filter((type) => requested.has(type));
  }

  let limit = DEFAULT_EVENT_LIMIT;
  if (raw.limit !== undefined) {
    const text = String(raw.limit).trim();
    if (!/^\d{1,9}$/.test(text)) return fail('invalid_limit', 'querystring/limit', `must be an integer from 1 to ${MAX_EVENT_LIMIT}`);
    limit = Number(text);
    if (limit < 1 || limit > MAX_EVENT_LIMIT) return fail('invalid_limit', 'querystring/limit', `must be an integer from 1 to ${MAX_EVENT_LIMIT}`);
  }

  if (raw.after !== undefined && raw.before !== undefined) {
    return fail('conflicting_cursors', 'querystring/before', 'send either after or before, not both');
  }
  let cursor: EventCursor | null = null;
  for (const kind of ['after', 'before'] as const) {
    const value = raw[kind];
    if (value === undefined) continue;
    if (!isUuid(value.trim())) return fail('invalid_cursor', `querystring/${kind}`, 'must be the id of an event of this lock');
    cursor = { kind, eventId: normalizeId(value.trim()) };
  }
  return { ok: true, query: { types, typeFiltered, limit, cursor } };
}

/**
 * What a keyset probe of `limit + 1` rows means: the page is the first `limit` rows (in the
 * direction read), and a further row proves there is more beyond the page in that direction.
 */
export function takeWindow<T>(probe: readonly T[], limit: number): { items: T[]; more: boolean } {
  return { items: probe.slice(0, limit), more: probe.length > limit };
}

/** Inputs of {@link buildPageLinks}. */
export interface PageLinkInput {
  lockId: string;
  query: Pick<EventPageQuery, 'types' | 'typeFiltered' | 'limit'>;
  /** Id of the newest event on the page (first listed); undefined for an empty page. */
  firstId: string | undefined;
  /** Id of the oldest event on the page (last listed); undefined for an empty page. */
  lastId: string | undefined;
  /** A newer event than the first one exists (visible to the caller). */
  hasNewer: boolean;
  /** An older event than the last one exists (visible to the caller). */
  hasOlder: boolean;
}

/**
 * Relative URLs of the neighbouring pages, keeping `limit` and `type`; each absent at its end of
 * the list (and both absent on an empty page, which has no anchor).
 */
export function buildPageLinks(input: PageLinkInput): { previous?: string; next?: string } {
  const base = `/locks/${encodeURIComponent(input.lockId)}/events?limit=${input.query.limit}`;
  const typePart = input.query.typeFiltered ? `&type=${input.query.types.join(',')}` : '';
  const links: { previous?: string; next?: string } = {};
  if (input.firstId !== undefined && input.hasNewer) links.previous = `${base}${typePart}&before=${encodeURIComponent(input.firstId)}`;
  if (input.lastId !== undefined && input.hasOlder) links.next = `${base}${typePart}&after=${encodeURIComponent(input.lastId)}`;
  return links;
}
