/**
 * Locks as their users see them: the lock list of `GET /users/{id}/locks` and the "may this
 * caller see this lock" lookup other services share (docs/design.md §3 Locks). A lock is visible to
 * whoever holds a usable eKey on it now; to anyone else it does not exist (404).
 */
import type { Bolt } from '../domain/lock-vocabulary.js';
import type { Clock } from '../domain/clock.js';
import { roleOfType } from '../domain/ekey-permissions.js';
import type { EKeyRole } from '../domain/ekey-permissions.js';
import { isUsableAt } from '../domain/ekey-validity.js';
import type { LockCommandType } from '../domain/lock-command-type.js';
import { commandTypesOf } from '../families/registry.js';
import { notFound } from '../domain/errors.js';
import { normalizeId } from '../domain/ids.js';
import type { EKeyRepository, StoredEKey } from '../store/ekey-repository.js';
import type { LockRecord, LockRepository } from '../store/lock-repository.js';

/** Connectivity of a lock (docs/design.md §3 Locks). */
export type OnlineStatus = 'online' | 'offline';

/** Decides whether a lock is online now; the gateway installs its own with {@link LockService.setPresence}. */
export type LockPresence = (lock: LockRecord, now: number) => OnlineStatus;

/**
 * A lock in a user's lock list: the spec's four fields first (id, name, bolt_state,
 * online_status), then ours.
 */
export interface LockView {
  id: string;
  name: string;
  bolt_state: Bolt;
  online_status: OnlineStatus;
  /** The lock's IANA zone: eKey DateTimes of this lock are read and written in it. */
  time_zone: string;
  /** 0 to 1, or null before the lock first reported it. */
  battery_level: number | null;
  /** When the gateway last heard from the lock, ISO 8601 UTC with milliseconds; null if never. */
  last_seen_at: string | null;
  /** The caller's role on the lock, from their usable eKey. */
  your_role: EKeyRole;
  /** The caller's usable eKey on the lock. */
  ekey_id: string;
  /** A keypad is paired with the lock: its eKeys can carry door codes (docs/design.md §4c). */
  keypad: boolean;
  /**
   * The command types this lock runs (docs/design.md §4d): `lock` and `unlock` everywhere, `unlatch`
   * on a Nuki Smart Lock, the Opener's mode switches on an Opener. The web app offers `Open` by it.
   */
  supported_commands: LockCommandType[];
}

/** A lock the caller may see, with the key that lets them. */
export interface VisibleLock {
  lock: LockRecord;
  key: StoredEKey;
  role: EKeyRole;
}

export interface LockServiceDependencies {
  locks: LockRepository;
  ekeys: EKeyRepository;
  clock: Clock;
  /** Seconds without a sign of life after which a lock counts as offline (config `offline_after_s`). */
  offlineAfterS?: number;
}

/** Lists and looks up locks with the visibility rule "holds a usable eKey on it now". */
export class LockService {
  private presence: LockPresence;

  constructor(private readonly deps: LockServiceDependencies) {
    const offlineAfterMs = (deps.offlineAfterS ?? 120) * 1000;
    // Until the gateway installs its live view: online when it was heard from recently.
    this.presence = (lock, now) =>
      lock.overBluetooth && lock.lastSeenAt !== null && now - lock.lastSeenAt < offlineAfterMs ? 'online' : 'offline';
  }

  /** Installs the gateway's notion of "online" (connected, or advertising recently). */
  setPresence(presence: LockPresence): void {
    this.presence = presence;
  }

  /**
   * `GET /users/{user_id}/locks`: the locks `userId` holds a usable eKey of any type for, by name.
   * Only for oneself: anyone else's list is 404, whether or not that user exists.
   */
  listForUser(callerId: string, userId: string): LockView[] {
    if (normalizeId(userId) !== callerId) throw notFound('user');
    const now = this.deps.clock.now();
    const views: LockView[] = [];
    for (const key of this.deps.ekeys.listByUser(callerId)) {
      if (key.status !== 'accepted') continue;
      const lock = this.deps.locks.findById(key.lock_id);
      if (lock && isUsableAt(key, now, lock.timeZone)) views.push(this.view({ lock, key, role: roleOfType(key.type) }, now));
    }
    return views.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  /**
   * The lock if `callerId` holds a usable eKey on it at `atMs` (default now), with that key and the
   * role it gives; otherwise 404 `not_found`, the same as for a lock that does not exist.
   */
  findVisible(callerId: string, lockId: string, atMs: number = this.deps.clock.now()): VisibleLock {
    const lock = this.deps.locks.findById(normalizeId(lockId));
    const key = lock ? this.deps.ekeys.findLive(callerId, lock.id) : undefined;
    if (!lock || !key || !isUsableAt(key, atMs, lock.timeZone)) throw notFound('lock');
    return { lock, key, role: roleOfType(key.type) };
  }

  /** The lock-list entry of a visible lock. */
  view(visible: VisibleLock, now: number = this.deps.clock.now()): LockView {
    const { lock, key, role } = visible;
    return {
      id: lock.id,
      name: lock.name,
      bolt_state: lock.boltState,
      online_status: this.presence(lock, now),
      time_zone: lock.timeZone,
      battery_level: lock.batteryLevel,
      last_seen_at: lock.lastSeenAt === null ? null : new Date(lock.lastSeenAt).toISOString(),
      your_role: role,
      ekey_id: key.id,
      keypad: lock.keypad,
      supported_commands: [...commandTypesOf(lock.family)],
    };
  }
}
