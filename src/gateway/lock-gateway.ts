import type { LockCommandType } from '../domain/lock-command-type.js';
import { EventEmitter } from 'node:events';
import type { Clock } from '../domain/clock.js';
import { failed, type CommandOutcome } from './command-outcome.js';
import type { CredentialEntry, LockDriver } from './lock-driver.js';
import type { Advertisement, GattTransport } from './gatt-transport.js';
import type { LockGatewayEvents } from './gateway-events.js';
import type { GatewayLogger } from './gateway-logger.js';
import type { LockSnapshot } from './lock-snapshot.js';
import { ManagedLock, type ManagedLockSettings } from './managed-lock.js';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './reconnect-backoff.js';
import { describeError, describeFault } from '../domain/errors.js';

export type { CredentialEntry } from './lock-driver.js';
import type { KeypadAccess, KeypadSessionResult } from './keypad-access.js';

/** A lock the gateway should manage. */
export interface LockRegistration {
  /** The service's lock id (UUID); events carry it. */
  id: string;
  /** BLE address `AA:BB:CC:DD:EE:FF` (any case). */
  address: string;
  /** Human name, for logs. */
  name: string;
  /** The lock family's protocol driver (src/families/<family>/driver/), one instance per lock. */
  driver: LockDriver;
}

/** Gateway settings; every field has a default. */
export interface LockGatewayOptions {
  /** Budget for finding + connecting + resolving GATT, ms (default 10 000). */
  connectTimeoutMs?: number;
  /** Default command timeout, ms, counted from the `sendCommand` call (default 15 000, docs/design.md §3). */
  commandTimeoutMs?: number;
  /** A lock not connected and not heard from for this long is offline, s (default 120, docs/design.md §3). */
  offlineAfterS?: number;
  /** Budget of each read and of the activity read-back after a connect, ms (default 5 000). */
  operationTimeoutMs?: number;
  /** Reconnect backoff (default 1 s doubling to 60 s). */
  reconnectBackoff?: Partial<BackoffPolicy>;
  /** How often reachability is re-evaluated to emit `connectivity`, ms (default 1 000). */
  presenceCheckIntervalMs?: number;
  /**
   * The highest activity sequence the caller has stored for a lock. Asked on every (re)connect;
   * records after it are read back from the lock and emitted with `backlog: true`. Without it
   * the gateway uses the highest sequence it emitted since it was constructed (0 at first).
   */
  lastSequence?: (lockId: string) => number | undefined | Promise<number | undefined>;
}

/**
 * The gateway facade: the one object the lock runtime (src/locks/lock-runtime.ts) uses to reach
 * locks. Each lock's link follows its driver's connection policy (our profile's locks are kept
 * connected and reconnected with backoff; a Nuki is reached on demand, when a command or its
 * advertisement asks); the gateway answers state from memory, runs commands one at a time per
 * lock and reports changes as events.
 *
 * Events (typed, see {@link LockGatewayEvents}): `bolt`, `battery`, `connectivity`, `activity`,
 * `door`, `moving`, `device_information`.
 *
 * @example
 * const gateway = new LockGateway(new SimulatorTransport([lock]), systemClock, silentLogger, { commandTimeoutMs: 15_000 });
 * gateway.on('activity', ({ lockId, record }) => log.info(`${lockId}: ${record.action} by ${record.source}`));
 * gateway.addLock({ id, address: 'AA:BB:CC:DD:EE:01', name: 'Front door', driver: new EKeyDriver(keyHex) });
 * gateway.start();
 * const outcome = await gateway.sendCommand(id, 'unlock'); // { status: 'completed', bolt: 'unlocked' }
 */
export class LockGateway extends EventEmitter<LockGatewayEvents> {
  private readonly locks = new Map<string, ManagedLock>();
  /** Registered locks by upper-case address: every advertisement nearby is looked up here. */
  private readonly byAddress = new Map<string, ManagedLock[]>();
  private readonly commandTimeoutMs: number;
  private readonly settings: ManagedLockSettings;
  private readonly presenceCheckIntervalMs: number;
  private presenceTimer: NodeJS.Timeout | null = null;
  private stopWatching: (() => void) | null = null;
  private started = false;

  constructor(
    private readonly transport: GattTransport,
    private readonly clock: Clock,
    private readonly logger: GatewayLogger,
    private readonly options: LockGatewayOptions = {},
  ) {
    super();
    this.commandTimeoutMs = options.commandTimeoutMs ?? 15_000;
    this.presenceCheckIntervalMs = options.presenceCheckIntervalMs ?? 1_000;
    this.settings = {
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      operationTimeoutMs: options.operationTimeoutMs ?? 5_000,
      offlineAfterMs: (options.offlineAfterS ?? 120) * 1000,
      backoff: { ...DEFAULT_BACKOFF, ...options.reconnectBackoff },
    };
  }

  /**
   * Registers a lock; once started, the gateway connects to it as its driver's connection
   * policy says. Replaces nothing: adding an id twice throws.
   * @throws Error on a duplicate id.
   */
  addLock(registration: LockRegistration): void {
    if (this.locks.has(registration.id)) throw new Error(`Lock ${registration.id} is already registered.`);
    const lock = new ManagedLock(registration.id, registration.address.toUpperCase(), registration.name, registration.driver, {
      transport: this.transport,
      clock: this.clock,
      logger: this.logger,
      settings: this.settings,
      emit: (event, ...payload) => {
        try {
          // Node's typed emit cannot relate a generic key to its payload; the context's signature does.
          EventEmitter.prototype.emit.call(this, event, ...payload);
        } catch (error) {
          // A listener's bug must not break the connection that delivered the event (or crash
          // the process from a notification callback).
          this.logger.error(`A '${event}' listener failed: ${describeFault(error)}`);
        }
      },
      lastSequence: async (lockId) => {
        try {
          return await this.options.lastSequence?.(lockId);
        } catch (error) {
          // Without the stored sequence, read back from what this gateway emitted last: a
          // failing store must not keep the lock disconnected.
          this.logger.error(`lastSequence(${lockId}) failed: ${describeError(error)}`);
          return undefined;
        }
      },
    });
    this.locks.set(registration.id, lock);
    this.byAddress.set(lock.address, [...(this.byAddress.get(lock.address) ?? []), lock]);
    if (this.started) {
      this.watchAdvertisementsWhenNeeded();
      lock.start();
    }
  }

  /** Disconnects and forgets a lock; a command in flight ends `delivery_failed`. No events follow. */
  async removeLock(lockId: string): Promise<void> {
    const lock = this.locks.get(lockId);
    if (lock === undefined) return;
    this.locks.delete(lockId);
    const sharing = (this.byAddress.get(lock.address) ?? []).filter((candidate) => candidate !== lock);
    if (sharing.length === 0) this.byAddress.delete(lock.address);
    else this.byAddress.set(lock.address, sharing);
    await lock.stop();
  }

  /** Starts connecting to every registered lock and watching reachability. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.watchAdvertisementsWhenNeeded();
    for (const lock of this.locks.values()) lock.start();
    this.presenceTimer = setInterval(() => {
      this.checkPresence();
    }, this.presenceCheckIntervalMs);
    this.presenceTimer.unref();
  }

  /** Disconnects every lock and stops all timers; then closes the transport. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.presenceTimer !== null) clearInterval(this.presenceTimer);
    this.presenceTimer = null;
    this.stopWatching?.();
    this.stopWatching = null;
    const locks = [...this.locks.values()];
    this.locks.clear();
    this.byAddress.clear();
    await Promise.all(locks.map((lock) => lock.stop()));
    await this.transport.close();
  }

  /**
   * Locks or unlocks. Resolves with the outcome, never rejects: `completed` only when the lock
   * confirmed the bolt position; `lock_offline` for an unknown id or an unreachable lock.
   * Commands to one lock run one at a time in call order; `timeoutMs` counts from this call.
   */
  async sendCommand(lockId: string, action: LockCommandType, options: { timeoutMs?: number } = {}): Promise<CommandOutcome> {
    const lock = this.locks.get(lockId);
    if (lock === undefined) {
      this.logger.warn(`Command for unknown lock ${lockId}.`);
      return failed('lock_offline');
    }
    try {
      return await lock.sendCommand(action, options.timeoutMs ?? this.commandTimeoutMs);
    } catch (error) {
      // A bug below must not escape as an exception to the command engine: report it, fail the command.
      this.logger.error(`Command to ${lock.name} failed unexpectedly: ${describeFault(error)}`);
      return failed('delivery_failed');
    }
  }

  /**
   * Sets the credentials (eKey ids with an expiry) the lock accepts taps from
   * (docs/ble-protocol.md "Credentials"). The gateway keeps this set per lock: when connected it
   * writes the difference at once, queued with commands; on every (re)connect it writes the whole
   * list. Never rejects (failures are logged and retried on the next connect or call); resolves
   * when this push is done. An unknown id resolves at once.
   */
  async setCredentials(lockId: string, entries: readonly CredentialEntry[]): Promise<void> {
    const lock = this.locks.get(lockId);
    if (lock === undefined) return;
    try {
      await lock.setCredentials(entries);
    } catch (error) {
      this.logger.error(`Credentials for ${lock.name} failed unexpectedly: ${describeFault(error)}`);
    }
  }

  /**
   * Runs keypad work (docs/design.md §4c) on the lock, queued with its commands, connecting on
   * demand; `timeoutMs` bounds the whole session (default: the command timeout). Never rejects for
   * a lock fault: `lock_offline` for an unknown or unreachable lock, `no_keypad` for a family
   * without one; errors thrown by `work` (KeypadError) reach the caller.
   */
  async keypadSession<T>(lockId: string, work: (keypad: KeypadAccess) => Promise<T>, timeoutMs?: number): Promise<KeypadSessionResult<T>> {
    const lock = this.locks.get(lockId);
    if (lock === undefined) return { status: 'lock_offline' };
    return lock.keypadSession(work, timeoutMs ?? this.commandTimeoutMs);
  }

  /** Resolves once the lock's connect in progress and queued credential pushes are done (at once for an unknown id). */
  async credentialsSettled(lockId: string): Promise<void> {
    await this.locks.get(lockId)?.credentialsSettled();
  }

  /** Connected now, or heard from within `offlineAfterS` (docs/design.md §3). False for unknown ids. */
  isReachable(lockId: string): boolean {
    return this.locks.get(lockId)?.isReachable() ?? false;
  }

  /** State from memory; undefined for an unknown id. */
  getSnapshot(lockId: string): LockSnapshot | undefined {
    return this.locks.get(lockId)?.snapshot();
  }

  /** Ids of the registered locks. */
  lockIds(): string[] {
    return [...this.locks.keys()];
  }

  /**
   * Reads the lock's state and log again (connecting on demand); its `synchronised` event follows
   * once both are read. Resolves true once a read that started after this call has read both,
   * false when it could not (an unknown id, a lock that cannot be driven or is out of reach).
   */
  refresh(lockId: string): Promise<boolean> {
    return this.locks.get(lockId)?.refresh() ?? Promise.resolve(false);
  }

  /**
   * Scans for advertisements while at least one on-demand lock is registered: their presence
   * and their "news" flag come from there (docs/ble-protocol.md "Connection policy").
   */
  private watchAdvertisementsWhenNeeded(): void {
    if (this.stopWatching !== null) return;
    if (![...this.locks.values()].some((lock) => lock.connectionPolicy.kind === 'on_demand')) return;
    this.stopWatching = this.transport.watchAdvertisements((advertisement) => {
      this.onAdvertisement(advertisement);
    });
  }

  private onAdvertisement(advertisement: Advertisement): void {
    for (const lock of this.byAddress.get(advertisement.address.toUpperCase()) ?? []) lock.advertisement(advertisement);
  }

  /** Re-evaluates reachability of every lock now (the interval calls this; tests with a manual clock may too). */
  checkPresence(): void {
    for (const lock of this.locks.values()) lock.refreshPresence();
  }
}
