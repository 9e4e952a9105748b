import { describe, expect, it } from '@jest/globals';
import {
  actionsForUpdate,
  checkPermission,
  EKEY_ACTIONS,
  EKEY_TYPE_RANK,
  roleOfType,
  roleOnLock,
  targetKindOf,
} from '../../../src/domain/ekey-permissions.js';
import type { EKeyAction, EKeyRole, PermissionDenial, TargetKind } from '../../../src/domain/ekey-permissions.js';
import type { EKey, EKeyFields, EKeyType } from '../../../src/domain/ekey-types.js';

const CALLER = 'user-caller';
const OTHER = 'user-other';

// The spec's table, written out cell by cell (spec: Authentication › eKey action permissions).
// Target kinds: self = the caller's own key; owner / admin / guest = another user's key of that
// role. ✓ allowed, ✗ refused.
const SPEC_TABLE: Record<EKeyRole, Record<EKeyAction, Record<TargetKind, boolean>>> = {
  owner: {
    revoke: { self: true, owner: true, admin: true, guest: true },
    grant: { self: true, owner: true, admin: true, guest: true },
    rename: { self: true, owner: true, admin: true, guest: true },
    delete: { self: true, owner: true, admin: true, guest: true },
    reschedule: { self: true, owner: true, admin: true, guest: true },
    send: { self: true, owner: true, admin: true, guest: true },
  },
  admin: {
    // "self, admin, guest eKeys": never another user's owner key.
    revoke: { self: true, owner: false, admin: true, guest: true },
    grant: { self: true, owner: false, admin: true, guest: true },
    rename: { self: true, owner: false, admin: true, guest: true },
    delete: { self: true, owner: false, admin: true, guest: true },
    reschedule: { self: true, owner: false, admin: true, guest: true },
    // "all" recipients — but sending an owner key would grant a type above admin.
    send: { self: true, owner: false, admin: true, guest: true },
  },
  guest: {
    revoke: { self: false, owner: false, admin: false, guest: false },
    grant: { self: false, owner: false, admin: false, guest: false },
    rename: { self: true, owner: false, admin: false, guest: false },
    delete: { self: true, owner: false, admin: false, guest: false },
    reschedule: { self: false, owner: false, admin: false, guest: false },
    send: { self: false, owner: false, admin: false, guest: false },
  },
};

const SELF_TYPE: Record<EKeyRole, EKeyType> = { owner: 'owner', admin: 'admin', guest: 'anytime' };
const TARGET_KINDS: TargetKind[] = ['self', 'owner', 'admin', 'guest'];
const ROLES: EKeyRole[] = ['owner', 'admin', 'guest'];

function targetFor(role: EKeyRole, kind: TargetKind): Pick<EKey, 'type' | 'user_id'> {
  if (kind === 'self') return { type: SELF_TYPE[role], user_id: CALLER };
  return { type: kind === 'guest' ? 'scheduled' : kind, user_id: OTHER };
}

const cells = ROLES.flatMap((role) =>
  EKEY_ACTIONS.flatMap((action) =>
    TARGET_KINDS.map((kind) => [role, action, kind, SPEC_TABLE[role][action][kind]] as const),
  ),
);

describe('checkPermission: every cell of the spec table', () => {
  it('covers 3 roles × 6 actions × 4 target kinds', () => {
    expect(cells).toHaveLength(72);
  });

  it.each(cells)('%s may %s a %s key: %s', (role, action, kind, allowed) => {
    const decision = checkPermission({ role, action, targetKey: targetFor(role, kind), callerUserId: CALLER });
    expect(decision.allowed).toBe(allowed);
  });

  it.each(EKEY_ACTIONS.flatMap((action) => TARGET_KINDS.map((kind) => [action, kind] as const)))(
    'a caller without a usable key may not %s a %s key',
    (action, kind) => {
      expect(checkPermission({ role: null, action, targetKey: targetFor('guest', kind), callerUserId: CALLER })).toEqual({
        allowed: false,
        reason: 'no_role',
      });
    },
  );

  it.each<[string, EKeyRole, EKeyAction, TargetKind, PermissionDenial]>([
    ['guest revoking anything: the action itself', 'guest', 'revoke', 'self', 'action_not_permitted'],
    ['guest sending', 'guest', 'send', 'guest', 'action_not_permitted'],
    ['admin touching an owner key', 'admin', 'rename', 'owner', 'owner_key_protected'],
    ['guest renaming an owner key', 'guest', 'rename', 'owner', 'owner_key_protected'],
    ['guest renaming another guest key', 'guest', 'rename', 'guest', 'target_not_permitted'],
    ['guest deleting an admin key', 'guest', 'delete', 'admin', 'target_not_permitted'],
  ])('refusal reason: %s → %s', (_label, role, action, kind, reason) => {
    expect(checkPermission({ role, action, targetKey: targetFor(role, kind), callerUserId: CALLER })).toEqual({
      allowed: false,
      reason,
    });
  });
});

describe('checkPermission: nobody grants a type above their own', () => {
  const types: EKeyType[] = ['owner', 'admin', 'anytime', 'scheduled', 'guest'];
  const expected: Record<'owner' | 'admin', Record<EKeyType, boolean>> = {
    owner: { owner: true, admin: true, anytime: true, scheduled: true, guest: true },
    admin: { owner: false, admin: true, anytime: true, scheduled: true, guest: true },
  };
  it.each((['owner', 'admin'] as const).flatMap((role) => types.map((newType) => [role, newType, expected[role][newType]] as const)))(
    '%s changing another user\'s guest-role key to %s: %s',
    (role, newType, allowed) => {
      const decision = checkPermission({
        role,
        action: 'grant',
        targetKey: { type: 'guest', user_id: OTHER },
        callerUserId: CALLER,
        newType,
      });
      expect(decision).toEqual(allowed ? { allowed: true } : { allowed: false, reason: 'type_above_own' });
    },
  );

  it.each(types.map((newType) => [newType, newType !== 'owner'] as const))('admin sending a new %s key: %s', (newType, allowed) => {
    const decision = checkPermission({
      role: 'admin',
      action: 'send',
      targetKey: { type: newType, user_id: OTHER },
      callerUserId: CALLER,
      newType,
    });
    expect(decision.allowed).toBe(allowed);
  });

  it('an admin may demote themselves', () => {
    expect(
      checkPermission({ role: 'admin', action: 'grant', targetKey: { type: 'admin', user_id: CALLER }, callerUserId: CALLER, newType: 'guest' }),
    ).toEqual({ allowed: true });
  });

  it('ranks owner 3 > admin 2 > anytime = scheduled = guest 1', () => {
    expect(EKEY_TYPE_RANK).toEqual({ owner: 3, admin: 2, anytime: 1, scheduled: 1, guest: 1 });
  });
});

describe('roles', () => {
  it.each<[EKeyType, EKeyRole]>([
    ['owner', 'owner'],
    ['admin', 'admin'],
    ['anytime', 'guest'],
    ['scheduled', 'guest'],
    ['guest', 'guest'],
  ])('a %s key gives the %s role', (type, role) => {
    expect(roleOfType(type)).toBe(role);
  });

  it.each<[string, Pick<EKey, 'type' | 'user_id'>, TargetKind]>([
    ['own owner key', { type: 'owner', user_id: CALLER }, 'self'],
    ['own guest key', { type: 'guest', user_id: CALLER }, 'self'],
    ["another's owner key", { type: 'owner', user_id: OTHER }, 'owner'],
    ["another's admin key", { type: 'admin', user_id: OTHER }, 'admin'],
    ["another's anytime key", { type: 'anytime', user_id: OTHER }, 'guest'],
    ["another's scheduled key", { type: 'scheduled', user_id: OTHER }, 'guest'],
    ["another's guest key", { type: 'guest', user_id: OTHER }, 'guest'],
  ])('target kind of %s is %s', (_label, target, kind) => {
    expect(targetKindOf(target, CALLER)).toBe(kind);
  });

  const now = Date.parse('2026-06-01T12:00:00Z');
  const key = (overrides: Partial<EKey>): EKey => ({
    id: 'k',
    name: null,
    type: 'anytime',
    status: 'accepted',
    valid_from: null,
    valid_to: null,
    schedule_start: null,
    schedule_end: null,
    message: null,
    user_id: CALLER,
    lock_id: 'lock',
    created_at: 0,
    updated_at: 0,
    ...overrides,
  });
  it.each<[string, EKey[], EKeyRole | null]>([
    ['no keys', [], null],
    ['an accepted owner key', [key({ type: 'owner' })], 'owner'],
    ['an accepted admin key', [key({ type: 'admin' })], 'admin'],
    ['an accepted scheduled key inside its window', [key({ type: 'scheduled', schedule_start: '0 9 * * * *', schedule_end: '0 17 * * * *' })], 'guest'],
    ['a scheduled key outside its window', [key({ type: 'scheduled', schedule_start: '0 13 * * * *', schedule_end: '0 17 * * * *' })], null],
    ['a revoked owner key', [key({ type: 'owner', status: 'revoked' })], null],
    ['a pending admin key', [key({ type: 'admin', status: 'pending' })], null],
    ['an expired admin key', [key({ type: 'admin', valid_to: now })], null],
    ['an admin key not yet valid', [key({ type: 'admin', valid_from: now + 1 })], null],
    ['a revoked owner key and a usable guest key', [key({ type: 'owner', status: 'revoked' }), key({ type: 'guest' })], 'guest'],
    ['a guest key and an admin key: the higher wins', [key({ type: 'guest' }), key({ type: 'admin' })], 'admin'],
  ])('%s → %s', (_label, keys, role) => {
    expect(roleOnLock(keys, now, 'UTC')).toBe(role);
  });
});

describe('actionsForUpdate', () => {
  const before: EKeyFields = {
    name: 'Front door',
    type: 'anytime',
    message: null,
    valid_from: null,
    valid_to: null,
    schedule_start: null,
    schedule_end: null,
  };
  it.each<[string, Partial<EKeyFields>, EKeyAction[]]>([
    ['nothing changed', {}, []],
    ['type', { type: 'admin' }, ['grant']],
    ['name', { name: 'Back door' }, ['rename']],
    ['message', { message: 'Welcome' }, ['rename']],
    ['valid_from', { valid_from: 1 }, ['reschedule']],
    ['valid_to', { valid_to: 1 }, ['reschedule']],
    ['schedule_start', { schedule_start: '0 9 * * * *' }, ['reschedule']],
    ['schedule_end', { schedule_end: '0 9 * * * *' }, ['reschedule']],
    ['type and schedules', { type: 'scheduled', schedule_start: '0 9 * * * *', schedule_end: '0 17 * * * *' }, ['grant', 'reschedule']],
    ['everything', { type: 'guest', name: 'x', valid_to: 5 }, ['grant', 'rename', 'reschedule']],
  ])('changing %s needs %j', (_label, change, actions) => {
    expect(actionsForUpdate(before, { ...before, ...change })).toEqual(actions);
  });
});
