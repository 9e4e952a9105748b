/**
 * The REST API's bodies as TypeScript types, for clients of the service (spec: Resources). The
 * client imports no server code (an ESLint rule holds it): the bodies are declared here, from the
 * domain's pure types where they are the same; test/unit/client/api-types.test.ts fails the
 * typecheck when the server's own definitions drift from these, and the integration tests use both.
 */

/** Spec: User. */
export interface User {
  id: string;
  name: string;
}

/** eKey types (highest privilege first) and statuses: the domain's own definitions. */
import type { EKeyStatus, EKeyType } from '../domain/ekey-types.js';
import type { FieldError } from '../domain/errors.js';
import type { LockCommandType } from '../domain/lock-command-type.js';
export type { EKeyStatus, EKeyType } from '../domain/ekey-types.js';
export type { LockCommandType } from '../domain/lock-command-type.js';

/** `door_code` of an eKey (docs/design.md §4c); instants are ISO 8601 UTC. */
export interface DoorCode {
  /** Six digits; null once removed. */
  code: string | null;
  state: 'waiting' | 'setting' | 'set' | 'failed' | 'removing' | 'removed';
  enforced_by: 'lock' | 'service';
  /** Why it failed (`keypad_full`, `refused_by_lock`, …); null in every other state. */
  failure_reason: string | null;
  updated_at: string;
}

/**
 * Spec: eKey, exactly the body the service builds. DateTimes are `M/D/YYYY h:mm:ss AM|PM` in the
 * lock's time zone; keys without a schedule carry `null` in both schedule fields.
 */
export interface EKey {
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
  /** The key's door code, null when it never had one. */
  door_code: DoorCode | null;
}

/** Body of `POST /ekey`. DateTimes may also be ISO 8601 with an offset. */
export interface SendEKeyRequest {
  /** Recipient's e-mail address; an unknown one is invited. */
  email: string;
  lock_id: string;
  type: EKeyType;
  name?: string | null;
  message?: string | null;
  valid_from?: string | null;
  valid_to?: string | null;
  /** Six-field schedule expression. */
  schedule_start?: string | null;
  schedule_end?: string | null;
  /** `true` gives the key a door code (a lock with a keypad only). */
  door_code?: boolean;
}

/** Body of `PUT /ekey/{id}`: `null` resets a property to its default, an absent one is unchanged. */
export type UpdateEKeyRequest = Partial<Omit<SendEKeyRequest, 'email' | 'lock_id' | 'type'>> & { type?: EKeyType };

/** Spec: Lock as it appears in a user's lock list, with our extra fields. */
export interface Lock {
  id: string;
  name: string;
  bolt_state: 'locked' | 'unlocked' | 'jammed' | 'unknown';
  online_status: 'online' | 'offline';
  /** On a lock that cannot sense its bolt: `bolt_state` is the last position it drove to; a turn by hand is not seen (docs/design.md §4f). */
  bolt_state_source?: 'assumed';
  time_zone: string;
  battery_level: number | null;
  last_seen_at: string | null;
  your_role: 'owner' | 'admin' | 'guest';
  ekey_id: string;
  /** A keypad is paired with the lock: its eKeys can carry door codes. */
  keypad: boolean;
  /** The command types this lock runs (docs/design.md §4d): `unlatch` where it can open the door. */
  supported_commands: LockCommandType[];
  /** A lock with Opener modes only (docs/design.md §4d): the mode it is in now. */
  opener_mode?: 'none' | 'ring_to_open' | 'continuous';
  /** Who switched the mode on, for owners and admins; null otherwise. */
  opener_mode_set_by?: { id: string; name: string } | null;
  /** When the service switches Continuous Mode off by the owner's cap; null otherwise. */
  opener_mode_until?: string | null;
  /** The owner's cap on Continuous Mode in minutes (owners and admins); null: none. */
  continuous_mode_limit_minutes?: number | null;
  /** docs/design.md §4e, owners and admins only: the gateway device that reaches the lock now; null while none hears it. */
  gateway?: LockGateway | null;
}

/** The gateway device that reaches a lock (a lock's `gateway`). */
export interface LockGateway {
  /** `host` for the host's own adapter, else the Bluetooth proxy's configured name. */
  id: string;
  name: string;
  /** dBm of the latest advertisement heard through it; null when not heard. */
  rssi: number | null;
  seen_at: string | null;
}

/** One gateway device of `GET /gateways` (docs/design.md §4e). */
export interface Gateway {
  id: string;
  name: string;
  kind: 'host' | 'esphome';
  state: 'online' | 'offline' | 'unauthorized' | 'unavailable';
  address: string | null;
  connections_free: number | null;
  connections_limit: number | null;
  locks: { lock_id: string; rssi: number | null; seen_at: string | null; connected: boolean }[];
}

/** A rental stay's door code on one lock (docs/design.md §12): a door code object with its lock. */
export interface BookingDoorCode extends DoorCode {
  lock_id: string;
}

/** A stay of a rental calendar (docs/design.md §12). */
export interface Booking {
  uid: string;
  summary: string;
  /** ISO 8601 UTC. */
  starts_at: string;
  ends_at: string;
  state: 'upcoming' | 'active' | 'ended' | 'cancelled';
  door_codes: BookingDoorCode[];
}

/** A rental calendar whose stays become door codes (docs/design.md §12). */
export interface Calendar {
  id: string;
  url: string;
  lock_ids: string[];
  check_in: string;
  check_out: string;
  door_code: boolean;
  state: 'ok' | 'failing';
  last_refresh_at: string | null;
  last_error: string | null;
  bookings: Booking[];
}

/** `POST /calendars` (required: url, lock_ids) and `PUT /calendars/{id}` (null resets to the default). */
export interface CalendarRequest {
  url?: string | null;
  lock_ids?: string[] | null;
  check_in?: string | null;
  check_out?: string | null;
  door_code?: boolean | null;
}

/** RFC 9457 problem details as the API sends them, with a stable `code` and per-field `errors`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: FieldError[];
  request_id?: string;
}
