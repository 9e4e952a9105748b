import { ServiceRoot } from '../service-root.js';
import type { EmbeddedService } from '../homebridge/embedded-service.js';
import type { ServiceOptions } from '../service-options.js';

/**
 * The platform's view of the real service. Demo control comes from the lock subsystem's demo
 * control (the same handler as `ekey-locks demo`'s stdin).
 */
export function embedServiceRoot(service: ServiceRoot): EmbeddedService {
  return {
    listen: (port, host) => service.listen(port, host),
    demoInfo: () => Promise.resolve(service.demoInfo()),
    lockPort: () => service.lockPort(),
    demoControl: () => {
      const control = service.demoControl;
      return control === undefined ? undefined : (line) => control.handleLine(line);
    },
    close: () => service.close(),
  };
}

/**
 * Opens the real service in this thread (the composition root, src/service-root.ts): what the
 * worker runs.
 */
export async function openEmbeddedService(options: ServiceOptions): Promise<EmbeddedService> {
  return embedServiceRoot(await ServiceRoot.open(options));
}
