/**
 * What the Nuki gateway tests share, over the simulator transport (test/unit/families/nuki) and
 * over the fake BlueZ (test/integration/gateway): a simulated Nuki already paired with the
 * gateway's authorization and with a linked phone, a logger the test can read, waiting for a
 * gateway event, and (`useNukiBluez`) the fake BlueZ of a test file with its transports and
 * gateways.
 */
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import type { EventEmitter } from 'node:events';
import type { Clock } from '../../src/domain/clock.js';
import type { ActivityEvent, LockGatewayEvents } from '../../src/gateway/gateway-events.js';
import type { GatewayLogger } from '../../src/gateway/gateway-logger.js';
import type { GattTransport } from '../../src/gateway/gatt-transport.js';
import type { LockDriver } from '../../src/gateway/lock-driver.js';
import { LockGateway, type LockGatewayOptions } from '../../src/gateway/lock-gateway.js';
import { BluezTransport } from '../../src/gateway/transports/bluez/bluez-transport.js';
import { SimulatedNuki, type SimulatedNukiOptions } from '../../src/families/nuki/simulator/simulated-nuki.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from './fake-bluez/fake-bluez-environment.js';
import { testLogger } from './fake-bluez/test-logger.js';
import type { ManualClock } from './manual-clock.js';
import type { NukiWireRecorder } from './nuki-wire-recorder.js';
import { RecordingLogger } from './recording-logger.js';

/** A Nuki with a door sensor, paired with the gateway (`gateway.id`, `gateway.sharedKey`) and with the phone named `linkedPhone` (next id). */
export function pairedSimulatedNuki(options: {
  address: string;
  name: string;
  clock: ManualClock;
  gateway: { id: number; sharedKey: Buffer };
  linkedPhone: string;
  securityPin: number;
  batteryPercent: number;
  overrides?: Partial<SimulatedNukiOptions>;
}): SimulatedNuki {
  return new SimulatedNuki({
    address: options.address,
    name: options.name,
    clock: options.clock,
    securityPin: options.securityPin,
    batteryPercent: options.batteryPercent,
    hasDoorSensor: true,
    authorizations: [
      { id: options.gateway.id, name: 'Gateway', type: 'app', sharedKey: options.gateway.sharedKey },
      { id: options.gateway.id + 1, name: options.linkedPhone, type: 'app' },
    ],
    ...options.overrides,
  });
}

/** A RecordingLogger that also prints every line when GATEWAY_DEBUG is set. */
export function gatewayRecordingLogger(): RecordingLogger {
  const logger = new RecordingLogger();
  if (process.env.GATEWAY_DEBUG !== undefined) {
    const push = logger.lines.push.bind(logger.lines);
    logger.lines.push = (...lines) => {
      for (const line of lines) console.log(`${line.level} ${line.message}`);
      return push(...lines);
    };
  }
  return logger;
}

/** Starts the gateway and waits until its read at start is done and the link released. */
export async function startUntilReleased(rig: { gateway: LockGateway; wire: NukiWireRecorder }, timeoutMs?: number): Promise<void> {
  const released = rig.wire.nextRelease(timeoutMs);
  rig.gateway.start();
  await released;
}

/** Resolves with the next `event` whose payload matches. */
export function nextGatewayEvent<K extends keyof LockGatewayEvents>(
  gateway: LockGateway,
  event: K,
  matches: (payload: LockGatewayEvents[K][0]) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<LockGatewayEvents[K][0]> {
  // Node's typed emitter cannot relate a generic key to its listener; the signature above does.
  const emitter = gateway as unknown as EventEmitter;
  return new Promise((resolve, reject) => {
    const listener = (payload: LockGatewayEvents[K][0]): void => {
      if (!matches(payload)) return;
      clearTimeout(timer);
      emitter.off(event, listener);
      resolve(payload);
    };
    const timer = setTimeout(() => {
      emitter.off(event, listener);
      reject(new Error(`no matching '${event}' event within ${timeoutMs} ms`));
    }, timeoutMs);
    emitter.on(event, listener);
  });
}

/** The fake BlueZ of one test file and what its Nuki tests build on it. */
export interface NukiBluezRig {
  /** The running fake BlueZ (from `beforeAll` on). */
  readonly environment: FakeBluezEnvironment;
  /** A fresh address: the file's prefix and a counter. */
  address(): string;
  /** A BluezTransport on the fake BlueZ, closed after the test. */
  transport(): BluezTransport;
  /**
   * A LockGateway (not started, stopped after the test) holding one lock, over `transport`
   * (default: a new one); the activity it reports is collected in order.
   */
  gateway(
    clock: Clock,
    lock: { id: string; address: string; name: string; driver: LockDriver },
    options?: { transport?: GattTransport; logger?: GatewayLogger; gateway?: LockGatewayOptions },
  ): { gateway: LockGateway; activity: ActivityEvent[] };
}

/**
 * Starts a fake BlueZ on a private dbus-daemon for this test file (`beforeAll`; stopped in
 * `afterAll`, advertisements every 100 ms) and undoes what each test built on it after the test,
 * the newest first (a gateway stops before its transport closes).
 * @example const bluez = useNukiBluez('C0:FF:EE:4E:00');
 */
export function useNukiBluez(addressPrefix: string): NukiBluezRig {
  let environment: FakeBluezEnvironment | undefined;
  let nextAddress = 1;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    environment = await startFakeBluezEnvironment({ advertisementIntervalMs: 100 });
  });
  afterAll(async () => {
    await environment?.stop();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const rig: NukiBluezRig = {
    get environment(): FakeBluezEnvironment {
      if (environment === undefined) throw new Error('the fake BlueZ starts in beforeAll');
      return environment;
    },
    address: () => `${addressPrefix}:${(nextAddress++).toString(16).padStart(2, '0').toUpperCase()}`,
    transport: () => {
      const transport = new BluezTransport({ busAddress: rig.environment.busAddress, discoveryIntervalMs: 20, operationTimeoutMs: 3_000, logger: testLogger() });
      cleanups.push(() => transport.close());
      return transport;
    },
    gateway: (clock, lock, options = {}) => {
      // Budgets are generous where things must work (a loaded machine); a test tightens one it needs to run out.
      const gateway = new LockGateway(options.transport ?? rig.transport(), clock, options.logger ?? gatewayRecordingLogger(), {
        connectTimeoutMs: 5_000,
        operationTimeoutMs: 3_000,
        commandTimeoutMs: 8_000,
        presenceCheckIntervalMs: 3_600_000,
        ...options.gateway,
      });
      cleanups.push(() => gateway.stop());
      const activity: ActivityEvent[] = [];
      gateway.on('activity', (event) => activity.push(event));
      gateway.addLock(lock);
      return { gateway, activity };
    },
  };
  return rig;
}
