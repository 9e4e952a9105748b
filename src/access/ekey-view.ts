import { formatEKeyDateTime } from '../domain/ekey-datetime.js';
import type { EKey, EKeyStatus, EKeyType } from '../domain/ekey-types.js';
import type { DoorCodeView } from './door-code-service.js';

/**
 * An eKey as the API returns it (spec: Resources › eKey), in the spec's field order with the
 * foreign keys last. DateTimes are `M/D/YYYY h:mm:ss AM|PM` in the lock's zone; keys without a
 * schedule carry `null` in both schedule fields.
 */
export interface EKeyView {
  id: string;
  name: string | null;
  type: EKeyType;
  status: EKeyStatus;
  valid_from: string | null;
  valid_to: string | null;
  schedule_start: string | null;
  schedule_end: string | null;
  message: string | null;
  user_id: string;
  lock_id: string;
  /** docs/design.md §4c: the key's door code, null when it never had one. */
  door_code: DoorCodeView | null;
}

/** The wire form of a stored key, DateTimes in the lock's zone (spec: DateTime format). */
export function toEKeyView(key: EKey, zone: string, doorCode: DoorCodeView | null = null): EKeyView {
  return {
    id: key.id,
    name: key.name,
    type: key.type,
    status: key.status,
    valid_from: key.valid_from === null ? null : formatEKeyDateTime(key.valid_from, zone),
    valid_to: key.valid_to === null ? null : formatEKeyDateTime(key.valid_to, zone),
    schedule_start: key.schedule_start,
    schedule_end: key.schedule_end,
    message: key.message,
    user_id: key.user_id,
    lock_id: key.lock_id,
    door_code: doorCode,
  };
}
