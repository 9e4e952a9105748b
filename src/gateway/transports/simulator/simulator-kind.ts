import type { TransportKind } from '../transport-kind.js';
import { UnavailableTransport } from '../shared/unavailable-transport.js';

/**
 * The in-process simulator: simulated locks of any family, which only the demo creates (it hands
 * its own SimulatorTransport to the lock subsystem). Configured outside the demo, there is no
 * simulated lock to reach.
 */
export const simulatorKind = {
  id: 'simulator',
  formTitle: 'Simulator',
  openHostRadio: ({ logger }) => new UnavailableTransport('simulator', 'the simulator transport has no simulated locks outside the demo', logger),
} as const satisfies TransportKind;
