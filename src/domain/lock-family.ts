/**
 * The lock families the gateway drives (DESIGN §4b): `ekey`, our open profile
 * (docs/ble-protocol.md), and `nuki`, the Nuki Smart Lock (docs/nuki.md). Each has a protocol
 * driver under src/gateway/drivers/.
 */
export const LOCK_FAMILIES = ['ekey', 'nuki'] as const;

/** One of {@link LOCK_FAMILIES}. */
export type LockFamily = (typeof LOCK_FAMILIES)[number];

/** The family of a lock configured without one. */
export const DEFAULT_LOCK_FAMILY: LockFamily = 'ekey';

/** Narrows a stored or configured string; unknown values are not a family. */
export function isLockFamily(value: unknown): value is LockFamily {
  return typeof value === 'string' && (LOCK_FAMILIES as readonly string[]).includes(value);
}
