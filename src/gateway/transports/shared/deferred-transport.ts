import { TransportError, type AdvertisementListener, type ConnectOptions, type GattConnection, type GattProfile, type GattTransport, type RadioStatus } from '../../gatt-transport.js';
import type { GatewayLogger } from '../../gateway-logger.js';
import { describeError } from '../../../domain/errors.js';

/**
 * A transport created on first use: the BlueZ stack (node-ble, dbus-next and their XML parsers,
 * ~40 ms of module loading) is imported when the gateway first scans or connects — after the API
 * listens — not while the service starts (docs/architecture.md "Start-up"). Behaves as the
 * transport it loads; if loading fails, connects fail with `bus_unavailable` and advertisements
 * never arrive (an error is logged), and the next use tries again.
 */
export class DeferredTransport implements GattTransport {
  private loading: Promise<GattTransport> | undefined;
  private loaded: GattTransport | undefined;
  private closed = false;

  constructor(
    readonly kind: string,
    private readonly load: () => Promise<GattTransport>,
    private readonly logger: GatewayLogger,
    /** What {@link radioStatus} says until the transport is loaded. */
    private readonly statusBeforeLoading: RadioStatus = { state: 'online', address: null, connectionsFree: null, connectionsLimit: null },
  ) {}

  /** The loaded transport's status; before it is loaded, the one given at construction. */
  radioStatus(): RadioStatus {
    return this.loaded?.radioStatus?.() ?? this.statusBeforeLoading;
  }

  /** Loads the transport now and lets it start. */
  start(): void {
    this.transport().then(
      (transport) => {
        transport.start?.();
      },
      (error: unknown) => {
        this.logger.error(`The ${this.kind} transport could not be loaded: ${describeError(error)}`);
      },
    );
  }

  async connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection> {
    let transport: GattTransport;
    try {
      transport = await this.transport();
    } catch (error) {
      throw new TransportError('bus_unavailable', `the ${this.kind} transport could not be loaded: ${describeError(error)}`, { cause: error });
    }
    return transport.connect(address, profile, options);
  }

  watchAdvertisements(listener: AdvertisementListener): () => void {
    let unwatch: (() => void) | undefined;
    let watching = true;
    this.transport().then(
      (transport) => {
        if (watching) unwatch = transport.watchAdvertisements(listener);
      },
      (error: unknown) => {
        this.logger.error(`The ${this.kind} transport could not be loaded, so no lock is heard: ${describeError(error)}`);
      },
    );
    return () => {
      watching = false;
      unwatch?.();
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const loading = this.loading;
    if (loading === undefined) return;
    let transport: GattTransport;
    try {
      transport = await loading;
    } catch {
      return;
    }
    await transport.close();
  }

  private transport(): Promise<GattTransport> {
    if (this.closed) return Promise.reject(new Error('the transport is closed'));
    this.loading ??= this.load().then((transport) => {
      this.loaded = transport;
      return transport;
    });
    const loading = this.loading;
    loading.catch(() => {
      if (this.loading === loading) this.loading = undefined;
    });
    return loading;
  }
}
