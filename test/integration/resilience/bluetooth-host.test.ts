import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { EKeyDriver } from '../../../src/families/ekey/driver/ekey-driver.js';
import { GatewayLineLogger } from '../../support/fake-bluez/test-logger.js';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { FakeBluez } from '../../support/fake-bluez/fake-bluez.js';
import { startPrivateDbusDaemon, type PrivateDbusDaemon } from '../../support/fake-bluez/private-dbus-daemon.js';
import { ManualClock } from '../../support/manual-clock.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';
import { until } from '../../support/polling.js';

/**
 * The host's Bluetooth fails under the gateway (docs/architecture.md "Limits and resilience"):
 * no system bus, a bus without BlueZ, the D-Bus daemon killed in the middle of a command. The
 * gateway says what is missing once, retries quietly, never throws into the process, and
 * recovers when Bluetooth comes back. A real dbus-daemon and the fake BlueZ throughout.
 */
const KEY_HEX = 'b2'.repeat(32);
const ADDRESS = 'C0:FF:EE:AB:00:01';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
failOnUnhandledRejections({ uncaughtExceptions: true });

function gatewayOn(busAddress: string, logger: GatewayLineLogger): LockGateway {
  const transport = new BluezTransport({ busAddress, discoveryIntervalMs: 20, operationTimeoutMs: 2000, scanRetryMs: 50, logger });
  const gateway = new LockGateway(transport, new ManualClock(), logger, {
    connectTimeoutMs: 3000,
    operationTimeoutMs: 2000,
    commandTimeoutMs: 6000,
    reconnectBackoff: { initialMs: 10, maxMs: 40 },
  });
  gateway.addLock({ id: 'front', address: ADDRESS, name: 'Front', driver: new EKeyDriver(KEY_HEX) });
  cleanups.push(() => gateway.stop());
  return gateway;
}

/** Polls `condition` once per turn of the event loop until it holds (bounded). */
describe('Bluetooth missing on the host', () => {
  it('no system bus: one actionable error line (what is missing, where the README says how to fix it), then quiet retries', async () => {
    const logger = new GatewayLineLogger();
    const gateway = gatewayOn('unix:path=/nonexistent/ekey-test/bus', logger);
    gateway.start();
    // Each failed connect writes one debug line: wait for several attempts.
    await until(() => logger.debugLines >= 6, 'several reconnect attempts', 15_000);
    expect(logger.lines).toEqual([expect.stringMatching(/^error D-Bus connection failed: .*connect ENOENT .*No D-Bus system bus here.*README, "Bluetooth on the host"/)]);
    expect(gateway.isReachable('front')).toBe(false);
  });

  it('a bus without BlueZ: one error line naming BlueZ, quiet retries, and "works again" once BlueZ starts', async () => {
    const daemon = await startPrivateDbusDaemon();
    cleanups.push(() => daemon.stop());
    const logger = new GatewayLineLogger();
    const gateway = gatewayOn(daemon.address, logger);
    gateway.start();
    await until(() => logger.lines.length > 0 && logger.debugLines >= 6, 'the error line and several retries', 15_000);
    expect(logger.lines).toEqual([expect.stringMatching(/^error Bluetooth is unavailable \(.*org\.bluez.*\): BlueZ is not running on the system bus.*README, "Bluetooth on the host"/)]);

    const bluez = await FakeBluez.start(daemon.address);
    cleanups.push(() => {
      bluez.stop();
    });
    bluez.addLock(new SimulatedLock({ address: ADDRESS, key: Buffer.from(KEY_HEX, 'hex'), name: 'Front', clock: new ManualClock(), batteryPercent: 80 }));
    await until(() => gateway.isReachable('front'), 'the lock to be reached', 15_000);
    expect(logger.lines.slice(1)).toContain('info Bluetooth works again.');
    expect(logger.lines.filter((line) => line.startsWith('error '))).toHaveLength(1);
  });
});

describe('the D-Bus daemon killed in the middle of a command', () => {
  let daemon: PrivateDbusDaemon;
  beforeEach(async () => {
    daemon = await startPrivateDbusDaemon();
  });

  it('ends the command as failed (never left running, never thrown), drops the link, and answers the next command at once', async () => {
    const bluez = await FakeBluez.start(daemon.address);
    // Stopped (if still up) after the gateway: BlueZ outlives its clients.
    cleanups.push(() => {
      bluez.stop();
    });
    const lock = new SimulatedLock({ address: ADDRESS, key: Buffer.from(KEY_HEX, 'hex'), name: 'Front', clock: new ManualClock(), batteryPercent: 80, motorTimeMs: 2_000 });
    bluez.addLock(lock);
    // The motor's timer is the lock's own: let it finish so nothing outlives the test.
    cleanups.push(() => lock.idle());
    const logger = new GatewayLineLogger();
    const gateway = gatewayOn(daemon.address, logger);
    gateway.start();
    await until(() => gateway.isReachable('front'), 'the connection', 15_000);

    const outcome = gateway.sendCommand('front', 'unlock');
    // The lock accepted the command and its motor runs (for two seconds): the daemon dies now.
    await until(() => lock.isMoving, 'the motor to start', 15_000);
    await daemon.stop();

    expect(await outcome).toEqual({ status: 'failed', reason: expect.stringMatching(/^(delivery_failed|timeout|lock_offline)$/) });
    await until(() => gateway.getSnapshot('front')?.connected === false, 'the link to be down', 15_000);
    expect(await gateway.sendCommand('front', 'lock', { timeoutMs: 3000 })).toEqual({ status: 'failed', reason: 'lock_offline' });
    expect(logger.lines.filter((line) => line.startsWith('error '))).toHaveLength(1);
  });
});
