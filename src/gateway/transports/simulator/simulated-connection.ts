import type { GatewayLogger } from '../../gateway-logger.js';
import { TransportError, type GattConnection, type GattProfile } from '../../gatt-transport.js';
import { ConnectionListeners } from '../shared/connection-listeners.js';
import { GattOperationError, type SimulatedDevice, type SimulatedLockLink } from './simulated-device.js';
import { radioDelay, type SimulatedRadio } from './simulated-radio.js';
import { describeError } from '../../../domain/errors.js';

/** A profile resolved against a device: name → characteristic UUID, and the subscribed names per UUID. */
export interface ResolvedProfile {
  uuidOf: ReadonlyMap<string, string>;
  subscribedNamesOf: ReadonlyMap<string, readonly string[]>;
}

/** Finds the profile's characteristics in the device's GATT database, as BlueZ's lookup would. */
export function resolveProfile(device: SimulatedDevice, profile: GattProfile): ResolvedProfile | TransportError {
  const uuidOf = new Map<string, string>();
  const subscribedNamesOf = new Map<string, string[]>();
  for (const spec of profile.characteristics) {
    const service = device.gattDatabase.find((candidate) => candidate.uuid === spec.service);
    const characteristic = service?.characteristics.find((candidate) => candidate.uuid === spec.uuid);
    if (characteristic === undefined) {
      if (spec.required) return new TransportError('gatt_unavailable', `${device.address} lacks ${spec.name} (${spec.uuid}): not a device of this profile`);
      continue;
    }
    if (spec.subscribe && !characteristic.flags.includes('notify') && !characteristic.flags.includes('indicate')) {
      // BlueZ refuses StartNotify on such a characteristic (org.bluez.Error.NotSupported).
      return new TransportError('gatt_unavailable', `${device.address}: ${spec.name} neither notifies nor indicates`);
    }
    uuidOf.set(spec.name, spec.uuid);
    if (spec.subscribe) subscribedNamesOf.set(spec.uuid, [...(subscribedNamesOf.get(spec.uuid) ?? []), spec.name]);
  }
  return { uuidOf, subscribedNamesOf };
}

/** What a simulated connection needs of its transport. */
export interface SimulatedConnectionContext {
  /** The radio's conditions now (they may change while the link is up). */
  radio(): SimulatedRadio;
  operationTimeoutMs: number;
  logger: GatewayLogger;
}

/** One link to a simulated device, with the profile's names on its characteristics. */
export class SimulatedConnection implements GattConnection {
  private readonly listeners: ConnectionListeners;

  constructor(
    readonly address: string,
    private readonly link: SimulatedLockLink,
    private readonly profile: ResolvedProfile,
    private readonly context: SimulatedConnectionContext,
  ) {
    this.listeners = new ConnectionListeners((message) => {
      context.logger.error(`${address}: ${message}`);
    });
    // Both at once: what the device sends before the caller sets its listeners is kept for them.
    link.onNotification((uuid, value) => {
      for (const name of profile.subscribedNamesOf.get(uuid) ?? []) this.listeners.value(name, value);
    });
    link.onLost(() => {
      this.listeners.dropped();
    });
  }

  get connected(): boolean {
    return this.link.open;
  }

  has(characteristic: string): boolean {
    return this.profile.uuidOf.has(characteristic);
  }

  read(characteristic: string): Promise<Buffer> {
    return this.run(`read ${characteristic}`, () => this.link.read(this.uuidOf(characteristic)));
  }

  write(characteristic: string, value: Buffer): Promise<void> {
    return this.run(`write ${characteristic}`, () => {
      this.link.write(this.uuidOf(characteristic), value);
    });
  }

  onNotification(listener: (characteristic: string, value: Buffer) => void): void {
    this.listeners.setNotificationListener(listener);
  }

  onDisconnect(listener: () => void): void {
    this.listeners.setDisconnectListener(listener);
  }

  disconnect(): Promise<void> {
    this.listeners.closed();
    this.link.close();
    return Promise.resolve();
  }

  private uuidOf(characteristic: string): string {
    const uuid = this.profile.uuidOf.get(characteristic);
    if (uuid === undefined) throw new TransportError('operation_failed', `${this.address} has no ${characteristic}`);
    return uuid;
  }

  /** The operation as over a radio: never answered synchronously, within the operation timeout, failing only as a TransportError. */
  private async run<T>(what: string, operation: () => T): Promise<T> {
    await Promise.resolve();
    if (!(await radioDelay(this.context.radio().operationDelayMs ?? 0, this.context.operationTimeoutMs))) {
      throw new TransportError('operation_failed', `${this.address}: ${what} timed out`);
    }
    try {
      return operation();
    } catch (error) {
      if (error instanceof TransportError) throw error;
      if (error instanceof GattOperationError) {
        throw new TransportError(error.reason === 'not_connected' ? 'not_connected' : 'operation_failed', `${this.address}: ${what}: ${error.message}`, { cause: error });
      }
      // A fault inside the device (a simulated firmware's bug) is a failed operation, as over the air.
      throw new TransportError('operation_failed', `${this.address}: ${what} failed in the device: ${describeError(error)}`, { cause: error });
    }
  }
}
