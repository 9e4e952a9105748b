import type NodeBle from 'node-ble';
import { EXPIRED, withTimeout, type Deadline } from '../../deadline.js';
import type { GatewayLogger } from '../../gateway-logger.js';
import { TransportError, type GattConnection } from '../../gatt-transport.js';
import { ConnectionListeners } from '../shared/connection-listeners.js';
import { releaseDevice, type Characteristic, type SessionConnection } from './bluez-bus-session.js';
import { raceOrFail, toTransportError } from './bluez-errors.js';
import { helperOf } from './node-ble-internals.js';

/** Device1.Connect within the budget; a late success is disconnected so no link is left dangling. */
export async function linkUp(device: NodeBle.Device, deadline: Deadline): Promise<void> {
  const connecting = device.connect();
  const result = await deadline.race(connecting.then(() => 'up' as const));
  if (result === EXPIRED) {
    connecting.then(
      () => device.disconnect().catch(() => undefined),
      () => undefined,
    );
    throw new TransportError('connect_failed', 'connect timed out');
  }
}

/** Best-effort Device1.Disconnect after a failed connect (BlueZ may still be connecting). */
export function disconnectQuietly(device: NodeBle.Device, timeoutMs: number): void {
  withTimeout(device.disconnect(), timeoutMs, () => new Error('Disconnect timed out')).then(
    () => {
      releaseDevice(device, true);
    },
    () => {
      releaseDevice(device, true);
    },
  );
}

/** A live BlueZ connection to one device. */
export class BluezConnection implements GattConnection, SessionConnection {
  private readonly listeners: ConnectionListeners;
  private isConnected = true;
  private readonly valueListeners = new Map<string, (value: Buffer) => void>();
  private readonly onDeviceDisconnect = (): void => {
    this.lose();
  };

  constructor(
    readonly address: string,
    private readonly device: NodeBle.Device,
    private readonly characteristics: ReadonlyMap<string, Characteristic>,
    private readonly subscriptions: readonly string[],
    private readonly operationTimeoutMs: number,
    private readonly forget: (connection: BluezConnection) => void,
    logger: GatewayLogger,
  ) {
    this.listeners = new ConnectionListeners((message) => {
      logger.error(`${address}: ${message}`);
    });
    device.on('disconnect', this.onDeviceDisconnect);
  }

  get connected(): boolean {
    return this.isConnected;
  }

  /**
   * StartNotify on every subscribed characteristic, in profile order. Notifications and
   * indications both arrive as PropertiesChanged(Value): BlueZ confirms indications itself.
   */
  async subscribe(deadline: Deadline): Promise<void> {
    for (const name of this.subscriptions) {
      const characteristic = this.characteristic(name);
      const listener = (value: Buffer): void => {
        // Kept until the caller sets its listener: a device may send at once after StartNotify.
        if (this.isConnected) this.listeners.value(name, value);
      };
      this.valueListeners.set(name, listener);
      characteristic.on('valuechanged', listener);
      await raceOrFail(deadline, characteristic.startNotifications(), 'gatt_unavailable', `StartNotify ${name} timed out`);
    }
  }

  has(characteristic: string): boolean {
    return this.characteristics.has(characteristic);
  }

  async read(characteristic: string): Promise<Buffer> {
    this.assertConnected();
    return this.bounded(this.characteristic(characteristic).readValue(), `read ${characteristic}`);
  }

  async write(characteristic: string, value: Buffer): Promise<void> {
    this.assertConnected();
    // Explicit "request": acknowledged by the device, and BlueZ uses a long write when the value exceeds MTU−3.
    await this.bounded(this.characteristic(characteristic).writeValue(value, { offset: 0, type: 'request' }), `write ${characteristic}`);
  }

  onNotification(listener: (characteristic: string, value: Buffer) => void): void {
    this.listeners.setNotificationListener(listener);
  }

  onDisconnect(listener: () => void): void {
    this.listeners.setDisconnectListener(listener);
  }

  async disconnect(): Promise<void> {
    this.listeners.closed();
    if (!this.isConnected) return;
    this.isConnected = false;
    this.release();
    try {
      // Device1.Disconnect on the reused proxy: node-ble's disconnect() would also drop the
      // proxy's subscription, costing an Introspect, an AddMatch and a RemoveMatch per cycle.
      await withTimeout(helperOf(this.device).callMethod('Disconnect'), this.operationTimeoutMs, () => new Error('Disconnect timed out'));
    } catch {
      // Already gone, or BlueZ is not answering: either way the link is no longer ours.
    }
    releaseDevice(this.device, false);
  }

  /** The link dropped (PropertiesChanged Connected=false, or the bus failed). */
  lose(): void {
    if (!this.isConnected) return;
    this.isConnected = false;
    this.release();
    releaseDevice(this.device, false);
    this.listeners.dropped();
  }

  private release(): void {
    this.device.off('disconnect', this.onDeviceDisconnect);
    for (const [name, listener] of this.valueListeners) {
      const characteristic = this.characteristics.get(name);
      if (characteristic === undefined) continue;
      characteristic.off('valuechanged', listener);
      // node-ble's startNotifications adds a helper listener per call and only StopNotify removes
      // it, which needs a live link; drop it here so reconnects do not pile them up.
      helperOf(characteristic).removeAllListeners('PropertiesChanged');
    }
    this.valueListeners.clear();
    this.forget(this);
  }

  private characteristic(name: string): Characteristic {
    const characteristic = this.characteristics.get(name);
    if (characteristic === undefined) throw new TransportError('operation_failed', `${this.address} has no ${name}`);
    return characteristic;
  }

  private assertConnected(): void {
    if (!this.isConnected) throw new TransportError('not_connected', `${this.address} is not connected`);
  }

  private async bounded<T>(operation: Promise<T>, what: string): Promise<T> {
    try {
      return await withTimeout(operation, this.operationTimeoutMs, () => new TransportError('operation_failed', `${what} timed out`));
    } catch (error) {
      throw toTransportError(error, 'operation_failed');
    }
  }
}
