/**
 * What the TTLock gateway tests share, over the simulator transport (test/unit/families/ttlock)
 * and over the fake BlueZ (test/integration/gateway): a simulated TTLock already paired with the
 * service's admin secrets, the driver that holds the same secrets, and a gateway holding the lock
 * with its activity collected in order.
 */
import type { Clock } from '../../src/domain/clock.js';
import type { ActivityEvent } from '../../src/gateway/gateway-events.js';
import type { GatewayLogger } from '../../src/gateway/gateway-logger.js';
import type { GattTransport } from '../../src/gateway/gatt-transport.js';
import { LockGateway, type LockGatewayOptions } from '../../src/gateway/lock-gateway.js';
import { TtlockDriver, type TtlockDriverCredentials, type TtlockDriverOptions } from '../../src/families/ttlock/driver/ttlock-driver.js';
import { DEFAULT_TTLOCK_VERSION } from '../../src/families/ttlock/protocol/ttlock-frame.js';
import { SimulatedTtlock, type SimulatedTtlockOptions } from '../../src/families/ttlock/simulator/simulated-ttlock.js';

/** The secrets both sides of a paired test lock hold. */
export const TTLOCK_TEST_SECRETS = {
  aesKey: Buffer.from('f9cd6721308bda8f17ec4dfdafeec16b', 'hex'),
  adminPs: 0x26d2fc7b,
  unlockKey: 0x0109fe80,
} as const;

/** The uid the service acts under in these tests. */
export const TTLOCK_TEST_UID = 0x02acd30b;

/** The driver's credentials for a lock paired with {@link TTLOCK_TEST_SECRETS}; `since` before any test clock. */
export function testTtlockCredentials(overrides: Partial<TtlockDriverCredentials> = {}): TtlockDriverCredentials {
  return {
    aesKey: Buffer.from(TTLOCK_TEST_SECRETS.aesKey),
    adminPs: TTLOCK_TEST_SECRETS.adminPs,
    unlockKey: TTLOCK_TEST_SECRETS.unlockKey,
    uid: TTLOCK_TEST_UID,
    lockFlagPos: 0,
    version: DEFAULT_TTLOCK_VERSION,
    since: 0,
    ...overrides,
  };
}

/** A simulated TTLock paired with {@link TTLOCK_TEST_SECRETS}. */
export function pairedSimulatedTtlock(options: Omit<SimulatedTtlockOptions, 'paired'> & { paired?: SimulatedTtlockOptions['paired'] }): SimulatedTtlock {
  return new SimulatedTtlock({ paired: { ...TTLOCK_TEST_SECRETS, aesKey: Buffer.from(TTLOCK_TEST_SECRETS.aesKey) }, ...options });
}

export interface TtlockGatewayRig {
  gateway: LockGateway;
  driver: TtlockDriver;
  activity: ActivityEvent[];
}

/** A gateway (not started) holding one TTLock with the test credentials; the caller stops it. */
export function ttlockGateway(
  transport: GattTransport,
  clock: Clock,
  lock: { id: string; address: string; name?: string },
  options: { logger: GatewayLogger; driver?: Partial<TtlockDriverOptions>; credentials?: Partial<TtlockDriverCredentials>; gateway?: LockGatewayOptions },
): TtlockGatewayRig {
  const gateway = new LockGateway(transport, clock, options.logger, {
    connectTimeoutMs: 5_000,
    operationTimeoutMs: 3_000,
    commandTimeoutMs: 8_000,
    presenceCheckIntervalMs: 3_600_000,
    ...options.gateway,
  });
  const driver = new TtlockDriver(testTtlockCredentials(options.credentials), { timeZone: 'Europe/Berlin', idleDisconnectMs: 100, retryPauseMs: 50, ...options.driver });
  const activity: ActivityEvent[] = [];
  gateway.on('activity', (event) => activity.push(event));
  gateway.addLock({ id: lock.id, address: lock.address, name: lock.name ?? 'Side Door', driver });
  return { gateway, driver, activity };
}
