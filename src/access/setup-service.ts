/**
 * What the Homebridge UI settings page may ask of the running service (homebridge-ui/server.js,
 * docs/architecture.md "The settings page"): every lock with its live state, whether each lock
 * owner's account is active, and creating a lock owner's account while it is still only invited.
 * The caller proves it runs as the Homebridge user with the setup token of the status file
 * (src/store/settings-ui-file.ts); routes/setup.ts checks it before anything here runs.
 */
import type { Bolt, DoorState, OpenerModes } from '../domain/lock-vocabulary.js';
import { conflict, notFound, unauthorized, validationFailed } from '../domain/errors.js';
import { constantTimeEqual, newToken } from '../auth/secrets.js';
import { capabilitiesOf, commandTypesOf, familyDisplayName } from '../families/registry.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { UserRepository } from '../store/user-repository.js';
import type { InvitationService } from './invitation-service.js';
import type { OnlineStatus } from './lock-service.js';

export interface SetupLock {
  id: string;
  name: string;
  family: string;
  /** What the lock is, in words ("Nuki Smart Lock"). */
  family_name: string;
  /**
   * What it can do beyond lock and unlock, as the page names it: `keypad` (a keypad is paired:
   * door codes), `unlatch` (opens the door), `opener` (an intercom's door opener: its modes, not a
   * bolt), `door_sensor` (reports the door open or closed).
   */
  features: ('keypad' | 'unlatch' | 'opener' | 'door_sensor')[];
  /** An Opener's modes, as it last reported them; null for other locks or before it reported. */
  modes: { ring_to_open: boolean; continuous_mode: boolean } | null;
  bolt_state: Bolt;
  online_status: OnlineStatus;
  battery_level: number | null;
  last_seen_at: string | null;
  gateway: boolean;
  owner_email: string;
}

export interface SetupOwner {
  email: string;
  /** false while the account is only invited (no password yet): the settings page can create it. */
  active: boolean;
}

/** docs/design.md §4e: one gateway device as the settings page lists it (state and free slots). */
export interface SetupGateway {
  id: string;
  name: string;
  kind: 'host' | 'esphome';
  state: 'online' | 'offline' | 'unauthorized' | 'unavailable';
  address: string | null;
  connections_free: number | null;
  connections_limit: number | null;
}

/** docs/design.md §12: one rental calendar as the settings page lists it (never its link: a secret). */
export interface SetupCalendar {
  id: string;
  /** The names of the locks its stays open. */
  locks: string[];
  state: 'ok' | 'failing';
  last_refresh_at: string | null;
  last_error: string | null;
  /** Stays upcoming or under way. */
  bookings: number;
}

export interface SetupStatus {
  locks: SetupLock[];
  owners: SetupOwner[];
  gateways: SetupGateway[];
  calendars: SetupCalendar[];
}

export interface SetupServiceDependencies {
  locks: LockRepository;
  users: UserRepository;
  invitations: InvitationService;
  onlineStatus: (lockId: string) => OnlineStatus;
  /** What the lock last reported beyond its bolt: an Opener's modes, a door sensor's door. */
  reported?: (lockId: string) => { modes: OpenerModes | null; door: DoorState | null } | undefined;
  /** Every gateway device now (docs/design.md §4e); none without it. */
  gateways?: () => SetupGateway[];
  /** Every rental calendar and its state (docs/design.md §12); none without it. */
  calendars?: () => SetupCalendar[];
}

const MAX_NAME_LENGTH = 100;

export class SetupService {
  /** New at every start; written only to the status file (mode 0600), never logged. */
  readonly token = newToken();

  constructor(private readonly deps: SetupServiceDependencies) {}

  /** Accepts `Authorization: Bearer <setup token>` (scheme case-insensitive). @throws 401 otherwise */
  authenticate(authorization: string | undefined): void {
    const match = /^bearer +(\S+)$/i.exec(authorization ?? '');
    if (!match?.[1] || !constantTimeEqual(match[1], this.token)) throw unauthorized('The setup token of the settings-ui.json status file is required.');
  }

  status(): SetupStatus {
    const owners = new Map<string, SetupOwner>();
    const locks: SetupLock[] = [];
    for (const lock of this.deps.locks.list()) {
      const owner = this.deps.users.findById(lock.ownerId);
      const email = owner?.email ?? '';
      if (owner) owners.set(owner.email, { email: owner.email, active: owner.passwordHash !== null });
      const commands = commandTypesOf(lock.family);
      const reported = this.deps.reported?.(lock.id);
      const features: SetupLock['features'] = [];
      if (lock.keypad) features.push('keypad');
      if (commands.includes('unlatch')) features.push('unlatch');
      if (capabilitiesOf(lock.family).opener) features.push('opener');
      if ((reported?.door ?? null) !== null) features.push('door_sensor');
      const modes = reported?.modes ?? null;
      locks.push({
        id: lock.id,
        name: lock.name,
        family: lock.family,
        family_name: familyDisplayName(lock.family),
        features,
        modes: modes === null ? null : { ring_to_open: modes.ringToOpen, continuous_mode: modes.continuousMode },
        bolt_state: lock.boltState,
        online_status: this.deps.onlineStatus(lock.id),
        battery_level: lock.batteryLevel,
        last_seen_at: lock.lastSeenAt === null ? null : new Date(lock.lastSeenAt).toISOString(),
        gateway: lock.overBluetooth,
        owner_email: email,
      });
    }
    locks.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return { locks, owners: [...owners.values()].sort((a, b) => a.email.localeCompare(b.email)), gateways: this.deps.gateways?.() ?? [], calendars: this.deps.calendars?.() ?? [] };
  }

  /**
   * Creates the account of a lock's owner: only for an e-mail that owns a lock, and only while that
   * account is invited (the config created it without a password). Activation goes through the
   * invitation service, exactly as `ekey-locks user add` and an invitation link do.
   * @throws 404 `not_a_lock_owner`, 409 `owner_account_exists`, 400 for a bad name or password
   */
  async createOwner(input: { email: string; name: string; password: string }): Promise<{ id: string; email: string; name: string }> {
    const name = input.name.trim();
    if (name === '' || name.length > MAX_NAME_LENGTH) throw validationFailed([{ field: '/name', message: `must be 1 to ${MAX_NAME_LENGTH} characters` }]);
    const user = this.deps.users.findByEmail(input.email.trim());
    const ownsALock = user !== undefined && this.deps.locks.list().some((lock) => lock.ownerId === user.id);
    if (!user || !ownsALock) throw notFound('lock owner');
    if (user.passwordHash !== null) {
      throw conflict('owner_account_exists', `The account of ${user.email} already exists: sign in to the web app with it.`);
    }
    const activated = await this.deps.invitations.activateInvited(user.email, { name, password: input.password });
    return { id: activated.userId, email: activated.email, name };
  }
}
