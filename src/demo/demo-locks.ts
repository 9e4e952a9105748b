import { hostTimeZone } from '../config/time-zone.js';
import type { Clock } from '../domain/clock.js';
import type { DemoDevice, DemoLockStart } from '../families/lock-family-module.js';
import { familyModule } from '../families/registry.js';
import { SimulatorTransport } from '../gateway/transports/simulator/simulator-transport.js';
import type { LockStateRepository, ObservedLockState } from '../store/lock-state-repository.js';
import { DEMO_GATEWAY_AUTHORIZATION, type DemoHousehold, type DemoLockSecrets } from './demo-household.js';

/** The demo's simulated locks and the in-process transport that reaches them. */
export interface DemoSimulation {
  /** Carries the gateway's traffic to the locks that have a gateway connection. */
  transport: SimulatorTransport;
  /** Every demo lock by (lower-case) lock id, including the one without a gateway connection. */
  locks: Map<string, DemoDevice>;
  /** A demo lock's stored secrets by address: what pairing would have given its family's driver. */
  secrets: (address: string) => DemoLockSecrets | undefined;
}

/** The demo re-advertises every half second, so a lock that goes away shows offline within the 2 s window. */
export const DEMO_ADVERTISEMENT_INTERVAL_MS = 500;

/** The demo's link timings: a lock that goes out of range shows `offline` within 5 s (docs/design.md §6). */
export const DEMO_LINK_TIMINGS = {
  offlineAfterS: 2,
  presenceCheckIntervalMs: 250,
  reconnectBackoff: { initialMs: 200, maxMs: 1_000 },
} as const;

function startOf(stored: ObservedLockState | undefined): DemoLockStart {
  return {
    bolt: stored?.boltState === 'unlocked' ? 'unlocked' : 'locked',
    batteryPercent: stored?.batteryLevel == null ? 100 : Math.round(stored.batteryLevel * 100),
    firstSequence: (stored?.lastActivitySequence ?? 0) + 1,
  };
}

/**
 * Builds one simulated lock per demo lock, by its family's demo facet (src/families/<family>/,
 * `demo.simulate`), paired with the gateway as the stored secrets say. Only locks with a gateway
 * connection are reachable through the transport; Garden Gate exists (it can be tapped or turned
 * by hand) but the service never hears from it. Each lock starts where the store last saw it
 * (bolt, battery, activity numbering), so a restarted demo continues instead of starting over.
 * Demo locks change only when driven: no auto-lock, no drift.
 */
export function createDemoSimulation(
  household: DemoHousehold,
  secrets: readonly DemoLockSecrets[],
  lockState: Pick<LockStateRepository, 'read'>,
  clock: Clock,
): DemoSimulation {
  const transport = new SimulatorTransport([], { advertisementIntervalMs: DEMO_ADVERTISEMENT_INTERVAL_MS });
  const locks = new Map<string, DemoDevice>();
  const byAddress = new Map<string, DemoLockSecrets>();
  for (const lock of household.locks) {
    const secret = secrets.find((candidate) => candidate.id === lock.id);
    const demo = familyModule(lock.family)?.demo;
    if (secret === undefined || demo === undefined) continue;
    const simulated = demo.simulate({
      name: lock.name,
      secrets: secret,
      start: startOf(lockState.read(lock.id)),
      clock,
      timeZone: hostTimeZone(),
      gatewayUser: DEMO_GATEWAY_AUTHORIZATION,
    });
    byAddress.set(secret.address.toUpperCase(), secret);
    locks.set(lock.id.toLowerCase(), simulated);
    if (lock.gateway) transport.addDevice(simulated);
  }
  return { transport, locks, secrets: (address) => byAddress.get(address.toUpperCase()) };
}
