import { hostTimeZone } from '../config/time-zone.js';
import type { Clock } from '../domain/clock.js';
import { parseLockKey } from '../families/ekey/protocol/frame-authentication.js';
import { SimulatedLock } from '../families/ekey/simulator/simulated-lock.js';
import { SimulatedNuki } from '../families/nuki/simulator/simulated-nuki.js';
import { SimulatedOpener } from '../families/nuki-opener/simulator/simulated-opener.js';
import type { LockFamilyId } from '../families/registry.js';
import type { ObservedLockState } from '../store/lock-state-repository.js';
import { SimulatorTransport } from '../gateway/transports/simulator/simulator-transport.js';
import type { LockStateRepository } from '../store/lock-state-repository.js';
import type { StoredNukiCredentials } from '../families/nuki/nuki-credential-file.js';
import { DEMO_GATEWAY_AUTHORIZATION, DEMO_LINKED_AUTHORIZATION, type DemoHousehold, type DemoLockSecrets, type DemoNukiSecrets } from './demo-household.js';

/** A demo lock of any family. */
export type DemoSimulatedLock = SimulatedLock | SimulatedNuki | SimulatedOpener;

/** The demo's simulated locks and the in-process transport that reaches them. */
export interface DemoSimulation {
  /** Carries the gateway's traffic to the locks that have a gateway connection. */
  transport: SimulatorTransport;
  /** Every demo lock by (lower-case) lock id, including the one without a gateway connection. */
  locks: Map<string, DemoSimulatedLock>;
  /** The simulated Nukis' pairing, as `ekey-locks nuki pair` would have stored it. */
  nukiCredentials: (address: string) => StoredNukiCredentials | undefined;
}

/** The demo re-advertises every half second, so a lock that goes away shows offline within the 2 s window. */
export const DEMO_ADVERTISEMENT_INTERVAL_MS = 500;

/** The demo's link timings: a lock that goes out of range shows `offline` within 5 s (docs/design.md §6). */
export const DEMO_LINK_TIMINGS = {
  offlineAfterS: 2,
  presenceCheckIntervalMs: 250,
  reconnectBackoff: { initialMs: 200, maxMs: 1_000 },
} as const;

/** Where a demo lock starts: as the store last saw it, so a restarted demo continues. */
interface DemoLockStart {
  bolt: 'locked' | 'unlocked';
  batteryPercent: number;
  firstSequence: number;
}

/** How each family's demo lock is simulated; a new family is a compile error here until it has one. */
const DEMO_SIMULATORS: Readonly<Record<LockFamilyId, (name: string, secret: DemoLockSecrets, start: DemoLockStart, clock: Clock) => DemoSimulatedLock>> = {
  ekey: (name, secret, start, clock) =>
    new SimulatedLock({ address: secret.address, key: parseLockKey(secret.key), name, clock, bolt: start.bolt, batteryPercent: start.batteryPercent, firstSequence: start.firstSequence }),
  nuki: (name, secret, start, clock) => {
    const nuki = demoNukiSecrets(secret);
    return new SimulatedNuki({
      address: secret.address,
      name,
      clock,
      nukiId: nuki.nukiId,
      securityPin: nuki.securityPin,
      bolt: start.bolt,
      batteryPercent: start.batteryPercent,
      hasDoorSensor: true,
      // docs/design.md §4c: a Nuki Keypad, in the zone the demo gives its locks.
      keypad: true,
      timeZone: hostTimeZone(),
      firstLogIndex: start.firstSequence,
      authorizations: [
        { id: nuki.authorizationId, name: DEMO_GATEWAY_AUTHORIZATION, type: 'app', sharedKey: Buffer.from(nuki.sharedKey, 'hex') },
        { id: nuki.authorizationId + 1, name: DEMO_LINKED_AUTHORIZATION, type: 'app' },
      ],
    });
  },
  // docs/design.md §4d: Building Door starts locked (no mode active); its modes are not stored, so a restart starts there too.
  'nuki-opener': (name, secret, start, clock) => {
    const nuki = demoNukiSecrets(secret);
    return new SimulatedOpener({
      address: secret.address,
      name,
      clock,
      nukiId: nuki.nukiId,
      securityPin: nuki.securityPin,
      firstLogIndex: start.firstSequence,
      authorizations: [
        { id: nuki.authorizationId, name: DEMO_GATEWAY_AUTHORIZATION, sharedKey: Buffer.from(nuki.sharedKey, 'hex') },
        { id: nuki.authorizationId + 1, name: DEMO_LINKED_AUTHORIZATION },
      ],
    });
  },
};

function demoNukiSecrets(secret: DemoLockSecrets): DemoNukiSecrets {
  if (secret.nuki === undefined) throw new Error(`demo lock ${secret.id} has no Nuki pairing`);
  return secret.nuki;
}

function startOf(stored: ObservedLockState | undefined): DemoLockStart {
  return {
    bolt: stored?.boltState === 'unlocked' ? 'unlocked' : 'locked',
    batteryPercent: stored?.batteryLevel == null ? 100 : Math.round(stored.batteryLevel * 100),
    firstSequence: (stored?.lastActivitySequence ?? 0) + 1,
  };
}

/**
 * Builds one simulated lock per demo lock: our profile for Front Door and Garden Gate, a
 * simulated Nuki for Back Door (docs/design.md §4b, §6) and a simulated Nuki Opener for Building
 * Door (§4d), both paired with the gateway and with "Olivia's iPhone", the owner's phone. Only
 * locks with a gateway connection are reachable through the transport; Garden Gate exists (it
 * can be tapped or turned by hand) but the service never hears from it. Each lock starts where
 * the store last saw it (bolt, battery, activity numbering), so a restarted demo continues
 * instead of starting over. Demo locks change only when driven: no auto-lock, no drift.
 */
export function createDemoSimulation(
  household: DemoHousehold,
  secrets: readonly DemoLockSecrets[],
  lockState: Pick<LockStateRepository, 'read'>,
  clock: Clock,
): DemoSimulation {
  const transport = new SimulatorTransport([], { advertisementIntervalMs: DEMO_ADVERTISEMENT_INTERVAL_MS });
  const locks = new Map<string, DemoSimulatedLock>();
  const nukiCredentials = new Map<string, StoredNukiCredentials>();
  for (const lock of household.locks) {
    const secret = secrets.find((candidate) => candidate.id === lock.id);
    if (secret === undefined) continue;
    const simulated = DEMO_SIMULATORS[lock.family](lock.name, secret, startOf(lockState.read(lock.id)), clock);
    const nuki = secret.nuki;
    if (nuki !== undefined) {
      nukiCredentials.set(secret.address.toUpperCase(), {
        address: secret.address.toUpperCase(),
        sharedKey: Buffer.from(nuki.sharedKey, 'hex'),
        authorizationId: nuki.authorizationId,
        appId: nuki.appId,
        idType: 'app',
        authorizationName: DEMO_GATEWAY_AUTHORIZATION,
        lockUuid: '',
        securityPin: nuki.securityPin,
        pairedAt: 0,
      });
    }
    locks.set(lock.id.toLowerCase(), simulated);
    if (lock.gateway) transport.addDevice(simulated);
  }
  return { transport, locks, nukiCredentials: (address) => nukiCredentials.get(address.toUpperCase()) };
}
