/**
 * Who holds a door code (docs/design.md §4c, §12): an eKey, or a stay of a rental calendar on one
 * lock. Both kinds of holder share the door_codes rows and their lifecycle; a stay's holder id
 * starts with `stay-`, an eKey's is its UUID.
 */
import { newId } from './ids.js';

const STAY_PREFIX = 'stay-';

/** A new holder id for a stay's code on one lock. */
export const newStayHolderId = (): string => `${STAY_PREFIX}${newId()}`;

/** Whether a holder id is a stay's. */
export const isStayHolder = (holderId: string): boolean => holderId.toLowerCase().startsWith(STAY_PREFIX);

/**
 * The name a code of ours carries on the lock (how the service recognises its codes, docs/door-codes.md):
 * `eKey` or `Stay` and the first eight characters of the holder's id, at most 13 characters.
 */
export function doorCodeHolderName(holderId: string): string {
  const id = holderId.toLowerCase();
  return isStayHolder(id) ? `Stay ${id.slice(STAY_PREFIX.length, STAY_PREFIX.length + 8)}` : `eKey ${id.slice(0, 8)}`;
}
