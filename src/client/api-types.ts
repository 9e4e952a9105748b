/**
 * The REST API's bodies as TypeScript types, for clients of the service (spec: Resources). The eKey
 * types come from the server's own definitions (type-only imports, nothing at run time); the rest
 * are kept by hand next to the server's TypeBox schemas, and the integration tests use both, so
 * drift fails.
 */

/** Spec: User. */
export interface User {
  id: string;
  name: string;
}

/** eKey types (highest privilege first) and statuses: the domain's own definitions. */
import type { EKeyType } from '../domain/ekey-types.js';
import type { SendEKeyRequest as ServiceSendEKeyRequest } from '../access/ekey-service.js';
export type { EKeyStatus, EKeyType } from '../domain/ekey-types.js';

/**
 * Spec: eKey, exactly the body the service builds (EKeyService's view). DateTimes are
 * `M/D/YYYY h:mm:ss AM|PM` in the lock's time zone; keys without a schedule carry `null` in both
 * schedule fields.
 */
export type { EKeyView as EKey } from '../access/ekey-service.js';

/** Body of `POST /ekey` (the service's own definition, with the type narrowed to the eKey types). DateTimes may also be ISO 8601 with an offset. */
export type SendEKeyRequest = Omit<ServiceSendEKeyRequest, 'type'> & { type: EKeyType };

/** Body of `PUT /ekey/{id}`: `null` resets a property to its default, an absent one is unchanged. */
export type UpdateEKeyRequest = Partial<Omit<SendEKeyRequest, 'email' | 'lock_id' | 'type'>> & { type?: EKeyType };

/** Spec: Lock as it appears in a user's lock list, with our extra fields. */
export interface Lock {
  id: string;
  name: string;
  bolt_state: 'locked' | 'unlocked' | 'jammed' | 'unknown';
  online_status: 'online' | 'offline';
  time_zone: string;
  battery_level: number | null;
  last_seen_at: string | null;
  your_role: 'owner' | 'admin' | 'guest';
  ekey_id: string;
  /** A keypad is paired with the lock: its eKeys can carry door codes. */
  keypad: boolean;
}

/** RFC 9457 problem details as the API sends them, with a stable `code` (the server's own definition). */
export type { Problem } from '../api/problem.js';
