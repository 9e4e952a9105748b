import { describe, expect, it } from '@jest/globals';
import type { API, MatterAccessory, PlatformConfig } from 'homebridge';
import { DoorLock } from '@matter/main/clusters/door-lock';
import { PowerSource } from '@matter/main/clusters/power-source';
import { EKeyLocksPlatform } from '../../../src/homebridge/ekey-locks-platform.js';
import type { PortLock } from '../../../src/lock-port/lock-port.js';
import { PLATFORM_NAME } from '../../../src/homebridge/platform-name.js';
import { matterLockUuid } from '../../../src/matter/matter-door-lock.js';
import { openMatterLocks } from '../../../src/matter/open-matter-locks.js';
import { recordingLogging, type HomebridgeHarness } from '../../support/homebridge-api.js';
import { enableMatter, type MatterBridgeRecorder, type MatterStateUpdate } from '../../support/homebridge-matter-api.js';
import { InMemoryLockPort, InMemoryService, openInMemory, testLock } from '../../support/in-memory-lock-port.js';
import { FRONT_DOOR, GARDEN_GATE, HOUSEHOLD_USERS, harnessPerTest } from '../../support/platform-household.js';
import { until } from '../../support/polling.js';

/*
 * The platform's Matter side inside Homebridge's real API object with its real Matter API
 * (statuses, validation, device types); the bridge's matter.js server is stood in for by a
 * recorder of what the API emits. End to end with matter.js: test/e2e/matter.
 */

const FRONT = { ...FRONT_DOOR, batteryLevel: 0.42 };
const GATE = GARDEN_GATE;
const USERS = HOUSEHOLD_USERS;

interface Running {
  harness: HomebridgeHarness;
  bridge: MatterBridgeRecorder;
  port: InMemoryLockPort;
  log: ReturnType<typeof recordingLogging>;
  uuid(lock: PortLock): string;
  accessory(lock: PortLock): MatterAccessory;
  handler(lock: PortLock, command: 'lockDoor' | 'unlockDoor'): () => Promise<void>;
}

const newHarness = harnessPerTest();

/** The state updates sent so far for one cluster of one lock's door lock. */
function pushes(run: Running, lock: PortLock, cluster: string): MatterStateUpdate[] {
  return run.bridge.updates.filter((update) => update.uuid === run.uuid(lock) && update.cluster === cluster);
}

/** Does `act` and waits for the next state update of `cluster` it leads to for `lock`. */
async function afterPush(run: Running, lock: PortLock, cluster: string, act: () => void | Promise<void>): Promise<void> {
  const before = pushes(run, lock, cluster).length;
  await act();
  await until(() => pushes(run, lock, cluster).length > before, `a ${cluster} update for ${lock.name}`);
}

async function startPlatform(
  options: {
    locks?: PortLock[];
    config?: Record<string, unknown>;
    cache?: MatterAccessory[];
    port?: InMemoryLockPort;
    /** Runs once Matter is on, before the platform exists (to make the bridge misbehave). */
    prepare?: (harness: HomebridgeHarness) => void;
  } = {},
): Promise<Running> {
  const harness = await newHarness();
  const bridge = await enableMatter(harness.api);
  options.prepare?.(harness);
  const port = options.port ?? new InMemoryLockPort(options.locks ?? [FRONT, GATE], USERS);
  const log = recordingLogging();
  const config = { platform: PLATFORM_NAME, name: 'eKey Locks', demo: true, ...options.config } as PlatformConfig;
  const platform = new EKeyLocksPlatform(log, config, harness.api, {
    openService: openInMemory(new InMemoryService(port)),
    writeDemoLine: () => undefined,
    openMatter: (api, platformConfig, logger) => openMatterLocks(api, platformConfig, logger, { readyPollMs: 1, registerRetryMs: 1, registerAttempts: 3 }),
  });
  for (const cached of options.cache ?? []) platform.configureMatterAccessory(cached);
  harness.api.signalFinished();
  await platform.whenStarted();
  const uuid = (lock: PortLock): string => matterLockUuid(bridge.matter, lock.id);
  // Once an endpoint answers, the lock's whole state is pushed, reachability last: every registered door lock has it.
  await until(
    () => [...bridge.registered.keys()].every((registered) => bridge.updates.some((update) => update.uuid === registered && update.cluster === 'bridgedDeviceBasicInformation')),
    'the first state of every door lock',
  );
  const accessory = (lock: PortLock): MatterAccessory => {
    const found = bridge.registered.get(uuid(lock));
    if (!found) throw new Error(`no Matter accessory for ${lock.name}`);
    return found;
  };
  const handler = (lock: PortLock, command: 'lockDoor' | 'unlockDoor'): (() => Promise<void>) => {
    const found = (accessory(lock).handlers?.doorLock as Record<string, (() => Promise<void>) | undefined> | undefined)?.[command];
    if (!found) throw new Error(`${lock.name} has no ${command} handler`);
    return found;
  };
  return { harness, bridge, port, log, uuid, accessory, handler };
}

describe('Matter door locks', () => {
  it('registers one featureless DoorLock per lock, with its state and battery from the shared mapping', async () => {
    const run = await startPlatform();
    expect([...run.bridge.registered.keys()].sort()).toEqual([run.uuid(FRONT), run.uuid(GATE)].sort());
    const front = run.accessory(FRONT);
    expect(front).toMatchObject({
      displayName: 'Front Door',
      deviceType: run.bridge.matter.deviceTypes.DoorLock,
      serialNumber: 'D0:E1:00:00:00:01',
      manufacturer: 'Open Lock Project',
      model: 'SIM-1',
      context: { lockId: FRONT.id },
      clusters: {
        doorLock: { lockState: DoorLock.LockState.Locked, lockType: DoorLock.LockType.DeadBolt, actuatorEnabled: true, operatingMode: DoorLock.OperatingMode.Normal },
        powerSource: { status: PowerSource.PowerSourceStatus.Active, order: 0, description: 'Battery', batPresent: true, batPercentRemaining: 84, batChargeLevel: PowerSource.BatChargeLevel.Ok, batReplacementNeeded: false },
      },
    });
    expect(run.accessory(GATE).clusters?.doorLock).toMatchObject({ lockState: null });
    expect(run.accessory(GATE).clusters?.powerSource).toMatchObject({ batPercentRemaining: null, batChargeLevel: PowerSource.BatChargeLevel.Ok });
    expect(run.accessory(GATE)).toMatchObject({ manufacturer: 'eKey Locks', model: 'Bluetooth LE lock' });
    // The Matter UUID is not the HAP accessory's.
    expect(run.uuid(FRONT)).not.toBe(run.harness.api.hap.uuid.generate(FRONT.id));
    // HAP stays as it is.
    expect(run.harness.published.size).toBe(2);
    expect(run.log.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('pushes every bolt change, whatever caused it, and every battery reading', async () => {
    const run = await startPlatform();
    const pushed = (): unknown => run.bridge.last(run.uuid(FRONT), 'doorLock', 'lockState');
    await afterPush(run, FRONT, 'doorLock', () => {
      run.port.moveBolt(FRONT.id, 'unlocked', 'manual');
    });
    expect(pushed()).toBe(DoorLock.LockState.Unlocked);
    await afterPush(run, FRONT, 'doorLock', () => {
      run.port.tap(FRONT.id, 'olivia', 'lock');
    });
    expect(pushed()).toBe(DoorLock.LockState.Locked);
    await afterPush(run, FRONT, 'doorLock', () => {
      run.port.moveBolt(FRONT.id, 'jammed', null);
    });
    expect(pushed()).toBe(DoorLock.LockState.NotFullyLocked);
    await afterPush(run, FRONT, 'doorLock', () => {
      run.port.moveBolt(FRONT.id, 'unknown', null);
    });
    expect(pushed()).toBeNull();
    await afterPush(run, FRONT, 'powerSource', () => {
      run.port.setBattery(FRONT.id, 0.12);
    });
    expect(run.bridge.last(run.uuid(FRONT), 'powerSource', 'batPercentRemaining')).toBe(24);
    expect(run.bridge.last(run.uuid(FRONT), 'powerSource', 'batChargeLevel')).toBe(PowerSource.BatChargeLevel.Warning);
    // Moving and connectivity are no Matter state; nothing else was pushed for the gate (a push the
    // changes above caused for it would have come before the Front Door's last one).
    expect(run.bridge.updates.filter((update) => update.uuid === run.uuid(GATE) && update.cluster === 'doorLock').map((update) => update.attributes)).toEqual([{ lockState: null }]);
  });

  it('shows an unreachable lock as not reachable (its last state stays) and a reachable one again', async () => {
    const run = await startPlatform();
    expect(run.bridge.last(run.uuid(GATE), 'bridgedDeviceBasicInformation', 'reachable')).toBe(false);
    expect(run.bridge.last(run.uuid(FRONT), 'bridgedDeviceBasicInformation', 'reachable')).toBe(true);
    await afterPush(run, FRONT, 'bridgedDeviceBasicInformation', () => {
      run.port.setOnline(FRONT.id, false);
    });
    expect(run.bridge.last(run.uuid(FRONT), 'bridgedDeviceBasicInformation', 'reachable')).toBe(false);
    expect(run.bridge.last(run.uuid(FRONT), 'doorLock', 'lockState')).toBe(DoorLock.LockState.Locked);
    await afterPush(run, FRONT, 'bridgedDeviceBasicInformation', () => {
      run.port.setOnline(FRONT.id, true);
    });
    expect(run.bridge.last(run.uuid(FRONT), 'bridgedDeviceBasicInformation', 'reachable')).toBe(true);
  });

  it('runs UnlockDoor as the HomeKit user and resolves once the lock confirmed', async () => {
    const run = await startPlatform({ config: { homekit: { user_email: 'alex@example.com' } } });
    // The completed command moves the bolt, which is pushed like any bolt change.
    await afterPush(run, FRONT, 'doorLock', async () => {
      await expect(run.handler(FRONT, 'unlockDoor')()).resolves.toBeUndefined();
    });
    expect(run.port.requests).toEqual([{ lockId: FRONT.id, target: 'unlocked', asUserId: 'alex', type: 'unlock' }]);
    expect(run.bridge.last(run.uuid(FRONT), 'doorLock', 'lockState')).toBe(DoorLock.LockState.Unlocked);
  });

  it('waits for the lock: the handler resolves only when the command completes', async () => {
    const run = await startPlatform();
    run.port.answerCommandsWith({ kind: 'hold' });
    let settled = false;
    const pending = run.handler(FRONT, 'unlockDoor')().then(() => {
      settled = true;
    });
    // A command sent after it and answered at once has ended: a handler that did not wait for its
    // lock would have resolved before that one.
    run.port.answerCommandsWith({ kind: 'complete' });
    await expect(run.handler(GATE, 'lockDoor')()).resolves.toBeUndefined();
    expect(settled).toBe(false);
    run.port.releaseHeld();
    await pending;
    expect(settled).toBe(true);
  });

  it('answers Busy when the lock’s queue is full, and pushes the real state back', async () => {
    const run = await startPlatform();
    run.port.answerCommandsWith({ kind: 'answer', result: { status: 'rejected', reason: 'queue_full' } });
    const before = run.bridge.updates.length;
    const error = await run.handler(FRONT, 'unlockDoor')().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(run.bridge.matter.status.Busy);
    expect((error as { code?: number }).code).toBe(0x9c);
    await until(() => run.bridge.updates.slice(before).some((update) => update.cluster === 'doorLock'), 'the real state pushed back');
    expect(run.bridge.updates.slice(before).find((update) => update.cluster === 'doorLock')?.attributes).toEqual({ lockState: DoorLock.LockState.Locked });
  });

  it.each([
    { status: 'rejected', reason: 'lock_unreachable' },
    { status: 'rejected', reason: 'no_usable_key' },
    { status: 'failed', reason: 'timeout', commandId: 'c1' },
    { status: 'failed', reason: 'jammed', commandId: 'c1' },
  ] as const)('answers Failure for %p and keeps the state true', async (result) => {
    const run = await startPlatform();
    run.port.answerCommandsWith({ kind: 'answer', result });
    // The refusal pushes the lock's real state.
    await afterPush(run, GATE, 'doorLock', async () => {
      await expect(run.handler(GATE, 'lockDoor')()).rejects.toBeInstanceOf(run.bridge.matter.status.Failure);
    });
    expect(run.bridge.last(run.uuid(GATE), 'doorLock', 'lockState')).toBeNull();
  });

  it('refuses with Failure, without a command, when the configured HomeKit user does not exist', async () => {
    const run = await startPlatform({ config: { homekit: { user_email: 'nobody@example.com' } } });
    await expect(run.handler(FRONT, 'unlockDoor')()).rejects.toBeInstanceOf(run.bridge.matter.status.Failure);
    expect(run.port.requests).toEqual([]);
  });

  it('unregisters the door lock of a lock that leaves the config, and registers one that joins', async () => {
    const run = await startPlatform();
    run.port.removeLock(GATE.id);
    await until(() => !run.bridge.registered.has(run.uuid(GATE)), 'the gate unregistered');
    expect([...run.bridge.registered.keys()]).toEqual([run.uuid(FRONT)]);
    expect(run.log.text()).toContain('Removed Matter door lock Garden Gate');
    const back = testLock({ id: '6f1d2c3b-0000-4000-8000-000000000003', name: 'Back Door', family: 'nuki' });
    run.port.addLock(back);
    await until(() => run.bridge.registered.has(run.uuid(back)), 'the back door registered');
    expect(run.bridge.registered.has(run.uuid(back))).toBe(true);
  });

  it('shows a lock renamed in the config under its new name, on the same endpoint', async () => {
    const run = await startPlatform();
    const registrations = run.bridge.calls.register;
    run.port.renameLock(FRONT.id, 'Haustür');
    await until(() => run.bridge.last(run.uuid(FRONT), 'bridgedDeviceBasicInformation', 'nodeLabel') === 'Haustür', 'the new name');
    // Lock-list changes are reconciled one after the other: once a second rename is shown, the
    // first one's reconciliation (where a new registration would have been) has ended.
    run.port.renameLock(GATE.id, 'Gartentor');
    await until(() => run.bridge.last(run.uuid(GATE), 'bridgedDeviceBasicInformation', 'nodeLabel') === 'Gartentor', 'the second new name');
    expect(run.bridge.calls.register).toBe(registrations);
    expect(run.bridge.last(run.uuid(FRONT), 'bridgedDeviceBasicInformation', 'nodeLabel')).toBe('Haustür');
  });

  it('restores cached door locks and removes the cached ones whose lock is gone', async () => {
    const first = await startPlatform();
    const cache = [...first.bridge.registered.values()].map((accessory) => ({ ...accessory, handlers: undefined }));
    const run = await startPlatform({ locks: [FRONT], cache });
    expect(run.log.text()).toContain('Restored Matter door lock Front Door');
    expect([...run.bridge.registered.keys()]).toEqual([run.uuid(FRONT)]);
    expect(run.bridge.calls.unregister).toBe(1);
    expect(run.log.text()).toContain('Removed Matter door lock Garden Gate');
    // The restored lock has live handlers again.
    await expect(run.handler(FRONT, 'unlockDoor')()).resolves.toBeUndefined();
  });

  it('with "matter": false registers nothing and removes the door locks an earlier run left', async () => {
    const first = await startPlatform();
    const cache = [...first.bridge.registered.values()];
    const run = await startPlatform({ config: { matter: false }, cache });
    expect(run.bridge.registered.size).toBe(0);
    expect(run.bridge.calls.register).toBe(0);
    expect(run.bridge.calls.unregister).toBe(1);
    expect(run.harness.published.size).toBe(2);
  });
});

describe('Matter faults', () => {
  it('retries a registration Homebridge refuses while its Matter server starts, then logs it; HomeKit and commands are unaffected', async () => {
    const run = await startPlatform({
      prepare: (harness) => {
        (harness.api as unknown as { _matterManager: unknown })._matterManager = {
          hasActiveMatter: () => true,
          isBridgeServerStarting: () => true,
          getExternalServer: () => undefined,
        };
      },
    });
    expect(run.bridge.registered.size).toBe(0);
    expect(run.log.lines.filter((line) => line.level === 'warn' && line.message.startsWith('Matter: could not register door locks yet'))).toHaveLength(2);
    expect(run.log.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringMatching(/^Matter: could not register door locks: .*still starting/),
    ]);
    expect(run.harness.published.size).toBe(2);
  });

  it('removes cached door locks when no lock is configured at all', async () => {
    const first = await startPlatform();
    const cache = [...first.bridge.registered.values()];
    const run = await startPlatform({ config: { demo: false }, cache });
    expect(run.bridge.calls.unregister).toBe(1);
    expect(run.bridge.calls.register).toBe(0);
    expect(run.log.text()).toContain('Removed Matter door lock Front Door: no lock is configured');
  });
});

describe('Without Matter', () => {
  it('does nothing about Matter, and errs nowhere, on Homebridge 2 with Matter off for the bridge', async () => {
    const harness = await newHarness();
    const log = recordingLogging();
    const platform = new EKeyLocksPlatform(log, { platform: PLATFORM_NAME, demo: true }, harness.api, {
      openService: openInMemory(new InMemoryService(new InMemoryLockPort([FRONT], USERS))),
      writeDemoLine: () => undefined,
    });
    harness.api.signalFinished();
    await platform.whenStarted();
    expect(harness.api.matter).toBeUndefined();
    expect(harness.published.size).toBe(1);
    expect(log.lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
  });

  it('runs unchanged on Homebridge 1, whose API has no Matter methods at all', async () => {
    const harness = await newHarness();
    // Homebridge 1's API object: the same, minus everything Matter.
    const hidden = new Set<PropertyKey>(['isMatterAvailable', 'isMatterEnabled', 'matter']);
    const homebridge1 = new Proxy(harness.api, {
      get: (target, property, receiver) => (hidden.has(property) ? undefined : (Reflect.get(target, property, receiver) as unknown)),
      has: (target, property) => !hidden.has(property) && Reflect.has(target, property),
    }) as API;
    expect('isMatterAvailable' in homebridge1).toBe(false);
    const log = recordingLogging();
    const platform = new EKeyLocksPlatform(log, { platform: PLATFORM_NAME, demo: true }, homebridge1, {
      openService: openInMemory(new InMemoryService(new InMemoryLockPort([FRONT, GATE], USERS))),
      writeDemoLine: () => undefined,
    });
    harness.api.signalFinished();
    await platform.whenStarted();
    expect(harness.published.size).toBe(2);
    expect(log.lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
    expect(log.lines.filter((line) => line.level === 'debug' && /Matter/.test(line.message)).map((line) => line.message)).toEqual([
      'Matter: locks are not shown in Matter: this Homebridge has no Matter support (Homebridge 2 adds it).',
    ]);
  });
});
