import type { Clock } from '../domain/clock.js';
import { parseLockKey } from '../gateway/frame-authentication.js';
import { SimulatedLock } from '../gateway/simulator/simulated-lock.js';
import { SimulatorTransport } from '../gateway/transports/simulator-transport.js';
import type { LockStateRepository } from '../store/lock-state-repository.js';
import type { DemoHousehold, DemoLockSecrets } from './demo-household.js';

/** The demo's simulated locks and the in-process transport that reaches them. */
export interface DemoSimulation {
  /** Carries the gateway's traffic to the locks that have a gateway connection. */
  transport: SimulatorTransport;
  /** Every demo lock by (lower-case) lock id, including the one without a gateway connection. */
  locks: Map<string, SimulatedLock>;
}

/**
 * Builds one simulated lock per demo lock. Only locks with a gateway connection are reachable
 * through the transport; the other one exists (it can be tapped or turned by hand) but the
 * service never hears from it. Each lock starts where the store last saw it (bolt, battery,
 * activity numbering), so a restarted demo continues instead of starting over. Demo locks change
 * only when driven: no auto-lock, no drift.
 */
export function createDemoSimulation(
  household: DemoHousehold,
  secrets: readonly DemoLockSecrets[],
  lockState: Pick<LockStateRepository, 'read'>,
  clock: Clock,
): DemoSimulation {
  const transport = new SimulatorTransport();
  const locks = new Map<string, SimulatedLock>();
  for (const lock of household.locks) {
    const secret = secrets.find((candidate) => candidate.id === lock.id);
    if (secret === undefined) continue;
    const stored = lockState.read(lock.id);
    const simulated = new SimulatedLock({
      address: secret.address,
      key: parseLockKey(secret.key),
      name: lock.name,
      clock,
      bolt: stored?.boltState === 'unlocked' ? 'unlocked' : 'locked',
      batteryPercent: stored?.batteryLevel == null ? 100 : Math.round(stored.batteryLevel * 100),
      firstSequence: (stored?.lastActivitySequence ?? 0) + 1,
    });
    locks.set(lock.id.toLowerCase(), simulated);
    if (lock.gateway) transport.addLock(simulated);
  }
  return { transport, locks };
}
