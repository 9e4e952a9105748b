import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ProxyConfig } from '../config/plugin-config-schema.js';
import type { PairingIo } from '../families/lock-family-module.js';
import { defaultDataDir } from './data-dir.js';
import { describeError } from '../domain/errors.js';
import type { GattTransport } from '../gateway/gatt-transport.js';
import type { GatewayLogger } from '../gateway/gateway-logger.js';
import { CompositeTransport } from '../gateway/transports/composite/composite-transport.js';
import { openProxyRadio } from '../gateway/transports/esphome/esphome-radio.js';
import { hostTransport } from '../gateway/transports/bluez/host-transport.js';
import { UsageError } from './usage-error.js';

/** The radio a pairing command reaches devices through (a family's `PairingIo.transport`). */
export type PairingRadio = (adapter: string | undefined, logger: GatewayLogger) => GattTransport;

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The platform block of a config file: the file itself (`ekey-locks serve --config`), or the
 * EKeyLocks entry of Homebridge's config.json.
 */
function platformBlock(parsed: unknown): JsonObject | undefined {
  if (!isObject(parsed)) return undefined;
  if (!Array.isArray(parsed.platforms)) return parsed;
  return (parsed.platforms as unknown[]).find((entry): entry is JsonObject => isObject(entry) && entry.platform === 'EKeyLocks');
}

/** The configured proxy of this name (names compare without regard to case). @throws UsageError */
export function configuredProxy(via: string, configFile: string): ProxyConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(configFile, 'utf8'));
  } catch (error) {
    throw new UsageError(`--via ${via}: cannot read the config ${configFile} to find the proxy (${describeError(error)}); name it with --config FILE.`);
  }
  const bluetooth = platformBlock(parsed)?.bluetooth;
  const proxies = isObject(bluetooth) && Array.isArray(bluetooth.proxies) ? (bluetooth.proxies as unknown[]).filter(isObject) : [];
  const found = proxies.find((proxy) => typeof proxy.name === 'string' && proxy.name.toLowerCase() === via.toLowerCase());
  if (found === undefined || typeof found.host !== 'string') {
    const names = proxies.map((proxy) => String(proxy.name)).join(', ') || 'none';
    throw new UsageError(`--via ${via}: ${configFile} has no Bluetooth proxy of that name under bluetooth.proxies (it has: ${names}).`);
  }
  return {
    name: String(found.name),
    host: found.host,
    ...(typeof found.port === 'number' ? { port: found.port } : {}),
    ...(typeof found.encryption_key === 'string' ? { encryption_key: found.encryption_key } : {}),
  };
}

/**
 * Every gateway device of Homebridge's config.json in `storagePath` (the settings page's scan,
 * docs/design.md §4e): the host's adapter (unless `use_host_adapter` is off) and each ESPHome
 * Bluetooth proxy, as one composite whose advertisements say which gateway heard them. Without
 * proxies (or a readable config), the host's adapter alone, as before.
 */
export function everyGatewayRadio(storagePath: string): PairingRadio {
  let bluetooth: unknown;
  try {
    bluetooth = platformBlock(JSON.parse(readFileSync(join(storagePath, 'config.json'), 'utf8')))?.bluetooth;
  } catch {
    bluetooth = undefined;
  }
  const settings = isObject(bluetooth) ? bluetooth : {};
  const proxies = (Array.isArray(settings.proxies) ? (settings.proxies as unknown[]) : []).filter(
    (proxy): proxy is JsonObject & { name: string; host: string } => isObject(proxy) && typeof proxy.name === 'string' && typeof proxy.host === 'string',
  );
  if (proxies.length === 0) return hostTransport;
  return (adapter, logger) =>
    new CompositeTransport(
      [
        ...(settings.use_host_adapter === false ? [] : [{ name: 'host', transport: hostTransport(adapter, logger) }]),
        ...proxies.map((proxy) => ({
          name: proxy.name,
          transport: openProxyRadio(
            {
              name: proxy.name,
              host: proxy.host,
              port: typeof proxy.port === 'number' ? proxy.port : undefined,
              encryptionKey: typeof proxy.encryption_key === 'string' ? proxy.encryption_key : undefined,
            },
            { logger },
          ),
        })),
      ],
      { logger, listenForRoutes: true },
    );
}

/**
 * `--via <proxy>` of the pairing commands (docs/design.md §4e, docs/gateways.md): scan and pair
 * through that ESPHome Bluetooth proxy instead of the host's adapter. The proxy is looked up by
 * name in `--config FILE`, else in Homebridge's config.json beside the data folder. Without
 * `via`, the host's own adapter, as before. Advertisements are tagged with the gateway that heard
 * them, so a scan can say it.
 */
export function pairingRadio(options: { via?: string | undefined; config?: string | undefined; dataDir: string }): PairingRadio {
  const via = options.via;
  if (via === undefined) return hostTransport;
  const proxy = configuredProxy(via, options.config ?? join(dirname(options.dataDir), 'config.json'));
  return (_adapter, logger) =>
    new CompositeTransport(
      [{ name: proxy.name, transport: openProxyRadio({ name: proxy.name, host: proxy.host, port: proxy.port, encryptionKey: proxy.encryption_key }, { logger }) }],
      { logger, listenForRoutes: true },
    );
}

/** A terminal's pairing io, through the proxy `--via` names (docs/gateways.md) or, without it, as given (the host's adapter). */
export function pairingIoVia(io: PairingIo, values: { via?: string | undefined; config?: string | undefined; data?: string | undefined }): PairingIo {
  if (values.via === undefined) return io;
  return { ...io, transport: pairingRadio({ via: values.via, config: values.config, dataDir: values.data ?? defaultDataDir() }) };
}
