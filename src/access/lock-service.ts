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
import { capabilitiesOf, commandTypesOf } from '../families/registry.js';
import { ServiceError, forbidden, notFound, validationFailed } from '../domain/errors.js';
import { MAX_CONTINUOUS_LIMIT_MINUTES, continuousModeEndsAt, type OpenerModeName } from '../domain/opener-mode.js';
import type { OpenerModeRepository } from '../store/opener-mode-repository.js';
import { normalizeId } from '../domain/ids.js';
import type { EKeyRepository, StoredEKey } from '../store/ekey-repository.js';
import type { LockRecord, LockRepository } from '../store/lock-repository.js';
import type { LockGatewayView } from './gateway-service.js';

/** A lock's `bolt_state` is the last position it drove to, not a reading (docs/design.md §4f). */
export type BoltStateSource = 'assumed';

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
  /**
   * docs/design.md §4f, on a lock that cannot sense its bolt only: `assumed` — `bolt_state` is the
   * last position the lock drove to (a command, its keypad), which a turn by hand does not change.
   * Absent where the bolt state is a reading.
   */
  bolt_state_source?: BoltStateSource;
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
  /** docs/design.md §4d, on a lock with Opener modes only: the mode it is in now. */
  opener_mode?: OpenerModeName;
  /**
   * Who switched the mode on through the service, for the lock's owners and admins; null for
   * everyone else, when it is off, or when it was switched on elsewhere (the vendor's app).
   */
  opener_mode_set_by?: { id: string; name: string } | null;
  /** When the service switches Continuous Mode off by the owner's cap (ISO 8601 UTC); null otherwise. */
  opener_mode_until?: string | null;
  /** The owner's cap on Continuous Mode in minutes, for owners and admins; null: none (or not shown). */
  continuous_mode_limit_minutes?: number | null;
  /**
   * docs/design.md §4e, for the lock's owners and admins only: the gateway device that reaches it
   * now (the host's adapter or a Bluetooth proxy) and how well; null while none hears it.
   */
  gateway?: LockGatewayView | null;
}

/** How the lock list learns which gateway reaches a lock (src/access/gateway-service.ts). */
export type LockGatewayLookup = (lock: LockRecord) => LockGatewayView | null;

/** `PUT /locks/{lock_id}/opener-settings`: the owner's settings of an Opener. */
export interface OpenerSettings {
  /** Continuous Mode is switched off after this many minutes (1 to a week); null: never. */
  continuous_mode_limit_minutes: number | null;
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
  /** The Openers' modes (docs/design.md §4d); without it no lock shows one. */
  openerModes?: OpenerModeRepository;
  /** Names the person who switched a mode on. */
  users?: { findById(id: string): { id: string; name: string } | undefined };
  clock: Clock;
  /** Seconds without a sign of life after which a lock counts as offline (config `offline_after_s`). */
  offlineAfterS?: number;
}

/** Lists and looks up locks with the visibility rule "holds a usable eKey on it now". */
export class LockService {
  private presence: LockPresence;
  private gatewayOf: LockGatewayLookup = () => null;
  private openerSettingsChanged: (lockId: string) => void = () => undefined;

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

  /** Installs the lookup of each lock's gateway device (docs/design.md §4e); until then none hears any lock. */
  setGatewayLookup(lookup: LockGatewayLookup): void {
    this.gatewayOf = lookup;
  }

  /** Installs who hears of a changed Opener setting (the mode guard: a new cap may be due now). */
  onOpenerSettingsChanged(listener: (lockId: string) => void): void {
    this.openerSettingsChanged = listener;
  }

  /**
   * `PUT /locks/{lock_id}/opener-settings` (docs/design.md §4d): an owner caps Continuous Mode. 404
   * for a lock the caller cannot see; 403 `owner_only` for anyone but an owner; 400
   * `lock_has_no_opener_modes` for a lock without the Opener's modes. A cap that has already run
   * out switches Continuous Mode off at once.
   */
  setOpenerSettings(callerId: string, lockId: string, settings: OpenerSettings): OpenerSettings {
    const now = this.deps.clock.now();
    const { lock, role } = this.findVisible(callerId, lockId, now);
    if (role !== 'owner') throw forbidden('owner_only', `Only an owner of ${lock.name} may change its Opener settings.`);
    const modes = this.deps.openerModes;
    if (modes === undefined || !hasOpenerModes(lock)) {
      throw new ServiceError(400, 'lock_has_no_opener_modes', `${lock.name} has no Ring to Open or Continuous Mode.`, [
        { field: '/continuous_mode_limit_minutes', message: 'the lock has no Continuous Mode' },
      ]);
    }
    const limit = settings.continuous_mode_limit_minutes;
    if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONTINUOUS_LIMIT_MINUTES)) {
      throw validationFailed([{ field: '/continuous_mode_limit_minutes', message: `must be a whole number of minutes from 1 to ${MAX_CONTINUOUS_LIMIT_MINUTES}, or null` }]);
    }
    modes.save({ ...modes.read(lock.id, now), continuousLimitMinutes: limit, updatedAt: now });
    this.openerSettingsChanged(lock.id);
    return { continuous_mode_limit_minutes: limit };
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
      ...(capabilitiesOf(lock.family).boltAssumed === true ? { bolt_state_source: 'assumed' as const } : {}),
      time_zone: lock.timeZone,
      battery_level: lock.batteryLevel,
      last_seen_at: lock.lastSeenAt === null ? null : new Date(lock.lastSeenAt).toISOString(),
      your_role: role,
      ekey_id: key.id,
      keypad: lock.keypad,
      supported_commands: [...commandTypesOf(lock.family)],
      ...this.openerView(lock, role, now),
      // docs/design.md §4e: how the lock is reached is for its owners and admins only.
      ...(role === 'owner' || role === 'admin' ? { gateway: this.gatewayOf(lock) } : {}),
    };
  }

  /** The Opener fields of the lock-list entry (docs/design.md §4d); none for a lock without modes. */
  private openerView(lock: LockRecord, role: EKeyRole, now: number): Pick<LockView, 'opener_mode' | 'opener_mode_set_by' | 'opener_mode_until' | 'continuous_mode_limit_minutes'> {
    const modes = this.deps.openerModes;
    if (modes === undefined || !hasOpenerModes(lock)) return {};
    const record = modes.read(lock.id, now);
    const manages = role === 'owner' || role === 'admin';
    const setter = manages && record.setBy !== null ? this.deps.users?.findById(record.setBy) : undefined;
    const until = continuousModeEndsAt(record);
    return {
      opener_mode: record.mode,
      opener_mode_set_by: setter === undefined ? null : { id: setter.id, name: setter.name },
      opener_mode_until: until === null ? null : new Date(until).toISOString(),
      continuous_mode_limit_minutes: manages ? record.continuousLimitMinutes : null,
    };
  }
}

/** Whether the lock has the Opener's modes: its family's capabilities say (docs/design.md §4d). */
function hasOpenerModes(lock: Pick<LockRecord, 'family'>): boolean {
  return capabilitiesOf(lock.family).opener;
}
