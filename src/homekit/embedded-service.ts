import type { DemoHousehold } from '../demo/demo-household.js';
import type { DemoControlHandler } from './demo-control-channel.js';
import type { LockPort } from './lock-port.js';

/**
 * The embedded service as the platform sees it. The worker thread builds it from the real service
 * (src/worker/open-embedded-service.ts); the platform never imports the service itself.
 */

/** The part of the embedded service the platform uses; `ServiceRoot` satisfies it. */
export interface EmbeddedService {
  /** Starts the REST API; resolves with its base URL. */
  listen(port: number, host: string): Promise<string>;
  /** The demo line's object, in demo mode once listening. */
  demoInfo(): (DemoHousehold & { base_url: string }) | undefined;
  /** The HomeKit port (see lock-port.ts); absent on a service that offers no HomeKit side. */
  homekitPort?: () => LockPort;
  /** Demo mode's control-line handler (see demo-control-channel.ts). */
  demoControl?: () => DemoControlHandler | undefined;
  /** Stops the service. */
  close(): Promise<void>;
}
