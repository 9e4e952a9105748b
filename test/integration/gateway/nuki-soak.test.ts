import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NukiDriver } from '../../../src/families/nuki/driver/nuki-driver.js';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { SimulatedNuki } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { testLogger } from '../../support/fake-bluez/test-logger.js';
import { ManualClock } from '../../support/manual-clock.js';
import { NukiWireRecorder } from '../../support/nuki-wire-recorder.js';
import { describeSoakReading, expectFlatSubscriptions, MiB, readSoak, type SoakReading } from '../../support/soak-reading.js';

/** 2 000 by default; NUKI_SOAK_CYCLES overrides it for a quick local run. */
const CYCLES = Number(process.env.NUKI_SOAK_CYCLES ?? 2000);
/** The link is left idle (and so released) after every this many commands. */
const COMMANDS_PER_LINK = 10;
/**
 * Readings before this are warm-up: JIT, the first reconnects, and V8 sizing its heap (its
 * reservation grew from ~90 to ~120 MiB over the first ~500 commands here, with heapUsed flat).
 */
const WARM_UP = Math.min(500, Math.floor(CYCLES / 4));
/**
 * A reading (full GC first) every this many commands. Frequent collections keep V8 from growing
 * its heap reservation between readings, so RSS tracks what is retained rather than when V8 last
 * decided to collect (with a reading every 500 commands RSS wandered by ±40 MiB on a flat heap).
 */
const READ_EVERY = Number(process.env.NUKI_SOAK_EVERY ?? 100);
const KEY = Buffer.alloc(32, 0x2c);
const AUTHORIZATION = 3;
const PIN = 1357;
const ADDRESS = 'D0:0D:4E:00:00:01';
const LOCK_ID = 'nuki-soak';

let environment: FakeBluezEnvironment;

beforeAll(async () => {
  environment = await startFakeBluezEnvironment();
});

afterAll(async () => {
  await environment.stop();
});

describe('Nuki soak over the fake BlueZ', () => {
  it(`keeps match rules and memory flat over ${CYCLES} lock/unlock commands, the link released every ${COMMANDS_PER_LINK}`, async () => {
    const clock = new ManualClock();
    const nuki = new SimulatedNuki({
      address: ADDRESS,
      name: 'Soak',
      clock,
      securityPin: PIN,
      // A short log: the lock's memory stays flat too, so growth is ours.
      logCapacity: 50,
      authorizations: [{ id: AUTHORIZATION, name: 'Gateway', type: 'app', sharedKey: KEY }],
    });
    const device = environment.bluez.addDevice(nuki);
    const transport = new BluezTransport({ busAddress: environment.busAddress, discoveryIntervalMs: 10, operationTimeoutMs: 2_000 });
    const wire = new NukiWireRecorder(transport, KEY, { keepHistory: false });
    // The activity of every command is read from the lock's log (the beacon flags each move).
    let stored = 0;
    const gateway = new LockGateway(wire, clock, testLogger(), {
      connectTimeoutMs: 3_000,
      commandTimeoutMs: 5_000,
      operationTimeoutMs: 2_000,
      presenceCheckIntervalMs: 3_600_000,
      lastSequence: () => stored,
    });
    gateway.on('activity', ({ record }) => {
      stored = record.sequence;
    });
    gateway.addLock({ id: LOCK_ID, address: ADDRESS, name: 'Soak', driver: new NukiDriver({ sharedKey: KEY, authorizationId: AUTHORIZATION, appId: 9, securityPin: PIN }, { idleDisconnectMs: 25 }) });
    const released = wire.nextRelease(10_000);
    gateway.start();
    await released;

    const readings: SoakReading[] = [];
    const read = async (cycle: number): Promise<void> => {
      // The fake BlueZ notes the type of every write; that list is the fake's, not the gateway's memory.
      device.log.writeTypes.length = 0;
      readings.push(await readSoak(transport, cycle));
    };

    const started = performance.now();
    const failures: string[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle += 1) {
      clock.advance(1_000);
      const action = cycle % 2 === 1 ? 'unlock' : 'lock';
      const outcome = await gateway.sendCommand(LOCK_ID, action);
      if (outcome.status !== 'completed') failures.push(`${cycle}: ${outcome.reason}`);
      if (cycle % COMMANDS_PER_LINK === 0) await wire.nextRelease(10_000);
      if (cycle === WARM_UP || cycle % READ_EVERY === 0 || cycle === CYCLES) await read(cycle);
    }
    const elapsedMs = performance.now() - started;
    const connects = wire.connects;
    await gateway.stop();

    const first = readings[0];
    const warm = readings.find((reading) => reading.cycle === WARM_UP);
    const last = readings.at(-1);
    if (first === undefined || warm === undefined || last === undefined) throw new Error('no readings');
    console.log(
      [
        `nuki soak: ${CYCLES} commands in ${(elapsedMs / 1000).toFixed(1)} s (${(elapsedMs / CYCLES).toFixed(1)} ms/command), ${connects} connections, ${failures.length} failed`,
        ...readings.filter((r) => r === warm || r.cycle % 500 === 0 || r === last).map(describeSoakReading),
      ].join('\n'),
    );

    expect(failures).toEqual([]);
    expect(nuki.bolt).toBe(CYCLES % 2 === 1 ? 'unlocked' : 'locked');
    // One connection at start, then one per group of commands: the link really was released and re-established.
    expect(connects).toBeGreaterThanOrEqual(1 + CYCLES / COMMANDS_PER_LINK);
    // Every command's log entry was read back (all by our authorization), none skipped.
    expect(stored).toBe(nuki.log.at(-1)?.index);
    // What the daemon counts for our connection (Debug.Stats) is the real measure; dbus-next's own books must agree.
    expectFlatSubscriptions(readings);
    // From warm-up to the end (1 500 commands, 150 connections), both after a full GC.
    // Heap: measured −0.1..+0.2 MiB; 2 MiB fails a leak of ~1.4 KiB per command or ~14 KiB per
    // connection (what a node-ble device or characteristic proxy kept per connect would cost).
    expect(last.heapUsed - warm.heapUsed).toBeLessThan(2 * MiB);
    // RSS adds what the heap does not show (D-Bus message buffers, libuv handles, malloc arenas):
    // measured +0.6..3.9 MiB; 8 MiB leaves room for allocator steps and fails ~5.5 KiB per command.
    expect(last.rss - warm.rss).toBeLessThan(8 * MiB);
  }, 240_000);
});
