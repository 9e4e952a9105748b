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
import { SimulatedConnection, resolveProfile } from './simulated-connection.js';
import type { SimulatedDevice, SimulatedLockLink } from './simulated-device.js';
import { radioDelay, type SimulatedRadio } from './simulated-radio.js';
import { describeError } from '../../../domain/errors.js';

/** Settings of the simulator transport; every field has a default. */
export interface SimulatorTransportOptions {
  /** How often every in-range device re-advertises while someone watches, real ms (default 1 000). */
  advertisementIntervalMs?: number;
  /** Budget of each read and write, ms (default 5 000): a device slower than that fails the operation. */
  operationTimeoutMs?: number;
  /** Where a throwing listener is reported (default: nowhere). */
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
  readonly kind = 'simulator';
  private readonly devices = new Map<string, DeviceEntry>();
  /** This radio's conditions per device address (upper case); none: heard as advertised, answered at once. */
  private readonly radios = new Map<string, SimulatedRadio>();
  private readonly operationTimeoutMs: number;
  private readonly watchers = new Set<AdvertisementListener>();
  private readonly advertisementIntervalMs: number;
  private readonly logger: GatewayLogger;
  private advertisementTimer: NodeJS.Timeout | null = null;

  constructor(devices: Iterable<SimulatedDevice> = [], options: SimulatorTransportOptions = {}) {
    this.advertisementIntervalMs = options.advertisementIntervalMs ?? 1_000;
    this.operationTimeoutMs = options.operationTimeoutMs ?? 5_000;
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

  /**
   * How this transport's radio reaches the device at `address` from now on (signal, delays, a link
   * that fails); replaces what was set before. Links already up take new delays at their next
   * operation.
   */
  setRadio(address: string, radio: SimulatedRadio): void {
    this.radios.set(address.toUpperCase(), { ...radio });
  }

  async connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection> {
    const upper = address.toUpperCase();
    const device = this.devices.get(upper)?.device;
    if (device === undefined || !device.inRange) throw new TransportError('not_found', `No device advertising at ${address}`);
    const resolved = resolveProfile(device, profile);
    if (resolved instanceof TransportError) throw resolved;
    const radio = this.radioOf(upper);
    if (!(await radioDelay(radio.connectDelayMs ?? 0, options.timeoutMs))) throw new TransportError('connect_failed', `${device.address}: connect timed out`);
    if (radio.linkFails === true) throw new TransportError('connect_failed', `${device.address}: the link could not be established`);
    let link: SimulatedLockLink;
    try {
      link = device.openLink();
    } catch (error) {
      throw new TransportError('connect_failed', `${device.address}: ${describeError(error)}`, { cause: error });
    }
    return new SimulatedConnection(upper, link, resolved, {
      radio: () => this.radioOf(upper),
      operationTimeoutMs: this.operationTimeoutMs,
      logger: this.logger,
    });
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
        const advertisement = this.advertisementOf(entry.device);
        if (advertisement === null) return;
        for (const watcher of [...this.watchers]) this.deliver(watcher, advertisement);
      });
    });
  }

  private currentAdvertisements(): Advertisement[] {
    const advertisements: Advertisement[] = [];
    for (const { device } of this.devices.values()) {
      const advertisement = this.advertisementOf(device);
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

  private radioOf(address: string): SimulatedRadio {
    return this.radios.get(address) ?? {};
  }

  /** What this radio hears of a device now, or null while it does not advertise. */
  private advertisementOf(device: SimulatedDevice): Advertisement | null {
    if (!device.inRange) return null;
    const advertised = device.advertisement();
    if (advertised === null) return null;
    const address = device.address.toUpperCase();
    const manufacturerData = new Map<number, Buffer>();
    for (const [company, bytes] of advertised.manufacturerData) manufacturerData.set(company, Buffer.from(bytes));
    return { address, rssi: this.radioOf(address).rssi ?? advertised.rssi, manufacturerData };
  }
}
