import dbus, { type MessageBus } from 'dbus-next';
import type { EventEmitter } from 'node:events';
import type NodeBle from 'node-ble';
import Bluetooth from 'node-ble/src/Bluetooth.js';
import { Deadline, EXPIRED, withTimeout } from '../deadline.js';
import { silentLogger, type GatewayLogger } from '../gateway-logger.js';
import {
  TransportError,
  type Advertisement,
  type AdvertisementListener,
  type ConnectOptions,
  type GattConnection,
  type GattProfile,
  type GattTransport,
  type TransportFailure,
} from '../gatt-transport.js';
import { AdvertisementSignals } from './bluez-advertisement-signals.js';
import { onBusConnectionEnd } from './dbus-connection-end.js';
import { busSubscriptionCounts, daemonMatchRuleCount, repairMatchRuleRefcount } from './dbus-match-rules.js';
import { helperOf, variantValue } from './node-ble-internals.js';
import { describeError } from '../../domain/errors.js';

/** Settings of the BlueZ transport; every field has a default. */
export interface BluezTransportOptions {
  /** Adapter name, e.g. `hci1`; default: the first adapter BlueZ lists. */
  adapter?: string;
  /** D-Bus address; default: the system bus (`DBUS_SYSTEM_BUS_ADDRESS` or the standard socket). */
  busAddress?: string;
  /** How often discovery checks whether the device appeared, ms (default 100; node-ble's 1000 is too slow). */
  discoveryIntervalMs?: number;
  /** Budget of each read, write, StartNotify and discovery call, ms (default 5 000): D-Bus calls have no timeout of their own. */
  operationTimeoutMs?: number;
  /**
   * Budget for ServicesResolved plus the GATT lookup after the link is up, ms (default 5 000;
   * never more than what is left of the connect timeout). node-ble's gatt() has none.
   */
  gattTimeoutMs?: number;
  /** While advertisements are watched but scanning cannot start (no bus, no BlueZ), how often to try again, ms (default 5 000). */
  scanRetryMs?: number;
  logger?: GatewayLogger;
}

/** Subscription bookkeeping of the current bus connection, for diagnostics and soak tests. */
export interface BluezDiagnostics {
  /** Rules the daemon counts for our connection (Debug.Stats); null if unavailable. */
  daemonMatchRules: number | null;
  /** Rules dbus-next tracks (refcounted, repaired). */
  trackedMatchRules: number;
  /** Signal listeners of dbus-next's proxies. */
  signalListeners: number;
  /** Rules held by the advertisement watch (0 while nobody watches). */
  advertisementWatchRules: number;
  /** Listeners of the bus's low-level `message` event (the advertisement watch holds one). */
  messageListeners: number;
  /**
   * Listeners on the cached node-ble objects (devices, characteristics and their BusHelpers):
   * where node-ble piles up listeners per connection when they are not released.
   */
  nodeBleListeners: number;
}

type Characteristic = NodeBle.GattCharacteristic;

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
  /** Who needs LE discovery now: device lookups and the advertisement watch. */
  discoveryUsers: number;
  /** Whether our StartDiscovery is in force. */
  discoveryOn: boolean;
  /** Discovery on/off calls, one after the other so they never interleave. */
  discoveryChain: Promise<void>;
}

interface DeviceHandle {
  device: NodeBle.Device;
  /**
   * Characteristic objects by `service/characteristic` UUID, null when the device lacks it;
   * shared by every profile, so a characteristic two profiles use costs one proxy and one rule.
   */
  characteristics: Map<string, Characteristic | null>;
  /** Each profile resolved once: profile key → name → characteristic. */
  profiles: Map<string, Map<string, Characteristic>>;
}

/** The advertisement watch while it runs. */
interface Scan {
  session: Session;
  adapter: NodeBle.Adapter;
  signals: AdvertisementSignals;
}

/** Thrown inside a scan start that was called off because the last watcher left. */
class ScanCancelled extends Error {}

/**
 * The production transport: BlueZ over D-Bus through node-ble, hardened where node-ble is not:
 * every D-Bus call has a timeout, GATT resolution has its own timeout, writes use the explicit
 * "request" type, an `error` listener keeps an unreachable bus from crashing the process (the
 * next connect opens a new session), and match rules/listeners stay flat over any number of
 * connections (docs/ble-protocol.md "D-Bus match rules").
 */
export class BluezTransport implements GattTransport {
  readonly kind = 'bluez' as const;
  private session: Session | null = null;
  private readonly logger: GatewayLogger;
  private readonly discoveryIntervalMs: number;
  private readonly operationTimeoutMs: number;
  private readonly gattTimeoutMs: number;
  private readonly scanRetryMs: number;
  /** Set once a bus failure was logged as an error; later failures are debug lines until it works again. */
  private busFailureReported = false;
  /** Set once "Bluetooth is unavailable" (no BlueZ, no adapter) was logged; cleared by a connect that works. */
  private unavailableReported = false;
  private readonly watchers = new Set<AdvertisementListener>();
  private scan: Scan | null = null;
  /** Token of the scan start under way; replaced or cleared to call it off. */
  private scanAttempt: object | null = null;
  private scanRetry: NodeJS.Timeout | null = null;
  private scanFailureReported = false;
  private scanStopping: Promise<void> = Promise.resolve();

  constructor(private readonly options: BluezTransportOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.discoveryIntervalMs = options.discoveryIntervalMs ?? 100;
    this.operationTimeoutMs = options.operationTimeoutMs ?? 5_000;
    this.gattTimeoutMs = options.gattTimeoutMs ?? 5_000;
    this.scanRetryMs = options.scanRetryMs ?? 5_000;
  }

  async connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection> {
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
      let characteristics: Map<string, Characteristic>;
      try {
        await this.waitServicesResolved(handle.device, gattDeadline);
        characteristics = await this.resolveProfile(upper, handle, profile, gattDeadline);
      } finally {
        gattDeadline.cancel();
      }
      const subscriptions = profile.characteristics.filter((spec) => spec.subscribe && characteristics.has(spec.name)).map((spec) => spec.name);
      const connection = new BluezConnection(upper, handle.device, characteristics, subscriptions, this.operationTimeoutMs, (c) => session?.connections.delete(c));
      session.connections.add(connection);
      try {
        await connection.subscribe(deadline);
      } catch (error) {
        await connection.disconnect();
        throw toTransportError(error, 'gatt_unavailable');
      }
      if (this.unavailableReported) this.logger.info('Bluetooth works again.');
      this.unavailableReported = false;
      return connection;
    } catch (error) {
      if (handle !== undefined && session !== undefined) {
        // Start the next attempt from scratch: BlueZ may have dropped or rebuilt these objects.
        forgetDevice(session, upper, handle);
        disconnectQuietly(handle.device, this.operationTimeoutMs);
      }
      const failure = toTransportError(error, 'connect_failed');
      this.reportUnavailable(failure);
      throw failure;
    } finally {
      deadline.cancel();
    }
  }

  /**
   * One actionable error line per outage when Bluetooth itself is missing (no BlueZ on the bus,
   * no adapter) — not for a lock out of range — and quiet debug lines while it stays missing.
   * A bus that cannot be reached is said once by the session (see openSession).
   */
  private reportUnavailable(error: TransportError): void {
    const hint = bluetoothHint(error);
    if (hint === undefined) return;
    if (this.unavailableReported || this.busFailureReported) {
      this.logger.debug(`Bluetooth: ${error.message}`);
      return;
    }
    this.unavailableReported = true;
    this.logger.error(`Bluetooth is unavailable (${error.message}): ${hint}`);
  }

  watchAdvertisements(listener: AdvertisementListener): () => void {
    // A wrapper per call, so the same function watched twice is unwatched once per call.
    const watcher: AdvertisementListener = (advertisement) => {
      listener(advertisement);
    };
    this.watchers.add(watcher);
    if (this.watchers.size === 1) this.startScanning();
    return () => {
      if (!this.watchers.delete(watcher)) return;
      if (this.watchers.size === 0) this.stopScanning();
    };
  }

  async close(): Promise<void> {
    this.watchers.clear();
    this.stopScanning();
    await this.scanStopping;
    const session = this.session;
    this.session = null;
    if (session === null) return;
    for (const connection of [...session.connections]) await connection.disconnect();
    dropSession(session);
  }

  /** Subscription bookkeeping of the current bus connection (all zero/null without one). */
  async diagnostics(): Promise<BluezDiagnostics> {
    const session = this.session;
    if (session === null || session.broken) return { daemonMatchRules: null, trackedMatchRules: 0, signalListeners: 0, advertisementWatchRules: 0, messageListeners: 0, nodeBleListeners: 0 };
    const counts = busSubscriptionCounts(session.bus);
    return {
      daemonMatchRules: await daemonMatchRuleCount(session.bus),
      trackedMatchRules: counts.matchRules,
      signalListeners: counts.signalListeners,
      advertisementWatchRules: this.scan?.session === session ? AdvertisementSignals.ruleCount : 0,
      messageListeners: session.bus.listenerCount('message'),
      nodeBleListeners: nodeBleListenerCount(session),
    };
  }

  // ---- advertisement watch ----

  private startScanning(): void {
    if (this.scan !== null || this.scanAttempt !== null || this.scanRetry !== null) return;
    const attempt = {};
    this.scanAttempt = attempt;
    this.openScan(attempt).then(
      (scan) => {
        if (this.scanAttempt !== attempt || scan.session.broken) {
          // Called off, or the bus broke, between the last step and now.
          scan.signals.stop();
          this.scanStopping = this.stopDiscovery(scan.session, scan.adapter);
          if (this.scanAttempt !== attempt) return;
          this.scanAttempt = null;
          this.scheduleScanRetry();
          return;
        }
        this.scanAttempt = null;
        this.scan = scan;
        if (this.scanFailureReported) this.logger.info('Bluetooth LE scanning works again.');
        this.scanFailureReported = false;
      },
      (error: unknown) => {
        if (this.scanAttempt !== attempt) return; // called off: nothing to report
        this.scanAttempt = null;
        const message = describeError(error);
        if (this.scanFailureReported || this.busFailureReported) {
          // Already said (by the scan or by the bus it runs on): retry quietly.
          this.logger.debug(`Bluetooth LE scanning: ${message}`);
        } else {
          const hint = bluetoothHint(error);
          this.logger.error(`Bluetooth LE scanning is unavailable (${message}); retrying in the background.${hint === undefined ? '' : ` ${hint}`}`);
          this.scanFailureReported = true;
        }
        this.scheduleScanRetry();
      },
    );
  }

  /** Session, adapter, match rules, discovery — or nothing at all if any step fails or is called off. */
  private async openScan(attempt: object): Promise<Scan> {
    const deadline = new Deadline(2 * this.operationTimeoutMs);
    const stillWanted = (): void => {
      if (this.scanAttempt !== attempt) throw new ScanCancelled('scan called off');
    };
    let session: Session | undefined;
    let adapter: NodeBle.Adapter | undefined;
    let signals: AdvertisementSignals | undefined;
    let discovering = false;
    try {
      session = await this.readySession(deadline);
      adapter = await this.adapterOf(session, deadline);
      stillWanted();
      signals = new AdvertisementSignals(session.bus, helperOf(adapter).object, (advertisement) => {
        this.deliver(advertisement);
      });
      await raceOrFail(deadline, signals.start(), 'bus_unavailable', 'AddMatch was not answered');
      discovering = true;
      if (!(await this.startDiscovery(session, adapter, deadline))) throw new TransportError('connect_failed', 'StartDiscovery failed');
      stillWanted();
      if (session.broken) throw new TransportError('bus_unavailable', 'the bus connection broke');
      return { session, adapter, signals };
    } catch (error) {
      signals?.stop();
      if (discovering && session !== undefined && adapter !== undefined) this.scanStopping = this.stopDiscovery(session, adapter);
      throw error;
    } finally {
      deadline.cancel();
    }
  }

  private stopScanning(): void {
    this.scanAttempt = null; // a start under way undoes itself
    if (this.scanRetry !== null) clearTimeout(this.scanRetry);
    this.scanRetry = null;
    const scan = this.scan;
    this.scan = null;
    if (scan === null) return;
    scan.signals.stop();
    this.scanStopping = this.stopDiscovery(scan.session, scan.adapter);
  }

  private scheduleScanRetry(): void {
    if (this.scanRetry !== null || this.watchers.size === 0) return;
    this.scanRetry = setTimeout(() => {
      this.scanRetry = null;
      if (this.watchers.size > 0) this.startScanning();
    }, this.scanRetryMs);
    // Waiting for Bluetooth must never keep a process alive.
    this.scanRetry.unref();
  }

  /** The bus under a running scan failed: its rules and discovery died with it; start over later. */
  private sessionLost(session: Session): void {
    for (const connection of [...session.connections]) connection.lose();
    const scan = this.scan;
    if (scan?.session !== session) return;
    this.scan = null;
    scan.signals.stop();
    this.scheduleScanRetry();
  }

  private deliver(advertisement: Advertisement): void {
    for (const watcher of [...this.watchers]) {
      try {
        watcher(advertisement);
      } catch (error) {
        // A listener's bug must not stop the others or reach dbus-next's message loop.
        this.logger.error(`Advertisement listener failed: ${describeError(error)}`);
      }
    }
  }

  // ---- sessions ----

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
      discoveryOn: false,
      discoveryChain: Promise.resolve(),
    };
    const failed = (message: string): void => {
      if (session.broken) return;
      session.broken = true;
      // One error line per outage, not one per reconnect attempt.
      if (this.busFailureReported) this.logger.debug(message);
      else this.logger.error(message);
      this.busFailureReported = true;
      this.sessionLost(session);
    };
    session.ready = new Promise<void>((resolve, reject) => {
      bus.once('connect', () => {
        if (this.busFailureReported) this.logger.info('D-Bus connection works again.');
        this.busFailureReported = false;
        resolve();
      });
      // Without an error listener an unreachable or failing bus throws from an EventEmitter and
      // ends the process. With it, the session is marked broken and the next connect starts over.
      bus.on('error', (error: unknown) => {
        const message = describeError(error);
        failed(`D-Bus connection failed: ${message}. ${bluetoothHint(error) ?? BUS_HINT}`);
        reject(new TransportError('bus_unavailable', `D-Bus: ${message}`));
      });
    });
    onBusConnectionEnd(bus, () => {
      failed('D-Bus connection closed.');
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

  // ---- discovery ----

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
      // Without discovery the device may still show up (another client may be scanning).
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
    const handle: DeviceHandle = { device, characteristics: new Map(), profiles: new Map() };
    session.devices.set(address, handle);
    return handle;
  }

  /** One more discovery user; true when discovery is on. */
  private async startDiscovery(session: Session, adapter: NodeBle.Adapter, deadline: Deadline): Promise<boolean> {
    session.discoveryUsers += 1;
    return (await deadline.race(this.syncDiscovery(session, adapter))) === true;
  }

  /** One discovery user fewer; discovery stops with the last. Never throws. */
  private async stopDiscovery(session: Session, adapter: NodeBle.Adapter): Promise<void> {
    session.discoveryUsers = Math.max(0, session.discoveryUsers - 1);
    await this.syncDiscovery(session, adapter);
  }

  /** Brings discovery in line with its users, after any on/off still under way. Never rejects. */
  private syncDiscovery(session: Session, adapter: NodeBle.Adapter): Promise<boolean> {
    const step = session.discoveryChain.then(async () => {
      if (session.broken) return false;
      const wanted = session.discoveryUsers > 0;
      if (wanted && !session.discoveryOn) {
        session.discoveryOn = await this.turnDiscoveryOn(adapter);
      } else if (!wanted && session.discoveryOn) {
        session.discoveryOn = false;
        await this.turnDiscoveryOff(adapter);
      }
      return session.discoveryOn;
    });
    session.discoveryChain = step.then(() => undefined);
    return step;
  }

  /**
   * SetDiscoveryFilter(Transport=le, DuplicateData=true) and StartDiscovery. DuplicateData makes
   * BlueZ report every advertisement, not only changes, so a lock that repeats "new state" is
   * heard each time; BlueZ before 5.48 refuses the key, and then only changes are reported.
   */
  private async turnDiscoveryOn(adapter: NodeBle.Adapter): Promise<boolean> {
    const helper = helperOf(adapter);
    const call = (method: string, ...args: unknown[]): Promise<unknown> => withTimeout(helper.callMethod(method, ...args), this.operationTimeoutMs, () => new Error(`${method} timed out`));
    try {
      try {
        await call('SetDiscoveryFilter', { Transport: new dbus.Variant('s', 'le'), DuplicateData: new dbus.Variant('b', true) });
      } catch (error) {
        if (dbusErrorName(error) !== 'org.bluez.Error.InvalidArguments') throw error;
        await call('SetDiscoveryFilter', { Transport: new dbus.Variant('s', 'le') });
      }
      try {
        await call('StartDiscovery');
      } catch (error) {
        // Discovery is already running (ours, as BlueZ counts it per client, or another's in the fake).
        if (dbusErrorName(error) !== 'org.bluez.Error.InProgress') throw error;
      }
      return true;
    } catch (error) {
      this.logger.debug(`StartDiscovery: ${describeError(error)}`);
      return false;
    }
  }

  private async turnDiscoveryOff(adapter: NodeBle.Adapter): Promise<void> {
    try {
      await withTimeout(helperOf(adapter).callMethod('StopDiscovery'), this.operationTimeoutMs, () => new Error('StopDiscovery timed out'));
    } catch (error) {
      this.logger.debug(`StopDiscovery: ${describeError(error)}`);
    }
  }

  // ---- link and GATT ----

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

  /**
   * The profile's characteristics by name, looked up once per (device, profile) and kept with the
   * device: the characteristic proxies (one match rule each) are reused by every later connection.
   */
  private async resolveProfile(address: string, handle: DeviceHandle, profile: GattProfile, deadline: Deadline): Promise<Map<string, Characteristic>> {
    const key = profileKey(profile);
    const cached = handle.profiles.get(key);
    if (cached !== undefined) return cached;
    let gatt: NodeBle.GattServer | undefined;
    const services = new Map<string, NodeBle.GattService | null>();
    const lookup = <T>(operation: Promise<T>): Promise<T | null> =>
      raceOrFail(deadline, operation, 'gatt_unavailable', 'GATT lookup timed out').catch((error: unknown) => {
        if (error instanceof TransportError) throw error;
        return null; // node-ble: "Service not available" / "Characteristic not available"
      });
    const found = new Map<string, Characteristic>();
    for (const spec of profile.characteristics) {
      const uuidKey = `${spec.service}/${spec.uuid}`;
      let characteristic = handle.characteristics.get(uuidKey);
      if (characteristic === undefined) {
        gatt ??= await raceOrFail(deadline, handle.device.gatt(), 'gatt_unavailable', 'GATT lookup timed out');
        let service = services.get(spec.service);
        if (service === undefined) {
          service = await lookup(gatt.getPrimaryService(spec.service));
          services.set(spec.service, service);
        }
        characteristic = service === null ? null : await lookup(service.getCharacteristic(spec.uuid));
        handle.characteristics.set(uuidKey, characteristic);
      }
      if (characteristic === null) {
        if (spec.required) throw new TransportError('gatt_unavailable', `${address} lacks ${spec.name} (${spec.uuid}): not a device of this profile`);
        continue;
      }
      found.set(spec.name, characteristic);
    }
    handle.profiles.set(key, found);
    return found;
  }
}

/** A live BlueZ connection to one device. */
class BluezConnection implements GattConnection {
  private notificationListener: ((characteristic: string, value: Buffer) => void) | undefined;
  private disconnectListener: (() => void) | undefined;
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
  ) {
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
        if (this.isConnected) this.notificationListener?.(name, value);
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

/** Identity of a profile by content, so equal profiles built twice share one resolution. */
function profileKey(profile: GattProfile): string {
  return profile.characteristics.map((spec) => `${spec.name}=${spec.service}/${spec.uuid}${spec.required ? '!' : '?'}`).join(',');
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

/** Listeners on every cached node-ble object of a session and on its BusHelper. */
function nodeBleListenerCount(session: Session): number {
  const count = (emitter: EventEmitter): number => emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0);
  let total = 0;
  for (const handle of session.devices.values()) {
    const objects: EventEmitter[] = [handle.device, ...[...handle.characteristics.values()].filter((c): c is Characteristic => c !== null)];
    for (const object of objects) total += count(object) + count(helperOf(object));
  }
  return total;
}

/** Removes a device from the session cache and releases everything node-ble holds for it. */
function forgetDevice(session: Session, address: string, handle: DeviceHandle): void {
  if (session.devices.get(address) === handle) session.devices.delete(address);
  for (const characteristic of handle.characteristics.values()) {
    if (characteristic === null) continue;
    characteristic.removeAllListeners('valuechanged');
    helperOf(characteristic).removeListeners();
  }
  handle.characteristics.clear();
  handle.profiles.clear();
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

const SETUP_DOCS = 'see the README, "Bluetooth on the host"';
const RETRYING = 'the locks stay offline and the service retries quietly';
const BUS_HINT = `No D-Bus system bus here: ${RETRYING}. Install and start D-Bus and BlueZ (${SETUP_DOCS}).`;

/**
 * What to tell the user when Bluetooth itself is missing: the bus, BlueZ on it, or an adapter.
 * Undefined for the failures of one lock (out of range, refused pairing): those are not the host's.
 */
export function bluetoothHint(error: unknown): string | undefined {
  const text = `${dbusErrorName(error) ?? ''} ${describeError(error)}`;
  if (/\b(ENOENT|ECONNREFUSED|EACCES)\b/.test(text)) return BUS_HINT;
  if (/ServiceUnknown|org\.bluez was not provided/.test(text)) {
    return `BlueZ is not running on the system bus: ${RETRYING}. Install BlueZ and start bluetoothd (${SETUP_DOCS}).`;
  }
  if (/No available adapters found|Adapter not found/.test(text)) {
    return `No Bluetooth adapter: ${RETRYING}. Check \`bluetoothctl list\` and the config's bluetooth.adapter (${SETUP_DOCS}).`;
  }
  return undefined;
}

/** The BlueZ/D-Bus error name a dbus-next DBusError carries in `type`. */
function dbusErrorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'type' in error && typeof error.type === 'string' ? error.type : undefined;
}

/** Maps node-ble/dbus-next errors (DBusError carries the BlueZ error name in `type`) to TransportError. */
function toTransportError(error: unknown, fallback: TransportFailure): TransportError {
  if (error instanceof TransportError) return error;
  const name = dbusErrorName(error);
  const text = describeError(error);
  let failure = fallback;
  if (name === 'org.bluez.Error.NotConnected') failure = 'not_connected';
  if (name === 'org.freedesktop.DBus.Error.ServiceUnknown' || name === 'org.freedesktop.DBus.Error.NoReply') failure = 'bus_unavailable';
  return new TransportError(failure, name === undefined ? text : `${name}: ${text}`, { cause: error });
}
