import type { LockCommandType } from '../domain/lock-command-type.js';
import type { ActivityRecord, ActivitySource, DeviceInformation, DoorState, OpenerModes } from '../domain/lock-vocabulary.js';
import type { Clock } from '../domain/clock.js';
import type { CommandOutcome } from './command-outcome.js';
import type { Deadline } from './deadline.js';
import type { Advertisement, GattConnection, GattProfile } from './gatt-transport.js';
import type { GatewayLogger } from './gateway-logger.js';
import type { KeypadCapability } from './keypad-access.js';

/**
 * How the gateway core holds a lock's link (docs/ble-protocol.md "Connection policy"):
 * - `keep_connected`: always connected, reconnecting with backoff (our profile: mains or large
 *   batteries, notifications carry every change at once);
 * - `on_demand`: connected only to run a command or to read state and log, then released after
 *   `idleDisconnectMs`; presence comes from advertisements (the Nuki: a held link drains its
 *   batteries and locks out its own app). With `retryPauseMs`, a lock that drops links by itself
 *   or wakes only briefly is tried again within the command's own deadline: a connect that fails,
 *   or a link that drops before the lock answered a command, is attempted anew after that pause
 *   while the deadline lasts (one connect per attempt; the family declares that its commands are
 *   absolute — lock, unlock — so a repeat cannot act twice). Without it: one attempt.
 */
export type ConnectionPolicy = { kind: 'keep_connected' } | { kind: 'on_demand'; idleDisconnectMs: number; retryPauseMs?: number };

/** A bolt position a driver reports; `moving` while the motor runs, `unknown` when the lock does not know. */
export type ReportedBolt = 'locked' | 'unlocked' | 'jammed' | 'moving' | 'unknown';

/** What the core gives a driver: the lock's identity, time, logging, and where observations go. */
export interface DriverContext {
  /** The service's lock id. */
  readonly lockId: string;
  /** Human name, for log lines. */
  readonly name: string;
  readonly clock: Clock;
  readonly logger: GatewayLogger;
  /** Budget of each read or request/answer exchange outside commands, ms. */
  readonly operationTimeoutMs: number;
  /** The bolt position the lock reports now, and what moved it (null when unknown). */
  reportBolt(bolt: ReportedBolt, source: ActivitySource | null): void;
  /** Battery level on the service's 0..1 scale. */
  reportBattery(level: number): void;
  /** Door sensor state, for locks that have one. */
  reportDoor(door: DoorState): void;
  /** The modes of a Nuki Opener (Ring to Open, Continuous Mode), as its state reports them. */
  reportModes(modes: OpenerModes): void;
  /**
   * One activity record (a bolt move in the lock's log). The core drops records at or below the
   * highest sequence it has delivered, so overlapping reads are harmless.
   */
  reportActivity(record: ActivityRecord): void;
  /** The highest activity sequence delivered (or stored by the caller), the start of the next read-back. */
  highestSequence(): number;
  /** The lock's log restarted (reset or replaced): follow its numbering from `sequence` on. */
  restartSequenceAt(sequence: number): void;
  /** The lock told us it has something new: the core connects, reads state and log (on-demand locks). */
  requestRefresh(): void;
}

/**
 * One lock family's protocol over the generic GATT transport. The core
 * ({@link ../managed-lock.ManagedLock}) owns the link, the command queue, deadlines, presence
 * and the state in memory; a driver only turns bytes into observations and commands into
 * exchanges. One driver instance per lock.
 *
 * On every connection the core calls, in this order: {@link readState},
 * {@link readDeviceInformation} (until it once returned information), {@link prepare},
 * {@link readActivitySince}. Commands run only on a connection that finished these.
 */
export interface LockDriver {
  /** Family name as configured (`ekey`, `nuki`). */
  readonly family: string;
  /** The GATT characteristics this family needs. */
  readonly profile: GattProfile;
  readonly connectionPolicy: ConnectionPolicy;
  /**
   * Why this driver cannot work at all (e.g. a Nuki lock that was never paired), or null. A lock
   * whose driver is unusable stays offline and the core never connects to it.
   */
  readonly unusableReason: string | null;
  /** Called once, before anything else. */
  attach(context: DriverContext): void;
  /** Reads bolt, battery (and door) and reports them. @throws on a failed read: the connect fails. */
  readState(connection: GattConnection): Promise<void>;
  /** Manufacturer, model, serial, firmware; null when the lock does not offer them. Never throws. */
  readDeviceInformation(connection: GattConnection): Promise<DeviceInformation | null>;
  /** Family-specific work after the state is read (our profile: write the credential list). Never throws. */
  prepare(connection: GattConnection): Promise<void>;
  /**
   * Reads the lock's log after `sequence` and reports each record; resolves once the lock said
   * the read-back is complete. @throws when it does not complete in time.
   */
  readActivitySince(connection: GattConnection, sequence: number): Promise<void>;
  /**
   * Runs a command on a prepared connection; `completed` only on the lock's confirmation. The
   * engine sends only the types of the driver's family (docs/design.md §4d). Never throws.
   */
  executeCommand(connection: GattConnection, action: LockCommandType, deadline: Deadline): Promise<CommandOutcome>;
  /** One notification or indication from the lock. Never throws. */
  handleNotification(connection: GattConnection, characteristic: string, value: Buffer): void;
  /** The link dropped: whatever waits for an answer gives up now. */
  linkLost(): void;
  /**
   * An advertisement from the lock's address. True when it flags news (the core then refreshes
   * an on-demand lock). Every advertisement counts as "seen" for presence.
   */
  interpretAdvertisement(advertisement: Advertisement): boolean;
  /** Optional capability: the credential allow-list of our profile (docs/ble-protocol.md "Credentials"). */
  readonly credentials?: CredentialCapability;
  /** Optional capability: the keypad codes the lock stores (docs/design.md §4c). */
  readonly keypad?: KeypadCapability;
}

/** One credential the lock should accept taps from (docs/ble-protocol.md "Credentials"). */
export interface CredentialEntry {
  /** The eKey id (UUID, any case). */
  credential: string;
  /** Ms since the Unix epoch; the lock drops the credential by its own clock at this instant. */
  validUntil: number;
}

/** A driver that keeps an allow-list on the lock. */
export interface CredentialCapability {
  /** Records the list the lock should hold; the core then queues {@link push}. */
  setDesired(entries: readonly CredentialEntry[]): void;
  /** Writes the difference (or everything after a reconnect) on a prepared connection. @throws on failure. */
  push(connection: GattConnection): Promise<void>;
}
