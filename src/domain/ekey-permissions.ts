/**
 * Who may do what to which eKey: the spec's permission table by the caller's role on the lock,
 * plus two rules of ours — nobody grants a type above their own, and nobody but an owner touches
 * owner keys (docs/design.md §3 eKeys).
 */
import { isUsableAt } from './ekey-validity.js';
import type { EKey, EKeyFields, EKeyType } from './ekey-types.js';

/**
 * The caller's role on a lock, from the type of the caller's own usable key there.
 * - `owner`: an `owner` key.
 * - `admin`: an `admin` key.
 * - `guest`: an `anytime`, `scheduled` or `guest` key.
 */
export type EKeyRole = 'owner' | 'admin' | 'guest';

/** Every action of the spec's table (spec: Authentication › eKey action permissions). */
export const EKEY_ACTIONS = ['revoke', 'grant', 'rename', 'delete', 'reschedule', 'send'] as const;

/**
 * What a caller tries to do.
 * - `send`: create an eKey (`POST /ekey`).
 * - `grant`: choose a type on creation or change a key's `type`.
 * - `rename`: change `name`.
 * - `reschedule`: change `valid_from`, `valid_to`, `schedule_start` or `schedule_end`.
 * - `revoke`: `DELETE /ekey/{id}`.
 * - `delete`: `DELETE /ekey/{id}?purge=true`.
 */
export type EKeyAction = (typeof EKEY_ACTIONS)[number];

/**
 * How a target key relates to the caller.
 * - `self`: the caller's own key.
 * - `owner`, `admin`: another user's key of that type.
 * - `guest`: another user's `anytime`, `scheduled` or `guest` key.
 */
export type TargetKind = 'self' | EKeyRole;

/**
 * Why a request is refused.
 * - `no_role`: the caller holds no usable key on the lock.
 * - `action_not_permitted`: the caller's role may not take this action on any key.
 * - `owner_key_protected`: only owners touch owner keys.
 * - `target_not_permitted`: the role may take the action, but not on this kind of key.
 * - `type_above_own`: the requested type outranks the caller's own.
 */
export type PermissionDenial =
  | 'no_role'
  | 'action_not_permitted'
  | 'owner_key_protected'
  | 'target_not_permitted'
  | 'type_above_own';

/** Outcome of {@link checkPermission}. */
export type PermissionDecision = { allowed: true } | { allowed: false; reason: PermissionDenial };

/** Input of {@link checkPermission}. */
export interface PermissionRequest {
  /** From {@link roleOnLock}; `null` when the caller holds no usable key on the lock. */
  role: EKeyRole | null;
  action: EKeyAction;
  /** The key acted on; for `send`, the key being sent (its type and recipient). */
  targetKey: Pick<EKey, 'type' | 'user_id'>;
  callerUserId: string;
  /** The type being given, for `send` and `grant`. */
  newType?: EKeyType;
}

/**
 * Privilege rank of each type: owner 3 > admin 2 > anytime = scheduled = guest 1. A caller may give
 * a type whose rank is at most that of their own role.
 */
export const EKEY_TYPE_RANK: Readonly<Record<EKeyType, number>> = {
  owner: 3,
  admin: 2,
  anytime: 1,
  scheduled: 1,
  guest: 1,
};

const ROLE_RANK: Readonly<Record<EKeyRole, number>> = { owner: 3, admin: 2, guest: 1 };

const ALL: readonly TargetKind[] = ['self', 'owner', 'admin', 'guest'];
const SELF_ADMIN_GUEST: readonly TargetKind[] = ['self', 'admin', 'guest'];
const SELF: readonly TargetKind[] = ['self'];
const NONE: readonly TargetKind[] = [];

// Spec: Authentication › eKey action permissions, by the caller's role on the lock.
const PERMISSION_TABLE: Readonly<Record<EKeyRole, Readonly<Record<EKeyAction, readonly TargetKind[]>>>> = {
  owner: { revoke: ALL, grant: ALL, rename: ALL, delete: ALL, reschedule: ALL, send: ALL },
  admin: {
    revoke: SELF_ADMIN_GUEST,
    grant: SELF_ADMIN_GUEST,
    rename: SELF_ADMIN_GUEST,
    delete: SELF_ADMIN_GUEST,
    reschedule: SELF_ADMIN_GUEST,
    send: ALL,
  },
  guest: { revoke: NONE, grant: NONE, rename: SELF, delete: SELF, reschedule: NONE, send: NONE },
};

/** The role a key of `type` gives its holder: every type below admin counts as guest. */
export function roleOfType(type: EKeyType): EKeyRole {
  switch (type) {
    case 'owner':
      return 'owner';
    case 'admin':
      return 'admin';
    case 'anytime':
    case 'scheduled':
    case 'guest':
      return 'guest';
  }
}

/**
 * The caller's role on a lock: the role of the highest-ranked of the caller's keys on that lock
 * that is usable at `instantMs`, or `null` when none is.
 *
 * @param callerKeys the caller's keys on the lock (any status).
 */
export function roleOnLock(callerKeys: readonly EKey[], instantMs: number, zone: string): EKeyRole | null {
  let best: EKeyRole | null = null;
  for (const key of callerKeys) {
    if (!isUsableAt(key, instantMs, zone)) continue;
    const role = roleOfType(key.type);
    if (best === null || ROLE_RANK[role] > ROLE_RANK[best]) best = role;
  }
  return best;
}

/** How `targetKey` relates to the caller: their own key, or another user's by role. */
export function targetKindOf(targetKey: Pick<EKey, 'type' | 'user_id'>, callerUserId: string): TargetKind {
  return targetKey.user_id === callerUserId ? 'self' : roleOfType(targetKey.type);
}

/**
 * Decides whether a caller in `role` may take `action` on `targetKey`. Checks, in order: a role at
 * all; the spec's table for the role and action; owner keys only for owners; the target kind the
 * table allows; and for `newType`, a rank no higher than the caller's own.
 *
 * @example checkPermission({ role: 'admin', action: 'grant', targetKey: { type: 'guest', user_id: 'u2' }, callerUserId: 'u1', newType: 'owner' })
 * // { allowed: false, reason: 'type_above_own' }
 */
export function checkPermission(request: PermissionRequest): PermissionDecision {
  const { role, action, targetKey, callerUserId, newType } = request;
  if (role === null) return deny('no_role');
  const allowedKinds = PERMISSION_TABLE[role][action];
  if (allowedKinds.length === 0) return deny('action_not_permitted');
  if (targetKey.type === 'owner' && role !== 'owner') return deny('owner_key_protected');
  if (!allowedKinds.includes(targetKindOf(targetKey, callerUserId))) return deny('target_not_permitted');
  if (newType !== undefined && EKEY_TYPE_RANK[newType] > ROLE_RANK[role]) return deny('type_above_own');
  return { allowed: true };
}

/**
 * The actions a PUT amounts to, from the fields it actually changes (docs/design.md §3 eKeys): `type` is
 * grant; `name` and `message` are rename (both are the key's descriptive text, ours); validity and
 * schedules are reschedule. An update that changes nothing needs no permission beyond seeing the key.
 */
export function actionsForUpdate(before: EKeyFields, after: EKeyFields): EKeyAction[] {
  const actions = new Set<EKeyAction>();
  if (before.type !== after.type) actions.add('grant');
  if (before.name !== after.name || before.message !== after.message) actions.add('rename');
  if (
    before.valid_from !== after.valid_from ||
    before.valid_to !== after.valid_to ||
    before.schedule_start !== after.schedule_start ||
    before.schedule_end !== after.schedule_end
  ) {
    actions.add('reschedule');
  }
  return EKEY_ACTIONS.filter((action) => actions.has(action));
}

function deny(reason: PermissionDenial): PermissionDecision {
  return { allowed: false, reason };
}
