import type { EventSummary } from '../store/event-repository.js';
import type { LockEventType } from './lock-event-sink.js';

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
}

/** Maps a stored event to its wire form; optional fields are omitted, never null. */
export function toLockEventJson(event: EventSummary): LockEventJson {
  // Key order as in the spec's table: id, type, lock_id, performer, timestamp, value.
  return {
    id: event.id,
    type: event.type,
    lock_id: event.lockId,
    ...(event.performerId !== null ? { performer: { id: event.performerId, name: event.performerName ?? '' } } : {}),
    timestamp: new Date(event.occurredAt).toISOString(),
    ...(event.type === 'battery' && event.value !== null ? { value: event.value } : {}),
  };
}
