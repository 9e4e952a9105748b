/**
 * The eKey service: send, read, update, revoke and delete eKeys, each checked against the
 * permission rules of `domain/` and written through `store/` in one transaction
 * (docs/design.md §3 eKeys). Knows nothing about HTTP; errors are ServiceErrors.
 */
import type { Clock } from '../domain/clock.js';
import { checkPermission, roleOfType, roleOnLock, actionsForUpdate } from '../domain/ekey-permissions.js';
import type { EKeyAction, EKeyRole, PermissionDenial } from '../domain/ekey-permissions.js';
import { fieldsOrThrow, mergeEKeyUpdate, normalizeEKeyCreation } from '../domain/ekey-rules.js';
import type { EKeyCreateInput, EKeyPatch } from '../domain/ekey-rules.js';
import { isEKeyType } from '../domain/ekey-types.js';
import type { EKey, EKeyType } from '../domain/ekey-types.js';
import { isUsableAt } from '../domain/ekey-validity.js';
import {
  conflict,
  forbidden,
  notFound,
  paymentRequired,
  unprocessable,
  validationFailed,
} from '../domain/errors.js';
import { ServiceError } from '../domain/errors.js';
import { newId, normalizeId } from '../domain/ids.js';
import type { DerivedCache } from '../store/derived-cache.js';
import type { EKeyRepository, StoredEKey } from '../store/ekey-repository.js';
import type { LockRecord, LockRepository } from '../store/lock-repository.js';
import type { UserRecord, UserRepository } from '../store/user-repository.js';
import { EKeyChangeNotifier } from './ekey-change-notifier.js';
import { toEKeyView, type EKeyView } from './ekey-view.js';
import { ownEKeyView, type OwnEKeyView } from './own-ekey-view.js';
import type { DoorCodeService, DoorCodeView } from './door-code-service.js';
import type { DoorCodeViewer } from '../domain/door-code-visibility.js';
import type { InvitationService, IssuedInvitation } from './invitation-service.js';

/** Body of `POST /ekey`: the recipient, the lock, and the key's own fields. */
export interface SendEKeyRequest extends EKeyCreateInput {
  /** Recipient's e-mail address; an unknown one is invited. */
  email: string;
  lock_id: string;
  /** docs/design.md §4c: `true` gives the key a door code (a lock with a keypad only). */
  door_code?: boolean;
}

/** Body of `PUT /ekey/{id}`: the key's fields, and `door_code` (`true` gives a code, `false` takes it away, absent: no change). */
export type UpdateEKeyRequest = EKeyPatch & { door_code?: boolean };

/** Options of `DELETE /ekey/{id}`. */
export interface RemoveEKeyOptions {
  /** `?purge=true`: the delete action — remove the record (revoking it first). */
  purge?: boolean;
}

export interface EKeyServiceDependencies {
  ekeys: EKeyRepository;
  locks: LockRepository;
  users: UserRepository;
  invitations: InvitationService;
  clock: Clock;
  /** Runs `work` in one SQLite transaction (better-sqlite3 `db.transaction`). */
  transaction: <T>(work: () => T) => T;
  /** Told (after the commit) which lock's keys changed; shared with the invitation service. Default: a private one. */
  changes?: EKeyChangeNotifier;
  /**
   * What {@link EKeyService.roleOn} reads per (user, lock), kept until a lock or an eKey is written
   * (a DerivedCache over `locks` and `ekeys`); without it every check reads the store.
   */
  holdings?: DerivedCache<LockHolding>;
  /** Door codes (docs/design.md §4c); without it `door_code: true` is refused as on a lock without a keypad. */
  doorCodeService?: DoorCodeService;
}

/** What decides a user's role on a lock: the lock's time zone and the user's keys on it. */
export interface LockHolding {
  readonly timeZone: string;
  readonly keys: readonly StoredEKey[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EMAIL_MAX_LENGTH = 254;

const DENIAL_MESSAGES: Readonly<Record<Exclude<PermissionDenial, 'no_role'>, string>> = {
  action_not_permitted: 'Your eKey on this lock does not allow this action.',
  owner_key_protected: 'Only an owner of the lock can change owner eKeys.',
  target_not_permitted: 'Your eKey on this lock does not allow this action on this eKey.',
  type_above_own: 'You cannot give an eKey type above your own.',
};

/** Sends, reads, updates and revokes eKeys; answers "may this user use this lock now?". */
export class EKeyService {
  private readonly changes: EKeyChangeNotifier;

  constructor(private readonly deps: EKeyServiceDependencies) {
    this.changes = deps.changes ?? new EKeyChangeNotifier();
  }

  /**
   * Calls `listener` with the lock id after each committed change to that lock's keys (send,
   * update, revoke, delete, and — with a shared notifier — acceptance on sign-up). Returns the
   * function that removes the listener. Listener failures never reach the caller of the change.
   */
  onChange(listener: (lockId: string) => void): () => void {
    return this.changes.onChange(listener);
  }

  /**
   * `POST /ekey` (the send action). Checks, in order: the caller can see the lock (404), the
   * caller's sending right is not withdrawn (422 `ekey_sending_withdrawn`), the caller's role may
   * send and grant this type (403), the fields (400), the quota (402 `ekey_quota_exhausted`), one
   * live key per user and lock (409 `ekey_exists`). A known recipient gets an `accepted` key; an
   * unknown or not-yet-signed-up one a `pending` key and an invitation.
   */
  send(callerId: string, request: SendEKeyRequest): EKeyView {
    const now = this.deps.clock.now();
    const lock = this.lockOr404(request.lock_id);
    const callerKeys = this.deps.ekeys.listByUserOnLock(callerId, lock.id);
    const role = roleOnLock(callerKeys, now, lock.timeZone);
    if (role === null) {
      // Someone who held an owner or admin key here already knows the lock: tell them why.
      if (callerKeys.some((key) => hadSendingRight(key, now))) throw sendingWithdrawn();
      throw notFound('lock');
    }
    const email = request.email.trim();
    const recipient = EMAIL.test(email) && email.length <= EMAIL_MAX_LENGTH ? this.deps.users.findByEmail(email) : undefined;
    const type = request.type;
    const target = { type: isEKeyType(type) ? type : 'guest', user_id: recipient?.id ?? '' } as const;
    if (role === 'guest') this.assertAllowed(role, 'send', target, callerId);
    const caller = this.deps.users.findById(callerId);
    if (!caller?.canSendEkeys) throw sendingWithdrawn();
    if (isEKeyType(type)) {
      this.assertAllowed(role, 'send', target, callerId, type);
      this.assertAllowed(role, 'grant', target, callerId, type);
    }

    const fieldErrors = EMAIL.test(email) && email.length <= EMAIL_MAX_LENGTH ? [] : [{ field: '/email', message: 'must be an e-mail address' }];
    const { door_code: doorCode, ...creation } = request;
    this.assertDoorCodeAllowed(lock, doorCode);
    const result = normalizeEKeyCreation(creation, { now, zone: lock.timeZone });
    if (!result.ok || fieldErrors.length > 0) throw validationFailed([...fieldErrors, ...(result.ok ? [] : result.errors)]);
    const fields = result.fields;

    const { key, invitation } = this.deps.transaction(() => {
      // Quota and conflict are read inside the write transaction, so they hold when it commits.
      if (caller.ekeyQuota !== null && this.deps.ekeys.countLiveSentBy(callerId) >= caller.ekeyQuota) {
        throw paymentRequired(
          'ekey_quota_exhausted',
          `You have used all ${caller.ekeyQuota} of your eKeys; revoke one you sent, or ask the operator for more.`,
        );
      }
      let holder: UserRecord | undefined = this.deps.users.findByEmail(email);
      if (holder && this.deps.ekeys.findLive(holder.id, lock.id)) throw ekeyExists();
      if (!holder) {
        holder = invitedUser(email, now);
        this.deps.users.insert(holder);
      }
      const stored: StoredEKey = {
        id: newId(),
        ...fields,
        // Spec: every reference creation response is accepted; an invited user's key waits for sign-up.
        status: holder.passwordHash === null ? 'pending' : 'accepted',
        user_id: holder.id,
        lock_id: lock.id,
        sent_by: callerId,
        created_at: now,
        updated_at: now,
        revoked_at: null,
      };
      try {
        this.deps.ekeys.insert(stored);
      } catch (error) {
        if (isUniqueViolation(error)) throw ekeyExists();
        throw error;
      }
      this.deps.doorCodeService?.afterSend(stored, doorCode);
      const issued: IssuedInvitation | undefined =
        stored.status === 'pending' ? this.deps.invitations.issue(holder.id, callerId, now) : undefined;
      return { key: stored, invitation: issued };
    });

    this.changes.notify(lock.id);
    if (key.status === 'accepted') this.changes.notifyLifecycle({ kind: 'accepted', key });
    if (invitation) {
      this.deps.invitations.deliver({
        to: email,
        senderName: caller.name,
        lockName: lock.name,
        personalMessage: key.message,
        expiresAt: invitation.record.expiresAt,
        token: invitation.token,
        doorCode: doorCode === true,
      });
    }
    return this.view(key, lock, callerId);
  }

  /** `GET /ekey/{id}`: the key's holder and the lock's owners and admins see it; others get 404. */
  get(callerId: string, ekeyId: string): EKeyView {
    const { key, lock } = this.visibleKey(callerId, ekeyId, this.deps.clock.now());
    return this.view(key, lock, callerId);
  }

  /**
   * `GET /locks/{lock_id}/ekeys`: owners and admins see every key of the lock (any status), other
   * holders of a usable key only their own; without a usable key the lock is 404.
   */
  listForLock(callerId: string, lockId: string): EKeyView[] {
    const now = this.deps.clock.now();
    const lock = this.lockOr404(lockId);
    const role = this.roleOnRecord(callerId, lock, now);
    if (role === null) throw notFound('lock');
    const keys = role === 'guest' ? this.deps.ekeys.listByUserOnLock(callerId, lock.id) : this.deps.ekeys.listByLock(lock.id);
    return keys.map((key) => this.view(key, lock, callerId, role));
  }

  /**
   * `GET /locks/{lock_id}/holders`: who holds the lock's keys (any status), with name and e-mail,
   * for its owners and admins — the people they sent keys to. Anyone else: 404.
   */
  listHolders(callerId: string, lockId: string): { user_id: string; name: string; email: string }[] {
    const lock = this.lockOr404(lockId);
    const role = this.roleOnRecord(callerId, lock, this.deps.clock.now());
    if (role !== 'owner' && role !== 'admin') throw notFound('lock');
    const ids = [...new Set(this.deps.ekeys.listByLock(lock.id).map((key) => key.user_id))];
    return ids.flatMap((id) => {
      const user = this.deps.users.findById(id);
      return user ? [{ user_id: user.id, name: user.name, email: user.email }] : [];
    });
  }

  /**
   * `GET /users/{user_id}/ekeys`: the caller's own keys that are not purged, each with its lock and
   * its usability now (docs/design.md §7). Only for oneself: anyone else's list is 404.
   */
  listOwn(callerId: string, userId: string): OwnEKeyView[] {
    if (normalizeId(userId) !== callerId) throw notFound('user');
    const now = this.deps.clock.now();
    return this.deps.ekeys.listByUser(callerId).flatMap((key) => {
      const lock = this.deps.locks.findById(key.lock_id);
      return lock ? [ownEKeyView(key, lock, now, this.doorCodeOf(key, { userId: callerId, role: null }, now))] : [];
    });
  }

  /**
   * Why the user's key on the lock does not work at `atMs` (the evaluation of
   * {@link listOwn}), or undefined when they hold no live key there.
   */
  explainKey(userId: string, lockId: string, atMs: number): OwnEKeyView | undefined {
    const lock = this.deps.locks.findById(normalizeId(lockId));
    const key = lock ? this.deps.ekeys.findLive(normalizeId(userId), lock.id) : undefined;
    return lock && key ? ownEKeyView(key, lock, atMs, this.doorCodeOf(key, { userId: key.user_id, role: null }, atMs)) : undefined;
  }

  /**
   * `PUT /ekey/{id}`: merges the patch (null resets, absent keeps), then requires every action the
   * change amounts to (grant = type, rename = name/message, reschedule = validity and schedules).
   * 404 unseen key, 400 invalid fields, 403 an action not allowed, 409 `ekey_revoked` or
   * `last_owner_key`. An update that changes nothing succeeds without a write.
   */
  update(callerId: string, ekeyId: string, request: UpdateEKeyRequest): EKeyView {
    const now = this.deps.clock.now();
    const { key, lock } = this.visibleKey(callerId, ekeyId, now);
    const { door_code: doorCode, ...patch } = request;
    const role = this.actingRole(callerId, key, lock, now);
    const result = mergeEKeyUpdate(key, patch, { now, zone: lock.timeZone });
    if (!result.ok) {
      // Someone who may not take the attempted actions at all hears that first, not why the values are wrong.
      for (const action of attemptedActions(patch)) this.assertAllowed(role, action, key, callerId);
    }
    const merged = fieldsOrThrow(result);
    const actions = actionsForUpdate(key, merged);
    // Giving or taking a door code changes how the key opens the door: the reschedule right.
    if (doorCode !== undefined && this.doorCodeChanges(key, doorCode) && !actions.includes('reschedule')) actions.push('reschedule');
    if (actions.length === 0) return this.view(key, lock, callerId);
    for (const action of actions) {
      this.assertAllowed(role, action, key, callerId, action === 'grant' ? merged.type : undefined);
    }
    if (key.status === 'revoked') throw conflict('ekey_revoked', 'A revoked eKey cannot be changed; send a new one.');
    this.assertDoorCodeAllowed(lock, doorCode);
    const updated: StoredEKey = { ...key, ...merged, updated_at: now };
    this.deps.transaction(() => {
      if (key.type === 'owner' && merged.type !== 'owner') this.assertNotLastOwnerKey(key);
      this.deps.ekeys.update(updated);
      this.deps.doorCodeService?.afterUpdate(key, updated, doorCode);
    });
    this.changes.notify(lock.id);
    return this.view(updated, lock, callerId);
  }

  /**
   * `DELETE /ekey/{id}`: revokes (status `revoked`, unusable at once) or, with `purge`, deletes
   * (revokes and removes the record). A guest-role holder deleting its own key gives it up:
   * revoked and removed. Returns the key as revoked. 404 unseen key, 403 not allowed,
   * 409 `last_owner_key`. Revoking a revoked key again changes nothing.
   */
  remove(callerId: string, ekeyId: string, options: RemoveEKeyOptions = {}): EKeyView {
    const now = this.deps.clock.now();
    const { key, lock } = this.visibleKey(callerId, ekeyId, now);
    const role = this.actingRole(callerId, key, lock, now);
    const givesUp = role === 'guest' && key.user_id === callerId;
    const action: EKeyAction = options.purge === true || givesUp ? 'delete' : 'revoke';
    this.assertAllowed(role, action, key, callerId);
    const revoked: StoredEKey =
      key.status === 'revoked' ? key : { ...key, status: 'revoked', revoked_at: now, updated_at: now };
    this.deps.transaction(() => {
      if (key.type === 'owner' && key.status === 'accepted') this.assertNotLastOwnerKey(key);
      if (revoked !== key) this.deps.ekeys.update(revoked);
      if (action === 'delete') this.deps.ekeys.delete(key.id);
      // Its last pending key gone, the invitation closes with it (docs/design.md §9b).
      if (key.status === 'pending') this.deps.invitations.closeIfWithdrawn(key.user_id, now);
      this.deps.doorCodeService?.afterRemove(key);
    });
    this.changes.notify(lock.id);
    if (key.status !== 'revoked') this.changes.notifyLifecycle({ kind: 'revoked', key: revoked });
    return this.view(revoked, lock, callerId);
  }

  /**
   * The user's key on the lock if it is usable at `atMs` (accepted, inside its validity window and
   * schedule), else undefined. Commands and taps call this at the moment they happen.
   */
  usableKeyFor(userId: string, lockId: string, atMs: number): StoredEKey | undefined {
    const lock = this.deps.locks.findById(normalizeId(lockId));
    if (!lock) return undefined;
    const key = this.deps.ekeys.findLive(normalizeId(userId), lock.id);
    return key && isUsableAt(key, atMs, lock.timeZone) ? key : undefined;
  }

  /**
   * The user's role on the lock at `atMs` from their usable key, or null without one (or for an
   * unknown lock). Asked on every request that touches a lock; usability is decided for `atMs`
   * each time, only the lock's zone and the user's keys come from the holdings cache.
   */
  roleOn(userId: string, lockId: string, atMs: number): EKeyRole | null {
    const holding = this.holdingOn(normalizeId(userId), normalizeId(lockId));
    return holding ? roleOnLock(holding.keys, atMs, holding.timeZone) : null;
  }

  private holdingOn(userId: string, lockId: string): LockHolding | undefined {
    const key = `${userId} ${lockId}`;
    const cached = this.deps.holdings?.get(key);
    if (cached) return cached;
    const lock = this.deps.locks.findById(lockId);
    if (!lock) return undefined;
    const holding: LockHolding = { timeZone: lock.timeZone, keys: this.deps.ekeys.listByUserOnLock(userId, lock.id) };
    this.deps.holdings?.set(key, holding);
    return holding;
  }

  /**
   * Whether `callerId` may see user `targetId` (docs/design.md §3 Users): the target holds a live key on a
   * lock where the caller is owner or admin now. Installed into UserService.setVisibility.
   */
  canSeeUser(callerId: string, targetId: string): boolean {
    const now = this.deps.clock.now();
    const target = normalizeId(targetId);
    return this.deps.ekeys.listByUser(callerId).some((key) => {
      if (key.status !== 'accepted' || (key.type !== 'owner' && key.type !== 'admin')) return false;
      const lock = this.deps.locks.findById(key.lock_id);
      if (!lock || !isUsableAt(key, now, lock.timeZone)) return false;
      return this.deps.ekeys.findLive(target, lock.id) !== undefined;
    });
  }

  /**
   * The wire form of a key with its door code as `callerId` may see it (docs/design.md §4c: the
   * digits of an owner or admin key go to its holder alone). `role`: the caller's, when known.
   */
  private view(key: StoredEKey, lock: LockRecord, callerId: string, role?: EKeyRole | null): EKeyView {
    const now = this.deps.clock.now();
    const viewer = { userId: callerId, role: role === undefined ? this.roleOnRecord(callerId, lock, now) : role };
    return toEKeyView(key, lock.timeZone, this.doorCodeOf(key, viewer, now));
  }

  private doorCodeOf(key: EKey, viewer: DoorCodeViewer, now: number): DoorCodeView | null {
    return this.deps.doorCodeService?.view(key, viewer, now) ?? null;
  }

  /** Whether `door_code` in a PUT asks for a change: a code for a key without a live one, or taking a live one away. */
  private doorCodeChanges(key: StoredEKey, doorCode: boolean): boolean {
    const state = this.doorCodeOf(key, { userId: key.user_id, role: null }, this.deps.clock.now())?.state;
    const live = state !== undefined && state !== 'removing' && state !== 'removed';
    return doorCode !== live;
  }

  private assertDoorCodeAllowed(lock: LockRecord, doorCode: boolean | undefined): void {
    if (doorCode !== true) return;
    if (this.deps.doorCodeService === undefined) {
      throw new ServiceError(400, 'lock_has_no_keypad', `${lock.name} has no keypad, so its eKeys cannot carry a door code.`);
    }
    this.deps.doorCodeService.assertAllowed(lock, doorCode);
  }

  private roleOnRecord(userId: string, lock: LockRecord, atMs: number): EKeyRole | null {
    return roleOnLock(this.deps.ekeys.listByUserOnLock(userId, lock.id), atMs, lock.timeZone);
  }

  /**
   * The role a caller acts in on `key`: from their usable key on the lock; failing that, a holder
   * keeps the guest-role rights over their own key (rename it, give it up) even while it is
   * pending, outside its window or revoked — the "self" column of the spec's table.
   */
  private actingRole(callerId: string, key: StoredEKey, lock: LockRecord, now: number): EKeyRole | null {
    return this.roleOnRecord(callerId, lock, now) ?? (key.user_id === callerId ? 'guest' : null);
  }

  private visibleKey(callerId: string, ekeyId: string, now: number): { key: StoredEKey; lock: LockRecord } {
    const key = this.deps.ekeys.findById(normalizeId(ekeyId));
    const lock = key ? this.deps.locks.findById(key.lock_id) : undefined;
    if (!key || !lock) throw notFound('eKey');
    if (key.user_id === callerId) return { key, lock };
    const role = this.roleOnRecord(callerId, lock, now);
    if (role === 'owner' || role === 'admin') return { key, lock };
    throw notFound('eKey');
  }

  private lockOr404(lockId: string): LockRecord {
    const lock = this.deps.locks.findById(normalizeId(lockId));
    if (!lock) throw notFound('lock');
    return lock;
  }

  private assertAllowed(
    role: EKeyRole | null,
    action: EKeyAction,
    targetKey: Pick<EKey, 'type' | 'user_id'>,
    callerId: string,
    newType?: EKeyType,
  ): void {
    const decision = checkPermission({ role, action, targetKey, callerUserId: callerId, ...(newType ? { newType } : {}) });
    if (decision.allowed) return;
    if (decision.reason === 'no_role') throw forbidden('no_usable_ekey', 'You hold no usable eKey on this lock.');
    throw forbidden(decision.reason, DENIAL_MESSAGES[decision.reason]);
  }

  private assertNotLastOwnerKey(key: StoredEKey): void {
    if (this.deps.ekeys.countOtherOwnerKeys(key.lock_id, key.id) === 0) {
      throw conflict('last_owner_key', 'This is the last owner eKey of the lock; give another user an owner eKey first.');
    }
  }
}

/** The actions a patch attempts, judged by the properties it carries (used when it is invalid). */
function attemptedActions(patch: EKeyPatch): EKeyAction[] {
  const actions: EKeyAction[] = [];
  if (patch.type !== undefined) actions.push('grant');
  if (patch.name !== undefined || patch.message !== undefined) actions.push('rename');
  const { valid_from, valid_to, schedule_start, schedule_end } = patch;
  if ([valid_from, valid_to, schedule_start, schedule_end].some((value) => value !== undefined)) actions.push('reschedule');
  return actions;
}

/** An owner or admin key that was revoked or has expired: its holder's sending right is withdrawn. */
function hadSendingRight(key: StoredEKey, now: number): boolean {
  if (roleOfType(key.type) === 'guest') return false;
  return key.status === 'revoked' || (key.status === 'accepted' && key.valid_to !== null && key.valid_to <= now);
}

function invitedUser(email: string, now: number): UserRecord {
  return {
    id: newId(),
    email,
    // A placeholder until the invited person chooses a name on sign-up.
    name: email.split('@')[0] ?? email,
    passwordHash: null,
    ekeyQuota: null,
    canSendEkeys: true,
    createdAt: now,
  };
}

function sendingWithdrawn(): ServiceError {
  return unprocessable('ekey_sending_withdrawn', 'You are no longer allowed to send eKeys for this lock.');
}

function ekeyExists(): ServiceError {
  return conflict('ekey_exists', 'This user already holds an eKey for this lock; change it with PUT /ekey/{id} instead.');
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
