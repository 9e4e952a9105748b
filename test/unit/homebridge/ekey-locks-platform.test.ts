import type { Bolt } from '../../../src/domain/lock-vocabulary.js';
import { describe, expect, it } from '@jest/globals';
import type { Characteristic, CharacteristicChange, PlatformAccessory, PlatformConfig, Service, WithUUID } from 'homebridge';
import { EKeyLocksPlatform } from '../../../src/homebridge/ekey-locks-platform.js';
import type { PortLock } from '../../../src/lock-port/lock-port.js';
import { PLATFORM_NAME } from '../../../src/homebridge/platform-name.js';
import { StartReportFile } from '../../../src/store/start-report-file.js';
import { join } from 'node:path';
import { createHomebridgeHarness, recordingLogging, type HomebridgeHarness } from '../../support/homebridge-api.js';
import { InMemoryLockPort, InMemoryService, openInMemory, testLock } from '../../support/in-memory-lock-port.js';
import { FRONT_DOOR, GARDEN_GATE, HOUSEHOLD_USERS, harnessPerTest } from '../../support/platform-household.js';
import { until } from '../../support/polling.js';

const FRONT = FRONT_DOOR;
const GATE = GARDEN_GATE;
const USERS = HOUSEHOLD_USERS;

type ServiceType = WithUUID<typeof Service>;
type CharacteristicType = WithUUID<new () => Characteristic>;

interface Running {
  harness: HomebridgeHarness;
  platform: EKeyLocksPlatform;
  port: InMemoryLockPort;
  service: InMemoryService;
  log: ReturnType<typeof recordingLogging>;
  accessory(lock: PortLock): PlatformAccessory;
  characteristic(lock: PortLock, service: ServiceType, characteristic: CharacteristicType, subtype?: string): Characteristic;
  /** Characteristic values pushed by the platform (updateValue) since the start, per characteristic. */
  pushes(lock: PortLock, service: ServiceType, characteristic: CharacteristicType): unknown[];
}

const newHarness = harnessPerTest();

/** Runs the platform inside Homebridge's API object on an in-memory port. */
async function startPlatform(
  options: { locks?: PortLock[]; homekit?: Record<string, unknown>; port?: InMemoryLockPort; cache?: unknown[]; config?: Record<string, unknown> } = {},
): Promise<Running> {
  const harness = await newHarness();
  const port = options.port ?? new InMemoryLockPort(options.locks ?? [FRONT, GATE], USERS);
  const service = new InMemoryService(port);
  const log = recordingLogging();
  const config = { platform: PLATFORM_NAME, name: 'eKey Locks', demo: true, ...(options.homekit ? { homekit: options.homekit } : {}), ...options.config } as PlatformConfig;
  const platform = new EKeyLocksPlatform(log, config, harness.api, { openService: openInMemory(service), writeDemoLine: () => undefined });
  for (const accessory of harness.deserialize(options.cache ?? [])) platform.configureAccessory(accessory);
  const pushed = new Map<Characteristic, unknown[]>();
  const accessory = (lock: PortLock): PlatformAccessory => {
    const found = harness.published.get(harness.api.hap.uuid.generate(lock.id));
    if (!found) throw new Error(`no accessory for ${lock.name}`);
    return found;
  };
  const characteristic = (lock: PortLock, serviceType: ServiceType, type: CharacteristicType, subtype?: string): Characteristic => {
    const found = subtype === undefined ? accessory(lock).getService(serviceType) : accessory(lock).getServiceById(serviceType, subtype);
    if (!found) throw new Error(`${lock.name} has no ${serviceType.name}`);
    const result = found.getCharacteristic(type);
    if (!pushed.has(result)) {
      const values: unknown[] = [];
      pushed.set(result, values);
      result.on('change', (change: CharacteristicChange) => {
        const reason: string = change.reason;
        if (reason === 'update' || reason === 'event') values.push(change.newValue);
      });
    }
    return result;
  };
  const run: Running = {
    harness,
    platform,
    port,
    service,
    log,
    accessory,
    characteristic,
    pushes: (lock, serviceType, type) => pushed.get(characteristic(lock, serviceType, type)) ?? [],
  };
  harness.api.signalFinished();
  await platform.whenStarted();
  return run;
}

/**
 * Waits for the log line a HomeKit command's outcome is applied with (after HAP stored the write):
 * its `times`-th line containing `text`. Each outcome of the lock service says how it ended.
 */
function outcomeLogged(run: Running, text: string, times = 1): Promise<void> {
  return until(() => run.log.lines.filter((line) => line.message.includes(text)).length >= times, `the log line "${text}"`);
}

/** The words a HomeKit outcome line uses for a command result that is not a completion. */
const ended = (result: { status: 'failed' | 'rejected'; reason: string }): string => `${result.status === 'failed' ? 'failed' : 'refused'}: ${result.reason}`;

function hap(run: Running) {
  return run.harness.api.hap;
}

describe('EKeyLocksPlatform accessories', () => {
  it('registers one door-lock accessory per lock with a UUID from the lock id', async () => {
    const run = await startPlatform();
    const { uuid } = hap(run);
    expect([...run.harness.published.keys()].sort()).toEqual([uuid.generate(FRONT.id), uuid.generate(GATE.id)].sort());
    const front = run.accessory(FRONT);
    expect(front.displayName).toBe('Front Door');
    expect(front.context).toEqual({ lockId: FRONT.id });
    expect(front.category).toBe(6);
    expect(run.harness.calls.register).toBe(1);
  });

  it('describes the lock in AccessoryInformation: serial = BLE address, firmware from Device Information', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    const value = (lock: PortLock, type: CharacteristicType) => run.characteristic(lock, Service.AccessoryInformation, type).value;
    expect(value(FRONT, Characteristic.Manufacturer)).toBe('Open Lock Project');
    expect(value(FRONT, Characteristic.Model)).toBe('SIM-1');
    expect(value(FRONT, Characteristic.SerialNumber)).toBe('D0:E1:00:00:00:01');
    expect(value(FRONT, Characteristic.FirmwareRevision)).toBe('1.0.0');
    expect(value(FRONT, Characteristic.Name)).toBe('Front Door');
    // Not read yet: neutral placeholders, never empty strings.
    expect(value(GATE, Characteristic.Manufacturer)).toBe('eKey Locks');
    expect(value(GATE, Characteristic.SerialNumber)).toBe('D0:E1:00:00:00:02');
    run.port.emit({ kind: 'device_information', lockId: GATE.id, deviceInformation: { manufacturer: 'Acme', model: 'G2', serial: 'x', firmware: 'v2.1' }, serialNumber: 'ACME-7' });
    expect(value(GATE, Characteristic.Manufacturer)).toBe('Acme');
    // The serial number the service decided (its family's, or the address) comes with the change.
    expect(value(GATE, Characteristic.SerialNumber)).toBe('ACME-7');
    expect(value(GATE, Characteristic.FirmwareRevision)).toBe('2.1');
  });

  it('offers LockMechanism, Battery and LockManagement with their values from memory', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    const read = (lock: PortLock, service: ServiceType, type: CharacteristicType) => run.characteristic(lock, service, type).handleGetRequest();
    expect(run.accessory(FRONT).services.map((service) => service.UUID).sort()).toEqual(
      [Service.AccessoryInformation.UUID, Service.LockMechanism.UUID, Service.Battery.UUID, Service.LockManagement.UUID].sort(),
    );
    expect(run.accessory(FRONT).getService(Service.LockMechanism)?.isPrimaryService).toBe(true);
    await expect(read(FRONT, Service.LockMechanism, Characteristic.LockCurrentState)).resolves.toBe(Characteristic.LockCurrentState.SECURED);
    await expect(read(FRONT, Service.LockMechanism, Characteristic.LockTargetState)).resolves.toBe(Characteristic.LockTargetState.SECURED);
    await expect(read(FRONT, Service.LockMechanism, Characteristic.StatusFault)).resolves.toBe(Characteristic.StatusFault.NO_FAULT);
    await expect(read(FRONT, Service.Battery, Characteristic.BatteryLevel)).resolves.toBe(90);
    await expect(read(FRONT, Service.Battery, Characteristic.StatusLowBattery)).resolves.toBe(Characteristic.StatusLowBattery.BATTERY_LEVEL_NORMAL);
    await expect(read(FRONT, Service.Battery, Characteristic.ChargingState)).resolves.toBe(Characteristic.ChargingState.NOT_CHARGEABLE);
    await expect(read(FRONT, Service.LockManagement, Characteristic.Version)).resolves.toBe('1.0');
    await expect(read(FRONT, Service.LockManagement, Characteristic.LockLastKnownAction)).resolves.toBe(Characteristic.LockLastKnownAction.SECURED_PHYSICALLY);
    // The gate was never reached: UNKNOWN and a fault, as values.
    await expect(read(GATE, Service.LockMechanism, Characteristic.LockCurrentState)).resolves.toBe(Characteristic.LockCurrentState.UNKNOWN);
    await expect(read(GATE, Service.LockMechanism, Characteristic.StatusFault)).resolves.toBe(Characteristic.StatusFault.GENERAL_FAULT);
    // Nothing known and nothing cached: neutral values, never "Unlocking…".
    await expect(read(GATE, Service.LockMechanism, Characteristic.LockTargetState)).resolves.toBe(Characteristic.LockTargetState.SECURED);
    await expect(read(GATE, Service.Battery, Characteristic.BatteryLevel)).resolves.toBe(0);
    await expect(read(GATE, Service.Battery, Characteristic.StatusLowBattery)).resolves.toBe(Characteristic.StatusLowBattery.BATTERY_LEVEL_NORMAL);
  });

  it('accepts and ignores LockControlPoint writes', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    const controlPoint = run.characteristic(FRONT, Service.LockManagement, Characteristic.LockControlPoint);
    await expect(controlPoint.handleSetRequest('AQIDBA==')).resolves.toBeUndefined();
    expect(run.port.requests).toEqual([]);
    expect(run.log.text()).toContain('ignored a LockControlPoint write');
  });
});

describe('EKeyLocksPlatform commands from HomeKit', () => {
  it('queues the command as the lock owner and returns before the lock answers', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    run.port.answerCommandsWith({ kind: 'hold' });
    const target = run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockTargetState);
    const current = run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockCurrentState);
    await target.handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    expect(run.port.requests).toEqual([{ lockId: FRONT.id, target: 'unlocked', asUserId: 'olivia', type: 'unlock' }]);
    // Still locked while the command runs; reads answer at once.
    await expect(current.handleGetRequest()).resolves.toBe(Characteristic.LockCurrentState.SECURED);
    await expect(target.handleGetRequest()).resolves.toBe(Characteristic.LockTargetState.UNSECURED);
    run.port.releaseHeld();
    await outcomeLogged(run, 'Front Door: unlocked from HomeKit');
    expect(current.value).toBe(Characteristic.LockCurrentState.UNSECURED);
    expect(target.value).toBe(Characteristic.LockTargetState.UNSECURED);
    expect(run.characteristic(FRONT, Service.LockManagement, Characteristic.LockLastKnownAction).value).toBe(
      Characteristic.LockLastKnownAction.UNSECURED_REMOTELY,
    );
  });

  it('acts as the configured HomeKit user', async () => {
    const run = await startPlatform({ homekit: { user_email: 'ALEX@example.com' } });
    const { Service, Characteristic } = hap(run);
    await run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockTargetState).handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    expect(run.port.requests[0]?.asUserId).toBe('alex');
  });

  it('refuses commands while the configured HomeKit user does not exist, and sets the target back', async () => {
    const run = await startPlatform({ homekit: { user_email: 'nobody@example.com' } });
    const { Service, Characteristic } = hap(run);
    expect(run.log.text()).toContain('homekit.user_email nobody@example.com is not a known user');
    const target = run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockTargetState);
    await target.handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    // The refusal puts the target back once HAP stored the write; no command was sent (that would have been synchronous).
    await until(() => target.value === Characteristic.LockTargetState.SECURED, 'the target set back');
    expect(run.port.requests).toEqual([]);
    expect(target.value).toBe(Characteristic.LockTargetState.SECURED);
  });

  it.each([
    [{ status: 'failed', reason: 'timeout', commandId: 'c1' } as const, 'failed: timeout'],
    [{ status: 'failed', reason: 'lock_offline', commandId: 'c1' } as const, 'failed: lock_offline'],
    [{ status: 'rejected', reason: 'no_usable_key' } as const, 'refused: no_usable_key'],
    [{ status: 'rejected', reason: 'lock_unreachable' } as const, 'refused: lock_unreachable'],
  ])('sets the target back to the current state and logs why when the command ends %o', async (result, logged) => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    run.port.answerCommandsWith({ kind: 'answer', result });
    const target = run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockTargetState);
    const current = run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockCurrentState);
    await target.handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    await outcomeLogged(run, `Front Door: HomeKit unlock command ${logged}`);
    expect(target.value).toBe(Characteristic.LockTargetState.SECURED);
    expect(current.value).toBe(Characteristic.LockCurrentState.SECURED);
    expect(run.log.text()).toContain(`Front Door: HomeKit unlock command ${logged}`);
  });

  it.each([
    [{ status: 'failed', reason: 'timeout', commandId: 'c1' } as const],
    [{ status: 'rejected', reason: 'lock_unreachable' } as const],
  ])('puts the target back to where it was before the write when the bolt is unknown and the command ends %o', async (result) => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    run.port.answerCommandsWith({ kind: 'answer', result });
    const target = run.characteristic(GATE, Service.LockMechanism, Characteristic.LockTargetState);
    expect(run.characteristic(GATE, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(Characteristic.LockCurrentState.UNKNOWN);
    const before = target.value;
    expect(before).toBe(Characteristic.LockTargetState.SECURED);
    await target.handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    await outcomeLogged(run, `Garden Gate: HomeKit unlock command ${ended(result)}`);
    expect(target.value).toBe(before);
    expect(run.pushes(GATE, Service.LockMechanism, Characteristic.LockTargetState)).toEqual([before]);

    // And from the other side: a target of UNSECURED before the write comes back as UNSECURED.
    run.port.answerCommandsWith({ kind: 'complete' });
    await target.handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    await outcomeLogged(run, 'Garden Gate: unlocked from HomeKit');
    run.port.moveBolt(GATE.id, 'unknown', null);
    run.port.answerCommandsWith({ kind: 'answer', result });
    await target.handleSetRequest(Characteristic.LockTargetState.SECURED);
    await outcomeLogged(run, `Garden Gate: HomeKit lock command ${ended(result)}`);
    expect(target.value).toBe(Characteristic.LockTargetState.UNSECURED);
  });

  it('shows JAMMED when the command jams the bolt', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    run.port.answerCommandsWith({ kind: 'answer', result: { status: 'failed', reason: 'jammed', commandId: 'c1' } });
    const target = run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockTargetState);
    await target.handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    await outcomeLogged(run, 'Front Door: HomeKit unlock command failed: jammed');
    expect(run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(Characteristic.LockCurrentState.JAMMED);
    expect(run.log.text()).toContain('failed: jammed');
  });

  it('survives a port that breaks its promise never to reject', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    run.port.requestCommand = () => Promise.reject(new Error('boom'));
    const target = run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockTargetState);
    await target.handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    // The lost command ends as refused (unavailable), which is applied like any outcome.
    await outcomeLogged(run, 'Front Door: HomeKit unlock command refused: unavailable');
    expect(target.value).toBe(Characteristic.LockTargetState.SECURED);
    expect(run.log.text()).toContain('command failed unexpectedly: boom');
  });
});

describe('EKeyLocksPlatform changes outside HomeKit', () => {
  it.each([
    ['tap', 'unlocked', 'UNSECURED_PHYSICALLY_EXTERIOR'],
    ['manual', 'unlocked', 'UNSECURED_PHYSICALLY'],
    ['remote', 'unlocked', 'UNSECURED_REMOTELY'],
    ['auto', 'locked', 'SECURED_BY_AUTO_SECURE_TIMEOUT'],
  ] as const)('a %s move to %s updates current and target state and the last action', async (source, bolt, action) => {
    const lock = { ...FRONT, bolt: bolt === 'locked' ? 'unlocked' : 'locked' } satisfies PortLock;
    const run = await startPlatform({ locks: [lock] });
    const { Service, Characteristic } = hap(run);
    run.port.moveBolt(lock.id, bolt, source);
    const expected = bolt === 'locked' ? 1 : 0;
    expect(run.characteristic(lock, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(expected);
    expect(run.characteristic(lock, Service.LockMechanism, Characteristic.LockTargetState).value).toBe(expected);
    expect(run.characteristic(lock, Service.LockManagement, Characteristic.LockLastKnownAction).value).toBe(Characteristic.LockLastKnownAction[action]);
  });

  it('shows a jam as JAMMED and keeps the target', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    run.port.moveBolt(FRONT.id, 'jammed', 'remote');
    expect(run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(Characteristic.LockCurrentState.JAMMED);
    expect(run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockTargetState).value).toBe(Characteristic.LockTargetState.SECURED);
    run.port.moveBolt(FRONT.id, 'unlocked', 'manual');
    expect(run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(Characteristic.LockCurrentState.UNSECURED);
  });

  it('reports battery level and low battery below the configured threshold', async () => {
    const run = await startPlatform({ homekit: { low_battery_threshold: 0.3 } });
    const { Service, Characteristic } = hap(run);
    run.port.setBattery(FRONT.id, 0.42);
    expect(run.characteristic(FRONT, Service.Battery, Characteristic.BatteryLevel).value).toBe(42);
    expect(run.characteristic(FRONT, Service.Battery, Characteristic.StatusLowBattery).value).toBe(Characteristic.StatusLowBattery.BATTERY_LEVEL_NORMAL);
    run.port.setBattery(FRONT.id, 0.25);
    expect(run.characteristic(FRONT, Service.Battery, Characteristic.BatteryLevel).value).toBe(25);
    expect(run.characteristic(FRONT, Service.Battery, Characteristic.StatusLowBattery).value).toBe(Characteristic.StatusLowBattery.BATTERY_LEVEL_LOW);
  });

  it('does not push values that did not change', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    const current = () => run.pushes(FRONT, Service.LockMechanism, Characteristic.LockCurrentState);
    const level = () => run.pushes(FRONT, Service.Battery, Characteristic.BatteryLevel);
    current();
    level();
    run.port.moveBolt(FRONT.id, 'locked', 'manual');
    run.port.setBattery(FRONT.id, 0.9);
    run.port.setBattery(FRONT.id, 0.901);
    expect(current()).toEqual([]);
    expect(level()).toEqual([]);
    run.port.moveBolt(FRONT.id, 'unlocked', 'manual');
    run.port.moveBolt(FRONT.id, 'unlocked', 'manual');
    run.port.setBattery(FRONT.id, 0.5);
    run.port.setBattery(FRONT.id, 0.5);
    expect(current()).toEqual([Characteristic.LockCurrentState.UNSECURED]);
    expect(level()).toEqual([50]);
  });

  it('keeps the last state of a lock that goes offline and shows StatusFault, with reads that never throw', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    run.port.setOnline(FRONT.id, false);
    const fault = run.characteristic(FRONT, Service.LockMechanism, Characteristic.StatusFault);
    await expect(fault.handleGetRequest()).resolves.toBe(Characteristic.StatusFault.GENERAL_FAULT);
    await expect(run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockCurrentState).handleGetRequest()).resolves.toBe(
      Characteristic.LockCurrentState.SECURED,
    );
    run.port.setOnline(FRONT.id, true);
    expect(fault.value).toBe(Characteristic.StatusFault.NO_FAULT);
  });

  it('keeps other locks working when one lock’s change cannot be applied', async () => {
    const run = await startPlatform();
    const { Service, Characteristic } = hap(run);
    run.port.emit({ kind: 'bolt', lockId: FRONT.id, bolt: 'sideways' as Bolt, source: 'manual' });
    expect(run.log.lines.some((line) => line.level === 'error' && line.message.includes('Front Door'))).toBe(true);
    run.port.moveBolt(GATE.id, 'locked', 'manual');
    expect(run.characteristic(GATE, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(Characteristic.LockCurrentState.SECURED);
    run.port.moveBolt(FRONT.id, 'unlocked', 'manual');
    expect(run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(Characteristic.LockCurrentState.UNSECURED);
  });
});

describe('EKeyLocksPlatform arrival triggers', () => {
  it('adds one stateless switch per configured user to every lock, and skips unknown e-mails', async () => {
    const run = await startPlatform({ homekit: { arrival_triggers: ['alex@example.com', 'blake@example.com', 'ghost@example.com'] } });
    const { Service, Characteristic } = hap(run);
    const switches = run.accessory(FRONT).services.filter((service) => service.UUID === Service.StatelessProgrammableSwitch.UUID);
    expect(switches.map((service) => [service.subtype, service.getCharacteristic(Characteristic.ServiceLabelIndex).value])).toEqual([
      ['arrival-alex', 1],
      ['arrival-blake', 2],
    ]);
    expect(switches[0]?.getCharacteristic(Characteristic.Name).value).toBe('Front Door Alex Adams Arrived');
    expect(switches[0]?.getCharacteristic(Characteristic.ProgrammableSwitchEvent).props.validValues).toEqual([0]);
    expect(run.accessory(FRONT).getService(Service.ServiceLabel)).toBeDefined();
    expect(run.accessory(GATE).services.filter((service) => service.UUID === Service.StatelessProgrammableSwitch.UUID)).toHaveLength(2);
    expect(run.log.text()).toContain('Arrival trigger for ghost@example.com: no such user; skipped.');
  });

  it('fires SINGLE_PRESS when that user unlocks by tap, every time, and not for others or for locking', async () => {
    const run = await startPlatform({ homekit: { arrival_triggers: ['alex@example.com', 'blake@example.com'] } });
    const { Service, Characteristic } = hap(run);
    const alexSwitch = run.characteristic(FRONT, Service.StatelessProgrammableSwitch, Characteristic.ProgrammableSwitchEvent, 'arrival-alex');
    const blakeSwitch = run.characteristic(FRONT, Service.StatelessProgrammableSwitch, Characteristic.ProgrammableSwitchEvent, 'arrival-blake');
    const alex: unknown[] = [];
    const blake: unknown[] = [];
    alexSwitch.on('change', (change: CharacteristicChange) => alex.push(change.newValue));
    blakeSwitch.on('change', (change: CharacteristicChange) => blake.push(change.newValue));
    run.port.tap(FRONT.id, 'alex', 'unlock');
    run.port.tap(FRONT.id, 'alex', 'lock');
    run.port.tap(FRONT.id, 'alex', 'unlock');
    run.port.tap(FRONT.id, 'olivia', 'unlock');
    expect(alex).toEqual([Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS, Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS]);
    expect(blake).toEqual([]);
    await expect(alexSwitch.handleGetRequest()).resolves.toBeNull();
  });
});

describe('EKeyLocksPlatform door sensor (a Nuki with a door sensor, docs/design.md §4b)', () => {
  const BACK = testLock({
    id: '6f1d2c3b-0000-4000-8000-000000000003',
    name: 'Back Door',
    bleAddress: '54:D2:72:AB:CD:EF',
    ownerId: 'olivia',
    deviceInformation: { manufacturer: 'Nuki Home Solutions', model: 'Nuki Smart Lock (hardware 2.0)', serial: '2ABCDEF0', firmware: '2.14.6' },
  });
  const contactServices = (run: Running, lock: PortLock): Service[] =>
    run.accessory(lock).services.filter((service) => service.UUID === hap(run).Service.ContactSensor.UUID);

  it('has no ContactSensor until the lock reports a door, then adds one and follows it', async () => {
    const run = await startPlatform({ locks: [FRONT, BACK] });
    const { Service, Characteristic } = hap(run);
    expect(contactServices(run, BACK)).toEqual([]);
    run.port.emit({ kind: 'door', lockId: BACK.id, door: 'closed' });
    expect(contactServices(run, BACK)).toHaveLength(1);
    expect(contactServices(run, BACK)[0]?.getCharacteristic(Characteristic.Name).value).toBe('Back Door Sensor');
    const state = run.characteristic(BACK, Service.ContactSensor, Characteristic.ContactSensorState);
    const fault = run.characteristic(BACK, Service.ContactSensor, Characteristic.StatusFault);
    await expect(state.handleGetRequest()).resolves.toBe(Characteristic.ContactSensorState.CONTACT_DETECTED);
    await expect(fault.handleGetRequest()).resolves.toBe(Characteristic.StatusFault.NO_FAULT);
    run.port.emit({ kind: 'door', lockId: BACK.id, door: 'open' });
    expect(state.value).toBe(Characteristic.ContactSensorState.CONTACT_NOT_DETECTED);
    // The sensor cannot tell: the last state stays, with a fault.
    run.port.emit({ kind: 'door', lockId: BACK.id, door: 'unknown' });
    expect(state.value).toBe(Characteristic.ContactSensorState.CONTACT_NOT_DETECTED);
    expect(fault.value).toBe(Characteristic.StatusFault.GENERAL_FAULT);
    run.port.emit({ kind: 'door', lockId: BACK.id, door: 'closed' });
    expect([state.value, fault.value]).toEqual([Characteristic.ContactSensorState.CONTACT_DETECTED, Characteristic.StatusFault.NO_FAULT]);
    run.port.emit({ kind: 'door', lockId: BACK.id, door: 'open' });
    expect(contactServices(run, BACK)).toHaveLength(1);
    // A lock without a door sensor never gets one; the lock mechanism is unaffected.
    expect(contactServices(run, FRONT)).toEqual([]);
    expect(run.characteristic(BACK, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(Characteristic.LockCurrentState.SECURED);
  });

  it('shows the door from the start when the lock already reported it', async () => {
    const run = await startPlatform({ locks: [{ ...BACK, door: 'open' }] });
    const { Service, Characteristic } = hap(run);
    expect(contactServices(run, BACK)).toHaveLength(1);
    await expect(run.characteristic(BACK, Service.ContactSensor, Characteristic.ContactSensorState).handleGetRequest()).resolves.toBe(
      Characteristic.ContactSensorState.CONTACT_NOT_DETECTED,
    );
  });

  it('keeps a cached ContactSensor with its last value across a restart until the lock reports its door again', async () => {
    const first = await startPlatform({ locks: [BACK] });
    const { Service, Characteristic } = hap(first);
    first.port.emit({ kind: 'door', lockId: BACK.id, door: 'open' });
    const cache = first.harness.serializeCache();
    first.harness.api.signalShutdown();

    // Restarted; the lock has not been read yet (door null).
    const restarted = await startPlatform({ locks: [{ ...BACK, door: null }], cache });
    expect(restarted.harness.calls).toEqual({ register: 0, update: 1, unregister: 0 });
    expect(contactServices(restarted, BACK)).toHaveLength(1);
    const state = restarted.characteristic(BACK, Service.ContactSensor, Characteristic.ContactSensorState);
    await expect(state.handleGetRequest()).resolves.toBe(Characteristic.ContactSensorState.CONTACT_NOT_DETECTED);
    restarted.port.emit({ kind: 'door', lockId: BACK.id, door: 'closed' });
    expect(state.value).toBe(Characteristic.ContactSensorState.CONTACT_DETECTED);
    expect(contactServices(restarted, BACK)).toHaveLength(1);
  });

  it('fires the arrival trigger of a user whose linked Nuki authorization unlocked', async () => {
    const run = await startPlatform({ locks: [BACK], homekit: { arrival_triggers: ['olivia@example.com'] } });
    const { Service, Characteristic } = hap(run);
    const olivia: unknown[] = [];
    run.characteristic(BACK, Service.StatelessProgrammableSwitch, Characteristic.ProgrammableSwitchEvent, 'arrival-olivia').on('change', (change: CharacteristicChange) =>
      olivia.push(change.newValue),
    );
    // As the service reports a linked tap: the bolt moves (source tap), then the tap by that user.
    run.port.tap(BACK.id, 'olivia', 'unlock');
    expect(olivia).toEqual([Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS]);
    expect(run.characteristic(BACK, Service.LockManagement, Characteristic.LockLastKnownAction).value).toBe(
      Characteristic.LockLastKnownAction.UNSECURED_PHYSICALLY_EXTERIOR,
    );
  });
});

describe('EKeyLocksPlatform cache and lifecycle', () => {
  it('restores cached accessories, unregisters stale ones and prunes unused services', async () => {
    const first = await startPlatform({ homekit: { arrival_triggers: ['alex@example.com'] } });
    const { Service, Characteristic, uuid } = hap(first);
    first.accessory(FRONT).addService(Service.Switch, 'Leftover', 'old');
    first.port.setBattery(FRONT.id, 0.55);
    const cache = first.harness.serializeCache();
    first.harness.api.signalShutdown();

    // Restart: the gate left the config, arrival triggers were switched off.
    const restarted = await startPlatform({ locks: [{ ...FRONT, batteryLevel: null }], cache });
    expect(restarted.harness.calls).toEqual({ register: 0, update: 1, unregister: 1 });
    expect([...restarted.harness.published.keys()]).toEqual([uuid.generate(FRONT.id)]);
    const front = restarted.accessory(FRONT);
    expect(front.services.map((service) => service.UUID).sort()).toEqual(
      [Service.AccessoryInformation.UUID, Service.LockMechanism.UUID, Service.Battery.UUID, Service.LockManagement.UUID].sort(),
    );
    // Values HomeKit had before the restart stay until the lock reports again.
    expect(restarted.characteristic(FRONT, Service.Battery, Characteristic.BatteryLevel).value).toBe(55);
    expect(restarted.log.text()).toContain('Removed HomeKit accessory Garden Gate');
    expect(restarted.log.text()).toContain('Restored HomeKit accessory Front Door');
  });

  it('follows locks added and removed while running', async () => {
    const run = await startPlatform({ locks: [FRONT] });
    run.port.addLock(GATE);
    expect(run.harness.published.size).toBe(2);
    run.port.removeLock(FRONT.id);
    expect([...run.harness.published.keys()]).toEqual([hap(run).uuid.generate(GATE.id)]);
  });

  it('leaves out an invalid setting with one line and runs with its default (docs/design.md §9: never the whole plugin)', async () => {
    const first = await startPlatform();
    const cache = first.harness.serializeCache();
    first.harness.api.signalShutdown();
    const run = await startPlatform({ cache, config: { homekit: { low_battery_threshold: 7 } } });
    // The accessories are restored and run, as with the setting left out.
    expect(run.harness.calls).toEqual({ register: 0, update: 1, unregister: 0 });
    expect(run.log.text()).not.toContain('not started');
    expect(run.log.text().split('\n').filter((line) => line.includes('homekit.low_battery_threshold'))).toEqual([
      'error homekit.low_battery_threshold: must be at most 1; left out, so its default applies.',
    ]);
  });

  it('ignores the empty entries the Homebridge UI\'s form saves, with one line each, and runs the configured locks', async () => {
    const run = await startPlatform({ config: { locks: [{ family: 'ekey', gateway: true, keypad: false }], clients: [{ public: false }], users: [{ can_send_ekeys: true }], smtp: { secure: false } } });
    expect(run.harness.published.size).toBe(2);
    expect(run.log.text()).not.toMatch(/^error /m);
    expect(run.log.text().split('\n').filter((line) => line.includes('has nothing filled in'))).toHaveLength(3);
  });

  it('logs one line for a lock entry it leaves out, runs the rest, and keeps that lock’s cached accessory until the entry is fixed', async () => {
    const first = await startPlatform();
    const cache = first.harness.serializeCache();
    first.harness.api.signalShutdown();
    // The gate's entry got a typo: the service (here in memory) runs without it.
    const typo = { name: 'Garden Gate', address: 'D0:E1:00:00:00:02', key: 'a'.repeat(64), owner_email: 'olivia@example.com', time_zone: 'Europe/Berln' };
    const restarted = await startPlatform({ locks: [FRONT], cache, config: { locks: [typo] } });
    const errors = restarted.log.lines.filter((line) => line.level === 'error').map((line) => line.message);
    expect(errors).toEqual(['Lock "Garden Gate" (locks[0]) is left out: time_zone: "Europe/Berln" is not an IANA time zone (e.g. "Europe/Berlin"). The other locks run.']);
    expect(restarted.harness.calls).toEqual({ register: 0, update: 1, unregister: 0 });
    expect(restarted.log.text()).toContain('Restored HomeKit accessory Front Door');
  });

  it('stops a start-up that Homebridge shuts down half-way, registering nothing', async () => {
    const harness = await createHomebridgeHarness();
    const service = new InMemoryService(new InMemoryLockPort([FRONT], USERS));
    let open: (() => void) | undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const platform = new EKeyLocksPlatform(recordingLogging(), { platform: PLATFORM_NAME, demo: true }, harness.api, {
      openService: async () => {
        await opened;
        return service;
      },
    });
    harness.api.signalFinished();
    harness.api.signalShutdown();
    open?.();
    await platform.whenStarted();
    // Registering would have happened in the start-up whenStarted waited for; closing follows it in the shutdown.
    await until(() => service.closed, 'the service closed');
    expect(harness.calls.register).toBe(0);
    expect(service.closed).toBe(true);
  });

  it('unsubscribes and closes the service on shutdown', async () => {
    const run = await startPlatform();
    expect(run.port.listenerCount).toBe(1);
    run.harness.api.signalShutdown();
    // The shutdown unsubscribes, then closes the service.
    await until(() => run.service.closed, 'the service closed');
    expect(run.port.listenerCount).toBe(0);
    expect(run.service.closed).toBe(true);
  });

  it('records why a start did not bring the service up, for the settings page, and clears it once it runs', async () => {
    const harness = await createHomebridgeHarness();
    const report = new StartReportFile(join(harness.api.user.storagePath(), 'ekey-locks'));
    const bad = { platform: PLATFORM_NAME, name: 'eKey Locks', locks: [{ name: 'Test Door', address: 'D0:E1:00:00:00:09', key: 'not hex', owner_email: 'o@example.com' }] } as PlatformConfig;
    const failed = new EKeyLocksPlatform(recordingLogging(), bad, harness.api, { openService: () => Promise.reject(new Error('must not open')) });
    harness.api.signalFinished();
    await failed.whenStarted();
    const lines = report.read()?.lines ?? [];
    expect(lines[0]).toMatch(/^Lock "?Test Door"? \(locks\[0\]\) is left out: .*key/);
    harness.api.signalShutdown();

    // A later start that runs clears the old report.
    const next = await createHomebridgeHarness();
    const nextReport = new StartReportFile(join(next.api.user.storagePath(), 'ekey-locks'));
    nextReport.write(['an old failure']);
    const service = new InMemoryService(new InMemoryLockPort([FRONT], USERS));
    const platform = new EKeyLocksPlatform(recordingLogging(), { platform: PLATFORM_NAME, name: 'eKey Locks', demo: true }, next.api, { openService: openInMemory(service), writeDemoLine: () => undefined });
    next.api.signalFinished();
    await platform.whenStarted();
    expect(nextReport.read()).toBeUndefined();
    next.api.signalShutdown();
  });
});

describe('EKeyLocksPlatform: the Nuki Opener and unlatch (docs/design.md §4d)', () => {
  const BUILDING = testLock({ id: '6f1d2c3b-0000-4000-8000-000000000004', name: 'Building Door', family: 'nuki-opener', bleAddress: '54:D2:72:AB:CD:04', ownerId: 'olivia' });
  const BACK = testLock({ id: '6f1d2c3b-0000-4000-8000-000000000003', name: 'Back Door', family: 'nuki', bleAddress: '54:D2:72:AB:CD:03', ownerId: 'olivia' });
  const mechanisms = (run: Running, lock: PortLock): Service[] => run.accessory(lock).services.filter((service) => service.UUID === hap(run).Service.LockMechanism.UUID);

  it('shows the Opener as a lock with a Doorbell pressed on every live ring, and switches for Ring to Open and Continuous Mode', async () => {
    const run = await startPlatform({ locks: [FRONT, BUILDING] });
    const { Service, Characteristic } = hap(run);
    const doorbell = run.characteristic(BUILDING, Service.Doorbell, Characteristic.ProgrammableSwitchEvent);
    const presses: unknown[] = [];
    doorbell.on('change', (change: CharacteristicChange) => presses.push(change.newValue));
    run.port.emit({ kind: 'ring', lockId: BUILDING.id, opened: false });
    run.port.emit({ kind: 'ring', lockId: BUILDING.id, opened: true });
    expect(presses).toEqual([Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS, Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS]);
    expect(run.accessory(BUILDING).getServiceById(Service.Switch, 'ring-to-open')?.getCharacteristic(Characteristic.Name).value).toBe('Building Door Ring to Open');
    expect(run.accessory(BUILDING).getServiceById(Service.Switch, 'continuous-mode')?.getCharacteristic(Characteristic.Name).value).toBe('Building Door Continuous Mode');
    // Front Door (our profile) has none of it, whatever rings elsewhere.
    expect(run.accessory(FRONT).getService(Service.Doorbell)).toBeUndefined();
    expect(run.accessory(FRONT).getService(Service.Switch)).toBeUndefined();
  });

  it('runs the mode commands from the switches and follows the modes the Opener reports; a refused command puts the switch back', async () => {
    const run = await startPlatform({ locks: [BUILDING] });
    const { Service, Characteristic } = hap(run);
    const ringToOpen = run.characteristic(BUILDING, Service.Switch, Characteristic.On, 'ring-to-open');
    const continuous = run.characteristic(BUILDING, Service.Switch, Characteristic.On, 'continuous-mode');
    expect(ringToOpen.value).toBe(false);
    await ringToOpen.handleSetRequest(true);
    // The command is sent from the write handler; its completion moves the Opener's "bolt" (docs/design.md §4d).
    expect(run.port.requests.at(-1)).toMatchObject({ lockId: BUILDING.id, type: 'ring_to_open_on', asUserId: 'olivia' });
    await until(() => run.characteristic(BUILDING, Service.LockMechanism, Characteristic.LockCurrentState).value === Characteristic.LockCurrentState.UNSECURED, 'the completed command');
    run.port.emit({ kind: 'modes', lockId: BUILDING.id, modes: { ringToOpen: false, continuousMode: true } });
    expect(ringToOpen.value).toBe(false);
    expect(continuous.value).toBe(true);
    run.port.answerCommandsWith({ kind: 'answer', result: { status: 'rejected', reason: 'lock_unreachable' } });
    await continuous.handleSetRequest(false);
    await outcomeLogged(run, 'Building Door: HomeKit continuous_mode_off refused: lock_unreachable');
    expect(run.port.requests.at(-1)).toMatchObject({ type: 'continuous_mode_off' });
    expect(continuous.value).toBe(true);
  });

  it('opens the strike on a LockMechanism unlock of the Opener (an unlock command)', async () => {
    const run = await startPlatform({ locks: [BUILDING] });
    const { Service, Characteristic } = hap(run);
    await run.characteristic(BUILDING, Service.LockMechanism, Characteristic.LockTargetState).handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    // Its outcome is the last thing the write leads to: any further command would have been sent by then.
    await outcomeLogged(run, 'Building Door: unlocked from HomeKit');
    expect(run.port.requests.map((request) => request.type)).toEqual(['unlock']);
  });

  it('homekit.unlatch "off" (default): one lock service; a HomeKit unlock unlocks', async () => {
    const run = await startPlatform({ locks: [BACK] });
    const { Service, Characteristic } = hap(run);
    expect(mechanisms(run, BACK)).toHaveLength(1);
    await run.characteristic(BACK, Service.LockMechanism, Characteristic.LockTargetState).handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    await outcomeLogged(run, 'Back Door: unlocked from HomeKit');
    expect(run.port.requests.map((request) => request.type)).toEqual(['unlock']);
  });

  it('restores the Opener and the separate unlatch service from the cache after a restart, the same services and no error', async () => {
    // Subtyped services (the Opener's two switches, "Open Back Door") must be found on a cached
    // accessory, not added a second time (HAP refuses that: the accessory was left out).
    const first = await startPlatform({ locks: [BACK, BUILDING], homekit: { unlatch: 'separate' } });
    const { Service } = hap(first);
    const switches = (run: typeof first): (string | undefined)[] =>
      run
        .accessory(BUILDING)
        .services.filter((service) => service.UUID === Service.Switch.UUID)
        .map((service) => service.subtype)
        .sort();
    expect(switches(first)).toEqual(['continuous-mode', 'ring-to-open']);
    const cache = first.harness.serializeCache();
    first.harness.api.signalShutdown();

    const restarted = await startPlatform({ locks: [BACK, BUILDING], homekit: { unlatch: 'separate' }, cache });
    expect(restarted.log.lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(restarted.harness.calls).toEqual({ register: 0, update: 1, unregister: 0 });
    expect(switches(restarted)).toEqual(['continuous-mode', 'ring-to-open']);
    expect(mechanisms(restarted, BACK)).toHaveLength(2);
    expect(restarted.accessory(BUILDING).getServiceById(Service.Switch, 'ring-to-open')?.displayName).toBe('Building Door Ring to Open');
  });

  it('homekit.unlatch "separate": "Open Back Door" unlatches and locks, follows the bolt, and only locks that can unlatch get it', async () => {
    const run = await startPlatform({ locks: [FRONT, BACK, BUILDING], homekit: { unlatch: 'separate' } });
    const { Service, Characteristic } = hap(run);
    expect(mechanisms(run, BACK)).toHaveLength(2);
    expect(mechanisms(run, FRONT)).toHaveLength(1);
    expect(mechanisms(run, BUILDING)).toHaveLength(1);
    const open = run.accessory(BACK).getServiceById(Service.LockMechanism, 'unlatch');
    expect(open?.getCharacteristic(Characteristic.Name).value).toBe('Open Back Door');
    const openTarget = run.characteristic(BACK, Service.LockMechanism, Characteristic.LockTargetState, 'unlatch');
    const openCurrent = run.characteristic(BACK, Service.LockMechanism, Characteristic.LockCurrentState, 'unlatch');
    await openTarget.handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    expect(run.port.requests.at(-1)).toMatchObject({ lockId: BACK.id, type: 'unlatch' });
    await until(() => openCurrent.value === Characteristic.LockCurrentState.UNSECURED, 'the unlatch shown');
    expect(openCurrent.value).toBe(Characteristic.LockCurrentState.UNSECURED);
    expect(run.characteristic(BACK, Service.LockMechanism, Characteristic.LockCurrentState).value).toBe(Characteristic.LockCurrentState.UNSECURED);
    // The main service still unlocks without unlatching. Outcomes are applied in order: once the
    // lock's is logged, the unlatch's has been applied too.
    await run.characteristic(BACK, Service.LockMechanism, Characteristic.LockTargetState).handleSetRequest(Characteristic.LockTargetState.SECURED);
    await outcomeLogged(run, 'Back Door: locked from HomeKit');
    expect(openCurrent.value).toBe(Characteristic.LockCurrentState.SECURED);
    await run.characteristic(BACK, Service.LockMechanism, Characteristic.LockTargetState).handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    await outcomeLogged(run, 'Back Door: unlocked from HomeKit');
    expect(run.port.requests.map((request) => request.type)).toEqual(['unlatch', 'lock', 'unlock']);
  });

  it('homekit.unlatch "on_unlock": every HomeKit unlock of a lock that can unlatch unlatches; others unlock', async () => {
    const run = await startPlatform({ locks: [FRONT, BACK], homekit: { unlatch: 'on_unlock' } });
    const { Service, Characteristic } = hap(run);
    expect(mechanisms(run, BACK)).toHaveLength(1);
    await run.characteristic(BACK, Service.LockMechanism, Characteristic.LockTargetState).handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    await run.characteristic(FRONT, Service.LockMechanism, Characteristic.LockTargetState).handleSetRequest(Characteristic.LockTargetState.UNSECURED);
    await outcomeLogged(run, 'Back Door: unlocked from HomeKit');
    await outcomeLogged(run, 'Front Door: unlocked from HomeKit');
    expect(run.port.requests.map((request) => `${request.lockId === BACK.id ? 'back' : 'front'}:${request.type}`)).toEqual(['back:unlatch', 'front:unlock']);
  });
});
