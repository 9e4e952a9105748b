/**
 * The eKey record as the domain sees it. Times are epoch milliseconds (whole seconds); the HTTP
 * layer formats them as the spec's `M/D/YYYY h:mm:ss AM|PM` in the lock's zone.
 */

/** Every eKey type, highest privilege first (spec: Resources › eKey › type values). */
export const EKEY_TYPES = ['owner', 'admin', 'anytime', 'scheduled', 'guest'] as const;

/**
 * What an eKey lets its holder do.
 * - `owner`: owner of the lock.
 * - `admin`: administrative privileges on the lock.
 * - `anytime`: access at any time until revoked.
 * - `scheduled`: access in the hours given by `schedule_start`/`schedule_end`.
 * - `guest`: access for the 24 hours after the eKey is sent.
 */
export type EKeyType = (typeof EKEY_TYPES)[number];

/** Every eKey status (spec: Resources › eKey › status values). */
export const EKEY_STATUSES = ['pending', 'accepted', 'revoked'] as const;

/**
 * Lifecycle of an eKey.
 * - `pending`: not accepted; cannot be used.
 * - `accepted`: can be used (within its validity window and schedule).
 * - `revoked`: cannot be used.
 */
export type EKeyStatus = (typeof EKEY_STATUSES)[number];

/** Narrows an untrusted string to an {@link EKeyType}. */
export function isEKeyType(value: string): value is EKeyType {
  return (EKEY_TYPES as readonly string[]).includes(value);
}

/** The properties a client sets on creation or with PUT; the rules in `ekey-rules.ts` own them. */
export interface EKeyFields {
  /** Display name; `null` when none was given. */
  name: string | null;
  type: EKeyType;
  /** Message accompanying the eKey; `null` when none. */
  message: string | null;
  /** Start of validity (inclusive), epoch ms; `null` = no lower bound. */
  valid_from: number | null;
  /** End of validity (exclusive), epoch ms; `null` = no expiry. */
  valid_to: number | null;
  /** Six-field schedule expression, or `null` = no time-of-day restriction on this side. */
  schedule_start: string | null;
  /** Six-field schedule expression, or `null` = no time-of-day restriction on this side. */
  schedule_end: string | null;
}

/** A stored eKey: the client-editable fields plus identity, ownership and lifecycle. */
export interface EKey extends EKeyFields {
  /** UUID. */
  id: string;
  status: EKeyStatus;
  /** UUID of the user the eKey belongs to. */
  user_id: string;
  /** UUID of the lock the eKey opens. */
  lock_id: string;
  /** Epoch ms. */
  created_at: number;
  /** Epoch ms of the last change (creation, PUT, revocation). */
  updated_at: number;
}
