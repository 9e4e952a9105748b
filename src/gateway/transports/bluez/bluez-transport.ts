import { Deadline } from '../../deadline.js';
import { silentLogger, type GatewayLogger } from '../../gateway-logger.js';
import { type AdvertisementListener, type ConnectOptions, type GattConnection, type GattProfile, type GattTransport, type RadioStatus, type TransportError } from '../../gatt-transport.js';
import { BusSession, dropSession, forgetDevice, nodeBleListenerCount, type Characteristic, type DeviceHandle, type Session } from './bluez-bus-session.js';
import { BluezConnection, disconnectQuietly, linkUp } from './bluez-connection.js';
import { BluezDiscovery } from './bluez-discovery.js';
import { bluetoothHint, toTransportError } from './bluez-errors.js';
import { resolveProfile, waitServicesResolved } from './bluez-gatt-resolution.js';
import { BluezScanner } from './bluez-scanner.js';
import { busSubscriptionCounts, daemonMatchRuleCount } from './dbus-match-rules.js';

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

/**
 * The production transport: BlueZ over D-Bus through node-ble, hardened where node-ble is not:
 * every D-Bus call has a timeout, GATT resolution has its own timeout, writes use the explicit
 * "request" type, an `error` listener keeps an unreachable bus from crashing the process (the
 * next connect opens a new session), and match rules/listeners stay flat over any number of
 * connections (docs/ble-protocol.md "D-Bus match rules").
 *
 * Its jobs live beside it: the bus session (bluez-bus-session.ts), LE discovery
 * (bluez-discovery.ts), GATT resolution (bluez-gatt-resolution.ts), the connection
 * (bluez-connection.ts), the advertisement watch (bluez-scanner.ts) and the error hints
 * (bluez-errors.ts); this class puts them together.
 */
export class BluezTransport implements GattTransport {
  readonly kind = 'bluez' as const;
  private readonly logger: GatewayLogger;
  private readonly operationTimeoutMs: number;
  private readonly gattTimeoutMs: number;
  private readonly bus: BusSession;
  private readonly discovery: BluezDiscovery;
  private readonly scanner: BluezScanner;
  /** Set once "Bluetooth is unavailable" (no BlueZ, no adapter) was logged; cleared by a connect that works. */
  private unavailableReported = false;

  constructor(options: BluezTransportOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.operationTimeoutMs = options.operationTimeoutMs ?? 5_000;
    this.gattTimeoutMs = options.gattTimeoutMs ?? 5_000;
    this.bus = new BusSession({ busAddress: options.busAddress, adapter: options.adapter }, this.logger, (session) => {
      this.sessionLost(session);
    });
    this.discovery = new BluezDiscovery({ operationTimeoutMs: this.operationTimeoutMs, discoveryIntervalMs: options.discoveryIntervalMs ?? 100, logger: this.logger });
    this.scanner = new BluezScanner(this.bus, this.discovery, { operationTimeoutMs: this.operationTimeoutMs, scanRetryMs: options.scanRetryMs ?? 5_000, logger: this.logger });
  }

  async connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection> {
    const upper = address.toUpperCase();
    const deadline = new Deadline(options.timeoutMs);
    let handle: DeviceHandle | undefined;
    let session: Session | undefined;
    try {
      session = await this.bus.ready(deadline);
      const adapter = await this.bus.adapterOf(session, deadline);
      handle = await this.discovery.findDevice(session, adapter, upper, deadline);
      await linkUp(handle.device, deadline);
      const gattDeadline = new Deadline(Math.min(this.gattTimeoutMs, deadline.remaining()));
      let characteristics: Map<string, Characteristic>;
      try {
        await waitServicesResolved(handle.device, gattDeadline);
        characteristics = await resolveProfile(upper, handle, profile, gattDeadline);
      } finally {
        gattDeadline.cancel();
      }
      const subscriptions = profile.characteristics.filter((spec) => spec.subscribe && characteristics.has(spec.name)).map((spec) => spec.name);
      const connection = new BluezConnection(upper, handle.device, characteristics, subscriptions, this.operationTimeoutMs, (c) => session?.connections.delete(c), this.logger);
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
   * A bus that cannot be reached is said once by the session (see BusSession).
   */
  private reportUnavailable(error: TransportError): void {
    const hint = bluetoothHint(error);
    if (hint === undefined) return;
    if (this.unavailableReported || this.bus.failureReported) {
      this.logger.debug(`Bluetooth: ${error.message}`);
      return;
    }
    this.unavailableReported = true;
    this.logger.error(`Bluetooth is unavailable (${error.message}): ${hint}`);
  }

  watchAdvertisements(listener: AdvertisementListener): () => void {
    return this.scanner.watch(listener);
  }

  async close(): Promise<void> {
    await this.scanner.close();
    const session = this.bus.take();
    if (session === null) return;
    for (const connection of [...session.connections]) await connection.disconnect();
    dropSession(session);
  }

  /** `unavailable` while Bluetooth itself is missing here (no bus, no BlueZ, no adapter), as said in the log; else `online`. */
  radioStatus(): RadioStatus {
    return { state: this.unavailableReported || this.bus.failureReported ? 'unavailable' : 'online', address: null, connectionsFree: null, connectionsLimit: null };
  }

  /** Subscription bookkeeping of the current bus connection (all zero/null without one). */
  async diagnostics(): Promise<BluezDiagnostics> {
    const session = this.bus.current;
    if (session === null || session.broken) return { daemonMatchRules: null, trackedMatchRules: 0, signalListeners: 0, advertisementWatchRules: 0, messageListeners: 0, nodeBleListeners: 0 };
    const counts = busSubscriptionCounts(session.bus);
    return {
      daemonMatchRules: await daemonMatchRuleCount(session.bus),
      trackedMatchRules: counts.matchRules,
      signalListeners: counts.signalListeners,
      advertisementWatchRules: this.scanner.ruleCount(session),
      messageListeners: session.bus.listenerCount('message'),
      nodeBleListeners: nodeBleListenerCount(session),
    };
  }

  /** The bus failed: its connections are lost, and a running scan starts over later. */
  private sessionLost(session: Session): void {
    for (const connection of [...session.connections]) connection.lose();
    this.scanner.sessionLost(session);
  }
}
