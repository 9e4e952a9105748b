import type { GattTransport } from '../../gatt-transport.js';
import type { GatewayLogger } from '../../gateway-logger.js';
import { BluezTransport } from './bluez-transport.js';

/**
 * The host's own Bluetooth adapter, through BlueZ: what scanning and pairing outside the running
 * service use (the CLI's `<family> scan|pair`, the settings page's server). `adapter` names one
 * (`hci1`); undefined takes BlueZ's default.
 */
export function hostTransport(adapter: string | undefined, logger: GatewayLogger): GattTransport {
  return new BluezTransport(adapter === undefined ? { logger } : { adapter, logger });
}
