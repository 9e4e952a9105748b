import { EKeyDriver } from '../../../src/families/ekey/driver/ekey-driver.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { testLogger } from '../../support/fake-bluez/test-logger.js';
import { ManualClock } from '../../support/manual-clock.js';
import { describeSoakReading, expectFlatSubscriptions, MiB, readSoak, type SoakReading } from '../../support/soak-reading.js';

/** 5 000 by default (the brief's floor); SOAK_CYCLES overrides it for a quick local run. */
const CYCLES = Number(process.env.SOAK_CYCLES ?? 5000);
const WARM_UP = Math.min(200, Math.floor(CYCLES / 10));
const KEY_HEX = '5e'.repeat(32);
const ADDRESS = 'D0:0D:5E:00:00:01';

let environment: FakeBluezEnvironment;

beforeAll(async () => {
  environment = await startFakeBluezEnvironment({ asSystemBus: true });
});

afterAll(async () => {
  await environment.stop();
});

describe('BlueZ transport soak', () => {
  it(`keeps match rules, listeners and heap flat over ${CYCLES} connect/command/disconnect cycles`, async () => {
    const clock = new ManualClock();
    const lock = new SimulatedLock({ address: ADDRESS, key: Buffer.from(KEY_HEX, 'hex'), name: 'Soak', clock, activityCapacity: 50 });
    environment.bluez.addLock(lock);
    // No busAddress: like production, the transport uses the system bus, which the environment
    // pointed at the private daemon (DBUS_SYSTEM_BUS_ADDRESS).
    const transport = new BluezTransport({ discoveryIntervalMs: 10, operationTimeoutMs: 2000 });
    let stored = 0;
    const gateway = new LockGateway(transport, clock, testLogger(), {
      connectTimeoutMs: 2000,
      commandTimeoutMs: 3000,
      operationTimeoutMs: 2000,
      lastSequence: () => stored,
    });
    gateway.on('activity', ({ record }) => {
      stored = record.sequence;
    });

    const readings: SoakReading[] = [];
    const read = async (cycle: number): Promise<void> => {
      readings.push(await readSoak(transport, cycle));
    };

    const started = performance.now();
    let failures = 0;
    for (let cycle = 1; cycle <= CYCLES; cycle += 1) {
      gateway.addLock({ id: 'soak', address: ADDRESS, name: 'Soak', driver: new EKeyDriver(KEY_HEX) });
      const outcome = await gateway.sendCommand('soak', cycle % 2 === 1 ? 'unlock' : 'lock');
      if (outcome.status !== 'completed') failures += 1;
      await gateway.removeLock('soak');
      clock.advance(1000);
      if (cycle === WARM_UP || cycle % 1000 === 0 || cycle === CYCLES) await read(cycle);
    }
    const elapsedMs = performance.now() - started;
    await gateway.stop();

    const first = readings[0];
    const last = readings.at(-1);
    if (first === undefined || last === undefined) throw new Error('no readings');
    console.log(
      [
        `soak: ${CYCLES} cycles in ${(elapsedMs / 1000).toFixed(1)} s (${(elapsedMs / CYCLES).toFixed(1)} ms/cycle), ${failures} failed commands`,
        ...readings.map(describeSoakReading),
      ].join('\n'),
    );

    expect(failures).toBe(0);
    expect(lock.activity.at(-1)?.sequence).toBe(CYCLES);
    // The real measure: what the daemon counts for our connection (Debug.Stats).
    expectFlatSubscriptions(readings);
    // Bounded heap: well under what even one retained object per cycle (~1 KiB x cycles) would add.
    expect(last.heapUsed - first.heapUsed).toBeLessThan(8 * MiB);
  }, 420_000);
});
