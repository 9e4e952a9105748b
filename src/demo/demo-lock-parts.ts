import type { Clock } from '../domain/clock.js';
import type { LockSubsystem, LockSubsystemOverrides } from '../locks/lock-subsystem.js';
import { chooseTransportKind } from '../locks/lock-transport-choice.js';
import type { PluginConfig } from '../config/plugin-config.js';
import type { CommandRepository } from '../store/command-repository.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { LockStateRepository } from '../store/lock-state-repository.js';
import { DemoControl } from './demo-control.js';
import { DEMO_GATEWAY_AUTHORIZATION, demoUserLinks, type DemoHousehold, type DemoLockSecrets } from './demo-household.js';
import { DEMO_LINK_TIMINGS, createDemoSimulation, type DemoSimulation } from './demo-locks.js';
import { demoTapRefusal } from './demo-tap-refusal.js';

/** What the demo's lock parts read. */
export interface DemoLockSources {
  config: PluginConfig;
  clock: Clock;
  locks: Pick<LockRepository, 'findById'>;
  commands: Pick<CommandRepository, 'keyById'>;
  lockState: Pick<LockStateRepository, 'read'>;
}

/** The demo's side of the locks, which the composition root (src/service-root.ts) alone wires in. */
export interface DemoLockParts {
  /** What replaces production parts in the lock subsystem. */
  overrides: LockSubsystemOverrides;
  /** The simulated locks; undefined when the config sends the demo over BlueZ. */
  simulation: DemoSimulation | undefined;
  /** The control lines (docs/design.md §6) over the running subsystem; undefined without simulated locks. */
  controlOver(subsystem: Pick<LockSubsystem, 'runtime'>): DemoControl | undefined;
}

/**
 * The demo household's locks: simulated locks on the `simulator` transport (the demo's default;
 * config `bluetooth.transport` may send it over BlueZ instead), their pairing (the secrets their
 * families' drivers read), the owner's link to the locks' own users and link timings that show a
 * lock offline within seconds.
 */
export function demoLockParts(demo: { household: DemoHousehold; lockSecrets: DemoLockSecrets[] }, sources: DemoLockSources): DemoLockParts {
  const simulated = chooseTransportKind(sources.config.bluetooth?.transport, 'simulator') === 'simulator';
  const simulation = simulated ? createDemoSimulation(demo.household, demo.lockSecrets, sources.lockState, sources.clock) : undefined;
  const overrides: LockSubsystemOverrides = {
    defaultTransport: 'simulator',
    userLinks: demoUserLinks(demo.household),
    linkTimings: DEMO_LINK_TIMINGS,
    ...(simulation === undefined ? {} : { transport: simulation.transport, demoSecrets: simulation.secrets, awaitReachable: true }),
  };
  return {
    overrides,
    simulation,
    controlOver: (subsystem) =>
      simulation === undefined
        ? undefined
        : new DemoControl({
            locks: simulation.locks,
            runtime: subsystem.runtime,
            gatewayUser: DEMO_GATEWAY_AUTHORIZATION,
            tapRefusal: (lockId, ekeyId) => demoTapRefusal(sources, lockId, ekeyId),
            credentialsSettled: (lockId) => subsystem.runtime.gateway.credentialsSettled(lockId),
          }),
  };
}
