import type { BoltTarget } from '../domain/lock-vocabulary.js';
import type { MatterAccessory, MatterAPI } from 'homebridge';
import type { CommandResult, PortLock, LockChange, LockPort } from '../lock-port/lock-port.js';
import type { Logger } from '../logger.js';
import { buildMatterDoorLock, doorLockState, matterLabel, matterLockUuid, powerSourceState, reachability, type MatterLockContext } from './matter-door-lock.js';
import { matterCommandError, matterRefusal, type MatterCommandError } from './matter-command-outcome.js';
import { describeError, describeFault } from '../domain/errors.js';

/** What the Matter view shares with the HomeKit view (the `homekit` config block). */
export interface MatterLockSettings {
  /** Power Source BatChargeLevel turns Warning strictly below this battery level (0..1). */
  lowBatteryThreshold: number;
  /** The user a command acts as (the HomeKit user, docs/design.md §5b); null refuses the command. */
  actingUserId: (lock: PortLock) => string | null;
}

/** Tunables, for tests. */
export interface MatterLocksOptions {
  /** How often to look whether Homebridge has finished building a registered endpoint (ms). */
  readyPollMs?: number;
  /** How long to wait for that before pushing anyway (ms). */
  readyTimeoutMs?: number;
  /** Attempts of a registration Homebridge refuses because its Matter server is still starting. */
  registerAttempts?: number;
  /** Pause between those attempts (ms). */
  registerRetryMs?: number;
}

/** One lock's Matter endpoint as this adapter tracks it. */
interface MatterLockEntry {
  uuid: string;
  /** As registered (Homebridge's unregister reads its device type). */
  accessory: MatterAccessory;
  name: string;
  /** True once Homebridge has the endpoint: state pushes before that would be lost, so they wait. */
  ready: boolean;
  /** Pushes run one after another, in the order the changes happened. */
  chain: Promise<void>;
}

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * The Matter view of the locks (docs/design.md §5b): every lock of the port as a Matter DoorLock through
 * Homebridge's Matter API, next to the HomeKit view and reading the same port and mapping.
 *
 * - Restored accessories (`configureMatterAccessory`) are collected before start; start registers
 *   every lock (Homebridge attaches a restored one to its existing endpoint, so controllers keep
 *   it) and unregisters the cached ones whose lock left the config — or all of them when the
 *   platform option `matter` is false.
 * - Every bolt, battery or reachability change is pushed at once (`updateAccessoryState`), in
 *   order per lock.
 * - LockDoor/UnlockDoor run a command as the HomeKit user and resolve only when the lock confirmed
 *   it; otherwise they throw Homebridge's Busy (queue full) or Failure status and push the real
 *   state back, so no controller shows a position the bolt is not in.
 * No error escapes into Homebridge: each is logged and stays with its lock.
 */
/** After an Opener's strike, how long until its real state (Locked) is pushed: after Homebridge has set Unlocked. */
const STRIKE_STATE_PUSH_DELAY_MS = 250;

export class MatterLocks {
  private readonly cached = new Map<string, MatterAccessory>();
  private readonly entries = new Map<string, MatterLockEntry>();
  private port: LockPort | undefined;
  private settings: MatterLockSettings | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private readonly readyPollMs: number;
  private readonly readyTimeoutMs: number;
  private readonly registerAttempts: number;
  private readonly registerRetryMs: number;
  /** Reconciliations run one at a time (a `locks_changed` during start-up waits its turn). */
  private reconciling: Promise<void> = Promise.resolve();

  constructor(
    private readonly matter: MatterAPI,
    private readonly logger: Logger,
    private readonly pluginName: string,
    private readonly platformName: string,
    /** False when the platform option `matter` is false: cached locks are removed, none is added. */
    private readonly enabled: boolean,
    options: MatterLocksOptions = {},
  ) {
    this.readyPollMs = options.readyPollMs ?? 100;
    this.readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
    this.registerAttempts = options.registerAttempts ?? 5;
    this.registerRetryMs = options.registerRetryMs ?? 2_000;
  }

  /** Homebridge hands back a Matter accessory from its cache (before start); kept until start reconciles. */
  restore(accessory: MatterAccessory): void {
    this.cached.set(accessory.UUID, accessory);
  }

  /**
   * Registers the port's locks and follows their changes; resolves once the registrations are
   * sent. Never rejects: a Matter fault is logged and leaves HomeKit and the service running.
   */
  async start(port: LockPort, settings: MatterLockSettings): Promise<void> {
    this.port = port;
    this.settings = settings;
    try {
      if (this.enabled) {
        this.unsubscribe = port.subscribe((change) => {
          this.onChange(change);
        });
      }
      await this.reconcile();
    } catch (error) {
      this.logger.error(`Matter: door locks could not be set up: ${describeFault(error)}`);
    }
  }

  /**
   * Removes every door lock restored from the cache, for a platform that shows no locks at all
   * (not configured). Never rejects.
   */
  async removeCached(): Promise<void> {
    const stale = [...this.cached.values()];
    this.cached.clear();
    if (stale.length === 0) return;
    for (const accessory of stale) this.logger.info(`Removed Matter door lock ${accessory.displayName}: no lock is configured`);
    await this.attempt('unregister', () => this.matter.unregisterPlatformAccessories(this.pluginName, this.platformName, stale));
  }

  /** Stops following changes; later command outcomes and pushes are dropped. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Lock ids shown in Matter now (for tests and logs). */
  lockIds(): string[] {
    return [...this.entries.keys()];
  }

  private reconcile(): Promise<void> {
    const run = this.reconciling.then(() => this.reconcileNow());
    this.reconciling = run.catch(() => undefined);
    return run;
  }

  private async reconcileNow(): Promise<void> {
    if (this.stopped) return;
    const port = this.port;
    const settings = this.settings;
    if (!port || !settings) return;
    const locks = this.enabled ? port.listLocks() : [];
    const wanted = new Set(locks.map((lock) => matterLockUuid(this.matter, lock.id)));

    const added: MatterAccessory[] = [];
    for (const lock of locks) {
      const known = this.entries.get(lock.id);
      if (known) {
        if (known.name !== lock.name) this.rename(lock.id, known, lock.name);
        continue;
      }
      const accessory = this.build(lock, settings);
      if (accessory === undefined) continue;
      const fromCache = this.cached.delete(accessory.UUID);
      this.entries.set(lock.id, { uuid: accessory.UUID, accessory, name: lock.name, ready: false, chain: Promise.resolve() });
      added.push(accessory);
      this.logger.info(`${fromCache ? 'Restored' : 'Added'} Matter door lock ${lock.name}`);
    }

    const stale: MatterAccessory[] = [...this.cached.values()].filter((accessory) => !wanted.has(accessory.UUID));
    this.cached.clear();
    for (const [lockId, entry] of this.entries) {
      if (wanted.has(entry.uuid)) continue;
      this.entries.delete(lockId);
      stale.push(entry.accessory);
    }

    if (stale.length > 0) {
      for (const accessory of stale) this.logger.info(`Removed Matter door lock ${accessory.displayName}: its lock is no longer shown in Matter`);
      await this.attempt('unregister', () => this.matter.unregisterPlatformAccessories(this.pluginName, this.platformName, stale));
    }
    if (added.length > 0) {
      const registered = await this.attempt('register', () => this.matter.registerPlatformAccessories(this.pluginName, this.platformName, added));
      if (!registered) return;
      for (const accessory of added) {
        const lockId = (accessory.context as MatterLockContext).lockId;
        void this.whenReady(lockId);
      }
    }
  }

  /** A lock renamed in the config keeps its endpoint; Matter apps see the new name (NodeLabel). */
  private rename(lockId: string, entry: MatterLockEntry, name: string): void {
    entry.name = name;
    entry.accessory.displayName = matterLabel(name) || entry.accessory.displayName;
    this.logger.info(`Matter door lock renamed to ${name}`);
    this.push(lockId, 'bridgedDeviceBasicInformation', { nodeLabel: entry.accessory.displayName });
  }

  /** Runs a registry call; a refusal while Homebridge's Matter server starts is retried. Never throws. */
  private async attempt(what: string, call: () => Promise<void>): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await call();
        return true;
      } catch (error) {
        const message = describeError(error);
        if (attempt >= this.registerAttempts || this.stopped) {
          this.logger.error(`Matter: could not ${what} door locks: ${message}`);
          return false;
        }
        this.logger.warn(`Matter: could not ${what} door locks yet (${message}); retrying`);
        await pause(this.registerRetryMs);
      }
    }
  }

  private build(lock: PortLock, settings: MatterLockSettings): MatterAccessory | undefined {
    try {
      return buildMatterDoorLock(this.matter, lock, settings.lowBatteryThreshold, {
        lockDoor: () => this.command(lock.id, 'locked'),
        unlockDoor: () => this.command(lock.id, 'unlocked'),
      });
    } catch (error) {
      this.logger.error(`Matter: ${lock.name}: ${describeError(error)}`);
      return undefined;
    }
  }

  /**
   * Homebridge builds a registered endpoint after `registerPlatformAccessories` resolved, and a
   * restored one keeps the state it had when Homebridge stopped. Once the endpoint answers, the
   * lock's whole current state is pushed; changes before that are covered by this push.
   */
  private async whenReady(lockId: string): Promise<void> {
    const deadline = Date.now() + this.readyTimeoutMs;
    for (;;) {
      const entry = this.entries.get(lockId);
      if (!entry || this.stopped) return;
      let state: unknown;
      try {
        state = await this.matter.getAccessoryState(entry.uuid, 'doorLock');
      } catch {
        state = undefined;
      }
      if (state !== undefined || Date.now() > deadline) {
        entry.ready = true;
        this.pushAll(lockId);
        return;
      }
      await pause(this.readyPollMs);
    }
  }

  private onChange(change: LockChange): void {
    switch (change.kind) {
      case 'locks_changed':
        this.reconcile().catch((error: unknown) => {
          this.logger.error(`Matter: lock list: ${describeError(error)}`);
        });
        return;
      case 'bolt':
        this.push(change.lockId, 'doorLock', doorLockState(change));
        return;
      case 'battery':
        if (this.settings) this.push(change.lockId, 'powerSource', powerSourceState({ batteryLevel: change.level }, this.settings.lowBatteryThreshold));
        return;
      case 'connectivity':
        this.push(change.lockId, 'bridgedDeviceBasicInformation', reachability(change));
        return;
      default:
        return;
    }
  }

  /** Pushes the lock's bolt and battery as the port has them now. */
  private pushAll(lockId: string): void {
    const lock = this.port?.getLock(lockId);
    if (!lock || !this.settings) return;
    this.push(lockId, 'doorLock', doorLockState(lock));
    this.push(lockId, 'powerSource', powerSourceState(lock, this.settings.lowBatteryThreshold));
    this.push(lockId, 'bridgedDeviceBasicInformation', reachability(lock));
  }

  /** Queues one state update for the lock's endpoint (dropped until the endpoint is ready). */
  private push(lockId: string, cluster: 'doorLock' | 'powerSource' | 'bridgedDeviceBasicInformation', attributes: object): void {
    const entry = this.entries.get(lockId);
    if (!entry?.ready || this.stopped) return;
    entry.chain = entry.chain
      .then(() => this.matter.updateAccessoryState(entry.uuid, cluster, { ...attributes }))
      .catch((error: unknown) => {
        this.logger.warn(`Matter: ${entry.name}: could not update ${cluster}: ${describeError(error)}`);
      });
  }

  /**
   * LockDoor/UnlockDoor: one command as the HomeKit user through the port, like a HomeKit write.
   * Resolves when the lock confirmed the new position (Homebridge then sets LockState); throws
   * Busy or Failure otherwise, after queueing a push of the real state.
   */
  private async command(lockId: string, target: BoltTarget): Promise<void> {
    const port = this.port;
    const settings = this.settings;
    const lock = port?.getLock(lockId);
    const name = lock?.name ?? this.entries.get(lockId)?.name ?? lockId;
    if (!port || !settings || !lock || this.stopped) throw this.statusError(matterRefusal(name, target, 'the lock is not available'));
    const userId = settings.actingUserId(lock);
    if (userId === null) throw this.statusError(matterRefusal(name, target, 'the configured HomeKit user (homekit.user_email) does not exist'));
    this.logger.info(`${name}: ${target === 'locked' ? 'locking' : 'unlocking'} from Matter`);
    const result = await port.requestBolt(lockId, target, userId).catch((error: unknown): CommandResult => {
      // The port promises never to reject; if it does, the command is lost, not Homebridge.
      this.logger.error(`${name}: Matter command failed unexpectedly: ${describeError(error)}`);
      return { status: 'rejected', reason: 'unavailable' };
    });
    // docs/design.md §5b: a Nuki Opener's unlock opens the strike once and the Opener is locked
    // again when it completes: a success, after which the real state is pushed over the Unlocked
    // that Homebridge sets when the handler resolves.
    if (result.status === 'completed' && target === 'unlocked' && result.bolt === 'locked' && lock.commands.includes('ring_to_open_on')) {
      this.logger.info(`${name}: opened from Matter`);
      setTimeout(() => {
        this.pushAll(lockId);
      }, STRIKE_STATE_PUSH_DELAY_MS);
      return;
    }
    const failure = matterCommandError(name, target, result);
    if (failure === null) {
      this.logger.info(`${name}: ${target} from Matter`);
      return;
    }
    this.logger.warn(`${failure.message} (Matter answers ${failure.status === 'busy' ? 'Busy' : 'Failure'})`);
    // The state stays true: whatever a controller assumed, the lock's real position follows.
    this.pushAll(lockId);
    throw this.statusError(failure);
  }

  private statusError(failure: MatterCommandError): Error {
    return failure.status === 'busy' ? new this.matter.status.Busy(failure.message) : new this.matter.status.Failure(failure.message);
  }
}
