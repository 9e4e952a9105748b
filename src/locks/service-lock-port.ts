import type { ActivityRecord, ActivitySource, BoltTarget } from '../domain/lock-vocabulary.js';
import { boltAfterCommand, eventShapeOfCommand, type LockCommandType } from '../domain/lock-command-type.js';
import type { DeviceInformation } from '../domain/lock-vocabulary.js';
import { capabilitiesOf, commandTypesOf, familySerialNumber } from '../families/registry.js';
import type { CommandAccess } from '../commands/command-access.js';
import type { CommandEngine } from '../commands/command-engine.js';
import { CommandRefused } from '../commands/command-refused.js';
import { describeError } from '../domain/errors.js';
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
import type { LockRecord } from '../store/lock-repository.js';
import type { UserRecord } from '../store/user-repository.js';
import type { LockRuntime, LockRuntimeChange } from './lock-runtime.js';
import type { StoredEvent } from '../store/event-repository.js';
import type { CommandOrigin } from '../store/command-repository.js';
import { portEventOfJam, portEventOfStored, portEventOfUnrecorded } from './lock-event-feed.js';

/** What the lock port reads and drives. */
export interface ServiceLockPortDependencies {
  runtime: LockRuntime;
  engine: CommandEngine;
  access: CommandAccess;
  locks: { list(): LockRecord[]; findById(id: string): LockRecord | undefined };
  users: { findByEmail(email: string): UserRecord | undefined; findById(id: string): UserRecord | undefined };
  clock: { now(): number };
  logger: Logger;
  /**
   * The history's committed events of every lock (the event hub): with it, the port tells its
   * listeners what happened, with who and how (`event` changes, src/locks/lock-event-feed.ts).
   */
  recordedEvents?: { subscribeAll(listener: (event: StoredEvent) => void): () => void };
  /** Where a stored command came from (the commands table), for its event's `method`. */
  commandOrigin?: (commandId: string) => CommandOrigin | undefined;
}

/** Where an activity record left the bolt. */
const boltAfter = (record: ActivityRecord): 'locked' | 'unlocked' => (record.action === 'lock' ? 'locked' : 'unlocked');

/**
 * The service side of the lock port (src/lock-port/lock-port.ts) on the real runtime: lock
 * state from the gateway's memory and the store (never waits on Bluetooth), changes from the
 * runtime, and commands through the same engine and eKey rules as `POST /locks/{id}/commands`,
 * as the acting user. A newer request through the port supersedes that user's commands from
 * HomeKit still queued on the lock (only the latest target state matters to a home app).
 */
export class ServiceLockPort implements LockPort {
  private readonly listeners = new Set<LockChangeListener>();
  private readonly onRuntimeChange = (change: LockRuntimeChange): void => {
    for (const mapped of this.map(change)) this.deliver(mapped);
  };
  private readonly lastMoving = new Map<string, boolean>();
  /** Per lock, the newest activity record not yet matched with a bolt change (see {@link sourceOf}). */
  private readonly unexplainedRecord = new Map<string, ActivityRecord>();
  /** Per lock, the bolt of its last bolt change (a jam is told once, when the bolt gets stuck). */
  private readonly lastBolt = new Map<string, PortLock['bolt']>();
  private readonly stopRecordedEvents: (() => void) | undefined;

  constructor(private readonly deps: ServiceLockPortDependencies) {
    deps.runtime.on('change', this.onRuntimeChange);
    this.stopRecordedEvents = deps.recordedEvents?.subscribeAll((event) => {
      this.onRecordedEvent(event);
    });
  }

  /** Stops listening to the runtime and the history. */
  close(): void {
    this.deps.runtime.off('change', this.onRuntimeChange);
    this.stopRecordedEvents?.();
    this.listeners.clear();
  }

  listLocks(): PortLock[] {
    return this.deps.locks.list().map((lock) => this.toPortLock(lock));
  }

  getLock(lockId: string): PortLock | undefined {
    const lock = this.deps.locks.findById(lockId);
    return lock === undefined ? undefined : this.toPortLock(lock);
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

  async requestCommand(lockId: string, type: LockCommandType, asUserId: string, options: PortCommandOptions = {}): Promise<CommandResult> {
    if (this.deps.locks.findById(lockId) === undefined) return { status: 'rejected', reason: 'unknown_lock' };
    if (this.deps.users.findById(asUserId) === undefined) return { status: 'rejected', reason: 'unknown_user' };
    const origin = options.origin ?? 'homekit';
    try {
      if (options.managersOnly === true) {
        const role = this.deps.access.roleAt(asUserId, lockId, this.deps.clock.now());
        if (role !== 'owner' && role !== 'admin') return { status: 'rejected', reason: role === null ? 'no_usable_key' : 'not_permitted' };
      }
      const { command } = this.deps.engine.submit({
        userId: asUserId,
        lockId,
        type,
        origin,
        // Only the latest target of the bolt matters to a home app; a mode switch is its own control.
        supersedeQueued: eventShapeOfCommand(type).mode === undefined,
      });
      const finished = await this.deps.engine.whenFinished(command.id);
      if (finished.status === 'completed') {
        // Where the lock says the bolt is now: an Opener's strike opens once and is locked again.
        const live = this.deps.runtime.liveState(lockId)?.boltState;
        return { status: 'completed', bolt: live === 'locked' || live === 'unlocked' ? live : boltAfterCommand(type), commandId: finished.id };
      }
      return { status: 'failed', reason: finished.failureReason ?? 'delivery_failed', commandId: finished.id };
    } catch (error) {
      if (error instanceof CommandRefused) return { status: 'rejected', reason: error.refusal };
      this.deps.logger.error(`${origin === 'mqtt' ? 'MQTT' : 'HomeKit'} command on ${lockId} failed unexpectedly: ${describeError(error)}`);
      return { status: 'rejected', reason: 'unavailable' };
    }
  }

  resolveUser(email: string): PortUser | null {
    const user = this.deps.users.findByEmail(email);
    return user === undefined ? null : { id: user.id, name: user.name, email: user.email };
  }

  private toPortLock(lock: LockRecord): PortLock {
    const live = this.deps.runtime.liveState(lock.id);
    return {
      id: lock.id,
      name: lock.name,
      bleAddress: lock.bleAddress ?? '',
      serialNumber: serialNumberOf(lock, live?.snapshot?.deviceInformation ?? null),
      capabilities: portCapabilities(lock),
      commands: commandTypesOf(lock.family),
      modes: live?.snapshot?.modes ?? null,
      ownerId: lock.ownerId,
      bolt: live?.boltState ?? lock.boltState,
      moving: live?.moving ?? false,
      online: live?.onlineStatus === 'online',
      batteryLevel: live?.batteryLevel ?? lock.batteryLevel,
      lastActivitySource: live?.snapshot?.lastActivitySource ?? null,
      deviceInformation: live?.snapshot?.deviceInformation ?? null,
      door: live?.snapshot?.door ?? null,
    };
  }

  private deviceInformationChange(lockId: string, deviceInformation: DeviceInformation): LockChange {
    const lock = this.deps.locks.findById(lockId);
    const serialNumber = lock === undefined ? lockId : serialNumberOf(lock, deviceInformation);
    return { kind: 'device_information', lockId, deviceInformation, serialNumber };
  }

  private map(change: LockRuntimeChange): LockChange[] {
    const out: LockChange[] = [];
    switch (change.kind) {
      case 'bolt': {
        out.push({ kind: 'bolt', lockId: change.lockId, bolt: change.bolt, source: change.source ?? this.sourceOf(change.lockId, change.bolt) });
        this.unexplainedRecord.delete(change.lockId);
        const jam = portEventOfJam(change.bolt, this.lastBolt.get(change.lockId), this.deps.clock.now());
        this.lastBolt.set(change.lockId, change.bolt);
        if (jam !== null) out.push({ kind: 'event', lockId: change.lockId, event: jam });
        break;
      }
      case 'battery':
        out.push({ kind: 'battery', lockId: change.lockId, level: change.level });
        break;
      case 'connectivity': {
        out.push({ kind: 'connectivity', lockId: change.lockId, online: change.online });
        const info = this.deps.runtime.liveState(change.lockId)?.snapshot?.deviceInformation;
        if (change.online && info) out.push(this.deviceInformationChange(change.lockId, info));
        break;
      }
      case 'door':
        out.push({ kind: 'door', lockId: change.lockId, door: change.door });
        break;
      case 'modes':
        out.push({ kind: 'modes', lockId: change.lockId, modes: change.modes });
        break;
      case 'device_information': {
        const info = this.deps.runtime.liveState(change.lockId)?.snapshot?.deviceInformation;
        if (info) out.push(this.deviceInformationChange(change.lockId, info));
        break;
      }
      case 'activity': {
        const { record, event } = change;
        // What the history does not record is told here; what it records, once it is committed (onRecordedEvent).
        if (event === null && this.deps.recordedEvents !== undefined) {
          const unrecorded = portEventOfUnrecorded(record, change.backlog);
          if (unrecorded !== null) out.push({ kind: 'event', lockId: change.lockId, event: unrecorded });
        }
        // docs/design.md §4d: a ring at an Opener rings HomeKit's doorbell (live rings only).
        if (record.ring !== undefined) {
          if (!change.backlog) out.push({ kind: 'ring', lockId: change.lockId, opened: record.ring.opened });
          break;
        }
        // A Nuki's bolt comes from its state, which names no source, and its log says who moved
        // it — either one first. A record that explains where the bolt is now gives HomeKit that
        // source (LockLastKnownAction); for our profile it repeats the bolt change (nothing pushed).
        const bolt = this.deps.runtime.liveState(change.lockId)?.boltState;
        if (bolt !== undefined && bolt === boltAfter(record)) {
          out.push({ kind: 'bolt', lockId: change.lockId, bolt, source: record.source });
          this.unexplainedRecord.delete(change.lockId);
        } else {
          this.unexplainedRecord.set(change.lockId, record);
        }
        // Arrivals: live taps only (the recorder names the performer). An eKey tap counts when the
        // key was usable at that moment; a tap by a Nuki authorization linked to a user is that
        // user's whether or not they also hold an eKey: the lock let them in (docs/design.md §4b).
        if (!change.backlog && record.source === 'tap' && event?.performerId != null) {
          const byLinkedAuthorization = record.actor != null;
          if (byLinkedAuthorization || this.deps.access.permissionAt(event.performerId, change.lockId, record.timestamp) === 'usable') {
            out.push({ kind: 'tap', lockId: change.lockId, userId: event.performerId, action: record.action });
          }
        }
        break;
      }
    }
    const moving = this.deps.runtime.liveState(change.lockId)?.moving ?? false;
    if ((this.lastMoving.get(change.lockId) ?? false) !== moving) {
      this.lastMoving.set(change.lockId, moving);
      out.unshift({ kind: 'moving', lockId: change.lockId, moving });
    }
    return out;
  }

  /** A committed event of the history: told to the listeners with who and how (src/locks/lock-event-feed.ts). */
  private onRecordedEvent(stored: StoredEvent): void {
    try {
      const event = portEventOfStored(stored, (commandId) => this.deps.commandOrigin?.(commandId));
      if (event !== null) this.deliver({ kind: 'event', lockId: stored.lockId, event });
    } catch (error) {
      this.deps.logger.error(`Could not tell the adapters about event ${stored.id}: ${describeError(error)}`);
    }
  }

  /** The source of a bolt change that names none: the lock's newest record that led there, if any. */
  private sourceOf(lockId: string, bolt: PortLock['bolt']): ActivitySource | null {
    const record = this.unexplainedRecord.get(lockId);
    return record !== undefined && boltAfter(record) === bolt ? record.source : null;
  }

  private deliver(change: LockChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.deps.logger.error(`A lock listener failed: ${describeError(error)}`);
      }
    }
  }
}

/**
 * The serial number every ecosystem shows: the lock's own when its family names one (a Nuki: its
 * Nuki ID, as the Nuki app shows it, docs/design.md §4b); otherwise its Bluetooth address
 * (docs/homekit.md), which is stable and printed on nothing else; the lock id when neither is known.
 */
export function serialNumberOf(lock: Pick<LockRecord, 'family' | 'bleAddress' | 'id'>, deviceInformation: DeviceInformation | null): string {
  const ownSerial = familySerialNumber(lock.family, deviceInformation ?? undefined);
  if (ownSerial !== undefined) return ownSerial;
  const address = lock.bleAddress ?? '';
  return address.trim() === '' ? lock.id : address;
}

/** What a lock can do, in the port's words: its keypad from the config, the rest from its family. */
function portCapabilities(lock: LockRecord): PortLock['capabilities'] {
  const family = capabilitiesOf(lock.family);
  return { keypad: lock.keypad, doorSensor: family.doorSensor, opener: family.opener, boltAssumed: family.boltAssumed === true };
}
