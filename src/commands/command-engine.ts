import { CommandRefused } from './command-refused.js';
import type { CommandFailure } from '../domain/lock-vocabulary.js';
import { EventEmitter } from 'node:events';
import type { Clock } from '../domain/clock.js';
import { ServiceError, badRequest, forbidden, notFound, tooManyRequests, describeError } from '../domain/errors.js';
import { isModeSwitch, maySwitchModes } from '../domain/opener-mode.js';
import { newId, normalizeId } from '../domain/ids.js';
import { commandTypesOf } from '../families/registry.js';
import type { LockEventSink } from '../events/lock-event-sink.js';
import type { CommandOutcome } from '../gateway/command-outcome.js';
import type { Logger } from '../logger.js';
import type {
  CommandOrigin,
  CommandRecord,
  CommandRepository,
  CommandType,
} from '../store/command-repository.js';
import type { LockRecord } from '../store/lock-repository.js';
import type { CommandAccess } from './command-access.js';
import { keyNotUsableError } from './command-refusal.js';
import { CommandRateLimit } from './command-rate-limit.js';

/** The part of the gateway the engine drives (LockGateway satisfies it). */
export interface CommandGateway {
  /** Connected now, or heard from recently (docs/design.md §3 Locks "online"). */
  isReachable(lockId: string): boolean;
  /** Resolves with the outcome and never rejects; `timeoutMs` counts from the call. */
  sendCommand(lockId: string, action: CommandType, options?: { timeoutMs?: number }): Promise<CommandOutcome>;
}

/** Engine settings; every field has a default. */
export interface CommandEngineOptions {
  /** How long the lock has to confirm, counted from the hand-over to the gateway (default 15 000 ms). */
  timeoutMs?: number;
  /** Unfinished commands (running + queued) allowed per lock before 429 (default 8). */
  queueLimit?: number;
  /** How long an `Idempotency-Key` is remembered (default 24 h). */
  idempotencyWindowMs?: number;
  /**
   * Extra time the engine grants the gateway beyond `timeoutMs` before it gives up on an answer
   * itself (default 2 000 ms). A safety net only: the gateway enforces `timeoutMs` on its own.
   */
  guardGraceMs?: number;
  /** Commands per user and lock for everyone but the lock's owners (docs/commands.md "Limits"; default 10 at once, then one every 6 s). */
  rateLimit?: CommandRateLimit;
}

/** What the engine needs. */
export interface CommandEngineDependencies {
  commands: CommandRepository;
  locks: { findById(id: string): Pick<LockRecord, 'id' | 'overBluetooth'> & Partial<Pick<LockRecord, 'name' | 'family'>> | undefined };
  access: CommandAccess;
  gateway: CommandGateway;
  /** Told about every completed command (the requester is the event's performer). */
  events: Pick<LockEventSink, 'recordCommandCompleted'>;
  clock: Clock;
  logger: Logger;
  /**
   * Runs work in one SQLite transaction (one commit, one fsync): a command's terminal state and
   * its event are written together. Default: no grouping.
   */
  transaction?: <T>(work: () => T) => T;
}

/** One request to move a bolt. */
export interface CommandRequest {
  /** The requester (the caller's user id; for HomeKit, the HomeKit user). */
  userId: string;
  lockId: string;
  type: CommandType;
  /** The `Idempotency-Key` header, scoped to the requester. */
  idempotencyKey?: string | undefined;
  /** Default `api`. */
  origin?: CommandOrigin;
  /**
   * End this requester's commands of the same origin that are still queued (`created`) on the
   * lock as `failed`/`superseded` before queueing this one. HomeKit uses it: only its latest
   * target state matters. The API never does: its commands run in order.
   */
  supersedeQueued?: boolean;
}

/** What {@link CommandEngine.submit} returns. */
export interface SubmitResult {
  command: CommandRecord;
  /** True when an earlier command with the same `Idempotency-Key` was returned instead of a new one. */
  replayed: boolean;
}

/** Event map of the engine: every state change of a command, after it is stored. */
export interface CommandEngineEvents {
  command: [CommandRecord];
}

interface LockQueue {
  active: { command: CommandRecord; endsAt: number } | null;
  waiting: CommandRecord[];
}

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The remote command engine (docs/design.md §3 Commands): checks permission and reachability, persists
 * each command, runs the commands of one lock one at a time in order through the gateway, and
 * records the outcome. The lifecycle is created → processing → completed | failed; `completed`
 * only when the lock confirmed the bolt position.
 *
 * Faults of a lock are values (`failed` with a `failure_reason`); request errors are thrown as
 * {@link ServiceError}s (404, 403, 400 `lock_unreachable`, 429 `command_queue_full`, 422).
 *
 * @example
 * const engine = new CommandEngine({ commands, locks, access, gateway, events, clock, logger });
 * engine.recoverInterrupted();
 * const { command } = engine.submit({ userId, lockId, type: 'unlock' }); // status 'processing'
 * const done = await engine.whenFinished(command.id);                    // status 'completed'
 */
export class CommandEngine extends EventEmitter<CommandEngineEvents> {
  private readonly queues = new Map<string, LockQueue>();
  private readonly finishWaiters = new Map<string, ((command: CommandRecord) => void)[]>();
  private readonly idleWaiters: (() => void)[] = [];
  private readonly guardTimers = new Set<NodeJS.Timeout>();
  private readonly timeoutMs: number;
  private readonly queueLimit: number;
  private readonly idempotencyWindowMs: number;
  private readonly guardGraceMs: number;
  private readonly rateLimit: CommandRateLimit;
  private stopped = false;

  constructor(
    private readonly deps: CommandEngineDependencies,
    options: CommandEngineOptions = {},
  ) {
    super();
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.queueLimit = options.queueLimit ?? 8;
    this.idempotencyWindowMs = options.idempotencyWindowMs ?? 24 * 3600 * 1000;
    this.guardGraceMs = options.guardGraceMs ?? 2_000;
    this.rateLimit = options.rateLimit ?? new CommandRateLimit();
  }

  /** The command timeout in effect, ms. */
  get commandTimeoutMs(): number {
    return this.timeoutMs;
  }

  /**
   * After a restart nothing is running: every command stored as `created` or `processing` ends
   * `failed`/`interrupted` (docs/design.md §3: never left `processing` forever). Returns how many.
   */
  recoverInterrupted(): number {
    const count = this.deps.commands.failUnfinished('interrupted', this.deps.clock.now());
    if (count > 0) this.deps.logger.warn(`${count} command(s) were unfinished when the service stopped; marked failed/interrupted.`);
    return count;
  }

  /**
   * Creates a command, or replays the one created earlier with the same idempotency key.
   * @throws CommandRefused (a ServiceError with the typed reason) 404 unknown lock or no key on it; 400
   *   `unsupported_command` a type the lock's family cannot run (docs/design.md §4d); 403 key not usable now, or
   *   `mode_needs_admin` an Opener mode switch by a role below admin; 400
   *   `lock_unreachable` no gateway connection or lock out of reach; 429 `command_queue_full`, or
   *   `command_rate_limited` past the requester's commands per lock (docs/commands.md);
   *   422 `idempotency_key_reused` when the key was used for a different request; 400
   *   `invalid_idempotency_key`; 503 `shutting_down`.
   */
  submit(request: CommandRequest): SubmitResult {
    const now = this.deps.clock.now();
    const lockId = normalizeId(request.lockId);
    const key = request.idempotencyKey;
    if (key !== undefined) {
      if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
        throw badRequest('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
      }
      const earlier = this.deps.commands.findByIdempotencyKey(request.userId, key, now - this.idempotencyWindowMs);
      if (earlier) {
        if (earlier.lockId !== lockId || earlier.type !== request.type) {
          throw new ServiceError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used for a different command.');
        }
        return { command: earlier, replayed: true };
      }
    }

    const lock = this.deps.locks.findById(lockId);
    if (!lock) throw new CommandRefused('unknown_lock', notFound('lock'));
    const permission = this.deps.access.permissionAt(request.userId, lock.id, now);
    if (permission === 'none') throw new CommandRefused('no_usable_key', notFound('lock'));
    // docs/design.md §4d: unlatch only where the family can, an opener's modes only on an opener.
    if (!commandTypesOf(lock.family ?? '').includes(request.type)) {
      const family = lock.family === undefined ? '' : ` (family "${lock.family}")`;
      throw new CommandRefused('unsupported_command', badRequest('unsupported_command', `${lock.name ?? 'This lock'}${family} cannot run "${request.type}".`));
    }
    if (permission === 'not_usable') {
      throw new CommandRefused('no_usable_key', keyNotUsableError(lock.name ?? 'this lock', this.deps.access.explainAt?.(request.userId, lock.id, now)));
    }
    // docs/design.md §4d (issue #32, finding 2): the Opener's modes leave the building door opening
    // on every ring, so only owners and admins switch them; a guest may still open the strike once.
    if (isModeSwitch(request.type) && !maySwitchModes(this.deps.access.roleAt(request.userId, lock.id, now))) {
      throw new CommandRefused(
        'not_permitted',
        forbidden('mode_needs_admin', `Only the owners and admins of ${lock.name ?? 'this lock'} may switch Ring to Open or Continuous Mode.`),
      );
    }
    // Spec Errors: 400 when no gateway-connected lock is available to the user.
    if (!lock.overBluetooth) throw new CommandRefused('lock_unreachable', badRequest('lock_unreachable', 'This lock is not connected to a Bluetooth gateway.'));
    if (!this.deps.gateway.isReachable(lock.id)) throw new CommandRefused('lock_unreachable', badRequest('lock_unreachable', 'The gateway cannot reach this lock now.'));
    if (this.stopped) throw new CommandRefused('unavailable', new ServiceError(503, 'shutting_down', 'The service is stopping; try again shortly.'));
    // Issue #32, finding 10: a guest or admin cannot flood a lock (and its history) with commands.
    // Asked before the lock's queue is touched (a refusal leaves no queue behind).
    // The lock's owners are not limited: it is their door (and HomeKit acts as one by default).
    const waitMs = this.deps.access.roleAt(request.userId, lock.id, now) === 'owner' ? 0 : this.rateLimit.take(request.userId, lock.id, now);
    if (waitMs > 0) {
      throw new CommandRefused('rate_limited', tooManyRequests('command_rate_limited', `You sent ${lock.name ?? 'this lock'} too many commands in a short time; retry later.`, waitMs / 1000));
    }

    const queue = this.queueOf(lock.id);
    if (request.supersedeQueued === true) this.supersedeWaiting(queue, request.userId, request.origin ?? 'api', now);
    const unfinished = (queue.active === null ? 0 : 1) + queue.waiting.length;
    if (unfinished >= this.queueLimit) {
      const retryAfterMs = queue.active === null ? this.timeoutMs : Math.max(0, queue.active.endsAt - performance.now());
      throw new CommandRefused('queue_full', tooManyRequests('command_queue_full', `This lock already has ${unfinished} commands waiting; retry later.`, retryAfterMs / 1000));
    }

    const runNow = queue.active === null && queue.waiting.length === 0;
    const command: CommandRecord = {
      id: newId(),
      lockId: lock.id,
      type: request.type,
      status: runNow ? 'processing' : 'created',
      failureReason: null,
      requestedBy: request.userId,
      origin: request.origin ?? 'api',
      idempotencyKey: key ?? null,
      createdAt: now,
      startedAt: runNow ? now : null,
      completedAt: null,
    };
    this.deps.commands.insert(command);
    this.publish(command);
    if (runNow) this.start(queue, command);
    else queue.waiting.push(command);
    return { command, replayed: false };
  }

  /**
   * A command as its caller may see it: the requester, and the owners and admins of the lock
   * (docs/design.md §3 Commands). Everyone else, and a command of another lock, gets 404.
   * @throws ServiceError 404
   */
  get(userId: string, lockId: string, commandId: string): CommandRecord {
    const command = this.deps.commands.findById(commandId);
    if (!command || command.lockId !== normalizeId(lockId)) throw notFound('command');
    if (command.requestedBy === userId) return command;
    const role = this.deps.access.roleAt(userId, command.lockId, this.deps.clock.now());
    if (role === 'owner' || role === 'admin') return command;
    throw notFound('command');
  }

  /** Resolves with the command once it is completed or failed. */
  whenFinished(commandId: string): Promise<CommandRecord> {
    const stored = this.deps.commands.findById(commandId);
    if (stored && (stored.status === 'completed' || stored.status === 'failed')) return Promise.resolve(stored);
    return new Promise((resolve) => {
      const waiters = this.finishWaiters.get(stored?.id ?? commandId) ?? [];
      waiters.push(resolve);
      this.finishWaiters.set(stored?.id ?? commandId, waiters);
    });
  }

  /** Number of unfinished commands on a lock (running + queued). */
  pendingCount(lockId: string): number {
    const queue = this.queues.get(normalizeId(lockId));
    return queue === undefined ? 0 : (queue.active === null ? 0 : 1) + queue.waiting.length;
  }

  /** Resolves when no command is running or queued on any lock. */
  idle(): Promise<void> {
    if (this.queues.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops accepting commands; every running or queued command ends `failed`/`interrupted` (its
   * outcome can no longer be observed). Call before the gateway stops.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const now = this.deps.clock.now();
    for (const queue of this.queues.values()) {
      const unfinished = [...(queue.active === null ? [] : [queue.active.command]), ...queue.waiting];
      queue.active = null;
      queue.waiting = [];
      for (const command of unfinished) this.finish(command, 'failed', 'interrupted', now);
    }
    this.queues.clear();
    for (const timer of this.guardTimers) clearTimeout(timer);
    this.guardTimers.clear();
    this.notifyIdle();
  }

  private queueOf(lockId: string): LockQueue {
    let queue = this.queues.get(lockId);
    if (queue === undefined) {
      queue = { active: null, waiting: [] };
      this.queues.set(lockId, queue);
    }
    return queue;
  }

  private supersedeWaiting(queue: LockQueue, userId: string, origin: CommandOrigin, now: number): void {
    const [superseded, kept] = partition(queue.waiting, (command) => command.requestedBy === userId && command.origin === origin);
    queue.waiting = kept;
    for (const command of superseded) this.finish(command, 'failed', 'superseded', now);
  }

  /** Hands a command to the gateway; its outcome arrives asynchronously and never rejects. */
  private start(queue: LockQueue, command: CommandRecord): void {
    queue.active = { command, endsAt: performance.now() + this.timeoutMs };
    this.run(queue, command).catch((error: unknown) => {
      // run() guards the gateway and the store itself; this is the last line, never an unhandled rejection.
      this.deps.logger.error(`Command ${command.id}: ${describeError(error)}`);
    });
  }

  private async run(queue: LockQueue, command: CommandRecord): Promise<void> {
    let outcome: CommandOutcome;
    try {
      outcome = await this.guarded(this.deps.gateway.sendCommand(command.lockId, command.type, { timeoutMs: this.timeoutMs }));
    } catch (error) {
      this.deps.logger.error(`Command ${command.id}: the gateway failed unexpectedly: ${describeError(error)}`);
      outcome = { status: 'failed', reason: 'delivery_failed' };
    }
    // stop() already ended it as interrupted.
    if (queue.active?.command !== command) return;
    queue.active = null;
    const now = this.deps.clock.now();
    if (outcome.status === 'completed') this.finish(command, 'completed', null, now);
    else this.finish(command, 'failed', outcome.reason, now);
    this.advance(command.lockId, queue);
  }

  /** The gateway enforces the timeout itself; this only stops a command from waiting forever on a bug. */
  private async guarded(outcome: Promise<CommandOutcome>): Promise<CommandOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<CommandOutcome>((resolve) => {
      timer = setTimeout(() => {
        this.deps.logger.warn(`The gateway did not answer within ${this.timeoutMs + this.guardGraceMs} ms; failing the command as timed out.`);
        resolve({ status: 'failed', reason: 'timeout' });
      }, this.timeoutMs + this.guardGraceMs);
      this.guardTimers.add(timer);
    });
    try {
      return await Promise.race([outcome, guard]);
    } finally {
      if (timer !== undefined) {
        clearTimeout(timer);
        this.guardTimers.delete(timer);
      }
    }
  }

  /** Starts the next queued command of a lock, failing those whose lock became unreachable. */
  private advance(lockId: string, queue: LockQueue): void {
    while (!this.stopped && queue.active === null) {
      const next = queue.waiting.shift();
      if (next === undefined) {
        this.queues.delete(lockId);
        this.notifyIdle();
        return;
      }
      const now = this.deps.clock.now();
      if (!this.deps.gateway.isReachable(lockId)) {
        this.finish(next, 'failed', 'lock_offline', now);
        continue;
      }
      const started: CommandRecord = { ...next, status: 'processing', startedAt: now };
      this.store(() => {
        this.deps.commands.markProcessing(next.id, now);
      }, next.id);
      this.publish(started);
      this.start(queue, started);
    }
  }

  private finish(command: CommandRecord, status: 'completed' | 'failed', reason: CommandFailure | null, now: number): void {
    const finished: CommandRecord = { ...command, status, failureReason: reason, completedAt: now };
    const transaction = this.deps.transaction ?? (<T>(work: () => T): T => work());
    this.store(() => {
      transaction(() => {
        this.deps.commands.finish(command.id, status, reason, now);
        if (status !== 'completed') return;
        // A recorder failure must not undo the command's state (the recorder's own transaction nests as a savepoint).
        this.store(() => {
          this.deps.events.recordCommandCompleted({
            lockId: command.lockId,
            commandId: command.id,
            action: command.type,
            performerId: command.requestedBy,
            timestamp: now,
          });
        }, command.id);
      });
    }, command.id);
    if (status === 'completed') this.deps.logger.info(`Command ${command.id} (${command.type} ${command.lockId}) completed.`);
    else this.deps.logger.info(`Command ${command.id} (${command.type} ${command.lockId}) failed: ${reason ?? 'unknown'}.`);
    this.publish(finished);
    const waiters = this.finishWaiters.get(command.id);
    this.finishWaiters.delete(command.id);
    for (const resolve of waiters ?? []) resolve(finished);
  }

  /** A store or recorder failure is logged; it must not leave the queue stuck. */
  private store(work: () => void, commandId: string): void {
    try {
      work();
    } catch (error) {
      this.deps.logger.error(`Command ${commandId}: could not record its state: ${describeError(error)}`);
    }
  }

  /** Tells listeners about a state change; a failing listener must not disturb the engine. */
  private publish(command: CommandRecord): void {
    for (const listener of this.listeners('command')) {
      try {
        listener(command);
      } catch (error) {
        this.deps.logger.error(`A command listener failed: ${describeError(error)}`);
      }
    }
  }

  private notifyIdle(): void {
    if (this.queues.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

function partition<T>(items: readonly T[], predicate: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (predicate(item) ? yes : no).push(item);
  return [yes, no];
}
