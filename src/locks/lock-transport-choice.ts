import type { GattTransport } from '../gateway/gatt-transport.js';
import { CompositeTransport } from '../gateway/transports/composite/composite-transport.js';
import { HOST_GATEWAY } from '../gateway/transports/composite/gateway-route.js';
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

/**
 * The transport the gateway reaches locks through: a composite of the gateways
 * (docs/architecture.md "Transports"), today the host's radio alone (`host`), so every connect
 * and advertisement already takes the path Bluetooth proxies will join. Opens nothing: the host's
 * radio loads and connects on first use.
 */
export function chooseTransport(choice: TransportChoice): CompositeTransport {
  const host = choice.host ?? transportKind(choice.kind).openHostRadio({ adapter: choice.adapter, logger: choice.logger });
  return new CompositeTransport([{ name: HOST_GATEWAY, transport: host }], { logger: choice.logger });
}
