import type { LockCommandType } from '../domain/lock-command-type.js';
import type { ActivityRecord, ActivitySource, Bolt, DoorState, OpenerModes } from '../domain/lock-vocabulary.js';
import { EventEmitter } from 'node:events';
import type { Clock } from '../domain/clock.js';
import type { LockEventSink, RecordedEvent } from '../events/lock-event-sink.js';
import type { CommandOutcome } from '../gateway/command-outcome.js';
import type { LockDriver } from '../gateway/lock-driver.js';
import type { ActivityEvent, BatteryChangedEvent, BoltChangedEvent, ConnectivityChangedEvent, DoorChangedEvent } from '../gateway/gateway-events.js';
import { LockGateway, type LockGatewayOptions } from '../gateway/lock-gateway.js';
import type { LockSnapshot } from '../gateway/lock-snapshot.js';
import type { GattTransport } from '../gateway/gatt-transport.js';
import type { Logger } from '../logger.js';
import type { LockRecord, LockRepository } from '../store/lock-repository.js';
import type { LockStateRepository, OnlineStatus } from '../store/lock-state-repository.js';
import { GroupCommit } from './group-commit.js';
import { describeError } from '../domain/errors.js';

/** A change the runtime observed, published after it was stored (so readers of the store see it). */
export type LockRuntimeChange =
  /** The bolt settled in a new position (or jammed). */
  | { kind: 'bolt'; lockId: string; bolt: Bolt; source: ActivitySource | null }
  /** A new battery reading, 0..1. */
  | { kind: 'battery'; lockId: string; level: number }
  /** The lock became reachable or unreachable. */
  | { kind: 'connectivity'; lockId: string; online: boolean }
  /** An activity record, handed to the event recorder; `event` is what it recorded (null: nothing). */
  | { kind: 'activity'; lockId: string; record: ActivityRecord; backlog: boolean; event: RecordedEvent | null }
  /** The door sensor changed (locks with one). */
  | { kind: 'door'; lockId: string; door: DoorState }
  /** A Nuki Opener's Ring to Open / Continuous Mode changed (docs/design.md §4d). */
  | { kind: 'modes'; lockId: string; modes: OpenerModes }
  /** Device Information was read (after the first connect). */
  | { kind: 'device_information'; lockId: string };

/** Event map of {@link LockRuntime}. */
export interface LockRuntimeEvents {
  change: [LockRuntimeChange];
}

/** The live state of a lock, as the lock list and HomeKit show it. */
export interface LiveLockState {
  boltState: Bolt;
  onlineStatus: OnlineStatus;
  moving: boolean;
  batteryLevel: number | null;
  lastSeenAt: number | null;
  snapshot: LockSnapshot | undefined;
}

/** What the runtime needs. */
export interface LockRuntimeDependencies {
  transport: GattTransport;
  clock: Clock;
  logger: Logger;
  locks: Pick<LockRepository, 'list' | 'findById'>;
  lockState: LockStateRepository;
  /** Receives every activity record (live and backlog) and every battery change. */
  events: Pick<LockEventSink, 'recordActivity' | 'recordBattery'>;
  /**
   * Runs work in one SQLite transaction (one commit, one fsync): activity records arriving
   * together and their locks' high-water marks are written in one (group commit). Default: no
   * grouping, each record stored as it comes.
   */
  transaction?: <T>(work: () => T) => T;
  /**
   * The protocol driver of a stored lock, or null when it cannot have one (no address, no key):
   * src/locks/lock-drivers.ts builds it from the lock's family.
   */
  driverFor: (lock: LockRecord) => LockDriver | null;
  /**
   * The user a lock-side authorization (a Nuki app authorization, by name) is linked to
   * (config `locks[].nuki_users`), or null. Its actions are taps by that user (docs/design.md §4b).
   */
  linkedUser?: (lockId: string, authorization: string) => string | null;
  /**
   * The eKey whose door code has this id on the lock (docs/design.md §4c), or null. A keypad entry
   * with it is a tap by that key's holder, `via: keypad`; any other keypad entry records nothing.
   */
  keypadKey?: (lockId: string, keypadCodeId: number) => string | null;
  /**
   * The rental stay whose door code a holder id of {@link keypadKey} is (docs/design.md §12), or
   * null for an eKey's: a keypad entry with it is an event without a performer, with the stay.
   */
  stayOfCode?: (holderId: string) => { uid: string; summary: string } | null;
}

/**
 * The lock runtime: owns the gateway, registers every lock that has a gateway connection
 * (address and key) with it, and turns what the gateway observes into stored lock state
 * (`bolt_state`, `online_status`, `battery_level`, `last_seen_at`, `last_activity_sequence`) and
 * into recorder calls (docs/design.md §3 Locks, Events). The gateway reads activity back from the stored
 * `last_activity_sequence` after every (re)connect, so nothing is lost while a lock was away.
 *
 * @example
 * const runtime = new LockRuntime({ transport, clock, logger, locks, lockState, events }, { commandTimeoutMs: 15000 });
 * runtime.registerStoredLocks();
 * runtime.start();
 * runtime.on('change', (change) => console.log(change.kind, change.lockId));
 */
export class LockRuntime extends EventEmitter<LockRuntimeEvents> {
  /** The gateway facade (commands go through {@link sendCommand}). */
  readonly gateway: LockGateway;
  private stopped = false;
  /** Activity records wait here for the next commit; each is published once it is durable. */
  private readonly activity: GroupCommit<ActivityEvent, RecordedEvent | null>;

  constructor(
    private readonly deps: LockRuntimeDependencies,
    gatewayOptions: Omit<LockGatewayOptions, 'lastSequence'> = {},
  ) {
    super();
    this.activity = new GroupCommit({
      ...(deps.transaction === undefined ? {} : { transaction: deps.transaction }),
      store: (event) => this.storeActivity(event),
      acknowledge: (event, recorded) => {
        // A keypad entry recorded as a holder's tap (docs/design.md §4c) is a tap for HomeKit too (arrival triggers).
        const record = recorded !== null && event.record.keypadCodeId !== undefined ? { ...event.record, source: 'tap' as const } : event.record;
        this.publish({ kind: 'activity', lockId: event.lockId, record, backlog: event.backlog, event: recorded });
      },
      failed: (event, error) => {
        this.deps.logger.error(`Could not store activity record #${event.record.sequence} of lock ${event.lockId}: ${describeError(error)}`);
      },
    });
    this.gateway = new LockGateway(deps.transport, deps.clock, deps.logger, {
      ...gatewayOptions,
      lastSequence: (lockId) => {
        // Records still waiting for their commit count as stored once committed: commit them first.
        this.activity.flush();
        return deps.lockState.read(lockId)?.lastActivitySequence;
      },
    });
    this.gateway.on('bolt', (event) => {
      this.guard('bolt', () => {
        this.onBolt(event);
      });
    });
    this.gateway.on('battery', (event) => {
      this.guard('battery', () => {
        this.onBattery(event);
      });
    });
    this.gateway.on('connectivity', (event) => {
      this.guard('connectivity', () => {
        this.onConnectivity(event);
      });
    });
    this.gateway.on('activity', (event) => {
      this.guard('activity', () => {
        this.onActivity(event);
      });
    });
    this.gateway.on('door', (event) => {
      this.guard('door', () => {
        this.onDoor(event);
      });
    });
    this.gateway.on('modes', (event) => {
      this.guard('modes', () => {
        this.publish({ kind: 'modes', lockId: event.lockId, modes: event.modes });
      });
    });
    this.gateway.on('device_information', (event) => {
      this.guard('device information', () => {
        this.publish({ kind: 'device_information', lockId: event.lockId });
      });
    });
  }

  /**
   * Registers with the gateway every stored lock that has a gateway connection, a BLE address and
   * a key. A lock without them stays unreachable (commands: 400). Returns the registered ids.
   */
  registerStoredLocks(): string[] {
    const registered: string[] = [];
    // Nothing is reachable until the gateway has connected.
    this.deps.lockState.markAllOffline();
    for (const lock of this.deps.locks.list()) {
      if (this.register(lock)) registered.push(lock.id);
    }
    return registered;
  }

  /**
   * Registers one lock; false when it has no gateway connection or address, no driver can be
   * built for it (e.g. our profile without a key), or it is registered already.
   */
  register(lock: LockRecord): boolean {
    if (!lock.overBluetooth || lock.bleAddress === null) return false;
    if (this.gateway.lockIds().includes(lock.id)) return false;
    const driver = this.deps.driverFor(lock);
    if (driver === null) return false;
    this.gateway.addLock({ id: lock.id, address: lock.bleAddress, name: lock.name, driver });
    return true;
  }

  /** Starts connecting to the registered locks. */
  start(): void {
    this.gateway.start();
  }

  /**
   * Resolves once every registered lock is reachable, or after `timeoutMs` (whichever comes
   * first); true when all are. The demo waits on this before it prints its first line, so a
   * client that reads the line can send commands at once.
   */
  untilAllReachable(timeoutMs: number): Promise<boolean> {
    const allReachable = (): boolean => this.gateway.lockIds().every((id) => this.gateway.isReachable(id));
    if (allReachable()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const listener = (): void => {
        if (allReachable()) finish(true);
      };
      const timer = setTimeout(() => {
        finish(allReachable());
      }, timeoutMs);
      const finish = (result: boolean): void => {
        clearTimeout(timer);
        this.off('change', listener);
        resolve(result);
      };
      this.on('change', listener);
    });
  }

  /**
   * Asks the gateway to read the lock again and resolves true once it did and what it read is
   * stored (its `synchronised` signal, then the commit of the records it read); false when that
   * did not happen within `timeoutMs` (the lock out of reach, say). The demo's control lines wait
   * on this before they answer (src/demo/demo-control.ts).
   */
  synchronise(lockId: string, timeoutMs: number): Promise<boolean> {
    const id = lockId.toLowerCase();
    if (this.gateway.getSnapshot(id) === undefined) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(false);
      }, timeoutMs);
      void this.gateway.refresh(id).then((read) => {
        clearTimeout(timer);
        // The records it read are queued for the next commit: commit them now.
        if (read) this.activity.flush();
        resolve(read);
      });
    });
  }

  /** Resolves true once the service shows the lock offline, false when that did not happen within `timeoutMs`. */
  untilOffline(lockId: string, timeoutMs: number): Promise<boolean> {
    const id = lockId.toLowerCase();
    const offline = (): boolean => !this.gateway.isReachable(id);
    if (offline()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const listener = (change: LockRuntimeChange): void => {
        if (change.lockId === id && offline()) finish(true);
      };
      const timer = setTimeout(() => {
        finish(offline());
      }, timeoutMs);
      const finish = (result: boolean): void => {
        clearTimeout(timer);
        this.off('change', listener);
        resolve(result);
      };
      this.on('change', listener);
    });
  }

  /** Commits the activity records still waiting, then disconnects every lock; no further changes are stored. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.activity.flush();
    this.stopped = true;
    await this.gateway.stop();
  }

  /** Whether the lock is registered with the gateway and reachable now. */
  isReachable(lockId: string): boolean {
    return this.gateway.isReachable(lockId.toLowerCase());
  }

  /** Whether the lock is registered with the gateway (has a gateway connection). */
  isRegistered(lockId: string): boolean {
    return this.gateway.getSnapshot(lockId.toLowerCase()) !== undefined;
  }

  /** Locks or unlocks through the gateway; never rejects. */
  sendCommand(lockId: string, action: LockCommandType, options: { timeoutMs?: number } = {}): Promise<CommandOutcome> {
    return this.gateway.sendCommand(lockId.toLowerCase(), action, options);
  }

  /** `online` or `offline` now (docs/design.md §3 Locks); a lock without a gateway connection is offline. */
  onlineStatus(lockId: string): OnlineStatus {
    return this.isReachable(lockId) ? 'online' : 'offline';
  }

  /**
   * The live state of a lock: from the gateway's memory for a registered lock, else from the
   * store. Undefined for an unknown id.
   */
  liveState(lockId: string): LiveLockState | undefined {
    const id = lockId.toLowerCase();
    const stored = this.deps.lockState.read(id);
    if (stored === undefined) return undefined;
    const snapshot = this.gateway.getSnapshot(id);
    if (snapshot === undefined) {
      return { boltState: stored.boltState, onlineStatus: 'offline', moving: false, batteryLevel: stored.batteryLevel, lastSeenAt: stored.lastSeenAt, snapshot };
    }
    return {
      // Until the gateway has read the bolt after a restart, the stored position is the best we know.
      boltState: snapshot.bolt === 'unknown' ? stored.boltState : snapshot.bolt,
      onlineStatus: snapshot.online ? 'online' : 'offline',
      moving: snapshot.moving,
      batteryLevel: snapshot.batteryLevel ?? stored.batteryLevel,
      lastSeenAt: snapshot.lastSeenAt ?? stored.lastSeenAt,
      snapshot,
    };
  }

  private onBolt(event: BoltChangedEvent): void {
    this.deps.lockState.saveBolt(event.lockId, event.bolt, this.seenAt(event.lockId));
    this.publish({ kind: 'bolt', lockId: event.lockId, bolt: event.bolt, source: event.source });
  }

  private onBattery(event: BatteryChangedEvent): void {
    const before = this.deps.lockState.read(event.lockId)?.batteryLevel ?? null;
    this.deps.lockState.saveBattery(event.lockId, event.level, this.seenAt(event.lockId));
    // The first reading (and the re-read after a restart) is not a change of the battery: no event.
    if (before !== null && before !== event.level) {
      this.deps.events.recordBattery({ lockId: event.lockId, level: event.level, timestamp: this.deps.clock.now() });
    }
    this.publish({ kind: 'battery', lockId: event.lockId, level: event.level });
  }

  private onConnectivity(event: ConnectivityChangedEvent): void {
    this.deps.lockState.saveOnline(event.lockId, event.online ? 'online' : 'offline', this.seenAt(event.lockId));
    this.publish({ kind: 'connectivity', lockId: event.lockId, online: event.online });
  }

  /**
   * Group commit (src/locks/group-commit.ts): records arriving together — several locks
   * reporting, a backlog read back — share one transaction; each is published (HomeKit, the
   * demo control, the live streams through the recorder) only after its commit. Order per lock
   * is arrival order.
   */
  private onActivity(event: ActivityEvent): void {
    this.activity.submit(event);
  }

  /** One record and the lock's high-water mark, inside the batch's transaction. */
  private storeActivity(event: ActivityEvent): RecordedEvent | null {
    const { record } = event;
    const actor = record.actor ?? null;
    const holder = record.keypadCodeId === undefined ? null : (this.deps.keypadKey?.(event.lockId, record.keypadCodeId) ?? null);
    const booking = holder === null ? null : (this.deps.stayOfCode?.(holder) ?? null);
    const keypadKey = booking === null ? holder : null;
    const result = this.deps.events.recordActivity({
      lockId: event.lockId,
      sequence: record.sequence,
      action: record.action,
      // docs/design.md §4c: a keypad entry with an eKey's door code is that holder's tap.
      source: keypadKey === null ? record.source : 'tap',
      credential: keypadKey ?? record.credential,
      ...(keypadKey === null ? {} : { via: 'keypad' as const }),
      timestamp: record.timestamp,
      ...(actor === null ? {} : { actor, linkedUserId: this.deps.linkedUser?.(event.lockId, actor) ?? null }),
      ...(record.unlatched === true ? { unlatched: true } : {}),
      ...(record.ring === undefined ? {} : { ring: record.ring }),
      ...(record.keypadRefused === true ? { keypadRefused: true } : {}),
      ...(booking === null ? {} : { booking }),
    });
    // With the recorder's write: the read-back after a reconnect starts after what was recorded.
    this.deps.lockState.saveActivitySequence(event.lockId, record.sequence, this.seenAt(event.lockId));
    return result;
  }

  private onDoor(event: DoorChangedEvent): void {
    this.publish({ kind: 'door', lockId: event.lockId, door: event.door });
  }

  private seenAt(lockId: string): number | null {
    return this.gateway.getSnapshot(lockId)?.lastSeenAt ?? null;
  }

  private publish(change: LockRuntimeChange): void {
    for (const listener of this.listeners('change')) {
      try {
        listener(change);
      } catch (error) {
        this.deps.logger.error(`A lock change listener failed: ${describeError(error)}`);
      }
    }
  }

  /** A store or recorder failure is logged; it must never escape into the gateway. */
  private guard(what: string, work: () => void): void {
    if (this.stopped) return;
    try {
      work();
    } catch (error) {
      this.deps.logger.error(`Could not store a ${what} observation: ${describeError(error)}`);
    }
  }
}
