import { systemClock, type Clock } from '../../../domain/clock.js';
import { Deadline } from '../../deadline.js';
import { silentLogger, type GatewayLogger } from '../../gateway-logger.js';
import { TransportError, type AdvertisementListener, type ConnectOptions, type GattConnection, type GattProfile, type GattTransport, type RadioStatus } from '../../gatt-transport.js';
import { DEFAULT_BACKOFF, type BackoffPolicy } from '../../reconnect-backoff.js';
import { DEFAULT_API_TIMINGS, type ApiTimings } from './esphome-api-connection.js';
import { openLink } from './esphome-link-setup.js';
import { addressToNumber } from './esphome-messages.js';
import { ProxySession } from './esphome-proxy-session.js';

/** One configured proxy (config `bluetooth.proxies[]`). */
export interface EsphomeProxySettings {
  /** Its name: the gateway's id in `GET /gateways` and `locks[].gateways`. */
  name: string;
  host: string;
  /** Default 6053. */
  port?: number | undefined;
  /** Base64 of the 32-byte Noise key; absent: the plaintext API. */
  encryptionKey?: string | undefined;
}

/** Settings of the ESPHome transport; everything but the proxy has a default. */
export interface EsphomeTransportOptions {
  proxy: EsphomeProxySettings;
  /** Budget of each read and write, ms (default 5 000). */
  operationTimeoutMs?: number;
  /** API connection timings (set-up, keep-alive pings). */
  timings?: Partial<ApiTimings>;
  /** Reconnect backoff of the proxy (default 1 s doubling to 60 s). */
  backoff?: Partial<BackoffPolicy>;
  /** How long before a proxy that refused our key is tried again, ms (default 5 min). */
  unauthorizedRetryMs?: number;
  /** How long a connect waits for a proxy that is still setting up its API connection, at most, ms (default 3 000). */
  setupWaitMs?: number;
  clock?: Clock;
  logger?: GatewayLogger;
}

/** The port ESPHome's native API listens on. */
export const ESPHOME_API_PORT = 6053;
const CLIENT_INFO = 'homebridge-ekey-locks';

/** The 32-byte key of a base64 text; throws a RangeError naming what is wrong (never the key). */
export function decodeEncryptionKey(base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32 || key.toString('base64') !== base64.trim()) throw new RangeError('the encryption key must be the base64 of 32 bytes, as ESPHome shows it');
  return key;
}

/**
 * One ESPHome Bluetooth proxy as a GATT transport (kind `esphome`; docs/gateways.md): ESPHome's
 * native API over TCP, plaintext or Noise, reconnected with backoff. The composite transport
 * (src/gateway/transports/composite/) holds one per configured proxy beside the host's adapter and
 * routes each lock to the radio that hears it best. Its jobs live beside it: the API connection
 * (esphome-api-connection.ts: framing, Noise, set-up, keep-alive), the proxy session
 * (esphome-proxy-session.ts: reconnects, advertisements, slots), a link's set-up
 * (esphome-link-setup.ts) and the link (esphome-gatt-connection.ts).
 */
export class EsphomeTransport implements GattTransport {
  readonly kind = 'esphome' as const;
  private readonly session: ProxySession;
  private readonly operationTimeoutMs: number;
  private readonly setupWaitMs: number;
  private readonly logger: GatewayLogger;
  /** Addresses with a connect in flight through this proxy. */
  private readonly connecting = new Set<number>();
  private readonly address: string;

  constructor(options: EsphomeTransportOptions) {
    const port = options.proxy.port ?? ESPHOME_API_PORT;
    this.logger = options.logger ?? silentLogger;
    this.operationTimeoutMs = options.operationTimeoutMs ?? 5_000;
    this.setupWaitMs = options.setupWaitMs ?? 3_000;
    this.address = `${options.proxy.host}:${port}`;
    const encryptionKey = options.proxy.encryptionKey;
    this.session = new ProxySession({
      name: options.proxy.name,
      endpoint: { host: options.proxy.host, port, psk: encryptionKey === undefined ? null : decodeEncryptionKey(encryptionKey), clientInfo: CLIENT_INFO },
      timings: { ...DEFAULT_API_TIMINGS, ...options.timings },
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      unauthorizedRetryMs: options.unauthorizedRetryMs ?? 300_000,
      clock: options.clock ?? systemClock,
      logger: this.logger,
    });
  }

  /** The proxy's configured name. */
  get name(): string {
    return this.session.proxyName;
  }

  /** Starts connecting to the proxy now (a connect or a watch would start it too). */
  start(): void {
    this.session.start();
  }

  async connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection> {
    const upper = address.toUpperCase();
    const number = addressToNumber(upper);
    if (!Number.isSafeInteger(number)) throw new TransportError('not_found', `${address} is not a Bluetooth address`);
    const deadline = new Deadline(options.timeoutMs);
    try {
      if (!(await this.session.untilOnline(Math.min(this.setupWaitMs, deadline.remaining())))) {
        throw new TransportError('connect_failed', `proxy ${this.name} is ${this.session.state}`);
      }
      // The proxy connects with the address type it heard; one not heard yet may be heard within the budget.
      if (!(await this.session.untilHeard(number, deadline.remaining()))) throw new TransportError('not_found', `proxy ${this.name} has not heard ${upper}`);
      if (this.connecting.has(number) || this.session.links.has(number)) {
        // A second connect for an address the proxy is connecting gets no answer at all.
        throw new TransportError('connect_failed', `${upper}: proxy ${this.name} is already connecting to it`);
      }
      const free = this.session.connectionsFree;
      if (free !== null && free <= 0) {
        this.logger.warn(`Proxy ${this.name} has no free connection slot (0 of ${this.session.connectionsLimit ?? '?'} free) for ${upper}.`);
        throw new TransportError('no_free_slot', `proxy ${this.name} has no free connection slot`);
      }
      this.connecting.add(number);
      try {
        return await openLink(this.session, upper, number, profile, deadline, this.operationTimeoutMs);
      } finally {
        this.connecting.delete(number);
      }
    } finally {
      deadline.cancel();
    }
  }

  watchAdvertisements(listener: AdvertisementListener): () => void {
    let watching = true;
    const unwatch = this.session.watch((advertisement) => {
      if (watching) listener(advertisement);
    });
    return () => {
      watching = false;
      unwatch();
    };
  }

  /** Closes the proxy's connection: its links are told they dropped, nothing reconnects. */
  close(): Promise<void> {
    this.session.close();
    return Promise.resolve();
  }

  /** The proxy as `GET /gateways` shows it. */
  radioStatus(): RadioStatus {
    return { state: this.session.state, address: this.address, connectionsFree: this.session.connectionsFree, connectionsLimit: this.session.connectionsLimit };
  }
}
