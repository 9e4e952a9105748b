/**
 * What the app reads of the user's own keys to offer webhooks (docs/design.md §11): only a user who
 * owns a lock adds one, and a webhook may name any lock they own or administer.
 */
import type { OwnKey } from './api.js';

/** Whether a key gives its holder the owner's rights now (as the service decides: a usable owner key). */
const ownsNow = (key: OwnKey): boolean => key.type === 'owner' && key.usable_now;

/** Whether the user owns a lock now: the Webhooks page and its link are theirs. */
export const ownsALock = (keys: readonly OwnKey[]): boolean => keys.some(ownsNow);

/** The locks the user owns or administers now, by name. */
export function managedLocks(keys: readonly OwnKey[]): { id: string; name: string }[] {
  const locks = new Map<string, string>();
  for (const key of keys) if ((key.type === 'owner' || key.type === 'admin') && key.usable_now) locks.set(key.lock_id, key.lock_name);
  return [...locks].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
}

/** A lock's time zone from the user's keys; for an unknown lock, the zone of a lock they own (else UTC). */
export function zoneFinder(keys: readonly OwnKey[]): (lockId: string | undefined) => string {
  const fallback = keys.find(ownsNow)?.lock_time_zone ?? keys[0]?.lock_time_zone ?? 'UTC';
  return (lockId) => keys.find((key) => key.lock_id === lockId)?.lock_time_zone ?? fallback;
}
