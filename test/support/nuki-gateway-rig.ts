/**
 * What the Nuki gateway tests share, over the simulator transport (test/unit/families/nuki) and
 * over the fake BlueZ (test/integration/gateway): a simulated Nuki already paired with the
 * gateway's authorization and with a linked phone, a logger the test can read, and waiting for a
 * gateway event.
 */
import type { EventEmitter } from 'node:events';
import type { LockGatewayEvents } from '../../src/gateway/gateway-events.js';
import type { LockGateway } from '../../src/gateway/lock-gateway.js';
import { SimulatedNuki, type SimulatedNukiOptions } from '../../src/families/nuki/simulator/simulated-nuki.js';
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
