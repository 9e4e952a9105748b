import { TransportError, type GattTransport } from '../../gatt-transport.js';
import type { GatewayLogger } from '../../gateway-logger.js';

/**
 * A transport that finds no device: what the gateway gets when the chosen transport cannot run
 * here (for example the `simulator` kind outside the demo, which has no simulated locks). Locks
 * then stay offline and commands answer 400 `lock_unreachable`, instead of the service failing
 * to start.
 */
export class UnavailableTransport implements GattTransport {
  constructor(
    /** The kind that could not run, for logs. */
    readonly kind: string,
    private readonly reason: string,
    private readonly logger: GatewayLogger,
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
