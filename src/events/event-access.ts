/**
 * The eKey facts the events layer needs, as small interfaces so it does not depend on how the
 * eKey service is built (src/access/ekey-service.ts satisfies {@link LockRoles} and
 * {@link UsableKeys}; src/store/ekey-repository.ts satisfies {@link EKeyFinder}).
 */

/** A caller's role on a lock from their usable key: owner, admin, or guest for every other type. */
export type LockRole = 'owner' | 'admin' | 'guest';

/** Answers "what is this user's role on this lock at this instant?" (null: no usable key). */
export interface LockRoles {
  roleOn(userId: string, lockId: string, atMs: number): LockRole | null;
}

/** Answers "which key of this user is usable on this lock at this instant?". */
export interface UsableKeys {
  usableKeyFor(userId: string, lockId: string, atMs: number): { id: string } | undefined;
}

/** Finds an eKey by id (any status), for attributing a tap to its holder. */
export interface EKeyFinder {
  findById(id: string): { id: string; lock_id: string; user_id: string } | undefined;
}

/** Finds a user's display name, for the performer of an event. */
export interface UserNames {
  findById(id: string): { name: string } | undefined;
}

/**
 * Which events a caller may see on a lock (docs/design.md §3 Events):
 * - `all`: owners and admins see every event;
 * - `own`: other holders of a usable key see only the events they performed.
 */
export type EventView = 'all' | 'own';

/** The view a role gives; null (no usable key) means the lock is invisible: 404. */
export function eventViewFor(role: LockRole | null): EventView | null {
  switch (role) {
    case 'owner':
    case 'admin':
      return 'all';
    case 'guest':
      return 'own';
    case null:
      return null;
  }
}
