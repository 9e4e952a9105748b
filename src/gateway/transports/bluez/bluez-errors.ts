import { EXPIRED, type Deadline } from '../../deadline.js';
import { TransportError, type TransportFailure } from '../../gatt-transport.js';
import { describeError } from '../../../domain/errors.js';

/** The operation's result, or a TransportError of `failure` when the deadline ends first. */
export async function raceOrFail<T>(deadline: Deadline, operation: Promise<T>, failure: TransportFailure, message: string): Promise<T> {
  const result = await deadline.race(operation);
  if (result === EXPIRED) throw new TransportError(failure, message);
  return result;
}

const SETUP_DOCS = 'see the README, "Bluetooth on the host"';
const RETRYING = 'the locks stay offline and the service retries quietly';
export const BUS_HINT = `No D-Bus system bus here: ${RETRYING}. Install and start D-Bus and BlueZ (${SETUP_DOCS}).`;

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
export function dbusErrorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'type' in error && typeof error.type === 'string' ? error.type : undefined;
}

/** Maps node-ble/dbus-next errors (DBusError carries the BlueZ error name in `type`) to TransportError. */
export function toTransportError(error: unknown, fallback: TransportFailure): TransportError {
  if (error instanceof TransportError) return error;
  const name = dbusErrorName(error);
  const text = describeError(error);
  let failure = fallback;
  if (name === 'org.bluez.Error.NotConnected') failure = 'not_connected';
  if (name === 'org.freedesktop.DBus.Error.ServiceUnknown' || name === 'org.freedesktop.DBus.Error.NoReply') failure = 'bus_unavailable';
  return new TransportError(failure, name === undefined ? text : `${name}: ${text}`, { cause: error });
}
