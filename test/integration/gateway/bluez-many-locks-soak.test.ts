import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { systemClock } from '../../../src/domain/clock.js';
import type { CommandOutcome } from '../../../src/gateway/command-outcome.js';
import { EKeyDriver } from '../../../src/families/ekey/driver/ekey-driver.js';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import type { FakeDevice } from '../../support/fake-bluez/fake-bluez.js';
import { linkFaultPlan, type PlannedCommand } from '../../support/fake-bluez/link-fault-plan.js';
import { testLogger } from '../../support/fake-bluez/test-logger.js';
import { until } from '../../support/polling.js';
import { collectGarbage, MiB } from '../../support/soak-reading.js';

/**
 * Issue #12 item 8: fifty locks behind one gateway on the real BlueZ transport (private
 * dbus-daemon + fake BlueZ), each driven by its own seeded plan of commands and link faults.
 * `npm test` runs a small size; SOAK_FULL=1 runs the full 10 000 commands (figures in
 * docs/performance.md "Many locks at once"). SOAK_SEED changes the plans.
 */
const FULL = process.env.SOAK_FULL === '1';
const LOCKS = 50;
/** Readings (full GC first) are taken between rounds, with every lock connected and no fault active. */
const ROUNDS = FULL ? 20 : 4;
const COMMANDS_PER_LOCK_PER_ROUND = FULL ? 10 : 5;
const TOTAL_COMMANDS = LOCKS * ROUNDS * COMMANDS_PER_LOCK_PER_ROUND;
/** The heap is compared from the reading after this round (JIT, first reconnects and V8's sizing are behind us). */
const WARM_UP_ROUNDS = FULL ? 2 : 1;
const FAULT_PERCENT = 8;
const SEED = Number(process.env.SOAK_SEED ?? 1212);
const KEY_HEX = '8a'.repeat(32);
const COMMAND_TIMEOUT_MS = 8_000;
/**
 * A hang detector, not a performance bound: sendCommand promises an outcome within its timeout,
 * so one that has not resolved long after it is unfinished.
 */
const UNFINISHED_AFTER_MS = COMMAND_TIMEOUT_MS + 30_000;
/** Liveness bound for "every lock connected again" between rounds (reconnects retry every ≤ 200 ms). */
const RECONNECT_WITHIN_MS = 30_000;

interface SoakLock {
  id: string;
  simulated: SimulatedLock;
  device: FakeDevice;
  plan: PlannedCommand[];
  /** Bumped by every fault event (injected, link dropped, back in range). */
  faultEpoch: number;
  /**
   * From a fault until a command with no fault of its own and no fault event during it completes:
   * failures meanwhile are the fault's. (A command can complete just before the gateway hears of
   * a drop that already happened; the next one then fails its write, as it would with BlueZ.)
   */
  recovering: boolean;
  /** Timers of radio drops and returns into range still to come. */
  pending: Set<Promise<void>>;
  faults: number;
  lastConnectivity: boolean | null;
  wentOffline: number;
  cameBackOnline: number;
}

interface Reading {
  round: number;
  daemonMatchRules: number | null;
  trackedMatchRules: number;
  signalListeners: number;
  messageListeners: number;
  nodeBleListeners: number;
  gatewayListeners: number;
  heapUsed: number;
}

interface Tally {
  completed: number;
  failedByReason: Map<string, number>;
  unexplainedFailures: string[];
  wrongBolt: string[];
  unfinished: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let environment: FakeBluezEnvironment;

beforeAll(async () => {
  environment = await startFakeBluezEnvironment();
});

afterAll(async () => {
  await environment.stop();
});

/** Runs `work` after `ms`, tracked in the lock's pending set until it has run. */
function later(lock: SoakLock, ms: number, work: () => void): void {
  const done = sleep(ms).then(work);
  lock.pending.add(done);
  void done.finally(() => lock.pending.delete(done));
}

function startFault(lock: SoakLock, step: PlannedCommand): void {
  if (step.fault === null) return;
  lock.faults += 1;
  lock.faultEpoch += 1;
  lock.recovering = true;
  if (step.fault === 'radio_drop') {
    later(lock, step.delayMs, () => {
      lock.faultEpoch += 1;
      lock.device.dropLink(true);
    });
  } else if (step.fault === 'out_of_range') {
    lock.simulated.goOutOfRange();
    later(lock, step.delayMs, () => {
      lock.faultEpoch += 1;
      lock.simulated.comeBackInRange();
    });
  } else {
    lock.device.faults.disconnectAfterControlWrite = true;
  }
}

async function runCommand(gateway: LockGateway, lock: SoakLock, step: PlannedCommand, tally: Tally, label: string): Promise<boolean> {
  const epoch = lock.faultEpoch;
  const recovering = lock.recovering;
  startFault(lock, step);
  let watchdog: NodeJS.Timeout | undefined;
  const unfinished = new Promise<'unfinished'>((resolve) => {
    watchdog = setTimeout(() => {
      resolve('unfinished');
    }, UNFINISHED_AFTER_MS);
  });
  let outcome: CommandOutcome | 'unfinished';
  try {
    outcome = await Promise.race([gateway.sendCommand(lock.id, step.action), unfinished]);
  } finally {
    clearTimeout(watchdog);
    if (step.fault === 'drop_after_write') lock.device.faults.disconnectAfterControlWrite = false;
  }
  if (outcome === 'unfinished') {
    tally.unfinished.push(`${label}: ${step.action} never resolved`);
    return false;
  }
  if (outcome.status === 'completed') {
    tally.completed += 1;
    if (step.fault === null && lock.faultEpoch === epoch) lock.recovering = false;
    // The lock itself confirms: the bolt is where the outcome says (nothing else moves it).
    if (outcome.bolt !== (step.action === 'lock' ? 'locked' : 'unlocked') || lock.simulated.bolt !== outcome.bolt) {
      tally.wrongBolt.push(`${label}: ${step.action} → ${JSON.stringify(outcome)}, lock at ${lock.simulated.bolt}`);
    }
    return true;
  }
  tally.failedByReason.set(outcome.reason, (tally.failedByReason.get(outcome.reason) ?? 0) + 1);
  const explained = recovering || step.fault !== null || lock.faultEpoch !== epoch;
  if (!explained || outcome.reason === 'jammed') tally.unexplainedFailures.push(`${label}: ${step.action} → ${outcome.reason} with no fault near it`);
  return true;
}

describe('Many locks at once over the fake BlueZ', () => {
  it(`runs ${TOTAL_COMMANDS} commands over ${LOCKS} locks with random link drops: every command finishes, every lock comes back, rules, listeners and heap stay flat`, async () => {
    const transport = new BluezTransport({ busAddress: environment.busAddress, discoveryIntervalMs: 20, operationTimeoutMs: 3_000 });
    const stored = new Map<string, number>();
    const gateway = new LockGateway(transport, systemClock, testLogger(), {
      connectTimeoutMs: 5_000,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      operationTimeoutMs: 3_000,
      // Retries every ≤ 200 ms instead of 1 s → 60 s: many more reconnect attempts per outage.
      reconnectBackoff: { initialMs: 20, maxMs: 200 },
      // Real time: a lock away for more than 100 ms goes offline, and must come back online.
      offlineAfterS: 0.1,
      presenceCheckIntervalMs: 25,
      lastSequence: (lockId) => stored.get(lockId),
    });

    const locks: SoakLock[] = [];
    for (let index = 0; index < LOCKS; index += 1) {
      const address = `D0:0D:5E:00:01:${index.toString(16).padStart(2, '0').toUpperCase()}`;
      const simulated = new SimulatedLock({ address, key: Buffer.from(KEY_HEX, 'hex'), name: `Soak ${index}`, clock: systemClock, activityCapacity: 50 });
      const device = environment.bluez.addDevice(simulated);
      const plan = linkFaultPlan(SEED * 1000 + index, { commands: ROUNDS * COMMANDS_PER_LOCK_PER_ROUND, faultPercent: FAULT_PERCENT });
      locks.push({ id: `lock-${index}`, simulated, device, plan, faultEpoch: 0, recovering: false, pending: new Set(), faults: 0, lastConnectivity: null, wentOffline: 0, cameBackOnline: 0 });
      gateway.addLock({ id: `lock-${index}`, address, name: `Soak ${index}`, driver: new EKeyDriver(KEY_HEX) });
    }
    const byId = new Map(locks.map((lock) => [lock.id, lock]));
    gateway.on('activity', ({ lockId, record }) => {
      stored.set(lockId, record.sequence);
    });
    gateway.on('connectivity', ({ lockId, online }) => {
      const lock = byId.get(lockId);
      if (lock === undefined) return;
      if (online && lock.lastConnectivity === false) lock.cameBackOnline += 1;
      if (!online) lock.wentOffline += 1;
      lock.lastConnectivity = online;
    });

    const notConnected = (): string[] => locks.filter((lock) => gateway.getSnapshot(lock.id)?.connected !== true).map((lock) => lock.id);
    const quiesce = async (): Promise<void> => {
      for (const lock of locks) await Promise.all([...lock.pending]);
      await until(() => notConnected().length === 0, () => `every lock connected again (still down: ${notConnected().join(', ')})`, RECONNECT_WITHIN_MS);
    };
    const readings: Reading[] = [];
    const read = async (round: number): Promise<void> => {
      // The fake's own write log grows with every write: harness memory, not the gateway's.
      for (const lock of locks) lock.device.log.writeTypes.length = 0;
      collectGarbage();
      const diagnostics = await transport.diagnostics();
      readings.push({
        round,
        daemonMatchRules: diagnostics.daemonMatchRules,
        trackedMatchRules: diagnostics.trackedMatchRules,
        signalListeners: diagnostics.signalListeners,
        messageListeners: diagnostics.messageListeners,
        nodeBleListeners: diagnostics.nodeBleListeners,
        gatewayListeners: gateway.eventNames().reduce((sum, name) => sum + gateway.listenerCount(name), 0),
        heapUsed: process.memoryUsage().heapUsed,
      });
    };

    gateway.start();
    await quiesce();
    await read(0);

    const tally: Tally = { completed: 0, failedByReason: new Map(), unexplainedFailures: [], wrongBolt: [], unfinished: [] };
    const started = performance.now();
    let roundsRun = 0;
    for (let round = 1; round <= ROUNDS; round += 1) {
      const from = (round - 1) * COMMANDS_PER_LOCK_PER_ROUND;
      await Promise.all(
        locks.map(async (lock) => {
          for (let index = from; index < from + COMMANDS_PER_LOCK_PER_ROUND; index += 1) {
            const step = lock.plan[index];
            if (step === undefined) throw new Error(`no step ${index} in ${lock.id}'s plan`);
            // An unfinished command blocks its lock's queue: stop driving that lock and report it.
            if (!(await runCommand(gateway, lock, step, tally, `${lock.id} #${index + 1}`))) return;
          }
        }),
      );
      roundsRun = round;
      if (tally.unfinished.length > 0) break;
      await quiesce();
      await read(round);
    }
    const elapsedMs = performance.now() - started;

    // Back online, and usable: one more command to every lock completes.
    const finalOutcomes = await Promise.all(locks.map((lock) => gateway.sendCommand(lock.id, 'lock')));
    const snapshots = locks.map((lock) => gateway.getSnapshot(lock.id));
    const connects = locks.reduce((sum, lock) => sum + lock.device.log.connects, 0);
    const faults = locks.reduce((sum, lock) => sum + lock.faults, 0);
    await gateway.stop();

    const failed = [...tally.failedByReason.values()].reduce((sum, count) => sum + count, 0);
    const first = readings[0];
    const warm = readings.find((reading) => reading.round === WARM_UP_ROUNDS) ?? first;
    const last = readings.at(-1);
    if (first === undefined || warm === undefined || last === undefined) throw new Error('no readings');
    console.log(
      [
        `many-locks soak (seed ${SEED}): ${LOCKS} locks, ${tally.completed + failed} commands in ${(elapsedMs / 1000).toFixed(1)} s ` +
          `(${(((tally.completed + failed) * 1000) / elapsedMs).toFixed(0)} commands/s), ${tally.completed} completed, ` +
          `failed: ${JSON.stringify(Object.fromEntries(tally.failedByReason))}`,
        `  ${faults} link faults injected, ${connects - LOCKS} Connect calls after the first ${LOCKS}, ` +
          `${locks.reduce((sum, lock) => sum + lock.wentOffline, 0)} times offline, ${locks.reduce((sum, lock) => sum + lock.cameBackOnline, 0)} times back online`,
        ...readings.map(
          (r) =>
            `  after round ${r.round}: daemon match rules ${String(r.daemonMatchRules)}, tracked ${r.trackedMatchRules}, signal listeners ${r.signalListeners}, ` +
            `message listeners ${r.messageListeners}, node-ble listeners ${r.nodeBleListeners}, gateway listeners ${r.gatewayListeners}, heap ${(r.heapUsed / MiB).toFixed(1)} MiB`,
        ),
      ].join('\n'),
    );

    // No command left unfinished, none failed without a fault to explain it, none lied about the bolt.
    expect(tally.unfinished).toEqual([]);
    expect(roundsRun).toBe(ROUNDS);
    expect(tally.completed + failed).toBe(TOTAL_COMMANDS);
    expect(tally.unexplainedFailures).toEqual([]);
    expect(tally.wrongBolt).toEqual([]);
    // The faults happened: every lock had at least one, and links really dropped and came back.
    for (const lock of locks) expect(lock.faults).toBeGreaterThan(0);
    expect(connects).toBeGreaterThan(LOCKS);
    expect(failed).toBeGreaterThan(0);
    // Every lock back online after its drops, and usable.
    expect(finalOutcomes).toEqual(locks.map(() => ({ status: 'completed', bolt: 'locked' })));
    for (const snapshot of snapshots) expect(snapshot).toMatchObject({ connected: true, online: true });
    // Outages longer than offlineAfter took locks offline; each came back online afterwards.
    expect(locks.reduce((sum, lock) => sum + lock.wentOffline, 0)).toBeGreaterThan(0);
    for (const lock of locks) expect([lock.id, lock.lastConnectivity, lock.cameBackOnline]).toEqual([lock.id, true, lock.wentOffline]);
    // Match rules (the daemon's own count) and listeners flat.
    expect(first.daemonMatchRules).not.toBeNull();
    for (const reading of readings) {
      expect(reading).toMatchObject({
        daemonMatchRules: first.daemonMatchRules,
        trackedMatchRules: first.trackedMatchRules,
        signalListeners: first.signalListeners,
        messageListeners: first.messageListeners,
        nodeBleListeners: first.nodeBleListeners,
        gatewayListeners: first.gatewayListeners,
      });
    }
    // Heap after warm-up, both readings after a full GC. Measured (docs/performance.md "Many locks
    // at once"): readings wander by ±0.2 MiB, and V8 settles by up to +0.8 MiB over the first
    // ~3 000 commands before dropping back (a 20 000-command run ended 0.7 MiB *below* its round-2
    // reading). 2 MiB stays clear of that, and is less than what retaining 256 bytes per command
    // would add at full size (10 000 × 256 B ≈ 2.4 MiB); at the small size it bounds retention to
    // ~2 KiB per command.
    expect(last.heapUsed - warm.heapUsed).toBeLessThan(2 * MiB);
  }, 600_000);
});
