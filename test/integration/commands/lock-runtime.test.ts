import { eventShapeOfCommand } from '../../../src/domain/lock-command-type.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { loadFamilyModules } from '../../../src/families/registry.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { CommandEngine } from '../../../src/commands/command-engine.js';
import type { LockEventSink, RecordedEvent } from '../../../src/events/lock-event-sink.js';
import { parseLockKey } from '../../../src/families/ekey/protocol/frame-authentication.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { SimulatorTransport } from '../../../src/gateway/transports/simulator/simulator-transport.js';
import { lockDriverFactory } from '../../../src/locks/lock-drivers.js';
import { LockRuntime } from '../../../src/locks/lock-runtime.js';
import { CommandRepository } from '../../../src/store/command-repository.js';
import { LockStateRepository } from '../../../src/store/lock-state-repository.js';
import { createWorld, type World } from '../../unit/commands/command-world.js';
import { commandAccessOver } from '../../support/command-access.js';
import { until } from '../../support/polling.js';

/** Records what the runtime reports, as the event recorder would receive it. */
class RecordingSink implements LockEventSink {
  readonly activity: Parameters<LockEventSink['recordActivity']>[0][] = [];
  readonly battery: Parameters<LockEventSink['recordBattery']>[0][] = [];
  readonly commands: Parameters<LockEventSink['recordCommandCompleted']>[0][] = [];

  recordActivity(input: Parameters<LockEventSink['recordActivity']>[0]): RecordedEvent | null {
    this.activity.push(input);
    return null;
  }
  recordCommandCompleted(input: Parameters<LockEventSink['recordCommandCompleted']>[0]): RecordedEvent {
    this.commands.push(input);
    return { id: randomUUID(), lockId: input.lockId, type: eventShapeOfCommand(input.action).type, performerId: input.performerId, timestamp: input.timestamp, value: null };
  }
  recordBattery(input: Parameters<LockEventSink['recordBattery']>[0]): RecordedEvent | null {
    this.battery.push(input);
    return null;
  }
}

/** Resolves once `predicate` holds, checking after each turn of the event loop (bounded). */
describe('lock runtime: gateway observations become stored lock state and recorder calls', () => {
  const key = randomBytes(32).toString('hex');
  let w: World;
  let lock: SimulatedLock;
  let sink: RecordingSink;
  let state: LockStateRepository;
  let runtime: LockRuntime;

  const start = (motorTimeMs = 0): void => {
    lock = new SimulatedLock({ address: 'AA:BB:CC:DD:EE:01', key: parseLockKey(key), name: 'Front Door', clock: w.clock, motorTimeMs, batteryPercent: 80 });
    runtime = new LockRuntime(
      { transport: new SimulatorTransport([lock]), clock: w.clock, logger: w.logger, locks: w.locks, lockState: state, events: sink, driverFor: lockDriverFactory({ dataDir: undefined, logger: w.logger }) },
      { reconnectBackoff: { initialMs: 10, maxMs: 50 }, presenceCheckIntervalMs: 20, offlineAfterS: 5 },
    );
    expect(runtime.registerStoredLocks()).toEqual([w.lock]);
    runtime.start();
  };

  // The drivers come from the families' modules (src/families/registry.ts).
  beforeAll(() => loadFamilyModules());

  beforeEach(() => {
    w = createWorld({ lockKey: key });
    sink = new RecordingSink();
    state = new LockStateRepository(w.db);
  });

  afterEach(async () => {
    await runtime.stop();
    await lock.idle();
    w.db.close();
  });

  it('registers only locks with a gateway connection; stores online, bolt and battery once connected', async () => {
    start();
    expect(runtime.isRegistered(w.noGatewayLock)).toBe(false);
    await until(() => state.read(w.lock)?.onlineStatus === 'online');
    expect(state.read(w.lock)).toMatchObject({ boltState: 'locked', batteryLevel: 0.8, onlineStatus: 'online' });
    expect(state.read(w.lock)?.lastSeenAt).toBe(w.clock.now());
    expect(state.read(w.noGatewayLock)?.onlineStatus).toBe('offline');
    // The first reading is not a change of the battery.
    expect(sink.battery).toEqual([]);
  });

  it('leaves a lock of a family this version does not know offline, says so once, and keeps its family as stored', async () => {
    const stored = w.locks.findById(w.lock);
    if (stored === undefined) throw new Error('no lock');
    // As a newer version of the plugin might have stored it.
    const later = { ...stored, id: randomUUID(), name: 'Cellar Door', family: 'from-a-later-version', bleAddress: 'AA:BB:CC:DD:EE:09' };
    w.locks.upsert(later);
    start();
    expect(runtime.isRegistered(later.id)).toBe(false);
    await until(() => state.read(w.lock)?.onlineStatus === 'online');
    expect(state.read(later.id)?.onlineStatus).toBe('offline');
    expect(runtime.registerStoredLocks()).toEqual([]);
    const said = w.logger.lines.filter((line) => line.message.includes('from-a-later-version'));
    expect(said).toEqual([{ level: 'error', message: 'Lock Cellar Door: its family "from-a-later-version" is not one this version of the plugin knows, so it stays offline.' }]);
    expect(w.locks.findById(later.id)?.family).toBe('from-a-later-version');
  });

  it('hands each tap to the recorder, stores the bolt and the activity high-water mark', async () => {
    start();
    await until(() => runtime.isReachable(w.lock));
    const ekeyId = randomUUID();
    lock.tap(ekeyId, 'unlock');
    await until(() => sink.activity.length === 1);
    expect(sink.activity[0]).toMatchObject({ lockId: w.lock, sequence: 1, action: 'unlock', source: 'tap', credential: ekeyId });
    expect(state.read(w.lock)).toMatchObject({ boltState: 'unlocked', lastActivitySequence: 1 });
  });

  it('reports battery changes', async () => {
    start();
    await until(() => runtime.isReachable(w.lock));
    lock.setBattery(42);
    await until(() => sink.battery.length === 1);
    expect(sink.battery[0]).toMatchObject({ lockId: w.lock, level: 0.42 });
    expect(state.read(w.lock)?.batteryLevel).toBe(0.42);
  });

  it('reads back what happened while the lock was out of reach, from the stored sequence', async () => {
    start();
    await until(() => runtime.isReachable(w.lock));
    lock.tap(randomUUID(), 'unlock');
    await until(() => sink.activity.length === 1);
    lock.goOutOfRange();
    await until(() => runtime.liveState(w.lock)?.snapshot?.connected === false);
    lock.manualTurn('locked');
    lock.tap(randomUUID(), 'unlock');
    await lock.idle();
    lock.comeBackInRange();
    await until(() => sink.activity.length === 3);
    expect(sink.activity.map((record) => [record.sequence, record.source])).toEqual([
      [1, 'tap'],
      [2, 'manual'],
      [3, 'tap'],
    ]);
    expect(state.read(w.lock)).toMatchObject({ lastActivitySequence: 3, boltState: 'unlocked' });
  });

  it('shows offline once the lock has been silent for offline_after_s', async () => {
    start();
    await until(() => runtime.isReachable(w.lock));
    await until(() => state.read(w.lock)?.onlineStatus === 'online');
    lock.goOutOfRange();
    await until(() => {
      w.clock.advance(1_000);
      return state.read(w.lock)?.onlineStatus === 'offline';
    });
    expect(runtime.onlineStatus(w.lock)).toBe('offline');
  });

  describe('with the command engine', () => {
    const engineOver = (timeoutMs: number): CommandEngine =>
      new CommandEngine(
        {
          commands: new CommandRepository(w.db),
          locks: w.locks,
          access: commandAccessOver(w.db, w.clock),
          gateway: runtime,
          events: sink,
          clock: w.clock,
          logger: w.logger,
        },
        { timeoutMs },
      );

    it('completes a command when the lock confirms; bolt_state follows', async () => {
      start();
      await until(() => runtime.isReachable(w.lock));
      const engine = engineOver(5_000);
      const { command } = engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' });
      expect(await engine.whenFinished(command.id)).toMatchObject({ status: 'completed' });
      expect(state.read(w.lock)?.boltState).toBe('unlocked');
      expect(sink.commands).toEqual([expect.objectContaining({ commandId: command.id, performerId: w.owner, action: 'unlock' })]);
      // The lock's own record of a remote move is reported too; the recorder skips source `remote`.
      await until(() => sink.activity.length === 1);
      expect(sink.activity[0]?.source).toBe('remote');
      engine.stop();
    });

    it('fails a command timeout when the motor takes longer than the timeout', async () => {
      start(1_000);
      await until(() => runtime.isReachable(w.lock));
      const engine = engineOver(100);
      const { command } = engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' });
      expect(await engine.whenFinished(command.id)).toMatchObject({ status: 'failed', failureReason: 'timeout' });
      expect(sink.commands).toEqual([]);
      engine.stop();
    });

    it('fails a command jammed and stores bolt_state jammed', async () => {
      start();
      await until(() => runtime.isReachable(w.lock));
      lock.jamNextMove();
      const engine = engineOver(5_000);
      const { command } = engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' });
      expect(await engine.whenFinished(command.id)).toMatchObject({ status: 'failed', failureReason: 'jammed' });
      expect(state.read(w.lock)?.boltState).toBe('jammed');
      engine.stop();
    });
  });
});
