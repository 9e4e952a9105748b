import type { TransportKind } from '../transport-kind.js';
import { DeferredTransport } from '../shared/deferred-transport.js';

/**
 * BlueZ, the host's own Bluetooth through node-ble over D-Bus: the transport of real locks.
 * Lazy twice over: the BlueZ modules load, and the D-Bus connection opens, when the gateway first
 * scans or connects (after the API listens), not at start-up.
 */
export const bluezKind = {
  id: 'bluez',
  formTitle: 'BlueZ (real locks)',
  openHostRadio: ({ adapter, logger }) =>
    new DeferredTransport(
      'bluez',
      async () => {
        const { BluezTransport } = await import('./bluez-transport.js');
        return new BluezTransport({ logger, ...(adapter === undefined ? {} : { adapter }) });
      },
      logger,
    ),
} as const satisfies TransportKind;
