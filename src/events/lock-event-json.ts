import type { EventSummary } from '../store/event-repository.js';
import type { LockEventType } from '../domain/lock-event-type.js';

/** A LockEvent as the API sends it (spec: Resources › LockEvent). */
export interface LockEventJson {
  id: string;
  type: LockEventType;
  lock_id: string;
  /** Present for lock/unlock events with a known performer; absent for battery events. */
  performer?: { id: string; name: string };
  /** ISO 8601 UTC with milliseconds and `Z`. */
  timestamp: string;
  /** Battery level on a 0–1 scale; present only for battery events. */
  value?: number;
  /** docs/design.md §4d: an unlock that pulled the latch. */
  unlatched?: true;
  /** docs/design.md §4d: a ring the Opener opened the door on. */
  opened?: true;
  /** docs/design.md §4d: the Opener mode an unlock switched on or a lock switched off. */
  mode?: 'ring_to_open' | 'continuous_mode';
  /** docs/design.md §4c: a door code typed at the lock's keypad. */
  via?: 'keypad';
  /** docs/design.md §12: the code was a rental stay's (the event then has no performer). */
  booking?: { uid: string; summary: string };
}

/**
 * Maps a stored event to its wire form; optional fields are omitted, never null. Written as two
 * object literals in the spec's key order (id, type, lock_id, performer, timestamp, value) rather
 * than with conditional spreads: every event then has one of a few object shapes, which maps and
 * serializes a page several times faster (docs/performance.md).
 */
export function toLockEventJson(event: EventSummary): LockEventJson {
  const timestamp = new Date(event.occurredAt).toISOString();
  const json: LockEventJson =
    event.performerId === null
      ? { id: event.id, type: event.type, lock_id: event.lockId, timestamp }
      : { id: event.id, type: event.type, lock_id: event.lockId, performer: { id: event.performerId, name: event.performerName ?? '' }, timestamp };
  if (event.type === 'battery' && event.value !== null) json.value = event.value;
  const detail = event.detail;
  if (detail !== null) {
    if (detail.unlatched === true) json.unlatched = true;
    if (detail.opened === true) json.opened = true;
    if (detail.mode !== undefined) json.mode = detail.mode;
    if (detail.via !== undefined) json.via = detail.via;
    if (detail.booking !== undefined) json.booking = detail.booking;
  }
  return json;
}
