import { TransportError, type GattTransport } from '../gateway/gatt-transport.js';
import type { Logger } from '../logger.js';

/** Which Bluetooth transport the gateway uses (config `bluetooth.transport`). */
export type TransportKind = 'simulator' | 'bluez';

/** The configured transport; else the default given (`simulator` in demo mode), else `bluez`. */
export function chooseTransportKind(configured: TransportKind | undefined, fallback: TransportKind = 'bluez'): TransportKind {
  return configured ?? fallback;
}

/**
 * A transport that finds no lock: what the gateway gets when the chosen transport cannot run
 * here (for example `bluez` without a BlueZ system bus). Locks then stay offline and commands
 * answer 400 `lock_unreachable`, instead of the service failing to start.
 */
export class UnavailableTransport implements GattTransport {
  readonly kind = 'bluez' as const;

  constructor(
    private readonly reason: string,
    private readonly logger: Logger,
  ) {}

  connect(address: string): Promise<never> {
    this.logger.debug(`Cannot connect to ${address}: ${this.reason}`);
    return Promise.reject(new TransportError('bus_unavailable', this.reason));
  }

  /** Nothing can be heard: no advertisement ever arrives. */
  watchAdvertisements(): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
