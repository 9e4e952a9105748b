/**
 * The generic GATT transport: how the gateway reaches a Bluetooth LE device, whatever protocol it
 * speaks. A protocol driver (src/families/<family>/driver/) describes the characteristics it needs as a
 * {@link GattProfile}; the transport finds the device, connects, resolves those characteristics
 * and subscribes to the ones that notify or indicate. Raw bytes only: codecs and reassembly of
 * fragmented messages live in the drivers, so both transports carry exactly the same frames.
 */

/** One characteristic a driver needs, named by the driver. */
export interface GattCharacteristicSpec {
  /** The driver's name for it (`controlPoint`, `usdio`, …); unique within a profile. */
  name: string;
  /** Service UUID, full lower-case 128-bit form (BlueZ compares exact strings). */
  service: string;
  /** Characteristic UUID, full lower-case 128-bit form. */
  uuid: string;
  /** Without it the device is not of this profile: connect fails with `gatt_unavailable`. */
  required: boolean;
  /** Subscribe (StartNotify: notifications or indications, whichever the device offers) on every connection. */
  subscribe: boolean;
}

/** Everything a driver needs from a device's GATT database, in the order subscriptions are made. */
export interface GattProfile {
  readonly characteristics: readonly GattCharacteristicSpec[];
}

/** Why a transport operation failed. */
export type TransportFailure =
  /** The device was not found (not advertising, out of range, unknown address). */
  | 'not_found'
  /** The link could not be established (e.g. org.bluez.Error.Failed, connect timeout). */
  | 'connect_failed'
  /** Connected, but the GATT database was not resolved in time or lacks the profile. */
  | 'gatt_unavailable'
  /** The system bus (D-Bus) is unreachable or broke. */
  | 'bus_unavailable'
  /** A read or write was refused or did not answer in time. */
  | 'operation_failed'
  /** The link is gone. */
  | 'not_connected'
  /**
   * A Bluetooth proxy that hears the device has no free connection slot (docs/design.md §4e): a
   * command then fails `delivery_failed`, not `lock_offline`.
   */
  | 'no_free_slot';

/** The one error type transports throw; drivers and the gateway map it to command outcomes. */
export class TransportError extends Error {
  constructor(
    readonly failure: TransportFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportError';
  }
}

/** Options of {@link GattTransport.connect}. */
export interface ConnectOptions {
  /** Upper bound for discovery + link + GATT resolution + subscriptions, in ms. */
  timeoutMs: number;
}

/**
 * One established GATT connection with the profile resolved and every `subscribe`
 * characteristic subscribed. Characteristics are addressed by their profile name.
 */
export interface GattConnection {
  /** The device's BLE address, upper case. */
  readonly address: string;
  /** False once the link dropped or `disconnect()` was called. */
  readonly connected: boolean;
  /** Whether the device has this (optional) characteristic of the profile. */
  has(characteristic: string): boolean;
  /** Reads a characteristic. @throws TransportError */
  read(characteristic: string): Promise<Buffer>;
  /**
   * Writes with response ("request" write type; BlueZ uses a long write when the value exceeds
   * ATT_MTU − 3), so delivery to the device is confirmed. @throws TransportError
   */
  write(characteristic: string, value: Buffer): Promise<void>;
  /**
   * Writes without response ("command" write type): resolves once the value left for the device,
   * with no confirmation that it arrived. Optional: only transports that offer it (ESPHome
   * proxies); the drivers use {@link write}. @throws TransportError
   */
  writeWithoutResponse?(characteristic: string, value: Buffer): Promise<void>;
  /** Sets the one notification/indication listener of this connection (one call per value received). */
  onNotification(listener: (characteristic: string, value: Buffer) => void): void;
  /** Sets the listener called once when the link drops (not after `disconnect()`). */
  onDisconnect(listener: () => void): void;
  /** Closes the link and releases everything it held; idempotent, never throws. */
  disconnect(): Promise<void>;
}

/** One advertisement (or scan response) seen while scanning. */
export interface Advertisement {
  /** The advertiser's BLE address, upper case. */
  address: string;
  /** Signal strength in dBm, null when the transport does not know. */
  rssi: number | null;
  /**
   * Manufacturer-specific data by company identifier (e.g. 0x004C Apple for iBeacon); each value
   * holds the bytes after the company identifier, as BlueZ hands them.
   */
  manufacturerData: ReadonlyMap<number, Buffer>;
  /**
   * The gateway (radio) that heard it: `host` for the host's adapter, else a Bluetooth proxy's
   * configured name (docs/architecture.md "Transports"). Set by the composite transport; absent
   * from a single radio.
   */
  gateway?: string;
}

/** How a radio is doing, as `GET /gateways` shows it (docs/design.md §4e). */
export interface RadioStatus {
  /** `unavailable`: the host has no usable Bluetooth; `unauthorized`: a proxy refused our key. */
  state: 'online' | 'offline' | 'unauthorized' | 'unavailable';
  /** `host:port` of a proxy; null for the host's adapter. */
  address: string | null;
  /** Connection slots free now, where the radio counts them (a proxy); null where it does not say. */
  connectionsFree: number | null;
  connectionsLimit: number | null;
}

/** A listener of {@link GattTransport.watchAdvertisements}. */
export type AdvertisementListener = (advertisement: Advertisement) => void;

/**
 * How the gateway reaches devices. Each kind is one folder under src/gateway/transports/ (`bluez`:
 * node-ble over D-Bus; `simulator`: in-process simulated devices), and every one passes the
 * shared contract suite (test/support/gatt-transport-contract.ts); the composite transport routes
 * each device to the radio that reaches it. The rest of the app only sees this interface.
 */
export interface GattTransport {
  /** Which kind of transport this is (`bluez`, `simulator`, `composite`, …), for logs. */
  readonly kind: string;
  /**
   * Finds the device, connects, resolves the profile and subscribes to its notifying characteristics.
   * @throws TransportError — never hangs past `timeoutMs`.
   */
  connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection>;
  /**
   * Delivers every advertisement seen from now on (scanning while at least one watcher is
   * registered). Returns the function that unregisters the listener. Never throws: a transport
   * that cannot scan (no bus yet) keeps trying in the background and reports through its logger.
   */
  watchAdvertisements(listener: AdvertisementListener): () => void;
  /** Releases transport-wide resources (bus connection, scanning); connections must be closed first. */
  close(): Promise<void>;
  /** How the radio is doing now, read from memory; a transport without it counts as online with no slots to tell. */
  radioStatus?(): RadioStatus;
  /**
   * Whether a connection that was lost could be replaced through another radio that hears the
   * device now (the composite's failover, docs/design.md §4e): the gateway core then sends a
   * command in flight again through it, within the command's timeout. Absent: never.
   */
  hasAlternative?(address: string, lost: GattConnection): boolean;
  /** Begins reaching its radio now (a proxy's API connection) instead of at the first connect or watch. Never throws. */
  start?(): void;
}
