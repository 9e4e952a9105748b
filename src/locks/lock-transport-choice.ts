import type { ProxyConfig } from '../config/plugin-config-schema.js';
import type { Clock } from '../domain/clock.js';
import type { GattTransport } from '../gateway/gatt-transport.js';
import { CompositeTransport, type NamedGateway } from '../gateway/transports/composite/composite-transport.js';
import { HOST_GATEWAY } from '../gateway/transports/composite/gateway-route.js';
import { openProxyRadio } from '../gateway/transports/esphome/esphome-radio.js';
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
  /** Config `bluetooth.use_host_adapter` (default true): false leaves the host's radio out (proxies only, no D-Bus). */
  useHostAdapter?: boolean | undefined;
  /** Config `bluetooth.proxies`: one gateway each, after the host's. */
  proxies?: readonly ProxyConfig[] | undefined;
  /** Radios that stand for the proxies (tests: a proxy's transport built beside its fake), by proxy name. */
  proxyRadios?: ReadonlyMap<string, GattTransport> | undefined;
  /** Config `locks[].gateways` by lock address (upper case): the gateways that may serve it. */
  allowedGateways?: ((address: string) => readonly string[] | undefined) | undefined;
  clock?: Clock | undefined;
  logger: Logger;
}

/**
 * The transport the gateway reaches locks through: a composite of the gateways
 * (docs/architecture.md "Transports", docs/design.md §4e): the host's radio (`host`, unless
 * `use_host_adapter` is off and proxies serve), then one ESPHome Bluetooth proxy per configured
 * entry, by name. Opens nothing: the host's radio and each proxy's transport load on first use
 * (a proxy's when the subsystem starts). Said once here: proxies without an encryption key, and
 * gateway names in `locks[].gateways` that no gateway has.
 */
export function chooseTransport(choice: TransportChoice): CompositeTransport {
  const proxies = choice.proxies ?? [];
  const gateways: NamedGateway[] = [];
  const useHost = choice.useHostAdapter !== false || proxies.length === 0;
  if (choice.useHostAdapter === false && proxies.length === 0) {
    choice.logger.warn('bluetooth.use_host_adapter is off but no Bluetooth proxy is configured: the host\'s adapter is used, or no lock could be reached.');
  }
  if (useHost) gateways.push({ name: HOST_GATEWAY, transport: choice.host ?? transportKind(choice.kind).openHostRadio({ adapter: choice.adapter, logger: choice.logger }) });
  for (const proxy of proxies) {
    if (proxy.encryption_key === undefined) {
      choice.logger.warn(`Proxy ${proxy.name} has no encryption key: its native API is unencrypted, so anyone on the network can read the framing of your locks' Bluetooth traffic. Set api: encryption: key: in its ESPHome YAML and the same key here (docs/gateways.md).`);
    }
    const settings = { name: proxy.name, host: proxy.host, port: proxy.port, encryptionKey: proxy.encryption_key };
    gateways.push({ name: proxy.name, transport: choice.proxyRadios?.get(proxy.name) ?? openProxyRadio(settings, { logger: choice.logger, clock: choice.clock }) });
  }
  return new CompositeTransport(gateways, {
    logger: choice.logger,
    ...(choice.clock === undefined ? {} : { clock: choice.clock }),
    ...(choice.allowedGateways === undefined ? {} : { allowedGateways: choice.allowedGateways }),
    // Proxies are heard from the start, so each lock's route (and its `gateway` in the API) is known.
    ...(proxies.length > 0 ? { listenForRoutes: true } : {}),
  });
}
