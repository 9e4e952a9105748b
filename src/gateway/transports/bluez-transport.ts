import dbus, { type MessageBus } from 'dbus-next';
import type NodeBle from 'node-ble';
import Bluetooth from 'node-ble/src/Bluetooth.js';
import { Deadline, EXPIRED, withTimeout } from '../deadline.js';
import { silentLogger, type GatewayLogger } from '../gateway-logger.js';
import { LockUuids } from '../lock-profile.js';
import {
  NOTIFYING_CHARACTERISTICS,
  TransportError,
  type CharacteristicName,
  type ConnectOptions,
  type LockConnection,
  type LockTransport,
  type NotifyingCharacteristic,
  type ReadableCharacteristic,
  type TransportFailure,
  type WritableCharacteristic,
} from '../lock-transport.js';
import { onBusConnectionEnd } from './dbus-connection-end.js';
import { busSubscriptionCounts, daemonMatchRuleCount, repairMatchRuleRefcount } from './dbus-match-rules.js';
import { helperOf, variantValue } from './node-ble-internals.js';

/** Settings of the BlueZ transport; every field has a default. */
export interface BluezTransportOptions {
  /** Adapter name, e.g. `hci1`; default: the first adapter BlueZ lists. */
  adapter?: string;
  /** D-Bus address; default: the system bus (`DBUS_SYSTEM_BUS_ADDRESS` or the standard socket). */
  busAddress?: string;
  /** How often discovery checks whether the device appeared, ms (default 100; node-ble's 1000 is too slow). */
  discoveryIntervalMs?: number;
  /** Budget of each read, write and StartNotify, ms (default 5 000): D-Bus calls have no timeout of their own. */
  operationTimeoutMs?: number;
  /**
   * Budget for ServicesResolved plus the GATT lookup after the link is up, ms (default 5 000;
   * never more than what is left of the connect timeout). node-ble's gatt() has none.
   */
  gattTimeoutMs?: number;
  logger?: GatewayLogger;
}

type Characteristic = NodeBle.GattCharacteristic;

/** Where each characteristic lives: service UUID, characteristic UUID, required or optional. */
const PROFILE: Record<CharacteristicName, { service: string; required: boolean }> = {
  boltState: { service: LockUuids.lockService, required: true },
  controlPoint: { service: LockUuids.lockService, required: true },
  activity: { service: LockUuids.lockService, required: true },
  credentials: { service: LockUuids.lockService, required: true },
  batteryLevel: { service: LockUuids.batteryService, required: true },
  manufacturerName: { service: LockUuids.deviceInformationService, required: false },
  modelNumber: { service: LockUuids.deviceInformationService, required: false },
  serialNumber: { service: LockUuids.deviceInformationService, required: false },
  firmwareRevision: { service: LockUuids.deviceInformationService, required: false },
};

/** One bus connection and everything node-ble built on it. */
interface Session {
  bus: MessageBus;
  bluetooth: NodeBle.Bluetooth;
  ready: Promise<void>;
  broken: boolean;
  adapter: NodeBle.Adapter | null;
  /** Device objects and resolved characteristics, reused across connections (their proxies hold one match rule each). */
  devices: Map<string, DeviceHandle>;
  connections: Set<BluezConnection>;
  discoveryUsers: number;
}

interface DeviceHandle {
  device: NodeBle.Device;
  characteristics: Map<CharacteristicName, Characteristic> | null;
}

/**
 * The production transport: BlueZ over D-Bus through node-ble, hardened where node-ble is not:
 * every D-Bus call has a timeout, GATT resolution has its own timeout, writes use the explicit
 * "request" type, an `error` listener keeps an unreachable bus from crashing the process (the
 * next connect opens a new session), and match rules/listeners are released per connection.
 */
export class BluezTransport implements LockTransport {
  readonly kind = 'bluez' as const;
  private session: Session | null = null;
  private readonly logger: GatewayLogger;
  private readonly discoveryIntervalMs: number;
  private readonly operationTimeoutMs: number;
  private readonly gattTimeoutMs: number;

  constructor(private readonly options: BluezTransportOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.discoveryIntervalMs = options.discoveryIntervalMs ?? 100;
    this.operationTimeoutMs = options.operationTimeoutMs ?? 5_000;
    this.gattTimeoutMs = options.gattTimeoutMs ?? 5_000;
  }

  async connect(address: string, options: ConnectOptions): Promise<LockConnection> {
    const upper = address.toUpperCase();
    const deadline = new Deadline(options.timeoutMs);
    let handle: DeviceHandle | undefined;
    let session: Session | undefined;
    try {
      session = await this.readySession(deadline);
      const adapter = await this.adapterOf(session, deadline);
      handle = await this.findDevice(session, adapter, upper, deadline);
      await this.linkUp(handle.device, deadline);
      const gattDeadline = new Deadline(Math.min(this.gattTimeoutMs, deadline.remaining()));
      let characteristics: Map<CharacteristicName, Characteristic>;
      try {
        await this.waitServicesResolved(handle.device, gattDeadline);
        characteristics = await this.resolveCharacteristics(upper, handle, gattDeadline);
      } finally {
        gattDeadline.cancel();
      }
      const connection = new BluezConnection(upper, handle.device, characteristics, this.operationTimeoutMs, (c) => session?.connections.delete(c));
      session.connections.add(connection);
      try {
        await connection.subscribe(deadline);
      } catch (error) {
        await connection.disconnect();
        throw error;
      }
      return connection;
    } catch (error) {
      if (handle !== undefined && session !== undefined) {
        // Start the next attempt from scratch: BlueZ may have dropped or rebuilt these objects.
        forgetDevice(session, upper, handle);
        disconnectQuietly(handle.device, this.operationTimeoutMs);
      }
      throw toTransportError(error, 'connect_failed');
    } finally {
      deadline.cancel();
    }
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = null;
    if (session === null) return;
    for (const connection of [...session.connections]) await connection.disconnect();
    dropSession(session);
  }

  /**
   * Subscription bookkeeping of the current bus connection: the rules the daemon counts (via
   * Debug.Stats, null if unavailable), the rules and signal listeners dbus-next tracks.
   */
  async diagnostics(): Promise<{ daemonMatchRules: number | null; trackedMatchRules: number; signalListeners: number }> {
    const session = this.session;
    if (session === null || session.broken) return { daemonMatchRules: null, trackedMatchRules: 0, signalListeners: 0 };
    const counts = busSubscriptionCounts(session.bus);
    return { daemonMatchRules: await daemonMatchRuleCount(session.bus), trackedMatchRules: counts.matchRules, signalListeners: counts.signalListeners };
  }

  private async readySession(deadline: Deadline): Promise<Session> {
    if (this.session?.broken === true) {
      dropSession(this.session);
      this.session = null;
    }
    const session = this.session ?? this.openSession();
    this.session = session;
    const ready = await deadline.race(session.ready);
    if (ready === EXPIRED) {
      // A bus that does not finish its handshake in a whole connect budget is not usable.
      session.broken = true;
      throw new TransportError('bus_unavailable', 'the system bus did not answer');
    }
    return session;
  }

  private openSession(): Session {
    const address = this.options.busAddress;
    const bus = address === undefined ? dbus.systemBus() : dbus.sessionBus({ busAddress: address });
    repairMatchRuleRefcount(bus);
    const session: Session = {
      bus,
      bluetooth: new Bluetooth(bus),
      ready: Promise.resolve(),
      broken: false,
      adapter: null,
      devices: new Map(),
      connections: new Set(),
      discoveryUsers: 0,
    };
    session.ready = new Promise<void>((resolve, reject) => {
      bus.once('connect', () => {
        resolve();
      });
      // Without an error listener an unreachable or failing bus throws from an EventEmitter and
      // ends the process. With it, the session is marked broken and the next connect starts over.
      bus.on('error', (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        if (!session.broken) this.logger.error(`D-Bus connection failed: ${message}`);
        session.broken = true;
        reject(new TransportError('bus_unavailable', `D-Bus: ${message}`));
        for (const connection of [...session.connections]) connection.lose();
      });
    });
    onBusConnectionEnd(bus, () => {
      if (!session.broken) this.logger.error('D-Bus connection closed.');
      session.broken = true;
      for (const connection of [...session.connections]) connection.lose();
    });
    // The rejection is observed by readySession; this keeps an unobserved one from being reported.
    session.ready.catch(() => undefined);
    return session;
  }

  private async adapterOf(session: Session, deadline: Deadline): Promise<NodeBle.Adapter> {
    if (session.adapter !== null) return session.adapter;
    const name = this.options.adapter;
    const adapter = await raceOrFail(deadline, name === undefined ? session.bluetooth.defaultAdapter() : session.bluetooth.getAdapter(name), 'bus_unavailable', 'adapter lookup timed out');
    session.adapter = adapter;
    return adapter;
  }

  /** The device object, from BlueZ's cache or by LE discovery. */
  private async findDevice(session: Session, adapter: NodeBle.Adapter, address: string, deadline: Deadline): Promise<DeviceHandle> {
    const cached = session.devices.get(address);
    if (cached !== undefined) return cached;
    let device: NodeBle.Device | undefined;
    try {
      device = await raceOrFail(deadline, adapter.getDevice(address), 'not_found', `${address} not found`);
    } catch (error) {
      if (!(error instanceof Error) || error.message !== 'Device not found') throw error;
    }
    if (device === undefined) {
      await this.startDiscovery(session, adapter, deadline);
      try {
        const remaining = deadline.remaining();
        if (remaining <= 0) throw new TransportError('not_found', `${address} not found`);
        device = await raceOrFail(deadline, adapter.waitDevice(address, remaining, this.discoveryIntervalMs), 'not_found', `${address} not found`);
      } catch (error) {
        throw toTransportError(error, 'not_found');
      } finally {
        await this.stopDiscovery(session, adapter);
      }
    }
    const handle: DeviceHandle = { device, characteristics: null };
    session.devices.set(address, handle);
    return handle;
  }

  private async startDiscovery(session: Session, adapter: NodeBle.Adapter, deadline: Deadline): Promise<void> {
    session.discoveryUsers += 1;
    if (session.discoveryUsers > 1) return;
    try {
      // node-ble throws if discovery is already on (another program may run it): that is fine.
      if (!(await raceOrFail(deadline, adapter.isDiscovering(), 'bus_unavailable', 'adapter did not answer'))) {
        await raceOrFail(deadline, adapter.startDiscovery(), 'bus_unavailable', 'StartDiscovery timed out');
      }
    } catch (error) {
      this.logger.debug(`StartDiscovery: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async stopDiscovery(session: Session, adapter: NodeBle.Adapter): Promise<void> {
    session.discoveryUsers = Math.max(0, session.discoveryUsers - 1);
    if (session.discoveryUsers > 0) return;
    try {
      if (await withTimeout(adapter.isDiscovering(), this.operationTimeoutMs, () => new Error('timeout'))) {
        await withTimeout(adapter.stopDiscovery(), this.operationTimeoutMs, () => new Error('timeout'));
      }
    } catch (error) {
      this.logger.debug(`StopDiscovery: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Device1.Connect within the budget; a late success is disconnected so no link is left dangling. */
  private async linkUp(device: NodeBle.Device, deadline: Deadline): Promise<void> {
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

  /** Device1.ServicesResolved, with a timeout: node-ble's gatt() waits for it forever. */
  private async waitServicesResolved(device: NodeBle.Device, deadline: Deadline): Promise<void> {
    const helper = helperOf(device);
    let settle: (resolved: boolean) => void = () => undefined;
    const changed = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    const onChange = (props: unknown): void => {
      if (variantValue(props, 'ServicesResolved') === true) settle(true);
      if (variantValue(props, 'Connected') === false) settle(false);
    };
    helper.on('PropertiesChanged', onChange);
    try {
      const now = await raceOrFail(deadline, helper.prop('ServicesResolved'), 'gatt_unavailable', 'ServicesResolved not answered');
      if (now === true) return;
      const result = await deadline.race(changed);
      if (result === EXPIRED) throw new TransportError('gatt_unavailable', 'GATT services were not resolved in time');
      if (!result) throw new TransportError('not_connected', 'disconnected while resolving services');
    } finally {
      helper.off('PropertiesChanged', onChange);
    }
  }

  private async resolveCharacteristics(address: string, handle: DeviceHandle, deadline: Deadline): Promise<Map<CharacteristicName, Characteristic>> {
    if (handle.characteristics !== null) return handle.characteristics;
    const gatt = await raceOrFail(deadline, handle.device.gatt(), 'gatt_unavailable', 'GATT lookup timed out');
    const found = new Map<CharacteristicName, Characteristic>();
    const services = new Map<string, NodeBle.GattService | null>();
    for (const [name, where] of Object.entries(PROFILE) as [CharacteristicName, (typeof PROFILE)[CharacteristicName]][]) {
      let service = services.get(where.service);
      if (service === undefined) {
        service = await raceOrFail(deadline, gatt.getPrimaryService(where.service), 'gatt_unavailable', 'GATT lookup timed out').catch((error: unknown) => {
          if (error instanceof TransportError) throw error;
          return null;
        });
        services.set(where.service, service);
      }
      const characteristic =
        service === null
          ? null
          : await raceOrFail(deadline, service.getCharacteristic(LockUuids[name]), 'gatt_unavailable', 'GATT lookup timed out').catch((error: unknown) => {
              if (error instanceof TransportError) throw error;
              return null;
            });
      if (characteristic === null) {
        if (where.required) throw new TransportError('gatt_unavailable', `${address} lacks ${name} (${LockUuids[name]}): not a lock of this profile`);
        continue;
      }
      found.set(name, characteristic);
    }
    handle.characteristics = found;
    return found;
  }
}

/** A live BlueZ connection to one lock. */
class BluezConnection implements LockConnection {
  private notificationListener: ((characteristic: NotifyingCharacteristic, value: Buffer) => void) | undefined;
  private disconnectListener: (() => void) | undefined;
  private isConnected = true;
  private readonly valueListeners = new Map<NotifyingCharacteristic, (value: Buffer) => void>();
  private readonly onDeviceDisconnect = (): void => {
    this.lose();
  };

  constructor(
    readonly address: string,
    private readonly device: NodeBle.Device,
    private readonly characteristics: Map<CharacteristicName, Characteristic>,
    private readonly operationTimeoutMs: number,
    private readonly forget: (connection: BluezConnection) => void,
  ) {
    device.on('disconnect', this.onDeviceDisconnect);
  }

  get connected(): boolean {
    return this.isConnected;
  }

  /** StartNotify on every notifying characteristic. */
  async subscribe(deadline: Deadline): Promise<void> {
    for (const name of NOTIFYING_CHARACTERISTICS) {
      const characteristic = this.characteristic(name);
      const listener = (value: Buffer): void => {
        if (this.isConnected) this.notificationListener?.(name, value);
      };
      this.valueListeners.set(name, listener);
      characteristic.on('valuechanged', listener);
      await raceOrFail(deadline, characteristic.startNotifications(), 'gatt_unavailable', `StartNotify ${name} timed out`);
    }
  }

  async read(characteristic: ReadableCharacteristic): Promise<Buffer> {
    this.assertConnected();
    return this.bounded(this.characteristic(characteristic).readValue(), `read ${characteristic}`);
  }

  async write(characteristic: WritableCharacteristic, value: Buffer): Promise<void> {
    this.assertConnected();
    // Explicit "request": acknowledged by the lock, and BlueZ uses a long write when the frame exceeds MTU−3.
    await this.bounded(this.characteristic(characteristic).writeValue(value, { offset: 0, type: 'request' }), `write ${characteristic}`);
  }

  onNotification(listener: (characteristic: NotifyingCharacteristic, value: Buffer) => void): void {
    this.notificationListener = listener;
  }

  onDisconnect(listener: () => void): void {
    this.disconnectListener = listener;
  }

  async disconnect(): Promise<void> {
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
    this.disconnectListener?.();
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

  private characteristic(name: CharacteristicName): Characteristic {
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

/**
 * Drops the callback node-ble's Device.connect() adds to its helper on every call (it never
 * removes it unless Disconnect succeeds through node-ble). The proxy's own PropertiesChanged
 * subscription — one match rule per cached device — stays for the next connection; with
 * `completely` it goes too (the device leaves the cache).
 */
function releaseDevice(device: NodeBle.Device, completely: boolean): void {
  if (completely) {
    device.removeAllListeners('disconnect');
    device.removeAllListeners('connect');
    helperOf(device).removeListeners();
  } else {
    helperOf(device).removeAllListeners('PropertiesChanged');
  }
}

/** Removes a device from the session cache and releases everything node-ble holds for it. */
function forgetDevice(session: Session, address: string, handle: DeviceHandle): void {
  if (session.devices.get(address) === handle) session.devices.delete(address);
  for (const characteristic of handle.characteristics?.values() ?? []) {
    characteristic.removeAllListeners('valuechanged');
    helperOf(characteristic).removeListeners();
  }
  handle.characteristics = null;
  releaseDevice(handle.device, true);
}

/** Best-effort Device1.Disconnect after a failed connect (BlueZ may still be connecting). */
function disconnectQuietly(device: NodeBle.Device, timeoutMs: number): void {
  withTimeout(device.disconnect(), timeoutMs, () => new Error('Disconnect timed out')).then(
    () => {
      releaseDevice(device, true);
    },
    () => {
      releaseDevice(device, true);
    },
  );
}

function dropSession(session: Session): void {
  session.broken = true;
  for (const [address, handle] of [...session.devices]) forgetDevice(session, address, handle);
  session.bus.disconnect();
}

async function raceOrFail<T>(deadline: Deadline, operation: Promise<T>, failure: TransportFailure, message: string): Promise<T> {
  const result = await deadline.race(operation);
  if (result === EXPIRED) throw new TransportError(failure, message);
  return result;
}

/** Maps node-ble/dbus-next errors (DBusError carries the BlueZ error name in `type`) to TransportError. */
function toTransportError(error: unknown, fallback: TransportFailure): TransportError {
  if (error instanceof TransportError) return error;
  const name = typeof error === 'object' && error !== null && 'type' in error && typeof error.type === 'string' ? error.type : undefined;
  const text = error instanceof Error ? error.message : String(error);
  let failure = fallback;
  if (name === 'org.bluez.Error.NotConnected') failure = 'not_connected';
  if (name === 'org.freedesktop.DBus.Error.ServiceUnknown' || name === 'org.freedesktop.DBus.Error.NoReply') failure = 'bus_unavailable';
  return new TransportError(failure, name === undefined ? text : `${name}: ${text}`, { cause: error });
}
