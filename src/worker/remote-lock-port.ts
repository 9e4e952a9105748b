import type { BoltTarget } from '../domain/lock-vocabulary.js';
import type { LockCommandType } from '../domain/lock-command-type.js';
import type {
  CommandResult,
  PortCommandOptions,
  PortLock,
  PortUser,
  LockChange,
  LockChangeListener,
  LockPort,
} from '../lock-port/lock-port.js';
import type { Logger } from '../logger.js';
import { normalizeWatchedEmail, type WatchedUsers } from './service-protocol.js';
import { describeError } from '../domain/errors.js';

/** Sends a command request to the service; may reject (the port turns that into `unavailable`). */
export type CommandRequester = (lockId: string, type: LockCommandType, asUserId: string, options?: PortCommandOptions) => Promise<CommandResult>;

const copyLock = (lock: PortLock): PortLock => ({
  ...lock,
  deviceInformation: lock.deviceInformation === null ? null : { ...lock.deviceInformation },
  modes: lock.modes === null ? null : { ...lock.modes },
  capabilities: { ...lock.capabilities },
});

/**
 * The LockPort on Homebridge's main thread when the service runs on a worker thread.
 *
 * Reads answer synchronously from a mirror: the snapshot the worker sends once it listens, then
 * every change, applied to the mirror before any listener sees it (in the order the worker sent
 * them). Each change carries the lock as the service sees it right after the change, so
 * `getLock` answers exactly what the in-process port would. `resolveUser` answers for the e-mails
 * the platform uses (homekit.user_email, arrival_triggers), which the worker keeps up to date.
 * `requestBolt` is a call to the worker and never rejects; once the worker is gone it answers
 * `unavailable` and every lock shows offline.
 */
export class RemoteLockPort implements LockPort {
  private readonly locks = new Map<string, PortLock>();
  private users = new Map<string, PortUser | null>();
  private readonly listeners = new Set<LockChangeListener>();
  private gone = false;

  constructor(
    private readonly request: CommandRequester,
    private readonly logger: Logger,
  ) {}

  /** Replaces the mirror with the worker's snapshot (no listener is called). */
  applySnapshot(locks: readonly PortLock[], users: WatchedUsers): void {
    this.replaceLocks(locks);
    this.applyUsers(users);
  }

  /** Replaces the watched users. */
  applyUsers(users: WatchedUsers): void {
    this.users = new Map(Object.entries(users).map(([email, user]) => [normalizeWatchedEmail(email), user === null ? null : { ...user }]));
  }

  /**
   * Applies one change from the worker, then tells the listeners. `lock` is the lock after the
   * change (null: it is gone); `locks` replaces the whole list (for `locks_changed`).
   */
  applyChange(change: LockChange, lock?: PortLock | null, locks?: readonly PortLock[]): void {
    if (this.gone) return;
    if (locks !== undefined) this.replaceLocks(locks);
    if (change.kind !== 'locks_changed') {
      if (lock === null) this.locks.delete(change.lockId);
      else if (lock !== undefined) this.locks.set(lock.id, copyLock(lock));
      else this.patch(change);
    }
    this.deliver(change);
  }

  /**
   * The worker is gone (crashed, or stopped): commands answer `unavailable` from now on, and every
   * lock still online goes offline, so its accessory shows StatusFault. Idempotent.
   */
  markGone(): void {
    if (this.gone) return;
    const online = [...this.locks.values()].filter((lock) => lock.online);
    for (const lock of online) {
      lock.online = false;
      this.deliver({ kind: 'connectivity', lockId: lock.id, online: false });
    }
    this.gone = true;
  }

  listLocks(): PortLock[] {
    return [...this.locks.values()].map(copyLock);
  }

  getLock(lockId: string): PortLock | undefined {
    const lock = this.locks.get(lockId);
    return lock === undefined ? undefined : copyLock(lock);
  }

  subscribe(listener: LockChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  requestBolt(lockId: string, target: BoltTarget, asUserId: string, options?: PortCommandOptions): Promise<CommandResult> {
    return this.requestCommand(lockId, target === 'locked' ? 'lock' : 'unlock', asUserId, options);
  }

  async requestCommand(lockId: string, type: LockCommandType, asUserId: string, options?: PortCommandOptions): Promise<CommandResult> {
    if (this.gone) return { status: 'rejected', reason: 'unavailable' };
    try {
      return await this.request(lockId, type, asUserId, options);
    } catch (error) {
      this.logger.debug(`HomeKit command on ${lockId} not answered by the service: ${describeError(error)}`);
      return { status: 'rejected', reason: 'unavailable' };
    }
  }

  resolveUser(email: string): PortUser | null {
    const user = this.users.get(normalizeWatchedEmail(email));
    if (user === undefined) {
      this.logger.debug(`resolveUser(${email}): not an e-mail the platform watches; answered null`);
      return null;
    }
    return user === null ? null : { ...user };
  }

  private replaceLocks(locks: readonly PortLock[]): void {
    this.locks.clear();
    for (const lock of locks) this.locks.set(lock.id, copyLock(lock));
  }

  /** Applies a change that came without the lock (kept for robustness; the worker always sends it). */
  private patch(change: Exclude<LockChange, { kind: 'locks_changed' }>): void {
    const lock = this.locks.get(change.lockId);
    if (lock === undefined) return;
    switch (change.kind) {
      case 'bolt':
        lock.bolt = change.bolt;
        if (change.source !== null) lock.lastActivitySource = change.source;
        break;
      case 'moving':
        lock.moving = change.moving;
        break;
      case 'battery':
        lock.batteryLevel = change.level;
        break;
      case 'connectivity':
        lock.online = change.online;
        break;
      case 'door':
        lock.door = change.door;
        break;
      case 'modes':
        lock.modes = { ...change.modes };
        break;
      case 'device_information':
        lock.deviceInformation = { ...change.deviceInformation };
        lock.serialNumber = change.serialNumber;
        break;
      case 'tap':
      case 'ring':
      case 'event':
        break;
    }
  }

  private deliver(change: LockChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.logger.error(`A HomeKit lock listener failed: ${describeError(error)}`);
      }
    }
  }
}
