import type { LockUuids } from './lock-profile.js';

/** Characteristics the gateway reads. Names are keys of {@link LockUuids}. */
export type ReadableCharacteristic = 'boltState' | 'batteryLevel' | 'manufacturerName' | 'modelNumber' | 'serialNumber' | 'firmwareRevision';

/** Characteristics the gateway writes (always as acknowledged writes, "write request"). */
export type WritableCharacteristic = 'controlPoint' | 'activity' | 'credentials';

/** Characteristics the gateway subscribes to on every connection. */
export type NotifyingCharacteristic = 'boltState' | 'controlPoint' | 'activity' | 'batteryLevel' | 'credentials';

/** Every characteristic name above is a key of LockUuids (checked at compile time). */
export type CharacteristicName = ReadableCharacteristic | WritableCharacteristic | NotifyingCharacteristic;
/** Compile-time proof that every characteristic name is a key of LockUuids. */
export const CHARACTERISTIC_NAMES_ARE_UUID_KEYS: CharacteristicName extends keyof typeof LockUuids ? true : never = true;

/** The notifying characteristics, in the order a transport subscribes to them. */
export const NOTIFYING_CHARACTERISTICS: readonly NotifyingCharacteristic[] = ['boltState', 'controlPoint', 'activity', 'batteryLevel', 'credentials'];

/** Why a transport operation failed. */
export type TransportFailure =
  /** The device was not found (not advertising, out of range, unknown address). */
  | 'not_found'
  /** The link could not be established (e.g. org.bluez.Error.Failed, connect timeout). */
  | 'connect_failed'
  /** Connected, but the GATT database was not resolved in time or lacks the lock profile. */
  | 'gatt_unavailable'
  /** The system bus (D-Bus) is unreachable or broke. */
  | 'bus_unavailable'
  /** A read or write was refused or did not answer in time. */
  | 'operation_failed'
  /** The link is gone. */
  | 'not_connected';

/** The one error type transports throw; the gateway maps it to command outcomes. */
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

/** Options of {@link LockTransport.connect}. */
export interface ConnectOptions {
  /** Upper bound for discovery + link + GATT resolution + subscriptions, in ms. */
  timeoutMs: number;
}

/**
 * One established GATT connection with the lock profile resolved and every notifying
 * characteristic subscribed. Raw bytes only: codecs live above the transport, so both
 * transports carry exactly the same frames.
 */
export interface LockConnection {
  /** The lock's BLE address, upper case. */
  readonly address: string;
  /** False once the link dropped or `disconnect()` was called. */
  readonly connected: boolean;
  /** Reads a characteristic. @throws TransportError */
  read(characteristic: ReadableCharacteristic): Promise<Buffer>;
  /** Writes with response ("request" write type) so delivery to the lock is confirmed. @throws TransportError */
  write(characteristic: WritableCharacteristic, value: Buffer): Promise<void>;
  /** Sets the one notification listener of this connection. */
  onNotification(listener: (characteristic: NotifyingCharacteristic, value: Buffer) => void): void;
  /** Sets the listener called once when the link drops (not after `disconnect()`). */
  onDisconnect(listener: () => void): void;
  /** Closes the link and releases everything it held; idempotent, never throws. */
  disconnect(): Promise<void>;
}

/**
 * How the gateway reaches locks. Two implementations: `simulator` (in-process SimulatedLock
 * objects) and `bluez` (node-ble over D-Bus). The rest of the app only sees this interface.
 */
export interface LockTransport {
  /** Which implementation this is, for logs. */
  readonly kind: 'simulator' | 'bluez';
  /**
   * Finds the lock, connects, resolves the profile and subscribes to its notifications.
   * @throws TransportError — never hangs past `timeoutMs`.
   */
  connect(address: string, options: ConnectOptions): Promise<LockConnection>;
  /** Releases transport-wide resources (bus connection); connections must be closed first. */
  close(): Promise<void>;
}
