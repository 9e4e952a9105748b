import type { GattTransport } from '../gateway/gatt-transport.js';
import { DEFAULT_TRANSPORT_KIND, transportKind, type TransportKindId } from '../gateway/transports/transport-kinds.js';
import type { Logger } from '../logger.js';

export type { TransportKindId } from '../gateway/transports/transport-kinds.js';

/** The configured transport kind; else the default given (`simulator` in demo mode), else `bluez`. */
export function chooseTransportKind(configured: TransportKindId | undefined, fallback: TransportKindId = DEFAULT_TRANSPORT_KIND): TransportKindId {
  return configured ?? fallback;
}

/** What {@link chooseTransport} decides from. */
export interface TransportChoice {
  /** The host's radio, already built (the demo's simulated locks, a test's transport); else opened from `kind`. */
  host?: GattTransport | undefined;
  /** The configured kind (see {@link chooseTransportKind}). */
  kind: TransportKindId;
  /** Config `bluetooth.adapter`. */
  adapter?: string | undefined;
  logger: Logger;
}

/** The transport the gateway reaches locks through. */
export function chooseTransport(choice: TransportChoice): GattTransport {
  return choice.host ?? transportKind(choice.kind).openHostRadio({ adapter: choice.adapter, logger: choice.logger });
}
