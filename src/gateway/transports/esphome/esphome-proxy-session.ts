import type { Clock } from '../../../domain/clock.js';
import { describeError } from '../../../domain/errors.js';
import type { Advertisement, AdvertisementListener } from '../../gatt-transport.js';
import type { GatewayLogger } from '../../gateway-logger.js';
import { backoffDelay, type BackoffPolicy } from '../../reconnect-backoff.js';
import { manufacturerDataOf } from './advertising-data.js';
import { EsphomeApiConnection, type ApiEndpoint, type ApiTimings, type MessageMatch } from './esphome-api-connection.js';
import { EsphomeApiError } from './esphome-api-error.js';
import type { EsphomeGattConnection, ProxyChannel } from './esphome-gatt-connection.js';
import {
  MessageType,
  numberToAddress,
  ProxyFeature,
  readConnection,
  readConnectionsFree,
  readHandleAnswer,
  readLegacyAdvertisement,
  readRawAdvertisements,
  subscribeAdvertisements,
  subscribeConnectionsFree,
  type ApiMessage,
  type DeviceInfo,
  type RelayedAdvertisement,
} from './esphome-messages.js';

/** A proxy's state as `GET /gateways` shows it (docs/design.md §4e). */
export type ProxyState = 'online' | 'offline' | 'unauthorized';

/** What the proxy last heard of one address. */
export interface ProxySighting {
  rssi: number;
  addressType: number;
  /** ms since the epoch, on the session's clock. */
  seenAt: number;
}

/** Settings of one proxy session. */
export interface ProxySessionOptions {
  /** The proxy's configured name (its gateway id). */
  name: string;
  endpoint: ApiEndpoint;
  timings: ApiTimings;
  /** Reconnect backoff after a drop or a failed attempt (1 s doubling to 60 s). */
  backoff: BackoffPolicy;
  /** How long to wait before trying again a proxy that refused our key, ms. */
  unauthorizedRetryMs: number;
  clock: Clock;
  logger: GatewayLogger;
}

/** Addresses remembered per proxy (it hears every phone around it). */
const MAX_SIGHTINGS = 512;
/** How long the set-up waits for the first count of free connection slots, ms. */
const SLOTS_WAIT_MS = 2_000;

/**
 * One proxy, for as long as the transport runs (docs/gateways.md "How it works"): its API
 * connection, reconnected with backoff when it drops or cannot be made; one advertisement
 * subscription held for the whole connection (releasing it would make the proxy drop every GATT
 * link); its free connection slots, a missing count read as 0; the addresses it heard; and the
 * GATT links it carries, each told once when the proxy goes away. Never throws into its caller's
 * timers; a fault of the proxy only changes its state.
 */
export class ProxySession implements Omit<ProxyChannel, 'waitFor'> {
  private connection: EsphomeApiConnection | null = null;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failedAttempts = 0;
  private currentState: ProxyState = 'offline';
  private started = false;
  private closed = false;
  private lastRefusal: string | null = null;
  private offlineReported = false;
  private readonly sightings = new Map<number, ProxySighting>();
  private readonly advertisementListeners = new Set<AdvertisementListener>();
  private readonly stateWaiters = new Set<() => void>();
  private readonly sightingWaiters = new Map<number, Set<() => void>>();
  /** Links by device address (pending or up): each holds one of the proxy's slots. */
  readonly links = new Map<number, EsphomeGattConnection>();
  /** The proxy's own count; null until it said. */
  private reportedFree: number | null = null;
  private reportedLimit: number | null = null;
  private info: DeviceInfo | null = null;

  constructor(private readonly options: ProxySessionOptions) {}

  get proxyName(): string {
    return this.options.name;
  }

  get state(): ProxyState {
    return this.currentState;
  }

  get deviceInfo(): DeviceInfo | null {
    return this.info;
  }

  /** Free connection slots for a new link: the proxy's count, less links of ours it may not have counted yet. */
  get connectionsFree(): number | null {
    if (this.reportedFree === null || this.reportedLimit === null) return null;
    return Math.max(0, Math.min(this.reportedFree, this.reportedLimit - this.links.size));
  }

  get connectionsLimit(): number | null {
    return this.reportedLimit;
  }

  /** Starts connecting (once); later calls do nothing. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.attempt();
  }

  /** Resolves once the session is online, or with false when `timeoutMs` passes or it is refused/closed first. */
  untilOnline(timeoutMs: number): Promise<boolean> {
    this.start();
    if (this.currentState === 'online') return Promise.resolve(true);
    if (this.closed || this.currentState === 'unauthorized' || this.connecting === null) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.stateWaiters.delete(done);
        resolve(this.currentState === 'online');
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      this.stateWaiters.add(done);
    });
  }

  /** What the proxy last heard of an address. */
  sighting(address: number): ProxySighting | undefined {
    return this.sightings.get(address);
  }

  /** Resolves true once the proxy has heard the address (at once if it has), false after `timeoutMs`. */
  untilHeard(address: number, timeoutMs: number): Promise<boolean> {
    if (this.sightings.has(address)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiters = this.sightingWaiters.get(address) ?? new Set<() => void>();
      this.sightingWaiters.set(address, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.sightingWaiters.get(address) === waiters) this.sightingWaiters.delete(address);
        resolve(this.sightings.has(address));
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      waiters.add(done);
    });
  }

  /** Every advertisement the proxy relays from now on; returns the function that stops it. */
  watch(listener: AdvertisementListener): () => void {
    this.start();
    this.advertisementListeners.add(listener);
    return () => this.advertisementListeners.delete(listener);
  }

  send(message: ApiMessage): void {
    this.connection?.send(message);
  }

  waitFor<T>(match: MessageMatch<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
    const connection = this.connection;
    if (connection === null) return Promise.reject(new EsphomeApiError('closed', `proxy ${this.options.name} is not connected`));
    return connection.waitFor(match, timeoutMs, onTimeout);
  }

  release(link: EsphomeGattConnection): void {
    if (this.links.get(link.addressNumber) === link) this.links.delete(link.addressNumber);
  }

  listenerFailed(message: string): void {
    this.options.logger.error(`Proxy ${this.options.name}: ${message}`);
  }

  /** Ends the session: its links are told they dropped, the API connection is closed, nothing reconnects. */
  close(): void {
    this.closed = true;
    this.connection?.close();
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.connection = null;
    this.dropLinks();
    this.setState('offline');
  }

  private attempt(): void {
    if (this.closed || this.connecting !== null) return;
    this.connecting = this.establish()
      .catch((error: unknown) => {
        this.options.logger.error(`Proxy ${this.options.name}: unexpected fault while connecting: ${describeError(error)}`);
        this.scheduleReconnect(this.options.backoff.maxMs);
      })
      .finally(() => {
        this.connecting = null;
        // Waiters of a failed attempt learn it now (a success told them already).
        if (this.currentState !== 'online') this.notifyStateWaiters();
      });
  }

  private async establish(): Promise<void> {
    let connection: EsphomeApiConnection;
    try {
      connection = await EsphomeApiConnection.open(this.options.endpoint, this.options.timings);
    } catch (error) {
      this.connectFailed(error);
      return;
    }
    if (this.closed) {
      connection.close();
      return;
    }
    const flags = connection.deviceInfo.proxyFeatureFlags;
    if ((flags & ProxyFeature.ActiveConnections) === 0) {
      connection.close();
      this.refused(`Proxy ${this.options.name} (${this.where()}) is not an active Bluetooth proxy: set "bluetooth_proxy: active: true" in its ESPHome YAML (docs/gateways.md).`);
      return;
    }
    this.connection = connection;
    this.info = connection.deviceInfo;
    connection.onMessage((message) => {
      this.received(message);
    });
    connection.onClose((error) => {
      this.connectionLost(connection, error);
    });
    // Slots first (the proxy answers the subscription with its count), then advertisements, held
    // for the whole connection: the proxy drops every GATT link when the last subscription ends.
    const firstCount = connection
      .waitFor((message) => (message.type === MessageType.BluetoothConnectionsFreeResponse ? true : undefined), SLOTS_WAIT_MS, () => new Error('no count of free slots'))
      .catch(() => false);
    connection.send(subscribeConnectionsFree());
    connection.send(subscribeAdvertisements((flags & ProxyFeature.RawAdvertisements) !== 0));
    await firstCount;
    // Closed meanwhile, by the proxy or by us.
    if (!connection.open || this.connection !== connection) return;
    this.failedAttempts = 0;
    this.lastRefusal = null;
    if (this.offlineReported) this.options.logger.info(`Proxy ${this.options.name} is reachable again.`);
    else this.options.logger.debug(`Proxy ${this.options.name}: connected (${connection.deviceInfo.name}, ESPHome ${connection.deviceInfo.esphomeVersion}).`);
    this.offlineReported = false;
    this.setState('online');
  }

  private connectFailed(error: unknown): void {
    const failure = error instanceof EsphomeApiError ? error : new EsphomeApiError('protocol', describeError(error));
    if (failure.refusesUs) {
      this.refused(refusalLine(this.options.name, failure));
      return;
    }
    this.failedAttempts += 1;
    this.setState('offline');
    const line = `Proxy ${this.options.name} (${this.where()}) cannot be reached: ${failure.message}; trying again with backoff.`;
    if (!this.offlineReported) this.options.logger.warn(line);
    else this.options.logger.debug(line);
    this.offlineReported = true;
    this.scheduleReconnect(backoffDelay(this.failedAttempts - 1, this.options.backoff));
  }

  /** The proxy refuses our configuration: said once (never the key), retried slowly. */
  private refused(line: string): void {
    this.setState('unauthorized');
    if (this.lastRefusal !== line) this.options.logger.error(line);
    else this.options.logger.debug(line);
    this.lastRefusal = line;
    this.scheduleReconnect(this.options.unauthorizedRetryMs);
  }

  private connectionLost(connection: EsphomeApiConnection, error: EsphomeApiError): void {
    if (this.connection !== connection) return;
    this.connection = null;
    this.reportedFree = null;
    this.dropLinks();
    if (this.closed) return;
    this.options.logger.warn(`Proxy ${this.options.name} (${this.where()}) dropped: ${error.message}; reconnecting with backoff.`);
    this.offlineReported = true;
    this.failedAttempts = 1;
    this.setState('offline');
    this.scheduleReconnect(backoffDelay(0, this.options.backoff));
  }

  private dropLinks(): void {
    for (const link of [...this.links.values()]) link.lost();
    this.links.clear();
  }

  private scheduleReconnect(delayMs: number): void {
    if (this.closed || this.reconnectTimer !== null) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.attempt();
    }, delayMs);
    this.reconnectTimer.unref();
  }

  private setState(state: ProxyState): void {
    if (this.currentState === state) return;
    this.currentState = state;
    this.notifyStateWaiters();
  }

  private notifyStateWaiters(): void {
    for (const waiter of [...this.stateWaiters]) waiter();
  }

  private where(): string {
    return `${this.options.endpoint.host}:${this.options.endpoint.port}`;
  }

  private received(message: ApiMessage): void {
    switch (message.type) {
      case MessageType.BluetoothLERawAdvertisementsResponse:
        for (const advertisement of readRawAdvertisements(message.body)) this.heard(advertisement);
        return;
      case MessageType.BluetoothLEAdvertisementResponse:
        this.heard(readLegacyAdvertisement(message.body));
        return;
      case MessageType.BluetoothConnectionsFreeResponse: {
        const { free, limit } = readConnectionsFree(message.body);
        this.reportedFree = free;
        this.reportedLimit = limit;
        return;
      }
      case MessageType.BluetoothDeviceConnectionResponse: {
        const answer = readConnection(message.body);
        if (!answer.connected) this.links.get(answer.address)?.lost();
        return;
      }
      case MessageType.BluetoothGATTNotifyDataResponse: {
        const data = readHandleAnswer(message.body);
        this.links.get(data.address)?.notified(data.handle, data.data);
        return;
      }
      default:
        return;
    }
  }

  private heard(relayed: RelayedAdvertisement): void {
    const now = this.options.clock.now();
    this.sightings.delete(relayed.address);
    this.sightings.set(relayed.address, { rssi: relayed.rssi, addressType: relayed.addressType, seenAt: now });
    if (this.sightings.size > MAX_SIGHTINGS) {
      const oldest = this.sightings.keys().next();
      if (oldest.done !== true) this.sightings.delete(oldest.value);
    }
    for (const waiter of [...(this.sightingWaiters.get(relayed.address) ?? [])]) waiter();
    if (this.advertisementListeners.size === 0) return;
    const advertisement: Advertisement = {
      address: numberToAddress(relayed.address),
      rssi: relayed.rssi,
      manufacturerData: relayed.data === null ? relayed.manufacturerData : manufacturerDataOf(relayed.data),
    };
    for (const listener of [...this.advertisementListeners]) {
      try {
        listener(advertisement);
      } catch (error) {
        this.options.logger.error(`Advertisement listener failed: ${describeError(error)}`);
      }
    }
  }
}

/** The one line a refusal is said in; the key itself never appears (docs/design.md §4e). */
function refusalLine(name: string, error: EsphomeApiError): string {
  switch (error.failure) {
    case 'wrong_key':
      return `The encryption key of proxy ${name} does not match the proxy's: copy the key from its ESPHome YAML (api: encryption: key:) into bluetooth.proxies (docs/gateways.md).`;
    case 'key_required':
      return `Proxy ${name} requires an encryption key: add its "encryption_key" (from api: encryption: key: in its ESPHome YAML) to bluetooth.proxies (docs/gateways.md).`;
    case 'not_encrypted':
      return `Proxy ${name} does not use encryption, but an encryption key is configured for it: add the key to its ESPHome YAML (api: encryption: key:), or remove it from bluetooth.proxies (docs/gateways.md).`;
    default:
      return `Proxy ${name} refuses the connection: ${error.message} (docs/gateways.md).`;
  }
}
