import { randomInt } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { decodeActivityNotification, encodeActivityReadSince } from './activity-record-codec.js';
import { failed, type CommandOutcome } from './command-outcome.js';
import { decodeControlResponse, encodeControlRequest, peekRequestHeader, type ControlResponse } from './control-frame-codec.js';
import {
  NO_CREDENTIAL_UUID,
  decodeCredentialResponse,
  encodeCredentialRequest,
  type CredentialResponse,
} from './credential-frame-codec.js';
import { Deadline, EXPIRED, withTimeout } from './deadline.js';
import type { LockGatewayEvents } from './gateway-events.js';
import type { GatewayLogger } from './gateway-logger.js';
import type { ActivitySource, CredentialOpcode, DeviceInformation, LockAction } from './lock-profile.js';
import type { GatewayBolt, LockSnapshot } from './lock-snapshot.js';
import { TransportError, type LockConnection, type LockTransport, type NotifyingCharacteristic } from './lock-transport.js';
import { backoffDelay, type BackoffPolicy } from './reconnect-backoff.js';
import { decodeBatteryLevel, decodeBoltState, decodeUtf8String } from './status-value-codec.js';

/** Settings a managed lock needs (already defaulted by the gateway). */
export interface ManagedLockSettings {
  connectTimeoutMs: number;
  operationTimeoutMs: number;
  offlineAfterMs: number;
  backoff: BackoffPolicy;
}

/** What a managed lock needs from its gateway. */
export interface ManagedLockContext {
  transport: LockTransport;
  clock: Clock;
  logger: GatewayLogger;
  settings: ManagedLockSettings;
  emit: <K extends keyof LockGatewayEvents>(event: K, ...payload: LockGatewayEvents[K]) => void;
  /** The highest activity sequence the caller has stored, or undefined to use the gateway's memory. */
  lastSequence: (lockId: string) => Promise<number | undefined>;
}

type PendingAnswer = { kind: 'response'; response: ControlResponse } | { kind: 'unauthenticated' } | { kind: 'link_lost' };

interface PendingCommand {
  requestId: number;
  counter: bigint;
  answer: (answer: PendingAnswer) => void;
}

/** One credential the lock should accept taps from (docs/ble-protocol.md "Credentials"). */
export interface CredentialEntry {
  /** The eKey id (UUID, any case). */
  credential: string;
  /** Ms since the Unix epoch; the lock drops the credential by its own clock at this instant. */
  validUntil: number;
}

type PendingCredentialAnswer = { kind: 'response'; response: CredentialResponse } | { kind: 'unauthenticated' } | { kind: 'link_lost' };

interface PendingCredential {
  requestId: number;
  counter: bigint;
  answer: (answer: PendingCredentialAnswer) => void;
}

/**
 * One registered lock: its connection (kept up, reconnecting with backoff), its state in memory,
 * and the Control Point exchange. Internal to the gateway; {@link LockGateway} is the API.
 */
export class ManagedLock {
  private connection: LockConnection | null = null;
  private connecting: Promise<LockConnection | null> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failedAttempts = 0;
  private keepConnected = false;
  private stopped = false;
  private bolt: GatewayBolt = 'unknown';
  private moving = false;
  private batteryLevel: number | null = null;
  private lastSeenAt: number | null = null;
  private lastActivitySource: ActivitySource | null = null;
  private deviceInformation: DeviceInformation | null = null;
  private highestSequence = 0;
  private counter = 0n;
  private pending: PendingCommand | null = null;
  private backlogDone: (() => void) | null = null;
  private commandChain: Promise<unknown> = Promise.resolve();
  private reportedOnline = false;
  /** True once the state after a connect has been read; `connected` in snapshots waits for it. */
  private synchronised = false;
  /** The allow-list the lock should hold; null until the caller first sets one (the list is then left alone). */
  private desiredCredentials: Map<string, number> | null = null;
  /** What the lock holds as far as its answers tell; null = unknown, so the next push is a full resync. */
  private lockCredentials: Map<string, number> | null = null;
  private pendingCredential: PendingCredential | null = null;
  /** Settles when the last queued credential push is done. */
  private credentialWork: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly address: string,
    readonly name: string,
    private readonly key: Buffer,
    private readonly context: ManagedLockContext,
  ) {}

  /** Starts keeping the lock connected. */
  start(): void {
    if (this.stopped || this.keepConnected) return;
    this.keepConnected = true;
    void this.ensureConnected(this.context.settings.connectTimeoutMs);
  }

  /** Disconnects and stops reconnecting; a pending command ends as `delivery_failed`. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.keepConnected = false;
    this.clearReconnectTimer();
    this.pending?.answer({ kind: 'link_lost' });
    this.pendingCredential?.answer({ kind: 'link_lost' });
    const connecting = this.connecting;
    const connection = this.connection;
    this.connection = null;
    this.synchronised = false;
    if (connection !== null) await connection.disconnect();
    if (connecting !== null) await connecting;
  }

  /** Connected now or heard from within offlineAfter. */
  isReachable(): boolean {
    if (this.connection?.connected === true) return true;
    return this.lastSeenAt !== null && this.context.clock.now() - this.lastSeenAt < this.context.settings.offlineAfterMs;
  }

  /** Re-evaluates reachability and emits `connectivity` when it changed. */
  refreshPresence(): void {
    if (this.stopped) return;
    const online = this.isReachable();
    if (online === this.reportedOnline) return;
    this.reportedOnline = online;
    this.context.logger.info(`Lock ${this.name} (${this.address}) is ${online ? 'online' : 'offline'}.`);
    this.context.emit('connectivity', { lockId: this.id, online });
  }

  snapshot(): LockSnapshot {
    return {
      bolt: this.bolt,
      moving: this.moving,
      online: this.isReachable(),
      connected: this.synchronised && this.connection?.connected === true,
      batteryLevel: this.batteryLevel,
      lastSeenAt: this.lastSeenAt,
      lastActivitySource: this.lastActivitySource,
      deviceInformation: this.deviceInformation === null ? null : { ...this.deviceInformation },
      lastSequence: this.highestSequence,
    };
  }

  /** Runs commands one at a time, in call order; the timeout counts from the call. */
  sendCommand(action: LockAction, timeoutMs: number): Promise<CommandOutcome> {
    const deadline = new Deadline(timeoutMs);
    const run = this.commandChain.then(() => this.executeCommand(action, deadline)).finally(() => {
      deadline.cancel();
    });
    this.commandChain = run.catch(() => undefined);
    return run;
  }

  /**
   * Sets the credentials the lock should accept taps from. When connected, the difference to
   * what the lock holds is written (allow/revoke, one request at a time, each answered) in the
   * same queue as commands, so the two never interleave on the link; otherwise the next connect
   * writes the whole list. Never rejects: failures are logged, and the next connect (or the next
   * call) writes the whole list again. Resolves when this push is done.
   */
  setCredentials(entries: readonly CredentialEntry[]): Promise<void> {
    this.desiredCredentials = new Map(entries.map((entry) => [entry.credential.toLowerCase(), Math.max(0, Math.floor(entry.validUntil))]));
    const run = this.commandChain.then(() => this.pushCredentials());
    this.commandChain = run.catch(() => undefined);
    this.credentialWork = run.catch(() => undefined);
    return this.credentialWork;
  }

  /** Resolves once a connect in progress and every queued credential push have finished. */
  async credentialsSettled(): Promise<void> {
    if (this.connecting !== null) await this.connecting;
    await this.credentialWork;
  }

  private async pushCredentials(): Promise<void> {
    try {
      // A connect in progress writes the whole list itself; the diff then starts from its result.
      if (this.connecting !== null) await this.connecting;
      const connection = this.connection;
      if (this.stopped || this.desiredCredentials === null || connection === null || !connection.connected || !this.synchronised) return;
      if (this.lockCredentials === null) await this.resyncCredentials(connection);
      else await this.writeCredentialDiff(connection, this.lockCredentials, this.desiredCredentials);
    } catch (error) {
      this.lockCredentials = null;
      this.context.logger.warn(`Lock ${this.name}: updating its credentials failed: ${describe(error)}`);
    }
  }

  /** Clear, then allow every desired credential. @throws Error when the lock refuses or does not answer. */
  private async resyncCredentials(connection: LockConnection): Promise<void> {
    const desired = this.desiredCredentials;
    if (desired === null) return;
    this.lockCredentials = null;
    await this.credentialExchange(connection, 'clear', NO_CREDENTIAL_UUID, 0);
    const held = new Map<string, number>();
    this.lockCredentials = held;
    await this.writeCredentialDiff(connection, held, desired);
  }

  private async writeCredentialDiff(connection: LockConnection, held: Map<string, number>, desired: ReadonlyMap<string, number>): Promise<void> {
    const now = this.context.clock.now();
    // The lock dropped these by its own clock already.
    for (const [credential, validUntil] of held) if (validUntil <= now) held.delete(credential);
    for (const credential of [...held.keys()]) {
      if (desired.has(credential)) continue;
      await this.credentialExchange(connection, 'revoke', credential, 0);
      held.delete(credential);
    }
    for (const [credential, validUntil] of desired) {
      if (validUntil <= now || held.get(credential) === validUntil) continue;
      await this.credentialExchange(connection, 'allow', credential, validUntil);
      held.set(credential, validUntil);
    }
  }

  /** Writes one signed Credentials request and waits for `ok`. @throws Error on any other outcome. */
  private async credentialExchange(connection: LockConnection, opcode: CredentialOpcode, credential: string, validUntil: number): Promise<void> {
    const deadline = new Deadline(this.context.settings.operationTimeoutMs);
    try {
      // Two tries: the second only after the lock told us (authenticated) its counter is ahead.
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const counter = this.nextCounter();
        const requestId = randomInt(0, 0x1_0000_0000);
        let answer: (value: PendingCredentialAnswer) => void = () => undefined;
        const answered = new Promise<PendingCredentialAnswer>((resolve) => {
          answer = resolve;
        });
        this.pendingCredential = { requestId, counter, answer };
        let result: PendingCredentialAnswer | typeof EXPIRED;
        try {
          const frame = encodeCredentialRequest({ opcode, requestId, counter, credential, validUntil }, this.key);
          if ((await deadline.race(connection.write('credentials', frame))) === EXPIRED) throw new Error(`${opcode} write timed out`);
          result = await deadline.race(answered);
        } finally {
          this.pendingCredential = null;
        }
        if (result === EXPIRED) throw new Error(`no answer to ${opcode}`);
        if (result.kind === 'link_lost') throw new Error('link lost');
        if (result.kind === 'unauthenticated') throw new Error(`the answer to ${opcode} failed authentication (is the configured key right?)`);
        const response = result.response;
        if (response.result === 'ok') return;
        if (response.result === 'stale_counter' && attempt === 0) {
          if (response.highestCounter > this.counter) this.counter = response.highestCounter;
          continue;
        }
        throw new Error(`the lock refused ${opcode}: ${response.result}`);
      }
      throw new Error(`the lock refused ${opcode}: stale_counter`);
    } finally {
      deadline.cancel();
    }
  }

  private handleCredentialResponse(value: Buffer): void {
    const pending = this.pendingCredential;
    if (pending === null) return;
    const decoded = decodeCredentialResponse(value, this.key);
    if (!decoded.ok) {
      if (peekRequestHeader(value)?.requestId === pending.requestId) pending.answer({ kind: 'unauthenticated' });
      return;
    }
    const response = decoded.value;
    if (response.requestId !== pending.requestId || response.requestCounter !== pending.counter) return;
    pending.answer({ kind: 'response', response });
  }

  private async executeCommand(action: LockAction, deadline: Deadline): Promise<CommandOutcome> {
    if (this.stopped) return failed('lock_offline');
    if (deadline.expired) return failed('timeout');
    const connection = await deadline.race(this.ensureConnected(Math.min(this.context.settings.connectTimeoutMs, deadline.remaining())));
    if (connection === EXPIRED || connection === null) return failed('lock_offline');
    const target = action === 'lock' ? 'locked' : 'unlocked';
    // Two tries: the second only after the lock told us (authenticated) its counter is ahead.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await this.exchange(connection, action, deadline);
      if (answer === 'timeout' || answer === 'delivery_failed') return failed(answer);
      if (answer.kind === 'link_lost') return failed('delivery_failed');
      if (answer.kind === 'unauthenticated') {
        this.context.logger.warn(`Lock ${this.name}: its answer failed authentication (is the configured key right?).`);
        return failed('delivery_failed');
      }
      const response = answer.response;
      switch (response.result) {
        case 'ok':
          if (response.bolt !== target) {
            this.context.logger.warn(`Lock ${this.name} answered ok but reports the bolt ${response.bolt}.`);
            return failed('delivery_failed');
          }
          this.applyBolt(target, 'remote');
          return { status: 'completed', bolt: target };
        case 'jammed':
          this.applyBolt('jammed', 'remote');
          return failed('jammed');
        case 'stale_counter':
          this.context.logger.info(`Lock ${this.name} has seen counter ${response.highestCounter}; resynchronising.`);
          if (response.highestCounter > this.counter) this.counter = response.highestCounter;
          continue;
        case 'bad_tag':
        case 'unknown_opcode':
        case 'malformed':
        case 'busy':
        case 'internal_error':
          this.context.logger.warn(`Lock ${this.name} refused the ${action} command: ${response.result}.`);
          return failed('delivery_failed');
      }
    }
    return failed('delivery_failed');
  }

  /** Writes one signed request and waits for its answer. */
  private async exchange(connection: LockConnection, action: LockAction, deadline: Deadline): Promise<PendingAnswer | 'timeout' | 'delivery_failed'> {
    const counter = this.nextCounter();
    const requestId = randomInt(0, 0x1_0000_0000);
    let answer: (value: PendingAnswer) => void = () => undefined;
    const answered = new Promise<PendingAnswer>((resolve) => {
      answer = resolve;
    });
    this.pending = { requestId, counter, answer };
    try {
      const written = await deadline.race(
        connection.write('controlPoint', encodeControlRequest({ opcode: action, requestId, counter }, this.key)).then(
          () => true,
          (error: unknown) => {
            this.context.logger.warn(`Lock ${this.name}: writing the ${action} command failed: ${describe(error)}`);
            return false;
          },
        ),
      );
      if (written === EXPIRED) return 'timeout';
      if (!written) return 'delivery_failed';
      const result = await deadline.race(answered);
      return result === EXPIRED ? 'timeout' : result;
    } finally {
      this.pending = null;
    }
  }

  private nextCounter(): bigint {
    // Time-based floor: counters stay above anything sent before a gateway restart.
    const floor = BigInt(this.context.clock.now());
    this.counter = this.counter >= floor ? this.counter + 1n : floor;
    return this.counter;
  }

  /** The current connection, or a new one (at most one connect in flight). */
  private ensureConnected(timeoutMs: number): Promise<LockConnection | null> {
    // A connection still reading its state after connecting is not ready for commands yet.
    if (this.connecting !== null) return this.connecting;
    if (this.connection?.connected === true) return Promise.resolve(this.connection);
    if (this.stopped) return Promise.resolve(null);
    this.clearReconnectTimer();
    const connecting = this.establish(timeoutMs).finally(() => {
      this.connecting = null;
    });
    this.connecting = connecting;
    return connecting;
  }

  private async establish(timeoutMs: number): Promise<LockConnection | null> {
    let connection: LockConnection;
    try {
      connection = await this.context.transport.connect(this.address, { timeoutMs });
    } catch (error) {
      this.context.logger.debug(`Lock ${this.name}: connect failed: ${describe(error)}`);
      this.afterFailedConnect();
      return null;
    }
    if (this.stopped) {
      await connection.disconnect();
      return null;
    }
    connection.onNotification((characteristic, value) => {
      this.handleNotification(connection, characteristic, value);
    });
    connection.onDisconnect(() => {
      this.handleLinkLost(connection);
    });
    this.connection = connection;
    this.markSeen();
    try {
      await this.synchronise(connection);
    } catch (error) {
      this.context.logger.warn(`Lock ${this.name}: reading its state after connecting failed: ${describe(error)}`);
      if (this.connection === connection) this.connection = null;
      await connection.disconnect();
      this.afterFailedConnect();
      return null;
    }
    // stop() may have run during the awaits above.
    if (this.isStopped() || this.connection !== connection) {
      await connection.disconnect();
      return null;
    }
    this.failedAttempts = 0;
    this.synchronised = true;
    this.context.logger.debug(`Lock ${this.name}: connected.`);
    this.refreshPresence();
    return connection;
  }

  /** After (re)connecting: bolt, battery, device information, then activity since the last stored sequence. */
  private async synchronise(connection: LockConnection): Promise<void> {
    const timeoutMs = this.context.settings.operationTimeoutMs;
    const timeout = (what: string) => () => new TransportError('operation_failed', `${what} timed out`);
    const bolt = decodeBoltState(await withTimeout(connection.read('boltState'), timeoutMs, timeout('bolt read')));
    if (bolt.ok) this.applyBoltReading(bolt.value.bolt, bolt.value.source);
    const battery = decodeBatteryLevel(await withTimeout(connection.read('batteryLevel'), timeoutMs, timeout('battery read')));
    if (battery.ok) this.applyBattery(battery.value);
    if (this.deviceInformation === null) await this.readDeviceInformation(connection, timeoutMs);
    // Before the backlog: a key revoked while the lock was away stops working as early as possible.
    await this.resyncCredentialsAfterConnect(connection);
    await this.readActivityBacklog(connection, timeoutMs);
  }

  /** Full credential resync on every (re)connect; a failure is logged, never fails the connect. */
  private async resyncCredentialsAfterConnect(connection: LockConnection): Promise<void> {
    this.lockCredentials = null;
    if (this.desiredCredentials === null) return;
    try {
      await this.resyncCredentials(connection);
    } catch (error) {
      this.lockCredentials = null;
      this.context.logger.warn(`Lock ${this.name}: writing its credentials after connecting failed: ${describe(error)}`);
    }
  }

  private async readDeviceInformation(connection: LockConnection, timeoutMs: number): Promise<void> {
    try {
      const read = async (name: 'manufacturerName' | 'modelNumber' | 'serialNumber' | 'firmwareRevision'): Promise<string> =>
        decodeUtf8String(await withTimeout(connection.read(name), timeoutMs, () => new TransportError('operation_failed', `${name} read timed out`)));
      this.deviceInformation = {
        manufacturer: await read('manufacturerName'),
        model: await read('modelNumber'),
        serial: await read('serialNumber'),
        firmware: await read('firmwareRevision'),
      };
    } catch (error) {
      // Device Information is optional in the profile: carry on without it.
      this.context.logger.debug(`Lock ${this.name}: no device information: ${describe(error)}`);
    }
  }

  private async readActivityBacklog(connection: LockConnection, timeoutMs: number): Promise<void> {
    const stored = await this.context.lastSequence(this.id);
    // The caller's stored sequence is the truth: records it never stored are read (and emitted) again.
    if (stored !== undefined) this.highestSequence = stored;
    const since = this.highestSequence;
    const done = new Promise<void>((resolve) => {
      this.backlogDone = resolve;
    });
    try {
      await withTimeout(connection.write('activity', encodeActivityReadSince(since)), timeoutMs, () => new TransportError('operation_failed', 'read-since write timed out'));
      await withTimeout(done, timeoutMs, () => new TransportError('operation_failed', 'activity backlog did not end'));
    } finally {
      this.backlogDone = null;
    }
  }

  private handleNotification(connection: LockConnection, characteristic: NotifyingCharacteristic, value: Buffer): void {
    if (connection !== this.connection) return;
    this.markSeen();
    switch (characteristic) {
      case 'boltState': {
        const decoded = decodeBoltState(value);
        if (decoded.ok) this.applyBoltReading(decoded.value.bolt, decoded.value.source);
        return;
      }
      case 'batteryLevel': {
        const decoded = decodeBatteryLevel(value);
        if (decoded.ok) this.applyBattery(decoded.value);
        return;
      }
      case 'activity':
        this.handleActivity(value);
        return;
      case 'controlPoint':
        this.handleControlResponse(value);
        return;
      case 'credentials':
        this.handleCredentialResponse(value);
        return;
    }
  }

  private handleActivity(value: Buffer): void {
    const decoded = decodeActivityNotification(value, this.key);
    if (!decoded.ok) {
      this.context.logger.warn(`Lock ${this.name}: dropped an activity frame (${decoded.reason}).`);
      return;
    }
    const notification = decoded.value;
    if (notification.kind === 'backlog_end') {
      const end = notification.end;
      if (end.highestSequence < this.highestSequence) {
        // The lock's log restarted (reset or replaced): follow its numbering from now on.
        this.context.logger.warn(`Lock ${this.name}: its activity log restarted at ${end.highestSequence}.`);
        this.highestSequence = end.highestSequence;
      } else if (end.oldestAvailable > this.highestSequence + 1 && end.highestSequence > this.highestSequence) {
        this.context.logger.warn(`Lock ${this.name}: records ${this.highestSequence + 1}..${end.oldestAvailable - 1} were overwritten before they could be read.`);
      }
      this.backlogDone?.();
      return;
    }
    const record = notification.record;
    if (record.sequence <= this.highestSequence) return; // seen already (backlog and live overlap)
    this.highestSequence = record.sequence;
    this.lastActivitySource = record.source;
    this.context.emit('activity', { lockId: this.id, record, backlog: this.backlogDone !== null });
  }

  private handleControlResponse(value: Buffer): void {
    const pending = this.pending;
    if (pending === null) return;
    const decoded = decodeControlResponse(value, this.key);
    if (!decoded.ok) {
      // Unauthenticated bytes are only trusted to say "this answer is for you and is unreadable".
      if (peekRequestHeader(value)?.requestId === pending.requestId) pending.answer({ kind: 'unauthenticated' });
      return;
    }
    const response = decoded.value;
    if (response.requestId !== pending.requestId || response.requestCounter !== pending.counter) return; // an old or replayed answer
    pending.answer({ kind: 'response', response });
  }

  private handleLinkLost(connection: LockConnection): void {
    if (connection !== this.connection) return;
    this.connection = null;
    this.synchronised = false;
    this.markSeen();
    this.moving = false;
    this.context.logger.info(`Lock ${this.name}: link lost.`);
    this.pending?.answer({ kind: 'link_lost' });
    this.pendingCredential?.answer({ kind: 'link_lost' });
    this.backlogDone = null;
    this.refreshPresence();
    if (this.keepConnected && !this.stopped) this.scheduleReconnect();
  }

  private afterFailedConnect(): void {
    this.failedAttempts += 1;
    this.refreshPresence();
    if (this.keepConnected && !this.stopped) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    // May run inside establish() (connecting still set): the timer then finds a settled attempt.
    if (this.reconnectTimer !== null) return;
    const delay = backoffDelay(Math.max(0, this.failedAttempts - 1), this.context.settings.backoff);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.ensureConnected(this.context.settings.connectTimeoutMs);
    }, delay);
  }

  private clearReconnectTimer(): void {
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private isStopped(): boolean {
    return this.stopped;
  }

  private markSeen(): void {
    this.lastSeenAt = this.context.clock.now();
  }

  private applyBoltReading(position: 'locked' | 'unlocked' | 'jammed' | 'moving', source: ActivitySource | null): void {
    if (position === 'moving') {
      this.moving = true;
      return;
    }
    this.moving = false;
    this.applyBolt(position, source);
  }

  private applyBolt(bolt: GatewayBolt, source: ActivitySource | null): void {
    if (source !== null) this.lastActivitySource = source;
    if (bolt === this.bolt) return;
    this.bolt = bolt;
    this.context.emit('bolt', { lockId: this.id, bolt, source });
  }

  private applyBattery(level: number): void {
    if (level === this.batteryLevel) return;
    this.batteryLevel = level;
    this.context.emit('battery', { lockId: this.id, level });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
