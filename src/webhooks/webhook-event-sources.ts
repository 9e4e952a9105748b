import type { EKeyLifecycleEvent } from '../access/ekey-change-notifier.js';
import { describeError } from '../domain/errors.js';
import { batteryReading } from '../lock-port/lock-identity.js';
import type { LockChange, LockPort } from '../lock-port/lock-port.js';
import type { Logger } from '../logger.js';
import type { CommandRecord } from '../store/command-repository.js';
import type { DoorCodeRecord } from '../store/door-code-repository.js';
import type { PayloadLock, PayloadUser, WebhookEvent } from './webhook-payloads.js';

/** Where the webhooks hear of what happens, beside the lock port. */
export interface WebhookSourceDependencies {
  /** Lock events (who and how), jams, rings and battery readings: the one port every adapter stands on. */
  port: LockPort;
  /** Every state change of a command (the command engine's `command` event). */
  commands: { on(event: 'command', listener: (command: CommandRecord) => void): unknown; off(event: 'command', listener: (command: CommandRecord) => void): unknown };
  /** Keys accepted and revoked. */
  ekeys: { onLifecycle(listener: (event: EKeyLifecycleEvent) => void): () => void };
  /** Lock names (a lock the port no longer lists keeps its stored name). */
  lockName: (lockId: string) => string | undefined;
  users: { findById(id: string): { id: string; name: string } | undefined };
  /** Who holds an eKey (a door code's row names the key, not its holder); undefined once the key is purged. */
  ekeyHolder: (ekeyId: string) => string | undefined;
  /** Battery below this (0–1) is low (`homekit.low_battery_threshold`, default 0.2). */
  lowBatteryThreshold: number;
  clock: { now(): number };
  logger: Logger;
  publish: (event: WebhookEvent) => void;
}

/**
 * Listens where things happen and hands each as a {@link WebhookEvent} to the fan-out: the lock
 * port's `event` changes (`lock.locked`, `lock.unlocked`, `lock.jammed`, `opener.ring`) and battery
 * readings (`lock.battery_low` once each time a reading falls below the threshold), the command
 * engine (`command.completed`, `command.failed`), the eKey service (`ekey.accepted`,
 * `ekey.revoked`) and the door-code sync (`door_code.*`, through {@link doorCodeOutcome}).
 */
export class WebhookEventSources {
  private readonly stops: (() => void)[] = [];
  /** Per lock, whether its last reading was low (a warning is sent when it becomes low). */
  private readonly low = new Map<string, boolean>();

  constructor(private readonly deps: WebhookSourceDependencies) {}

  start(): void {
    for (const lock of this.deps.port.listLocks()) this.low.set(lock.id, batteryReading(lock.batteryLevel, this.deps.lowBatteryThreshold).low);
    this.stops.push(
      this.deps.port.subscribe((change) => {
        this.guard('a lock change', () => {
          this.onLockChange(change);
        });
      }),
    );
    const onCommand = (command: CommandRecord): void => {
      this.guard('a command', () => {
        this.onCommand(command);
      });
    };
    this.deps.commands.on('command', onCommand);
    this.stops.push(() => this.deps.commands.off('command', onCommand));
    this.stops.push(
      this.deps.ekeys.onLifecycle((event) => {
        this.guard('an eKey change', () => {
          this.onKey(event);
        });
      }),
    );
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  /** The door-code sync's outcome listener (src/locks/door-code-sync.ts `outcomes`). */
  doorCodeOutcome(row: DoorCodeRecord): void {
    this.guard('a door code', () => {
      const type = row.state === 'set' ? 'door_code.set' : row.state === 'failed' ? 'door_code.failed' : row.state === 'removed' ? 'door_code.removed' : null;
      if (type === null) return;
      const holderId = this.deps.ekeyHolder(row.ekeyId);
      this.deps.publish({
        type,
        lock: this.lock(row.lockId),
        ekeyId: row.ekeyId,
        holder: holderId === undefined ? null : this.user(holderId),
        enforcedBy: row.enforcedBy,
        failureReason: row.failureReason,
        at: row.updatedAt,
      });
    });
  }

  private onLockChange(change: LockChange): void {
    if (change.kind === 'event') {
      const { event } = change;
      const type = event.kind === 'locked' ? 'lock.locked' : event.kind === 'unlocked' ? 'lock.unlocked' : event.kind === 'jammed' ? 'lock.jammed' : 'opener.ring';
      this.deps.publish({ type, lock: this.lock(change.lockId), event });
      return;
    }
    if (change.kind === 'battery') {
      const low = batteryReading(change.level, this.deps.lowBatteryThreshold).low;
      const before = this.low.get(change.lockId) ?? false;
      this.low.set(change.lockId, low);
      if (low && !before) this.deps.publish({ type: 'lock.battery_low', lock: this.lock(change.lockId), level: change.level, at: this.deps.clock.now() });
    }
  }

  private onCommand(command: CommandRecord): void {
    if (command.status !== 'completed' && command.status !== 'failed') return;
    this.deps.publish({
      type: command.status === 'completed' ? 'command.completed' : 'command.failed',
      lock: this.lock(command.lockId),
      commandId: command.id,
      commandType: command.type,
      requester: this.user(command.requestedBy),
      origin: command.origin,
      failureReason: command.failureReason,
      at: command.completedAt ?? this.deps.clock.now(),
    });
  }

  private onKey(event: EKeyLifecycleEvent): void {
    const { key } = event;
    this.deps.publish({
      type: event.kind === 'accepted' ? 'ekey.accepted' : 'ekey.revoked',
      lock: this.lock(key.lock_id),
      ekeyId: key.id,
      ekeyType: key.type,
      holder: this.user(key.user_id),
      at: key.updated_at,
    });
  }

  private lock(lockId: string): PayloadLock {
    return { id: lockId, name: this.deps.lockName(lockId) ?? '' };
  }

  private user(userId: string): PayloadUser | null {
    const user = this.deps.users.findById(userId);
    return user === undefined ? null : { id: user.id, name: user.name };
  }

  /** A listener's failure is logged; it never reaches the code that told it. */
  private guard(what: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.deps.logger.error(`Webhooks: could not handle ${what}: ${describeError(error)}`);
    }
  }
}
