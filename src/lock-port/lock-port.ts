import type { LockCommandType } from '../domain/lock-command-type.js';
import type { ActivitySource, Bolt, BoltTarget, CommandFailure, CommandRefusal, DeviceInformation, DoorState, LockAction, OpenerModes } from '../domain/lock-vocabulary.js';

/**
 * The one port between the access service and every ecosystem adapter (HomeKit in src/homekit/,
 * Matter in src/matter/, and whatever comes next), in neutral words: bolt, door, command result.
 * Each adapter maps these to its own values; the service implements the port
 * (src/locks/service-lock-port.ts, `ServiceRoot.lockPort()`), the worker bridge carries it to
 * Homebridge's thread (src/worker/remote-lock-port.ts), and adapter unit tests use
 * `test/support/in-memory-lock-port.ts`.
 *
 * Rules every implementation keeps:
 * - `listLocks`, `getLock` and `resolveUser` answer from memory (or a local SQLite read): adapters
 *   call them on their own read paths, which must never wait on Bluetooth.
 * - `requestBolt` never rejects: every outcome, refusals included, is a {@link CommandResult}.
 * - Listeners are called synchronously or soon after the change, in the order changes happen.
 */
export interface LockPort {
  /** Every lock the adapters should show, from memory. Locks that left the config are not listed. */
  listLocks(): PortLock[];

  /** One lock's current state, from memory; undefined for an unknown id. */
  getLock(lockId: string): PortLock | undefined;

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
  requestBolt(lockId: string, target: BoltTarget, asUserId: string, options?: PortCommandOptions): Promise<CommandResult>;

  /**
   * Any command the lock's family runs (`PortLock.commands`: unlatch, the Opener's modes; docs/design.md
   * §4d), with the same rules and outcome as {@link requestBolt}. Never rejects.
   */
  requestCommand(lockId: string, type: LockCommandType, asUserId: string, options?: PortCommandOptions): Promise<CommandResult>;

  /** Looks up a user by e-mail (case-insensitive); null when nobody has that address. */
  resolveUser(email: string): PortUser | null;
}

/** A lock as every adapter sees it: identity, owner and state, all from memory. */
export interface PortLock {
  /** The service's lock id (UUID); the accessory UUID is derived from it. */
  id: string;
  /** Display name (the lock's configured name). */
  name: string;
  /** BLE address `AA:BB:CC:DD:EE:FF`. */
  bleAddress: string;
  /**
   * The serial number every ecosystem shows: the lock's own where its maker's app shows one (a
   * Nuki: its Nuki ID, once read), else its Bluetooth address, else its id. The service decides it
   * (its family knows); adapters only show it.
   */
  serialNumber: string;
  /** What the lock can do beyond its commands (a keypad, a door sensor, an intercom's opener). */
  capabilities: PortCapabilities;
  /**
   * The command types the lock's family runs (docs/design.md §4d): `unlatch` where the lock can
   * pull its latch, the Opener's `ring_to_open_on` … `continuous_mode_off`. Adapters offer a control
   * only when its command is listed (no adapter asks which family a lock is).
   */
  commands: readonly LockCommandType[];
  /** A Nuki Opener's Ring to Open and Continuous Mode, as it last reported them; null for other locks or until read. */
  modes: OpenerModes | null;
  /** User id of the lock's owner: HomeKit and Matter act as this user unless `homekit.user_email` is set. */
  ownerId: string;
  /** Last settled bolt position; a move in progress keeps the previous value (see `moving`). */
  bolt: Bolt;
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
  door: DoorState | null;
}

/** What a lock can do, in the port's neutral words (never which family it is). */
export interface PortCapabilities {
  /** A keypad is paired with it: its eKeys can carry door codes. */
  keypad: boolean;
  /** It may report a door sensor. */
  doorSensor: boolean;
  /** An intercom's door opener: modes and a strike, no bolt. */
  opener: boolean;
  /**
   * The bolt state is assumed, not read: the last position the lock drove to (a turn by hand goes
   * unseen). Adapters show it as it is and never make up a change (docs/design.md §4f).
   */
  boltAssumed: boolean;
}

/** A person an adapter can act as, or an arrival trigger is for. */
export interface PortUser {
  id: string;
  name: string;
  email: string;
}

/**
 * Which adapter asked for a command, and what it requires beyond a usable key. HomeKit and Matter
 * pass nothing (origin `homekit`); the MQTT adapter passes `mqtt` and `managersOnly`
 * (docs/design.md §11: its acting user must own or administer the lock).
 */
export interface PortCommandOptions {
  /** Where the command came from; recorded with it, and how its event says it came about. Default `homekit`. */
  origin?: PortCommandOrigin;
  /** Refuse (`not_permitted`) unless the acting user is the lock's owner or an admin of it. */
  managersOnly?: boolean;
}

/** The adapters that send commands through the port. */
export type PortCommandOrigin = 'homekit' | 'mqtt';

/**
 * How a lock event came about (docs/design.md §11): a door code at the keypad; the app (an eKey
 * tap, the web app, an API client, Home Assistant); HomeKit (the Home app, Siri, a Matter
 * controller through Homebridge); a turn by hand at the lock; the lock by itself (auto-lock, a mode
 * the service switched off); or not known (a key fob, a ring).
 */
export type LockEventMethod = 'keypad' | 'app' | 'homekit' | 'manual' | 'auto' | 'unknown';

/**
 * Something that happened at a lock, with who and how — what the house's other systems are told
 * (MQTT's `event`, the webhooks' `lock.*` and `opener.ring`). Every lock or unlock event of the
 * history (taps, door codes, remote commands) and every ring, plus what the history does not
 * record but a house wants to hear: a turn by hand, an auto-lock, a jam.
 */
export interface PortLockEvent {
  kind: 'locked' | 'unlocked' | 'jammed' | 'ring';
  /** The event's id in the lock's history (`GET /locks/{id}/events`); null for what the history does not record. */
  eventId: string | null;
  /** Who did it (the performer), null when nobody or unknown. */
  user: { id: string; name: string } | null;
  method: LockEventMethod;
  /** When it happened, ms since the epoch. */
  at: number;
  /** An unlock that pulled the latch (docs/design.md §4d). */
  unlatched: boolean;
  /** A ring the Opener opened the door on (docs/design.md §4d). */
  opened: boolean;
  /** The Opener mode this event switched on (`unlocked`) or off (`locked`), or null. */
  mode: 'ring_to_open' | 'continuous_mode' | null;
  /** The eKey whose door code was typed at the keypad (docs/design.md §4c), or null. */
  doorCodeEkeyId: string | null;
  /** The rental stay whose door code was typed at the keypad (docs/design.md §12), or null. */
  booking: { uid: string; summary: string } | null;
  /** The remote command that did it, or null. */
  commandId: string | null;
}

/** A change every adapter reflects. Each kind carries the new value. */
export type LockChange =
  /** The bolt settled (or jammed, or became unknown); `source` is what moved it, null if unknown. */
  | { kind: 'bolt'; lockId: string; bolt: Bolt; source: ActivitySource | null }
  /** The motor started or stopped moving. */
  | { kind: 'moving'; lockId: string; moving: boolean }
  /** A new battery reading, 0..1. */
  | { kind: 'battery'; lockId: string; level: number }
  /** The lock became reachable or unreachable. */
  | { kind: 'connectivity'; lockId: string; online: boolean }
  /** The door sensor changed (locks with one). */
  | { kind: 'door'; lockId: string; door: DoorState }
  /** A Nuki Opener's modes changed (docs/design.md §4d). */
  | { kind: 'modes'; lockId: string; modes: OpenerModes }
  /**
   * Someone rang at a Nuki Opener's intercom (docs/design.md §4d); `opened`: its mode opened the
   * door. Live rings only: rings read back after a reconnect are history, not a doorbell.
   */
  | { kind: 'ring'; lockId: string; opened: boolean }
  /** Device Information was read (after a connect); the serial number may follow from it. */
  | { kind: 'device_information'; lockId: string; deviceInformation: DeviceInformation; serialNumber: string }
  /**
   * A user tapped the lock: an eKey holder with a key usable at that moment, or a Nuki
   * authorization linked to that user (docs/design.md §4b). Live taps only: records read back after a
   * reconnect are not arrivals.
   */
  | { kind: 'tap'; lockId: string; userId: string; action: LockAction }
  /** Something happened at the lock, with who and how ({@link PortLockEvent}); it changes no state. */
  | { kind: 'event'; lockId: string; event: PortLockEvent }
  /** Locks were added to or removed from the service; the platform re-reads `listLocks()`. */
  | { kind: 'locks_changed' };

/** Receives {@link LockChange}s. */
export type LockChangeListener = (change: LockChange) => void;

/** The outcome of {@link LockPort.requestBolt}: a value, never an exception. */
export type CommandResult =
  /** The lock confirmed the new bolt position. */
  | { status: 'completed'; bolt: BoltTarget; commandId: string }
  /** The command was queued and ended `failed`. */
  | { status: 'failed'; reason: CommandFailure; commandId: string }
  /** The command was refused before it was queued. */
  | { status: 'rejected'; reason: CommandRefusal };
