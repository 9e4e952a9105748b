import { silentLogger, type GatewayLogger } from '../../gateway-logger.js';
import {
  TransportError,
  type Advertisement,
  type AdvertisementListener,
  type ConnectOptions,
  type GattConnection,
  type GattProfile,
  type GattTransport,
} from '../../gatt-transport.js';
import { GattOperationError, type SimulatedDevice, type SimulatedLockLink } from './simulated-device.js';
import { describeError } from '../../../domain/errors.js';

/** Settings of the simulator transport; every field has a default. */
export interface SimulatorTransportOptions {
  /** How often every in-range device re-advertises while someone watches, real ms (default 1 000). */
  advertisementIntervalMs?: number;
  /** Where a throwing advertisement listener is reported (default: nowhere). */
  logger?: GatewayLogger;
}

/** A device this transport reaches, and its change subscription while advertisements are watched. */
interface DeviceEntry {
  device: SimulatedDevice;
  stopListening: (() => void) | null;
}

/**
 * The in-process transport: reaches {@link SimulatedDevice}s of any family by address. Used by
 * the demo and by most app tests; it carries the same bytes as the BlueZ transport, resolves a
 * driver's {@link GattProfile} against the device's GATT database the way BlueZ would, and
 * re-advertises like a scanning adapter.
 */
export class SimulatorTransport implements GattTransport {
  readonly kind = 'simulator' as const;
  private readonly devices = new Map<string, DeviceEntry>();
  private readonly watchers = new Set<AdvertisementListener>();
  private readonly advertisementIntervalMs: number;
  private readonly logger: GatewayLogger;
  private advertisementTimer: NodeJS.Timeout | null = null;

  constructor(devices: Iterable<SimulatedDevice> = [], options: SimulatorTransportOptions = {}) {
    this.advertisementIntervalMs = options.advertisementIntervalMs ?? 1_000;
    this.logger = options.logger ?? silentLogger;
    for (const device of devices) this.addDevice(device);
  }

  /** Makes a simulated device reachable through this transport (replaces one at the same address). */
  addDevice(device: SimulatedDevice): void {
    const address = device.address.toUpperCase();
    this.removeDevice(address);
    const entry: DeviceEntry = { device, stopListening: null };
    this.devices.set(address, entry);
    if (this.watchers.size > 0) this.listenTo(entry);
  }

  /** Same as {@link addDevice}; the name from before devices had families. */
  addLock(device: SimulatedDevice): void {
    this.addDevice(device);
  }

  /** Forgets a simulated device (as if it were carried away for good). */
  removeDevice(address: string): void {
    const upper = address.toUpperCase();
    const entry = this.devices.get(upper);
    if (entry === undefined) return;
    entry.stopListening?.();
    this.devices.delete(upper);
  }

  /** The simulated device at an address, for demo drivers and tests. */
  getDevice(address: string): SimulatedDevice | undefined {
    return this.devices.get(address.toUpperCase())?.device;
  }

  connect(address: string, profile: GattProfile, _options: ConnectOptions): Promise<GattConnection> {
    const device = this.devices.get(address.toUpperCase())?.device;
    if (device === undefined || !device.inRange) {
      return Promise.reject(new TransportError('not_found', `No device advertising at ${address}`));
    }
    const resolved = resolveProfile(device, profile);
    if (resolved instanceof TransportError) return Promise.reject(resolved);
    let link: SimulatedLockLink;
    try {
      link = device.openLink();
    } catch (error) {
      return Promise.reject(new TransportError('connect_failed', `${device.address}: ${describeError(error)}`, { cause: error }));
    }
    return Promise.resolve(new SimulatedConnection(device.address.toUpperCase(), link, resolved));
  }

  watchAdvertisements(listener: AdvertisementListener): () => void {
    // A wrapper per call, so the same function watched twice is unwatched once per call.
    const watcher: AdvertisementListener = (advertisement) => {
      listener(advertisement);
    };
    this.watchers.add(watcher);
    if (this.watchers.size === 1) this.startAdvertising();
    // "At once", but never before the caller holds its unwatch function.
    queueMicrotask(() => {
      if (!this.watchers.has(watcher)) return;
      for (const advertisement of this.currentAdvertisements()) this.deliver(watcher, advertisement);
    });
    return () => {
      if (!this.watchers.delete(watcher)) return;
      if (this.watchers.size === 0) this.stopAdvertising();
    };
  }

  /** Delivers every in-range device's current advertisement to every watcher, synchronously (tests with a manual clock). */
  advertiseNow(): void {
    for (const advertisement of this.currentAdvertisements()) {
      for (const watcher of [...this.watchers]) this.deliver(watcher, advertisement);
    }
  }

  close(): Promise<void> {
    this.watchers.clear();
    this.stopAdvertising();
    return Promise.resolve();
  }

  private startAdvertising(): void {
    for (const entry of this.devices.values()) this.listenTo(entry);
    this.advertisementTimer = setInterval(() => {
      this.advertiseNow();
    }, this.advertisementIntervalMs);
    // Scanning alone must never keep a process alive.
    this.advertisementTimer.unref();
  }

  private stopAdvertising(): void {
    if (this.advertisementTimer !== null) clearInterval(this.advertisementTimer);
    this.advertisementTimer = null;
    for (const entry of this.devices.values()) {
      entry.stopListening?.();
      entry.stopListening = null;
    }
  }

  /** A changed advertisement is delivered on the next microtask, read fresh then (as over the air, never inside the device's call). */
  private listenTo(entry: DeviceEntry): void {
    if (entry.stopListening !== null) return;
    entry.stopListening = entry.device.onAdvertisementChange(() => {
      queueMicrotask(() => {
        if (this.devices.get(entry.device.address.toUpperCase()) !== entry) return;
        const advertisement = advertisementOf(entry.device);
        if (advertisement === null) return;
        for (const watcher of [...this.watchers]) this.deliver(watcher, advertisement);
      });
    });
  }

  private currentAdvertisements(): Advertisement[] {
    const advertisements: Advertisement[] = [];
    for (const { device } of this.devices.values()) {
      const advertisement = advertisementOf(device);
      if (advertisement !== null) advertisements.push(advertisement);
    }
    return advertisements;
  }

  private deliver(watcher: AdvertisementListener, advertisement: Advertisement): void {
    try {
      watcher(advertisement);
    } catch (error) {
      // A listener's bug must not stop the others or escape into a timer.
      this.logger.error(`Advertisement listener failed: ${describeError(error)}`);
    }
  }
}

/** What a scanner sees of a device now, or null while it does not advertise. */
function advertisementOf(device: SimulatedDevice): Advertisement | null {
  if (!device.inRange) return null;
  const advertised = device.advertisement();
  if (advertised === null) return null;
  const manufacturerData = new Map<number, Buffer>();
  for (const [company, bytes] of advertised.manufacturerData) manufacturerData.set(company, Buffer.from(bytes));
  return { address: device.address.toUpperCase(), rssi: advertised.rssi, manufacturerData };
}

/** A profile resolved against a device: name → characteristic UUID, and the subscribed names per UUID. */
interface ResolvedProfile {
  uuidOf: ReadonlyMap<string, string>;
  subscribedNamesOf: ReadonlyMap<string, readonly string[]>;
}

/** Finds the profile's characteristics in the device's GATT database, as BlueZ's lookup would. */
function resolveProfile(device: SimulatedDevice, profile: GattProfile): ResolvedProfile | TransportError {
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

class SimulatedConnection implements GattConnection {
  private disconnectListener: (() => void) | undefined;
  private closedByUs = false;

  constructor(
    readonly address: string,
    private readonly link: SimulatedLockLink,
    private readonly profile: ResolvedProfile,
  ) {
    link.onLost(() => {
      if (!this.closedByUs) this.disconnectListener?.();
    });
  }

  get connected(): boolean {
    return this.link.open;
  }

  has(characteristic: string): boolean {
    return this.profile.uuidOf.has(characteristic);
  }

  read(characteristic: string): Promise<Buffer> {
    return this.run(() => this.link.read(this.uuidOf(characteristic)));
  }

  write(characteristic: string, value: Buffer): Promise<void> {
    return this.run(() => {
      this.link.write(this.uuidOf(characteristic), value);
    });
  }

  onNotification(listener: (characteristic: string, value: Buffer) => void): void {
    this.link.onNotification((uuid, value) => {
      for (const name of this.profile.subscribedNamesOf.get(uuid) ?? []) listener(name, value);
    });
  }

  onDisconnect(listener: () => void): void {
    this.disconnectListener = listener;
  }

  disconnect(): Promise<void> {
    this.closedByUs = true;
    this.link.close();
    return Promise.resolve();
  }

  private uuidOf(characteristic: string): string {
    const uuid = this.profile.uuidOf.get(characteristic);
    if (uuid === undefined) throw new TransportError('operation_failed', `${this.address} has no ${characteristic}`);
    return uuid;
  }

  private async run<T>(operation: () => T): Promise<T> {
    // Yield once so callers never see a synchronous answer, as over a real radio.
    await Promise.resolve();
    try {
      return operation();
    } catch (error) {
      if (error instanceof GattOperationError) {
        throw new TransportError(error.reason === 'not_connected' ? 'not_connected' : 'operation_failed', error.message, { cause: error });
      }
      throw error;
    }
  }
}
