import type { LockCommandType } from '../domain/lock-command-type.js';
import type { ActivityRecord } from '../domain/lock-vocabulary.js';
import type { Clock } from '../domain/clock.js';
import { failed, type CommandOutcome } from './command-outcome.js';
import { CommandQueue } from './command-queue.js';
import { Deadline, EXPIRED } from './deadline.js';
import type { CredentialEntry, DriverContext, LockDriver } from './lock-driver.js';
import type { Advertisement, GattConnection, GattTransport } from './gatt-transport.js';
import type { GatewayLogger } from './gateway-logger.js';
import { LockLink } from './lock-link.js';
import { LockObservations, type GatewayEmit } from './lock-observations.js';
import { LockPresence } from './lock-presence.js';
import type { LockSnapshot } from './lock-snapshot.js';
import type { BackoffPolicy } from './reconnect-backoff.js';
import type { KeypadAccess, KeypadSessionResult } from './keypad-access.js';
import { describeError } from '../domain/errors.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Settings a managed lock needs (already defaulted by the gateway). */
export interface ManagedLockSettings {
  connectTimeoutMs: number;
  operationTimeoutMs: number;
  offlineAfterMs: number;
  backoff: BackoffPolicy;
}

/** What a managed lock needs from its gateway. */
export interface ManagedLockContext {
  transport: GattTransport;
  clock: Clock;
  logger: GatewayLogger;
  settings: ManagedLockSettings;
  emit: GatewayEmit;
  /** The highest activity sequence the caller has stored, or undefined to use the gateway's memory. */
  lastSequence: (lockId: string) => Promise<number | undefined>;
}

/** A refresh that failed (the lock left mid-read) is retried on an advertisement no sooner than this. */
const OWED_REFRESH_RETRY_MS = 2_000;

/**
 * One registered lock, whatever its family: its link (held by the driver's connection policy),
 * the queue that runs its commands one at a time under their deadlines, its presence, its state
 * in memory, and the order of work after every connect (state, device information, family
 * preparation, activity read-back). The protocol itself is the driver's. Internal to the
 * gateway; {@link LockGateway} is the API.
 */
export class ManagedLock {
  private readonly observations: LockObservations;
  private readonly presence: LockPresence;
  private readonly queue = new CommandQueue();
  private readonly link: LockLink;
  private stopped = false;
  private started = false;
  /** Records read back now are backlog (they happened while the gateway was not watching). */
  private catchingUp = true;
  private readingBacklog = false;
  /** The refresh queued and not yet started, which a further call joins. */
  private queuedRefresh: Promise<boolean> | null = null;
  /**
   * When a refresh last failed and none has succeeded since (clock ms), else null. The lock's news
   * flag may already be cleared by the part that ran (a Nuki clears it when its state is read), so
   * the news is ours to remember: the next advertisement after {@link OWED_REFRESH_RETRY_MS} retries.
   */
  private refreshOwedSince: number | null = null;
  private credentialWork: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly address: string,
    readonly name: string,
    private readonly driver: LockDriver,
    private readonly context: ManagedLockContext,
  ) {
    this.observations = new LockObservations(id, context.emit);
    this.presence = new LockPresence(
      context.clock,
      context.settings.offlineAfterMs,
      () => this.link.connected,
      (online) => {
        context.logger.info(`Lock ${this.name} (${this.address}) is ${online ? 'online' : 'offline'}.`);
        // An on-demand lock that went away missed whatever happened meanwhile.
        if (!online) this.catchingUp = true;
        context.emit('connectivity', { lockId: this.id, online });
      },
    );
    this.link = new LockLink(
      context.transport,
      {
        address,
        name,
        profile: driver.profile,
        policy: driver.connectionPolicy,
        connectTimeoutMs: context.settings.connectTimeoutMs,
        backoff: context.settings.backoff,
      },
      context.logger,
      {
        notification: (connection, characteristic, value) => {
          this.guard('notification', () => {
            driver.handleNotification(connection, characteristic, value);
          });
        },
        synchronise: (connection) => this.synchronise(connection),
        seen: () => {
          this.presence.seen();
        },
        changed: () => {
          this.refreshPresence();
        },
        ended: () => {
          this.observations.setMoving(false);
          this.guard('link end', () => {
            driver.linkLost();
          });
          if (driver.connectionPolicy.kind === 'keep_connected') this.catchingUp = true;
        },
      },
    );
    driver.attach(this.driverContext());
  }

  /** The driver's family. */
  get family(): string {
    return this.driver.family;
  }

  /** How the driver wants its link held. */
  get connectionPolicy(): LockDriver['connectionPolicy'] {
    return this.driver.connectionPolicy;
  }

  /** Starts the connection policy; an unusable driver (e.g. never paired) stays offline. */
  start(): void {
    if (this.stopped || this.started) return;
    this.started = true;
    if (this.driver.unusableReason !== null) {
      this.context.logger.error(`Lock ${this.name}: ${this.driver.unusableReason}`);
      return;
    }
    this.link.start();
    // An on-demand lock is read once at start; afterwards its advertisements say when to look again.
    if (this.driver.connectionPolicy.kind === 'on_demand') void this.refresh();
  }

  /** Disconnects and stops; a pending command ends as `delivery_failed`. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.link.stop();
  }

  /** Connected now or heard from within offlineAfter. */
  isReachable(): boolean {
    if (this.driver.unusableReason !== null) return false;
    return this.presence.isReachable();
  }

  /** Re-evaluates reachability and emits `connectivity` when it changed. */
  refreshPresence(): void {
    if (this.stopped || this.driver.unusableReason !== null) return;
    this.presence.refresh();
  }

  snapshot(): LockSnapshot {
    const observed = this.observations;
    return {
      family: this.driver.family,
      bolt: observed.bolt,
      moving: observed.moving,
      online: this.isReachable(),
      connected: this.link.connected,
      batteryLevel: observed.batteryLevel,
      door: observed.door,
      modes: observed.modes === null ? null : { ...observed.modes },
      lastSeenAt: this.presence.lastSeenAt,
      lastActivitySource: observed.lastActivitySource,
      deviceInformation: observed.deviceInformation === null ? null : { ...observed.deviceInformation },
      lastSequence: observed.highestSequence,
      unusableReason: this.driver.unusableReason,
    };
  }

  /**
   * Runs commands one at a time, in call order; the timeout counts from the call. A command still
   * queued when its time is up (behind a slow refresh, say) ends `timeout` then, not when the
   * queue reaches it; it is never sent afterwards (its deadline, created first, has expired).
   */
  async sendCommand(action: LockCommandType, timeoutMs: number): Promise<CommandOutcome> {
    const job = { started: false };
    const outcome = this.queue.run(timeoutMs, (deadline) => {
      job.started = true;
      return this.executeCommand(action, deadline);
    });
    const waited = new Deadline(timeoutMs);
    try {
      const result = await waited.race(outcome);
      if (result !== EXPIRED) return result;
      // A running command ends by its own deadline (the driver's wait for an answer expires).
      return job.started ? await outcome : failed('timeout');
    } finally {
      waited.cancel();
    }
  }

  /** An advertisement from this lock's address: seen now; news makes an on-demand lock look. */
  advertisement(advertisement: Advertisement): void {
    if (this.stopped || this.driver.unusableReason !== null) return;
    this.presence.seen();
    this.context.emit('advertised', { lockId: this.id });
    const news = this.interpret(advertisement);
    this.refreshPresence();
    const owed = this.refreshOwedSince !== null && this.context.clock.now() - this.refreshOwedSince >= OWED_REFRESH_RETRY_MS;
    if ((news || owed) && this.started) void this.refresh();
  }

  /**
   * Connects (or uses the connection) to read state and log again; one refresh is queued at a
   * time. Only on-demand locks need this: a kept connection is told everything by notifications.
   * Resolves true once a read that started after this call has read both (its `synchronised`
   * event came first), false when it could not; never rejects. A call while a refresh is queued
   * joins it; a call while one is running queues the next, so what the lock did before the call
   * is always read.
   */
  refresh(): Promise<boolean> {
    if (this.stopped || this.driver.unusableReason !== null) return Promise.resolve(false);
    if (this.queuedRefresh !== null) return this.queuedRefresh;
    const refresh = this.queue
      .enqueue(async () => {
        this.queuedRefresh = null;
        if (this.stopped) return false;
        this.link.hold();
        let done = false;
        try {
          const current = this.link.current();
          if (current !== null) {
            await this.synchronise(current);
            done = true;
          } else {
            done = (await this.link.connect(this.context.settings.connectTimeoutMs)) !== null;
          }
        } catch (error) {
          this.context.logger.warn(`Lock ${this.name}: refreshing its state failed: ${describeError(error)}`);
        } finally {
          if (!done) this.refreshOwedSince = this.context.clock.now();
          this.link.release();
        }
        return done;
      })
      .catch((error: unknown) => {
        this.context.logger.warn(`Lock ${this.name}: refreshing its state failed: ${describeError(error)}`);
        return false;
      });
    this.queuedRefresh = refresh;
    return refresh;
  }

  /**
   * Sets the credentials the lock should accept taps from (families with that capability; others
   * ignore it). When connected, the difference is written in the same queue as commands;
   * otherwise the next connect writes the whole list. Never rejects.
   */
  setCredentials(entries: readonly CredentialEntry[]): Promise<void> {
    const capability = this.driver.credentials;
    if (capability === undefined) return Promise.resolve();
    capability.setDesired(entries);
    this.credentialWork = this.queue.enqueue(async () => {
      try {
        // A connect in progress writes the whole list itself; the diff then starts from its result.
        await this.link.settle();
        const connection = this.link.current();
        if (this.stopped || connection === null) return;
        await capability.push(connection);
      } catch (error) {
        this.context.logger.warn(`Lock ${this.name}: updating its credentials failed: ${describeError(error)}`);
      }
    });
    return this.credentialWork;
  }

  /**
   * Runs keypad work on a prepared connection, queued with the commands (one at a time), connecting
   * on demand; the connection is held until `work` settles. `lock_offline` when the lock cannot be
   * reached; `no_keypad` when the driver has none. `work`'s own errors (KeypadError) reach the
   * caller. docs/design.md §4c.
   */
  async keypadSession<T>(work: (keypad: KeypadAccess) => Promise<T>, timeoutMs: number): Promise<KeypadSessionResult<T>> {
    const capability = this.driver.keypad;
    if (capability === undefined) return { status: 'no_keypad' };
    return this.queue.run(timeoutMs, async (deadline): Promise<KeypadSessionResult<T>> => {
      if (this.stopped || this.driver.unusableReason !== null || deadline.expired) return { status: 'lock_offline' };
      this.link.hold();
      try {
        const connection = await this.connectWithin(deadline);
        if (connection === null) return { status: 'lock_offline' };
        return { status: 'done', value: await work(capability.access(connection, deadline)) };
      } finally {
        this.link.release();
      }
    });
  }

  /** Resolves once a connect in progress and every queued credential push have finished. */
  async credentialsSettled(): Promise<void> {
    await this.link.settle();
    await this.credentialWork;
  }

  /**
   * Connects (or uses the connection) within the deadline; null when the lock could not be reached
   * in time. A driver whose policy retries (`retryPauseMs`) is connected to again after each failed
   * attempt while the deadline allows another.
   */
  private async connectWithin(deadline: Deadline): Promise<GattConnection | null> {
    for (;;) {
      const connection = await deadline.race(this.link.connect(Math.min(this.context.settings.connectTimeoutMs, deadline.remaining())));
      if (connection !== EXPIRED && connection !== null) return connection;
      if (connection === EXPIRED || !(await this.pauseBeforeRetry(deadline))) return null;
    }
  }

  /**
   * Waits the policy's pause before another attempt; false (at once) when the driver does not
   * retry, the lock is stopping, or the deadline leaves no room for the pause and an attempt.
   */
  private async pauseBeforeRetry(deadline: Deadline): Promise<boolean> {
    const policy = this.driver.connectionPolicy;
    const pauseMs = policy.kind === 'on_demand' ? policy.retryPauseMs : undefined;
    if (pauseMs === undefined || this.stopped || deadline.remaining() <= pauseMs) return false;
    const paused = await deadline.race(sleep(pauseMs).then(() => true));
    return paused === true && !this.isStopped() && !deadline.expired;
  }

  /** Read through a method: `stop()` may have run during an await (the compiler narrows the field). */
  private isStopped(): boolean {
    return this.stopped;
  }

  private async executeCommand(action: LockCommandType, deadline: Deadline): Promise<CommandOutcome> {
    if (this.stopped || this.driver.unusableReason !== null) return failed('lock_offline');
    if (deadline.expired) return failed('timeout');
    this.link.hold();
    try {
      // What the command ends with when no attempt gets further: never reached, or reached and dropped.
      let unfinished: CommandOutcome = failed('lock_offline');
      let reached = false;
      let failovers = 0;
      for (;;) {
        const connection = await this.connectWithin(deadline);
        // Heard, but every gateway that hears it had no free slot: the command was not delivered (docs/design.md §4e).
        if (connection === null && !reached && this.link.lastConnectFailure === 'no_free_slot') return failed('delivery_failed');
        if (connection === null) return unfinished;
        reached = true;
        const outcome = await this.driver.executeCommand(connection, action, deadline);
        if (outcome.status === 'completed') this.observations.applyBolt(outcome.bolt, 'remote');
        else if (outcome.reason === 'jammed') this.observations.applyBolt('jammed', 'remote');
        if (outcome.status !== 'failed' || outcome.reason !== 'delivery_failed' || deadline.remaining() <= 0) return outcome;
        unfinished = outcome;
        // docs/design.md §4e: a link through a gateway that dropped mid-command fails over to another
        // gateway that hears the lock, within the command's timeout (never with one gateway alone).
        if (failovers < 2 && this.link.canFailOver(connection)) {
          failovers += 1;
          this.context.logger.info(`Lock ${this.name}: its link dropped during the command; sending it again through another gateway.`);
          continue;
        }
        // A link the lock dropped before it answered is tried again (policies with `retryPauseMs`).
        if (connection.connected || !(await this.pauseBeforeRetry(deadline))) return outcome;
        this.context.logger.info(`Lock ${this.name}: the link dropped during the ${action}; trying again.`);
      }
    } finally {
      this.link.release();
    }
  }

  /** After (re)connecting: state, device information, family preparation, then activity since the last stored sequence. */
  private async synchronise(connection: GattConnection): Promise<void> {
    await this.driver.readState(connection);
    if (this.observations.deviceInformation === null) {
      const information = await this.driver.readDeviceInformation(connection);
      if (information !== null) this.observations.reportDeviceInformation(information);
    }
    await this.driver.prepare(connection);
    const stored = await this.context.lastSequence(this.id);
    // The caller's stored sequence is the truth: records it never stored are read (and emitted) again.
    if (stored !== undefined) this.observations.highestSequence = stored;
    this.readingBacklog = true;
    try {
      await this.driver.readActivitySince(connection, this.observations.highestSequence);
    } finally {
      this.readingBacklog = false;
    }
    this.catchingUp = false;
    // State and log read in full, whoever asked (a refresh, a command's connect): nothing owed.
    this.refreshOwedSince = null;
    this.context.emit('synchronised', { lockId: this.id });
  }

  private driverContext(): DriverContext {
    const observations = this.observations;
    return {
      lockId: this.id,
      name: this.name,
      clock: this.context.clock,
      logger: this.context.logger,
      operationTimeoutMs: this.context.settings.operationTimeoutMs,
      reportBolt: (bolt, source) => {
        observations.reportBolt(bolt, source);
      },
      reportBattery: (level) => {
        observations.reportBattery(level);
      },
      reportDoor: (door) => {
        observations.reportDoor(door);
      },
      reportModes: (modes) => {
        observations.reportModes(modes);
      },
      reportActivity: (record: ActivityRecord) => {
        // Records read back after a gap happened while nobody watched; everything else is live.
        observations.reportActivity(record, this.readingBacklog && this.catchingUp);
      },
      highestSequence: () => observations.highestSequence,
      restartSequenceAt: (sequence) => {
        observations.highestSequence = sequence;
      },
      requestRefresh: () => {
        if (this.started) void this.refresh();
      },
    };
  }

  private interpret(advertisement: Advertisement): boolean {
    try {
      return this.driver.interpretAdvertisement(advertisement);
    } catch (error) {
      this.context.logger.error(`Lock ${this.name}: the ${this.driver.family} driver failed on an advertisement: ${describeError(error)}`);
      return false;
    }
  }

  /** A driver's bug must not break the link that delivered the bytes. */
  private guard(what: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.context.logger.error(`Lock ${this.name}: the ${this.driver.family} driver failed on a ${what}: ${describeError(error)}`);
    }
  }
}
