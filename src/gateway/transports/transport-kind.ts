import type { GattTransport } from '../gatt-transport.js';
import type { GatewayLogger } from '../gateway-logger.js';

/** What opening the host's radio takes from the config (`bluetooth.*`). */
export interface HostRadioSettings {
  /** Config `bluetooth.adapter` (e.g. `hci1`); undefined for the transport's default. */
  adapter?: string | undefined;
  logger: GatewayLogger;
}

/**
 * One kind of transport that can serve as the host's radio: a value of config
 * `bluetooth.transport`. A kind lives in its folder, `src/gateway/transports/<id>/`, and is listed
 * once, in src/gateway/transports/transport-kinds.ts; the config schema and the lock subsystem's
 * transport choice read that list and name no kind themselves.
 */
export interface TransportKind {
  /** The value of config `bluetooth.transport`; also the `kind` of the transports it opens. */
  readonly id: string;
  /** Its choice in the config form's "Transport" (config.schema.json). */
  readonly formTitle: string;
  /**
   * The host's radio of this kind, without loading anything heavy: modules a kind needs only
   * once it scans or connects (the BlueZ stack) load then, behind `import()`
   * (docs/architecture.md "Start-up"). Never throws; a radio that cannot work here fails its
   * connects with a TransportError.
   */
  openHostRadio(settings: HostRadioSettings): GattTransport;
}
