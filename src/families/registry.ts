import { ekeyFamily } from './ekey/ekey-family.js';
import type { LockFamily } from './lock-family.js';
import { nukiFamily } from './nuki/nuki-family.js';
import { nukiOpenerFamily } from './nuki-opener/nuki-opener-family.js';

/**
 * Every lock family the gateway drives (docs/design.md §4b, §4d), each in its folder under src/families/. This
 * list is the only place a family is named: config validation, the store, the driver factory and
 * the adapters ask it. Adding a family = its folder and one entry here (docs/architecture.md).
 */
export const LOCK_FAMILIES = [ekeyFamily, nukiFamily, nukiOpenerFamily] as const satisfies readonly LockFamily[];

/** The id of one of {@link LOCK_FAMILIES}: what a lock stores in `family`. */
export type LockFamilyId = (typeof LOCK_FAMILIES)[number]['id'];

/** Every family id, in registry order. */
export const LOCK_FAMILY_IDS: readonly LockFamilyId[] = LOCK_FAMILIES.map((family) => family.id);

/** The family of a lock configured without one: our profile. */
export const DEFAULT_LOCK_FAMILY: LockFamilyId = ekeyFamily.id;

/** Narrows a stored or configured string; unknown values are not a family. */
export function isLockFamilyId(value: unknown): value is LockFamilyId {
  return typeof value === 'string' && (LOCK_FAMILY_IDS as readonly string[]).includes(value);
}

/** The family with this id. */
export function lockFamily(id: LockFamilyId): LockFamily {
  const family = LOCK_FAMILIES.find((candidate) => candidate.id === id);
  if (family === undefined) throw new Error(`No lock family "${id}".`);
  return family;
}
