import { EKeyService, type ServiceOptions } from '../app.js';
import type { DemoHousehold } from '../demo/demo-household.js';
import type { DemoControlHandler } from './demo-control-channel.js';
import type { LockPort } from './lock-port.js';

/**
 * The embedded service as the platform sees it, and the one way to build it in-process: the
 * worker thread (src/worker/service-host.ts) runs exactly this.
 */

/** The part of the embedded service the platform uses; `EKeyService` satisfies it. */
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

/**
 * The platform's view of the real service. Demo control comes from the lock subsystem's demo
 * control (the same handler as `ekey-locks demo`'s stdin).
 */
export function embedEKeyService(service: EKeyService): EmbeddedService {
  return {
    listen: (port, host) => service.listen(port, host),
    demoInfo: () => service.demoInfo(),
    homekitPort: () => service.homekitPort(),
    demoControl: () => {
      const control = service.lockSubsystem.control;
      return control === undefined ? undefined : (line) => control.handleLine(line);
    },
    close: () => service.close(),
  };
}


/** Opens the real service in this thread (the composition root, src/app.ts). */
export async function openEmbeddedService(options: ServiceOptions): Promise<EmbeddedService> {
  return embedEKeyService(await EKeyService.open(options));
}
