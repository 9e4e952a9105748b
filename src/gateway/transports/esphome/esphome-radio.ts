import type { Clock } from '../../../domain/clock.js';
import type { GattTransport } from '../../gatt-transport.js';
import type { GatewayLogger } from '../../gateway-logger.js';
import { DeferredTransport } from '../shared/deferred-transport.js';
import type { EsphomeProxySettings } from './esphome-transport.js';

export type { EsphomeProxySettings } from './esphome-transport.js';

/** The default port of ESPHome's native API (repeated here so this light module loads nothing else). */
const DEFAULT_PORT = 6053;

/**
 * One configured ESPHome Bluetooth proxy as a radio of the composite transport, without loading
 * anything: the ESPHome transport (its protocol, Noise and TCP code) is imported only when the
 * proxy is first started, connected through or watched — so a config without proxies never loads
 * it (docs/architecture.md "Transports").
 */
export function openProxyRadio(proxy: EsphomeProxySettings, options: { logger: GatewayLogger; clock?: Clock | undefined }): GattTransport {
  return new DeferredTransport(
    'esphome',
    async () => {
      const { EsphomeTransport } = await import('./esphome-transport.js');
      return new EsphomeTransport({ proxy, logger: options.logger, ...(options.clock === undefined ? {} : { clock: options.clock }) });
    },
    options.logger,
    { state: 'offline', address: `${proxy.host}:${proxy.port ?? DEFAULT_PORT}`, connectionsFree: null, connectionsLimit: null },
  );
}
