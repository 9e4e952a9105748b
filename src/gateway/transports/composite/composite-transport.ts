import { systemClock, type Clock } from '../../../domain/clock.js';
import { describeError } from '../../../domain/errors.js';
import { Deadline } from '../../deadline.js';
import { silentLogger, type GatewayLogger } from '../../gateway-logger.js';
import { TransportError, type AdvertisementListener, type ConnectOptions, type GattConnection, type GattProfile, type GattTransport, type RadioStatus } from '../../gatt-transport.js';
import { GatewayHearings } from './gateway-hearings.js';
import { connectOrder, HEARD_WITHIN_MS } from './gateway-route.js';

/** One radio of a composite transport. */
export interface NamedGateway {
  /** `host` for the host's own adapter (it wins ties), else a Bluetooth proxy's configured name; unique. */
  name: string;
  transport: GattTransport;
}

/** Settings of a composite transport; every field has a default. */
export interface CompositeTransportOptions {
  /** When advertisements were heard, for the 60-second window of routing (default: the system clock). */
  clock?: Clock;
  /** Where failovers (debug) and a failing close (warn) are said (default: nowhere). */
  logger?: GatewayLogger;
  /**
   * The gateways that may serve an address (upper case), by name (config `locks[].gateways`);
   * undefined for an address any gateway may serve (the default for all).
   */
  allowedGateways?: (address: string) => readonly string[] | undefined;
  /**
   * Listen to every gateway's advertisements from the first connect or watch on, so routes are
   * known while nobody else watches (a lock kept connected is never watched by the gateway core).
   * Default: with more than one gateway. One gateway has no route to choose, so it scans only
   * while someone watches, as a single transport does.
   */
  listenForRoutes?: boolean;
}

/** One device as one gateway knows it (a future `GET /gateways` lists these per lock). */
export interface GatewayDeviceStatus {
  /** The device's address, upper case. */
  address: string;
  /** Signal of the latest advertisement this gateway heard from it, dBm; null if never heard or unknown. */
  rssi: number | null;
  /** When this gateway last heard it, ms since the epoch; null when never heard. */
  seenAt: number | null;
  /** This gateway holds a live connection to it now. */
  connected: boolean;
}

/** What one gateway of the composite knows now. */
export interface GatewayStatus {
  name: string;
  /** The kind of its transport (`bluez`, `simulator`, `esphome`, …). */
  kind: string;
  /** How its radio is doing (a transport that does not say counts as online). */
  radio: RadioStatus;
  /** Every device it heard (the latest 512) or holds a connection to, by address. */
  devices: GatewayDeviceStatus[];
}

/** The gateway that reaches one device now (each lock's `gateway` in the API, docs/design.md §4e). */
export interface DeviceRoute {
  gateway: string;
  /** Its latest advertisement through that gateway, dBm; null when not heard (a link kept open). */
  rssi: number | null;
  /** ms since the epoch; null when not heard. */
  seenAt: number | null;
}

const ONLINE: RadioStatus = { state: 'online', address: null, connectionsFree: null, connectionsLimit: null };

/**
 * Several radios as one transport (docs/architecture.md "Transports"): the host's adapter
 * (`host`) and, later, Bluetooth proxies by name. Advertisements of all of them arrive as one
 * watch, each tagged with the gateway that heard it; a connect goes to the gateway that heard the
 * address strongest in the last 60 s (the host wins ties; none heard it: each in the configured
 * order) and fails over to the next one when it fails, all within the caller's timeout, so the
 * gateway core (lock-gateway.ts, managed-lock.ts, lock-link.ts) stays as it is. Connections are
 * the chosen gateway's own, handed over as they are: the contract holds through the composite
 * because it holds for each gateway. Nothing is loaded or watched until the first connect or watch.
 */
export class CompositeTransport implements GattTransport {
  readonly kind = 'composite';
  private readonly clock: Clock;
  private readonly logger: GatewayLogger;
  private readonly hearings = new GatewayHearings();
  /** Connections handed out, with the gateway that holds each; ended ones are pruned as they are found. */
  private readonly held = new Map<GattConnection, string>();
  /** The gateway each connection handed out went through, also after it ended (for failover). */
  private readonly gatewayOfConnection = new WeakMap<GattConnection, string>();
  private readonly listenForRoutes: boolean;
  private stopRouteWatch: (() => void) | null = null;
  private closed = false;

  constructor(
    private readonly gateways: readonly NamedGateway[],
    private readonly options: CompositeTransportOptions = {},
  ) {
    if (gateways.length === 0) throw new Error('A composite transport needs at least one gateway.');
    const names = new Set(gateways.map((gateway) => gateway.name));
    if (names.size !== gateways.length) throw new Error('The gateways of a composite transport need distinct names.');
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.listenForRoutes = options.listenForRoutes ?? gateways.length > 1;
  }

  async connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection> {
    const upper = address.toUpperCase();
    this.startRouteWatch();
    const allowed = this.options.allowedGateways?.(upper);
    const order = connectOrder({
      gateways: this.gateways.map((gateway) => gateway.name),
      heard: (gateway) => this.hearings.latest(gateway, upper),
      now: this.clock.now(),
      allowed,
    });
    const first = order[0];
    if (first === undefined) throw new TransportError('not_found', `${upper}: no configured gateway may serve it (allowed: ${allowed?.join(', ') || 'none'})`);
    // One way to it: its own budget and its own error, exactly as without the composite.
    if (order.length === 1) return this.hold(first, await this.transportOf(first).connect(upper, profile, options));
    const deadline = new Deadline(options.timeoutMs);
    const failures: string[] = [];
    const errors: TransportError[] = [];
    let last: TransportError | undefined;
    try {
      for (const [index, gateway] of order.entries()) {
        // An even share of what is left, so a gateway that stalls cannot use up the others' time;
        // one that fails early leaves its time to those after it.
        const share = Math.floor(deadline.remaining() / (order.length - index));
        if (share <= 0) break;
        try {
          return this.hold(gateway, await this.transportOf(gateway).connect(upper, profile, { timeoutMs: share }));
        } catch (error) {
          last = error instanceof TransportError ? error : new TransportError('connect_failed', describeError(error), { cause: error });
          failures.push(`${gateway}: ${last.message}`);
          errors.push(last);
          this.logger.debug(`${upper}: connecting through gateway ${gateway} failed (${last.message}).`);
        }
      }
    } finally {
      deadline.cancel();
    }
    throw new TransportError(aggregateFailure(errors.map((error) => error.failure)), `${upper}: no gateway reached it (${failures.join('; ') || 'no time left'})`, { cause: last });
  }

  /**
   * Another gateway than the one `lost` went through may serve `address` and heard it in the last
   * 60 s: a command in flight can fail over to it (docs/design.md §4e).
   */
  hasAlternative(address: string, lost: GattConnection): boolean {
    const upper = address.toUpperCase();
    const through = this.gatewayOfConnection.get(lost);
    const now = this.clock.now();
    const allowed = this.options.allowedGateways?.(upper);
    return this.gateways.some(({ name }) => {
      if (name === through || (allowed !== undefined && !allowed.includes(name))) return false;
      const hearing = this.hearings.latest(name, upper);
      return hearing !== undefined && now - hearing.seenAt <= HEARD_WITHIN_MS;
    });
  }

  /** Starts every gateway's radio now (a proxy's API connection) and, with `listenForRoutes`, the route watch. */
  start(): void {
    this.startRouteWatch();
    for (const gateway of this.gateways) gateway.transport.start?.();
  }

  /**
   * The gateway that reaches `address` now, as a lock's `gateway` shows it: the one the next
   * connect would try first among those that heard it in the last 60 s (strongest, the host
   * first among equals) — else the one holding its live connection — else null: no gateway hears it.
   */
  routeOf(address: string): DeviceRoute | null {
    const upper = address.toUpperCase();
    const now = this.clock.now();
    const allowed = this.options.allowedGateways?.(upper);
    const heard = connectOrder({ gateways: this.gateways.map((gateway) => gateway.name), heard: (gateway) => this.hearings.latest(gateway, upper), now, allowed }).find((gateway) => {
      const hearing = this.hearings.latest(gateway, upper);
      return hearing !== undefined && now - hearing.seenAt <= HEARD_WITHIN_MS;
    });
    const gateway = heard ?? [...this.liveConnections()].find(([, addresses]) => addresses.has(upper))?.[0];
    if (gateway === undefined) return null;
    const hearing = this.hearings.latest(gateway, upper);
    return { gateway, rssi: hearing?.rssi ?? null, seenAt: hearing?.seenAt ?? null };
  }

  watchAdvertisements(listener: AdvertisementListener): () => void {
    this.startRouteWatch();
    const unwatchers = this.gateways.map(({ name, transport }) =>
      transport.watchAdvertisements((advertisement) => {
        this.record(name, advertisement.address, advertisement.rssi);
        listener({ ...advertisement, gateway: name });
      }),
    );
    let watching = true;
    return () => {
      if (!watching) return;
      watching = false;
      for (const unwatch of unwatchers) unwatch();
    };
  }

  /** Closes every gateway, whatever each answers. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopRouteWatch?.();
    this.stopRouteWatch = null;
    const results = await Promise.allSettled(this.gateways.map((gateway) => gateway.transport.close()));
    results.forEach((result, index) => {
      if (result.status === 'rejected') this.logger.warn(`Closing gateway ${this.gateways[index]?.name ?? index}: ${describeError(result.reason)}`);
    });
  }

  /**
   * Which gateway heard which device, how strongly and when, and which holds a connection to it:
   * one entry per gateway, in the configured order. Read from memory; changes nothing.
   */
  gatewayStatus(): GatewayStatus[] {
    const connected = this.liveConnections();
    return this.gateways.map(({ name, transport }) => {
      const devices = new Map<string, GatewayDeviceStatus>();
      for (const [address, hearing] of this.hearings.heardBy(name)) devices.set(address, { address, rssi: hearing.rssi, seenAt: hearing.seenAt, connected: false });
      for (const address of connected.get(name) ?? []) {
        const device = devices.get(address);
        if (device === undefined) devices.set(address, { address, rssi: null, seenAt: null, connected: true });
        else device.connected = true;
      }
      return { name, kind: transport.kind, radio: transport.radioStatus?.() ?? ONLINE, devices: [...devices.values()].sort((a, b) => a.address.localeCompare(b.address)) };
    });
  }

  private transportOf(name: string): GattTransport {
    const gateway = this.gateways.find((candidate) => candidate.name === name);
    if (gateway === undefined) throw new TransportError('not_found', `no gateway named ${name}`);
    return gateway.transport;
  }

  private hold(gateway: string, connection: GattConnection): GattConnection {
    this.liveConnections();
    this.held.set(connection, gateway);
    this.gatewayOfConnection.set(connection, gateway);
    return connection;
  }

  /** Addresses with a live connection, per gateway; forgets the connections that ended. */
  private liveConnections(): Map<string, Set<string>> {
    const live = new Map<string, Set<string>>();
    for (const [connection, gateway] of this.held) {
      if (!connection.connected) {
        this.held.delete(connection);
        continue;
      }
      const addresses = live.get(gateway) ?? new Set<string>();
      addresses.add(connection.address.toUpperCase());
      live.set(gateway, addresses);
    }
    return live;
  }

  private record(gateway: string, address: string, rssi: number | null): void {
    this.hearings.record(gateway, address.toUpperCase(), { rssi, seenAt: this.clock.now() });
  }

  /** With `listenForRoutes`: every gateway's advertisements from the first use on, until close. */
  private startRouteWatch(): void {
    if (!this.listenForRoutes || this.closed || this.stopRouteWatch !== null) return;
    const unwatchers = this.gateways.map(({ name, transport }) =>
      transport.watchAdvertisements((advertisement) => {
        this.record(name, advertisement.address, advertisement.rssi);
      }),
    );
    this.stopRouteWatch = () => {
      for (const unwatch of unwatchers) unwatch();
    };
  }
}

/**
 * The failure of a connect that no gateway completed: `no_free_slot` when a gateway that could
 * have served had no slot and none got further than not finding the device (docs/design.md §4e:
 * the command then fails `delivery_failed`), else the last gateway's.
 */
function aggregateFailure(kinds: readonly TransportError['failure'][]): TransportError['failure'] {
  if (kinds.includes('no_free_slot') && kinds.every((kind) => kind === 'no_free_slot' || kind === 'not_found')) return 'no_free_slot';
  return kinds[kinds.length - 1] ?? 'connect_failed';
}
