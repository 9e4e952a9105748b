import type { DeviceInformation, LockAction } from '../../../domain/lock-vocabulary.js';
import { randomInt } from 'node:crypto';
import { decodeActivityNotification, encodeActivityReadSince } from '../protocol/activity-record-codec.js';
import { failed, type CommandOutcome } from '../../../gateway/command-outcome.js';
import { decodeControlResponse, encodeControlRequest, peekRequestHeader, type ControlResponse } from '../protocol/control-frame-codec.js';
import { EXPIRED, withTimeout, type Deadline } from '../../../gateway/deadline.js';
import { parseLockKey } from '../protocol/frame-authentication.js';
import { TransportError, type GattConnection } from '../../../gateway/gatt-transport.js';
import { decodeBatteryLevel, decodeBoltState, decodeUtf8String } from '../protocol/status-value-codec.js';
import type { ConnectionPolicy, DriverContext, LockDriver } from '../../../gateway/lock-driver.js';
import { EKeyAnswerSlot, type EKeyAnswer } from './ekey-answer-slot.js';
import { EKeyCredentialList } from './ekey-credential-list.js';
import { EKEY_GATT_PROFILE } from './ekey-gatt-profile.js';
import { EKeyRequestCounter } from './ekey-request-counter.js';
import { describeError } from '../../../domain/errors.js';

/**
 * The driver of our open lock profile (docs/ble-protocol.md): Bolt State and Battery Level
 * notifications, signed Control Point commands with replay protection, the Activity log with
 * read-since, Device Information, and the credential allow-list. The link is kept up: the lock
 * notifies every change at once.
 *
 * @example
 * gateway.addLock({ id, address: 'AA:BB:CC:DD:EE:01', name: 'Front door', driver: new EKeyDriver(keyHex) });
 */
export class EKeyDriver implements LockDriver {
  readonly family = 'ekey';
  readonly profile = EKEY_GATT_PROFILE;
  readonly connectionPolicy: ConnectionPolicy = { kind: 'keep_connected' };
  readonly unusableReason = null;
  private readonly key: Buffer;
  private context: DriverContext | null = null;
  private counter: EKeyRequestCounter | null = null;
  private credentialList: EKeyCredentialList | null = null;
  private readonly commandSlot = new EKeyAnswerSlot<ControlResponse>();
  private backlogDone: (() => void) | null = null;

  /** @throws Error when the key is not 64 hex digits. */
  constructor(keyHex: string) {
    this.key = parseLockKey(keyHex);
  }

  get credentials(): EKeyCredentialList | undefined {
    return this.credentialList ?? undefined;
  }

  attach(context: DriverContext): void {
    this.context = context;
    this.counter = new EKeyRequestCounter(context.clock);
    this.credentialList = new EKeyCredentialList(this.key, this.counter, context.clock, context.operationTimeoutMs);
  }

  async readState(connection: GattConnection): Promise<void> {
    const context = this.attached();
    const bolt = decodeBoltState(await this.timedRead(connection, 'boltState'));
    if (bolt.ok) context.reportBolt(bolt.value.bolt, bolt.value.source);
    const battery = decodeBatteryLevel(await this.timedRead(connection, 'batteryLevel'));
    if (battery.ok) context.reportBattery(battery.value);
  }

  async readDeviceInformation(connection: GattConnection): Promise<DeviceInformation | null> {
    try {
      const read = async (name: string): Promise<string> => decodeUtf8String(await this.timedRead(connection, name));
      return {
        manufacturer: await read('manufacturerName'),
        model: await read('modelNumber'),
        serial: await read('serialNumber'),
        firmware: await read('firmwareRevision'),
      };
    } catch (error) {
      // Device Information is optional in the profile: carry on without it.
      this.attached().logger.debug(`Lock ${this.attached().name}: no device information: ${describeError(error)}`);
      return null;
    }
  }

  async prepare(connection: GattConnection): Promise<void> {
    // Before the backlog: a key revoked while the lock was away stops working as early as possible.
    try {
      await this.credentialList?.resyncAfterConnect(connection);
    } catch (error) {
      this.attached().logger.warn(`Lock ${this.attached().name}: writing its credentials after connecting failed: ${describeError(error)}`);
    }
  }

  async readActivitySince(connection: GattConnection, sequence: number): Promise<void> {
    const timeoutMs = this.attached().operationTimeoutMs;
    const done = new Promise<void>((resolve) => {
      this.backlogDone = resolve;
    });
    try {
      await withTimeout(connection.write('activity', encodeActivityReadSince(sequence)), timeoutMs, () => new TransportError('operation_failed', 'read-since write timed out'));
      await withTimeout(done, timeoutMs, () => new TransportError('operation_failed', 'activity backlog did not end'));
    } finally {
      this.backlogDone = null;
    }
  }

  async executeCommand(connection: GattConnection, action: LockAction, deadline: Deadline): Promise<CommandOutcome> {
    const context = this.attached();
    const target = action === 'lock' ? 'locked' : 'unlocked';
    // Two tries: the second only after the lock told us (authenticated) its counter is ahead.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await this.exchange(connection, action, deadline);
      if (answer === 'timeout' || answer === 'delivery_failed') return failed(answer);
      if (answer.kind === 'link_lost') return failed('delivery_failed');
      if (answer.kind === 'unauthenticated') {
        context.logger.warn(`Lock ${context.name}: its answer failed authentication (is the configured key right?).`);
        return failed('delivery_failed');
      }
      const response = answer.response;
      switch (response.result) {
        case 'ok':
          if (response.bolt !== target) {
            context.logger.warn(`Lock ${context.name} answered ok but reports the bolt ${response.bolt}.`);
            return failed('delivery_failed');
          }
          return { status: 'completed', bolt: target };
        case 'jammed':
          return failed('jammed');
        case 'stale_counter':
          context.logger.info(`Lock ${context.name} has seen counter ${response.highestCounter}; resynchronising.`);
          this.counter?.catchUp(response.highestCounter);
          continue;
        case 'bad_tag':
        case 'unknown_opcode':
        case 'malformed':
        case 'busy':
        case 'internal_error':
          context.logger.warn(`Lock ${context.name} refused the ${action} command: ${response.result}.`);
          return failed('delivery_failed');
      }
    }
    return failed('delivery_failed');
  }

  handleNotification(_connection: GattConnection, characteristic: string, value: Buffer): void {
    const context = this.attached();
    switch (characteristic) {
      case 'boltState': {
        const decoded = decodeBoltState(value);
        if (decoded.ok) context.reportBolt(decoded.value.bolt, decoded.value.source);
        return;
      }
      case 'batteryLevel': {
        const decoded = decodeBatteryLevel(value);
        if (decoded.ok) context.reportBattery(decoded.value);
        return;
      }
      case 'activity':
        this.handleActivity(value);
        return;
      case 'controlPoint':
        this.handleControlResponse(value);
        return;
      case 'credentials':
        this.credentialList?.handleResponse(value);
        return;
    }
  }

  linkLost(): void {
    this.commandSlot.linkLost();
    this.credentialList?.linkLost();
    this.backlogDone = null;
  }

  /** Our profile's advertisements carry no news: presence only. */
  interpretAdvertisement(): boolean {
    return false;
  }

  /** Writes one signed request and waits for its answer. */
  private async exchange(connection: GattConnection, action: LockAction, deadline: Deadline): Promise<EKeyAnswer<ControlResponse> | 'timeout' | 'delivery_failed'> {
    const context = this.attached();
    const counter = this.counter?.next() ?? 0n;
    const requestId = randomInt(0, 0x1_0000_0000);
    const answered = this.commandSlot.open(requestId, counter);
    try {
      const written = await deadline.race(
        connection.write('controlPoint', encodeControlRequest({ opcode: action, requestId, counter }, this.key)).then(
          () => true,
          (error: unknown) => {
            context.logger.warn(`Lock ${context.name}: writing the ${action} command failed: ${describeError(error)}`);
            return false;
          },
        ),
      );
      if (written === EXPIRED) return 'timeout';
      if (!written) return 'delivery_failed';
      const result = await deadline.race(answered);
      return result === EXPIRED ? 'timeout' : result;
    } finally {
      this.commandSlot.close();
    }
  }

  private handleControlResponse(value: Buffer): void {
    if (this.commandSlot.requestId === undefined) return;
    const decoded = decodeControlResponse(value, this.key);
    if (!decoded.ok) {
      // Unauthenticated bytes are only trusted to say "this answer is for you and is unreadable".
      this.commandSlot.unauthenticated(peekRequestHeader(value)?.requestId);
      return;
    }
    this.commandSlot.deliver(decoded.value.requestId, decoded.value.requestCounter, decoded.value);
  }

  private handleActivity(value: Buffer): void {
    const context = this.attached();
    const decoded = decodeActivityNotification(value, this.key);
    if (!decoded.ok) {
      context.logger.warn(`Lock ${context.name}: dropped an activity frame (${decoded.reason}).`);
      return;
    }
    const notification = decoded.value;
    if (notification.kind === 'record') {
      context.reportActivity(notification.record);
      return;
    }
    const end = notification.end;
    const highest = context.highestSequence();
    if (end.highestSequence < highest) {
      // The lock's log restarted (reset or replaced): follow its numbering from now on.
      context.logger.warn(`Lock ${context.name}: its activity log restarted at ${end.highestSequence}.`);
      context.restartSequenceAt(end.highestSequence);
    } else if (end.oldestAvailable > highest + 1 && end.highestSequence > highest) {
      context.logger.warn(`Lock ${context.name}: records ${highest + 1}..${end.oldestAvailable - 1} were overwritten before they could be read.`);
    }
    this.backlogDone?.();
  }

  private timedRead(connection: GattConnection, characteristic: string): Promise<Buffer> {
    return withTimeout(connection.read(characteristic), this.attached().operationTimeoutMs, () => new TransportError('operation_failed', `${characteristic} read timed out`));
  }

  private attached(): DriverContext {
    if (this.context === null) throw new Error('EKeyDriver used before attach()');
    return this.context;
  }
}
