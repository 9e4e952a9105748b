/**
 * The words every lock family, the gateway and every adapter share: what a bolt can be, what a
 * lock did and who did it. A family's wire codes for them stay in its folder (src/families/).
 */

/** A bolt's state as the service shows it everywhere (docs/design.md §3 "Locks": `bolt_state`). */
export type Bolt = 'locked' | 'unlocked' | 'jammed' | 'unknown';

/** A position a command may ask the bolt to take. */
export type BoltTarget = 'locked' | 'unlocked';

/** A door sensor's reading, for locks that have one. */
export type DoorState = 'closed' | 'open' | 'unknown';

/** The modes of a Nuki Opener (docs/design.md §4d), as it reports them in its state. */
export interface OpenerModes {
  ringToOpen: boolean;
  continuousMode: boolean;
}

/** Why a command ran and failed (docs/design.md §3 "Commands": terminal `failure_reason`s). */
export type CommandFailure = 'jammed' | 'timeout' | 'delivery_failed' | 'lock_offline' | 'interrupted' | 'superseded';

/** Why a command was not even queued. */
export type CommandRefusal =
  /** The acting user holds no usable eKey on the lock right now (the API answers 403 or 404). */
  | 'no_usable_key'
  /** The acting user's key does not allow this command: an Opener mode below admin (the API answers 403). */
  | 'not_permitted'
  /** The lock has no gateway connection or cannot be reached (the API answers 400). */
  | 'lock_unreachable'
  /** The lock's command queue is full (the API answers 429). */
  | 'queue_full'
  /** The acting user sent this lock too many commands in a short time (the API answers 429). */
  | 'rate_limited'
  /** The lock's family cannot run this command type (docs/design.md §4d; the API answers 400). */
  | 'unsupported_command'
  /** No such lock or user (anymore). */
  | 'unknown_lock'
  | 'unknown_user'
  /** The service is stopping or failed unexpectedly; details are in the service's log. */
  | 'unavailable';

/** Bolt positions as a lock reports them over the air (`moving` while the motor runs). */
export type BoltPosition = 'unlocked' | 'locked' | 'jammed' | 'moving';

/** What a lock did: lock or unlock. */
export type LockAction = 'lock' | 'unlock';

/** Who or what moved the bolt. */
export type ActivitySource = 'tap' | 'remote' | 'manual' | 'triple_tap' | 'fob' | 'auto';

/**
 * One entry of a lock's activity log, whatever its family (our profile's record:
 * docs/ble-protocol.md "Activity"; a Nuki's log entries map onto it).
 */
export interface ActivityRecord {
  /** The lock's sequence number: starts at 1, +1 per record, never reused. */
  sequence: number;
  action: LockAction;
  source: ActivitySource;
  /** The tapping eKey's id (lower-case UUID) for `tap`; null for every other source. */
  credential: string | null;
  /**
   * The name of the lock-side authorization that acted (a Nuki app or bridge authorization), for
   * families whose locks keep their own user list; absent for our profile.
   */
  actor?: string | null;
  /** The unlock pulled the latch (a Nuki Smart Lock's unlatch); absent for our profile. */
  unlatched?: boolean;
  /**
   * Not a bolt move: a ring at a Nuki Opener (docs/design.md §4d), `opened` when Ring to Open or
   * Continuous Mode opened the door on it. `action` is then `unlock` when opened, else `lock`.
   */
  ring?: { opened: boolean };
  /**
   * The id, on the lock, of the keypad code that was typed (a Nuki Keypad entry, docs/design.md
   * §4c); the service turns it into the eKey whose door code it is. Absent for every other record.
   */
  keypadCodeId?: number;
  /**
   * Not a bolt move: a code typed at the lock's keypad that the lock refused (docs/design.md §4c;
   * `action` is what was asked for). Which code it was is not in the record: a wrong code may be
   * one digit off a real one, so it is never carried.
   */
  keypadRefused?: true;
  /** When the bolt moved, by the lock's clock, ms since the Unix epoch. */
  timestamp: number;
}

/** The four Device Information Service strings the gateway reads (every family reports them). */
export interface DeviceInformation {
  /** Manufacturer Name String (0x2A29). */
  manufacturer: string;
  /** Model Number String (0x2A24). */
  model: string;
  /** Serial Number String (0x2A25). */
  serial: string;
  /** Firmware Revision String (0x2A26). */
  firmware: string;
}
