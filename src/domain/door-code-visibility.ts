/**
 * Who sees a door code's digits (docs/design.md §4c). The digits open the door, so they go to as
 * few people as possible: the key's holder; the lock's owners and admins for the keys they
 * manage (types below admin); an owner or admin key's code to its holder alone, so an admin who
 * loses their key never carried away the owner's code. While a code is being taken off the lock
 * (`removing`) nobody sees it: the key has ended, and the code must not be used meanwhile.
 */
import type { EKeyRole } from './ekey-permissions.js';
import type { EKeyType } from './ekey-types.js';

/** Who is looking: their user id and their role on the key's lock now (null without a usable key). */
export interface DoorCodeViewer {
  userId: string;
  role: EKeyRole | null;
}

/** States in which a code is shown at all (a removed code has no digits left). */
const HIDDEN_STATES: ReadonlySet<string> = new Set(['removing', 'removed']);

/** Whether `viewer` sees the digits of the code of `key` in `state`. */
export function doorCodeDigitsVisible(viewer: DoorCodeViewer, key: { user_id: string; type: EKeyType }, state: string): boolean {
  if (HIDDEN_STATES.has(state)) return false;
  if (viewer.userId === key.user_id) return true;
  const managesIt = viewer.role === 'owner' || viewer.role === 'admin';
  return managesIt && key.type !== 'owner' && key.type !== 'admin';
}
