import type { ActivitySource, DeviceInformation, LockAction } from '../domain/lock-vocabulary.js';

/**
 * The port between the HomeKit adapter and the access service: everything the Homebridge
 * platform needs, and nothing more. The service implements it (`ServiceRoot.homekitPort()`);
 * the platform's unit tests use `test/support/in-memory-lock-port.ts`.
 *
 * Rules every implementation keeps:
 * - `listLocks`, `getLock` and `resolveUser` answer from memory (or a local SQLite read): HomeKit
 *   calls them on its own read path, which must never wait on Bluetooth.
 * - `requestBolt` never rejects: every outcome, refusals included, is a {@link HomeKitCommandResult}.
 * - Listeners are called synchronously or soon after the change, in the order changes happen.
 */
export interface LockPort {
  /** Every lock HomeKit should show, from memory. Locks that left the config are not listed. */
  listLocks(): HomeKitLock[];

  /** One lock's current state, from memory; undefined for an unknown id. */
  getLock(lockId: string): HomeKitLock | undefined;

  /**
   * Registers a listener for state changes and taps. Returns the function that unsubscribes.
   * A listener that throws must not break delivery to the others.
   */
  subscribe(listener: LockChangeListener): () => void;

  /**
   * Moves the bolt on behalf of a user through the same command engine and eKey rules as
   * `POST /locks/{id}/commands` (the command appears in the history with that requester).
   * Resolves when the command reaches a terminal state or is refused; never rejects.
   */
  requestBolt(lockId: string, target: HomeKitBoltTarget, asUserId: string): Promise<HomeKitCommandResult>;

  /** Looks up a user by e-mail (case-insensitive); null when nobody has that address. */
  resolveUser(email: string): HomeKitUser | null;
}

/** Bolt state as the service shows it (docs/design.md §3 `bolt_state`). */
export type HomeKitBolt = 'locked' | 'unlocked' | 'jammed' | 'unknown';

/** A position HomeKit may ask for. */
export type HomeKitBoltTarget = 'locked' | 'unlocked';

/** A lock as HomeKit sees it: identity, owner and state, all from memory. */
export interface HomeKitLock {
  /** The service's lock id (UUID); the accessory UUID is derived from it. */
  id: string;
  /** Display name (the lock's configured name). */
  name: string;
  /** BLE address `AA:BB:CC:DD:EE:FF`; HomeKit's serial number unless the family names one (a Nuki: its Nuki ID). */
  bleAddress: string;
  /** Lock family (`ekey`, `nuki`). */
  family: string;
  /** User id of the lock's owner: HomeKit acts as this user unless `homekit.user_email` is set. */
  ownerId: string;
  /** Last settled bolt position; a move in progress keeps the previous value (see `moving`). */
  bolt: HomeKitBolt;
  /** True while the motor moves. */
  moving: boolean;
  /** Reachable now (docs/design.md §3 "online"). False also for a lock with no gateway connection. */
  online: boolean;
  /** Battery on the 0..1 scale; null until the first reading. */
  batteryLevel: number | null;
  /** What moved the bolt last; null when unknown. */
  lastActivitySource: ActivitySource | null;
  /** Device Information Service strings; null until first read from the lock. */
  deviceInformation: DeviceInformation | null;
  /** The door sensor, for locks that have one (a Nuki with its door sensor); null otherwise or until read. */
  door: HomeKitDoor | null;
}

/** A door sensor's reading. */
export type HomeKitDoor = 'closed' | 'open' | 'unknown';

/** A person HomeKit can act as, or an arrival trigger is for. */
export interface HomeKitUser {
  id: string;
  name: string;
  email: string;
}

/** A change the platform reflects in HomeKit. Each kind carries the new value. */
export type LockChange =
  /** The bolt settled (or jammed, or became unknown); `source` is what moved it, null if unknown. */
  | { kind: 'bolt'; lockId: string; bolt: HomeKitBolt; source: ActivitySource | null }
  /** The motor started or stopped moving. */
  | { kind: 'moving'; lockId: string; moving: boolean }
  /** A new battery reading, 0..1. */
  | { kind: 'battery'; lockId: string; level: number }
  /** The lock became reachable or unreachable. */
  | { kind: 'connectivity'; lockId: string; online: boolean }
  /** The door sensor changed (locks with one). */
  | { kind: 'door'; lockId: string; door: HomeKitDoor }
  /** Device Information was read (after a connect). */
  | { kind: 'device_information'; lockId: string; deviceInformation: DeviceInformation }
  /**
   * A user tapped the lock: an eKey holder with a key usable at that moment, or a Nuki
   * authorization linked to that user (docs/design.md §4b). Live taps only: records read back after a
   * reconnect are not arrivals.
   */
  | { kind: 'tap'; lockId: string; userId: string; action: LockAction }
  /** Locks were added to or removed from the service; the platform re-reads `listLocks()`. */
  | { kind: 'locks_changed' };

/** Receives {@link LockChange}s. */
export type LockChangeListener = (change: LockChange) => void;

/** Why a command ran and failed (docs/design.md §3 "Commands" terminal `failure_reason`s). */
export type HomeKitCommandFailure = 'jammed' | 'timeout' | 'delivery_failed' | 'lock_offline' | 'interrupted' | 'superseded';

/** Why a command was not even queued. */
export type HomeKitCommandRefusal =
  /** The acting user holds no usable eKey on the lock right now (HTTP would say 403). */
  | 'no_usable_key'
  /** The lock has no gateway connection or cannot be reached (HTTP would say 400). */
  | 'lock_unreachable'
  /** The lock's command queue is full (HTTP would say 429). */
  | 'queue_full'
  /** No such lock or user (anymore). */
  | 'unknown_lock'
  | 'unknown_user'
  /** The service is stopping or failed unexpectedly; details are in the service's log. */
  | 'unavailable';

/** The outcome of {@link LockPort.requestBolt}: a value, never an exception. */
export type HomeKitCommandResult =
  /** The lock confirmed the new bolt position. */
  | { status: 'completed'; bolt: HomeKitBoltTarget; commandId: string }
  /** The command was queued and ended `failed`. */
  | { status: 'failed'; reason: HomeKitCommandFailure; commandId: string }
  /** The command was refused before it was queued. */
  | { status: 'rejected'; reason: HomeKitCommandRefusal };

/** What the platform needs from the embedded service to offer it to HomeKit. */
export interface LockPortProvider {
  /** The service's HomeKit port; called once after the service has started. */
  homekitPort(): LockPort;
}
