import type { DemoControlHandler } from './demo-control-channel.js';
import type { LockPort } from '../lock-port/lock-port.js';

/**
 * The embedded service as the platform sees it. The worker thread builds it from the real service
 * (src/worker/open-embedded-service.ts); the platform never imports the service itself.
 */

/**
 * The demo line's object (docs/design.md §6) as the host prints it: the demo household
 * (src/demo/demo-household.ts) with the API's URL. The host logs the logins and prints the whole
 * object.
 */
export interface DemoLine {
  base_url: string;
  users: readonly { id: string; email: string; password: string; name: string }[];
  locks: readonly { id: string; name: string; owner_id: string; gateway: boolean; family: string }[];
}

/** The part of the embedded service the platform uses; `ServiceRoot` satisfies it. */
export interface EmbeddedService {
  /** Starts the REST API; resolves with its base URL. */
  listen(port: number, host: string): Promise<string>;
  /**
   * The demo line's object in demo mode, once listening (every login it lists works at once: a demo
   * user's password is hashed at its first sign-in, src/auth/password-check.ts); undefined outside the demo.
   */
  demoInfo(): Promise<DemoLine | undefined>;
  /** The lock port (src/lock-port/lock-port.ts); absent on a service that offers no HomeKit side. */
  lockPort?: () => LockPort;
  /** Demo mode's control-line handler (see demo-control-channel.ts). */
  demoControl?: () => DemoControlHandler | undefined;
  /** Stops the service. */
  close(): Promise<void>;
}
