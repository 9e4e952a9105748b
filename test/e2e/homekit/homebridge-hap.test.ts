import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Characteristic, Service } from '@homebridge/hap-nodejs';
import type { AccessoryObject } from 'hap-controller/lib/model/accessory.js';
import { findAccessory, findCharacteristic, serialNumberOf, serviceTypes, type CharacteristicAddress } from '../../support/hap-test-controller.js';
import { canUsePrivateNetwork, describeWhen } from '../../support/homebridge-process.js';
import { HomeKitDemoBridge } from '../../support/homekit-demo-bridge.js';
import { eventually, readUntil } from '../../support/polling.js';

/*
 * The real `homebridge` binary with this plugin in demo mode (simulated locks behind the real
 * gateway and command engine), inside a private network namespace, driven by hap-controller as
 * the Home app would drive it. The simulated locks are moved through the demo control socket
 * (EKEY_DEMO_CONTROL) and the REST API.
 */

const FRONT_DOOR_SERIAL = 'D0:E1:00:00:00:01';
const GARDEN_GATE_SERIAL = 'D0:E1:00:00:00:02';
/**
 * Back Door, the demo's simulated Nuki (docs/design.md §4b), found by its name: its serial number is its
 * Nuki ID from the lock's Config (8 hex digits), known once the gateway has read it.
 */
const BACK_DOOR_SERIAL = 'Back Door';
/** Side Door, a TTLock: HomeKit shows its Bluetooth address, as the TTLock app names a lock by it. */
const SIDE_DOOR_SERIAL = 'D0:E1:00:00:00:05';
const LINKED_AUTHORIZATION = "Olivia's iPhone";
const USERNAME = '0E:4B:00:00:E2:E1';
const describeE2E = describeWhen(canUsePrivateNetwork(), 'The HomeKit end-to-end test runs Homebridge in a private network namespace and needs root (unshare -n, ip). Run as root.');

describeE2E('Homebridge with eKey Locks, driven by a HomeKit controller', () => {
  const bridge = new HomeKitDemoBridge({
    storagePrefix: 'ekey-hb-storage-',
    pin: '031-45-154',
    username: USERNAME,
    platform: { homekit: { arrival_triggers: ['olivia@example.com'], low_battery_threshold: 0.2 } },
  });
  let accessories: AccessoryObject[];
  const address = (serial: string, service: string, characteristic: string, nth = 0): CharacteristicAddress =>
    findCharacteristic(accessories, serial, service, characteristic, nth);
  const front = {
    current: (): CharacteristicAddress => address(FRONT_DOOR_SERIAL, Service.LockMechanism.UUID, Characteristic.LockCurrentState.UUID),
    target: (): CharacteristicAddress => address(FRONT_DOOR_SERIAL, Service.LockMechanism.UUID, Characteristic.LockTargetState.UUID),
    fault: (): CharacteristicAddress => address(FRONT_DOOR_SERIAL, Service.LockMechanism.UUID, Characteristic.StatusFault.UUID),
    battery: (): CharacteristicAddress => address(FRONT_DOOR_SERIAL, Service.Battery.UUID, Characteristic.BatteryLevel.UUID),
    lowBattery: (): CharacteristicAddress => address(FRONT_DOOR_SERIAL, Service.Battery.UUID, Characteristic.StatusLowBattery.UUID),
    lastAction: (): CharacteristicAddress => address(FRONT_DOOR_SERIAL, Service.LockManagement.UUID, Characteristic.LockLastKnownAction.UUID),
    arrival: (): CharacteristicAddress => address(FRONT_DOOR_SERIAL, Service.StatelessProgrammableSwitch.UUID, Characteristic.ProgrammableSwitchEvent.UUID),
  };
  const back = {
    current: (): CharacteristicAddress => address(BACK_DOOR_SERIAL, Service.LockMechanism.UUID, Characteristic.LockCurrentState.UUID),
    target: (): CharacteristicAddress => address(BACK_DOOR_SERIAL, Service.LockMechanism.UUID, Characteristic.LockTargetState.UUID),
    lastAction: (): CharacteristicAddress => address(BACK_DOOR_SERIAL, Service.LockManagement.UUID, Characteristic.LockLastKnownAction.UUID),
    arrival: (): CharacteristicAddress => address(BACK_DOOR_SERIAL, Service.StatelessProgrammableSwitch.UUID, Characteristic.ProgrammableSwitchEvent.UUID),
    contact: (): CharacteristicAddress => address(BACK_DOOR_SERIAL, Service.ContactSensor.UUID, Characteristic.ContactSensorState.UUID),
    contactFault: (): CharacteristicAddress => address(BACK_DOOR_SERIAL, Service.ContactSensor.UUID, Characteristic.StatusFault.UUID),
  };
  const side = {
    current: (): CharacteristicAddress => address(SIDE_DOOR_SERIAL, Service.LockMechanism.UUID, Characteristic.LockCurrentState.UUID),
    target: (): CharacteristicAddress => address(SIDE_DOOR_SERIAL, Service.LockMechanism.UUID, Characteristic.LockTargetState.UUID),
  };
  const backDoorId = (): string => bridge.lockId('Back Door');
  const frontDoorId = (): string => bridge.homebridge.demo.locks[0]?.id ?? '';
  /** Homebridge's output up to the demo line of its first start (later tests restart it). */
  let firstOutput = '';

  /*
   * Each test puts the locks where it needs them before it acts (Jest may run them in any order:
   * `--randomize`). A manual turn is answered once the service shows the bolt.
   */
  const boltAt = (lockId: string, bolt: 'locked' | 'unlocked'): Promise<void> => bridge.control.send({ op: 'manual', lock_id: lockId, bolt });

  /** Lists the accessories again (within a budget) until Back Door shows what comes with its first reading: its door sensor and its Nuki ID. */
  const listAccessoriesUntilBackDoorComplete = async (): Promise<void> => {
    accessories = await readUntil(
      () => bridge.controller.accessories(),
      (listed) => serviceTypes(findAccessory(listed, BACK_DOOR_SERIAL)).includes(Service.ContactSensor.UUID) && /^[0-9A-F]{8}$/.test(String(serialNumberOf(listed, BACK_DOOR_SERIAL))),
      { timeoutMs: 20_000, everyMs: 100 },
    );
  };

  /**
   * One subscribe per connection: hap-controller 0.10.2 attaches a second event reader on a
   * second subscribe, and the two then spin forever on each other's decryption counter.
   */
  const subscribeAll = (): Promise<void> =>
    bridge.controller.subscribe([
      front.current(),
      front.target(),
      front.fault(),
      front.battery(),
      front.lowBattery(),
      front.lastAction(),
      front.arrival(),
      back.current(),
      back.target(),
      back.lastAction(),
      back.arrival(),
      side.current(),
      side.target(),
    ]);

  beforeAll(async () => {
    // Paired and subscribed once, here: every test needs a paired, subscribed controller.
    await bridge.start();
    firstOutput = bridge.homebridge.output();
    await listAccessoriesUntilBackDoorComplete();
    await subscribeAll();
  }, 240_000);

  afterAll(() => bridge.dispose(), 30_000);

  it('prints the demo line once, after the accessories are registered', () => {
    const output = firstOutput;
    expect(output.match(/^EKEY_DEMO /gm)).toHaveLength(1);
    const added = output.indexOf('Added HomeKit accessory Front Door');
    expect(added).toBeGreaterThan(-1);
    expect(added).toBeLessThan(output.indexOf('EKEY_DEMO '));
    expect(bridge.homebridge.demo.locks.map((lock) => lock.name)).toEqual(['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door']);
  });

  it('pairs with the setup PIN and lists one lock accessory per lock', async () => {
    // Paired with the PIN in beforeAll (pair-setup works once per bridge): the pairing verifies.
    expect(Buffer.from(bridge.pairing.AccessoryPairingID, 'hex').toString()).toBe(USERNAME);
    const listed = await bridge.controller.accessories();
    for (const serial of [FRONT_DOOR_SERIAL, GARDEN_GATE_SERIAL]) {
      expect(serviceTypes(findAccessory(listed, serial))).toEqual(
        expect.arrayContaining([Service.AccessoryInformation.UUID, Service.LockMechanism.UUID, Service.Battery.UUID, Service.LockManagement.UUID]),
      );
    }
  });

  it('answers a read of every readable characteristic of every service without an error', async () => {
    await boltAt(frontDoorId(), 'locked');
    const readable = accessories.flatMap((accessory) =>
      accessory.services.flatMap((service) =>
        service.characteristics
          .filter((characteristic) => characteristic.perms?.includes('pr') && characteristic.iid !== undefined)
          .map((characteristic) => `${accessory.aid}.${characteristic.iid}` as CharacteristicAddress),
      ),
    );
    expect(readable.length).toBeGreaterThan(30);
    const values = await bridge.controller.read(readable);
    expect(values.size).toBe(readable.length);

    // Device Information arrives once the gateway has connected; poll until it did.
    const manufacturer = address(FRONT_DOOR_SERIAL, Service.AccessoryInformation.UUID, Characteristic.Manufacturer.UUID);
    await readUntil(() => bridge.controller.readOne(manufacturer), (value) => value === 'Open Lock Project', { everyMs: 100 });
    accessories = await bridge.controller.accessories();
    const information = await bridge.controller.read([
      manufacturer,
      address(FRONT_DOOR_SERIAL, Service.AccessoryInformation.UUID, Characteristic.Model.UUID),
      address(FRONT_DOOR_SERIAL, Service.AccessoryInformation.UUID, Characteristic.FirmwareRevision.UUID),
      address(FRONT_DOOR_SERIAL, Service.LockManagement.UUID, Characteristic.Version.UUID),
      address(FRONT_DOOR_SERIAL, Service.Battery.UUID, Characteristic.ChargingState.UUID),
      front.current(),
      front.target(),
      front.fault(),
    ]);
    expect([...information.values()]).toEqual([
      'Open Lock Project',
      'SIM-1',
      '1.0.0',
      '1.0',
      Characteristic.ChargingState.NOT_CHARGEABLE,
      Characteristic.LockCurrentState.SECURED,
      Characteristic.LockTargetState.SECURED,
      Characteristic.StatusFault.NO_FAULT,
    ]);
    // The Garden Gate has no gateway connection: a fault shown as a value, not a read error.
    await expect(bridge.controller.readOne(address(GARDEN_GATE_SERIAL, Service.LockMechanism.UUID, Characteristic.StatusFault.UUID))).resolves.toBe(
      Characteristic.StatusFault.GENERAL_FAULT,
    );
  }, 30_000);

  it('unlocks from a LockTargetState write and reports LockCurrentState as an event', async () => {
    await boltAt(frontDoorId(), 'locked');
    const mark = bridge.controller.mark();
    await bridge.controller.write(front.target(), Characteristic.LockTargetState.UNSECURED);
    await bridge.controller.waitForEvent(front.current(), Characteristic.LockCurrentState.UNSECURED, mark);
    await bridge.controller.waitForEvent(front.lastAction(), Characteristic.LockLastKnownAction.UNSECURED_REMOTELY, mark);
  });

  it('shows an API command in both current and target state', async () => {
    const token = await bridge.signIn('olivia@example.com');
    const lockId = frontDoorId();
    await boltAt(lockId, 'unlocked');
    const mark = bridge.controller.mark();
    expect((await bridge.api(token, 'POST', `/locks/${lockId}/commands`, { type: 'lock' })).status).toBe(201);
    await bridge.controller.waitForEvent(front.current(), Characteristic.LockCurrentState.SECURED, mark);
    await bridge.controller.waitForEvent(front.target(), Characteristic.LockTargetState.SECURED, mark);
  });

  it('shows a tap in both states and fires the tapping user’s arrival switch', async () => {
    const token = await bridge.signIn('olivia@example.com');
    const lockId = frontDoorId();
    await boltAt(lockId, 'locked');
    const keys = (await bridge.api(token, 'GET', `/locks/${lockId}/ekeys`)).json as { ekeys: { id: string; user_id?: string; type?: string }[] };
    const ownerKey = keys.ekeys.find((key) => key.type === 'owner') ?? keys.ekeys[0];
    expect(ownerKey).toBeDefined();

    const mark = bridge.controller.mark();
    await bridge.control.send({ op: 'tap', lock_id: lockId, ekey_id: ownerKey?.id, action: 'unlock' });
    await bridge.controller.waitForEvent(front.current(), Characteristic.LockCurrentState.UNSECURED, mark);
    await bridge.controller.waitForEvent(front.target(), Characteristic.LockTargetState.UNSECURED, mark);
    await bridge.controller.waitForEvent(front.lastAction(), Characteristic.LockLastKnownAction.UNSECURED_PHYSICALLY_EXTERIOR, mark);
    await bridge.controller.waitForEvent(front.arrival(), Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS, mark);
  });

  it('shows a jam as JAMMED', async () => {
    const lockId = frontDoorId();
    await boltAt(lockId, 'unlocked');
    await bridge.control.send({ op: 'jam', lock_id: lockId });
    const mark = bridge.controller.mark();
    await bridge.controller.write(front.target(), Characteristic.LockTargetState.SECURED);
    await bridge.controller.waitForEvent(front.current(), Characteristic.LockCurrentState.JAMMED, mark);
    // A manual turn frees the bolt; both states follow.
    const freed = bridge.controller.mark();
    await bridge.control.send({ op: 'manual', lock_id: lockId, bolt: 'locked' });
    await bridge.controller.waitForEvent(front.current(), Characteristic.LockCurrentState.SECURED, freed);
    await expect(bridge.controller.readOne(front.target())).resolves.toBe(Characteristic.LockTargetState.SECURED);
  });

  it('shows a battery change in BatteryLevel and StatusLowBattery', async () => {
    const lockId = frontDoorId();
    await bridge.control.send({ op: 'battery', lock_id: lockId, level: 0.5 });
    await expect(bridge.controller.readOne(front.lowBattery())).resolves.toBe(Characteristic.StatusLowBattery.BATTERY_LEVEL_NORMAL);
    const mark = bridge.controller.mark();
    await bridge.control.send({ op: 'battery', lock_id: lockId, level: 0.12 });
    await bridge.controller.waitForEvent(front.battery(), 12, mark);
    await bridge.controller.waitForEvent(front.lowBattery(), Characteristic.StatusLowBattery.BATTERY_LEVEL_LOW, mark);
  });

  it('shows Back Door, the simulated Nuki, with a LockMechanism and a ContactSensor for its door sensor', async () => {
    await boltAt(backDoorId(), 'locked');
    // The door sensor's service comes with the lock's first reading: list the accessories again until it is there.
    await listAccessoriesUntilBackDoorComplete();
    expect(serviceTypes(findAccessory(accessories, BACK_DOOR_SERIAL))).toEqual(
      expect.arrayContaining([Service.AccessoryInformation.UUID, Service.LockMechanism.UUID, Service.Battery.UUID, Service.ContactSensor.UUID]),
    );
    expect(bridge.homebridge.demo.locks.find((lock) => lock.name === 'Back Door')).toMatchObject({ family: 'nuki', gateway: true });
    // Request Config → HomeKit serial (the Nuki ID, as the Nuki app shows it) and firmware.
    expect(serialNumberOf(accessories, BACK_DOOR_SERIAL)).toMatch(/^[0-9A-F]{8}$/);
    const values = await bridge.controller.read([back.current(), back.contact(), back.contactFault()]);
    expect([...values.values()]).toEqual([Characteristic.LockCurrentState.SECURED, Characteristic.ContactSensorState.CONTACT_DETECTED, Characteristic.StatusFault.NO_FAULT]);
  });

  it('unlocks Back Door from a LockTargetState write through the Nuki driver', async () => {
    await boltAt(backDoorId(), 'locked');
    const mark = bridge.controller.mark();
    await bridge.controller.write(back.target(), Characteristic.LockTargetState.UNSECURED);
    await bridge.controller.waitForEvent(back.current(), Characteristic.LockCurrentState.UNSECURED, mark);
    await bridge.controller.waitForEvent(back.lastAction(), Characteristic.LockLastKnownAction.UNSECURED_REMOTELY, mark);
  });

  it('shows a tap by the linked Nuki authorization on Back Door in both states and fires the owner’s arrival switch', async () => {
    await boltAt(backDoorId(), 'unlocked');
    const locked = bridge.controller.mark();
    await bridge.control.send({ op: 'tap', lock_id: backDoorId(), authorization: LINKED_AUTHORIZATION, action: 'lock' });
    await bridge.controller.waitForEvent(back.current(), Characteristic.LockCurrentState.SECURED, locked);
    await bridge.controller.waitForEvent(back.target(), Characteristic.LockTargetState.SECURED, locked);
    await bridge.controller.waitForEvent(back.lastAction(), Characteristic.LockLastKnownAction.SECURED_PHYSICALLY_EXTERIOR, locked);
    const unlocked = bridge.controller.mark();
    await bridge.control.send({ op: 'tap', lock_id: backDoorId(), authorization: LINKED_AUTHORIZATION, action: 'unlock' });
    await bridge.controller.waitForEvent(back.current(), Characteristic.LockCurrentState.UNSECURED, unlocked);
    await bridge.controller.waitForEvent(back.arrival(), Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS, unlocked);
  });

  it('shows Side Door, the simulated TTLock, as a lock; a LockTargetState write moves it; a turn by hand leaves the tile where the lock drove it', async () => {
    expect(bridge.homebridge.demo.locks.find((lock) => lock.name === 'Side Door')).toMatchObject({ family: 'ttlock', gateway: true });
    expect(serviceTypes(findAccessory(accessories, SIDE_DOOR_SERIAL))).toEqual(expect.arrayContaining([Service.AccessoryInformation.UUID, Service.LockMechanism.UUID, Service.Battery.UUID]));
    const currentNow = async (): Promise<unknown> => (await bridge.controller.read([side.current()])).get(side.current());
    await bridge.controller.write(side.target(), Characteristic.LockTargetState.SECURED);
    expect(await readUntil(currentNow, (value) => value === Characteristic.LockCurrentState.SECURED)).toBe(Characteristic.LockCurrentState.SECURED);
    const mark = bridge.controller.mark();
    await bridge.controller.write(side.target(), Characteristic.LockTargetState.UNSECURED);
    await bridge.controller.waitForEvent(side.current(), Characteristic.LockCurrentState.UNSECURED, mark);
    // docs/design.md §4f: the lock does not notice a turn by hand; HomeKit shows no change it did not make.
    await bridge.control.send({ op: 'manual', lock_id: bridge.lockId('Side Door'), bolt: 'locked' });
    expect(await bridge.controller.read([side.current(), side.target()])).toEqual(
      new Map([
        [side.current(), Characteristic.LockCurrentState.UNSECURED],
        [side.target(), Characteristic.LockTargetState.UNSECURED],
      ]),
    );
  });

  it('keeps the last state of a lock that goes offline and shows StatusFault', async () => {
    const lockId = frontDoorId();
    await boltAt(lockId, 'locked');
    await expect(bridge.controller.readOne(front.fault())).resolves.toBe(Characteristic.StatusFault.NO_FAULT);
    const mark = bridge.controller.mark();
    // The control answer comes once the service shows the lock offline; the event follows within a batch.
    await bridge.control.send({ op: 'offline', lock_id: lockId });
    await bridge.controller.waitForEvent(front.fault(), Characteristic.StatusFault.GENERAL_FAULT, mark);
    await expect(bridge.controller.readOne(front.current())).resolves.toBe(Characteristic.LockCurrentState.SECURED);
    const back = bridge.controller.mark();
    await bridge.control.send({ op: 'online', lock_id: lockId });
    await bridge.controller.waitForEvent(front.fault(), Characteristic.StatusFault.NO_FAULT, back, 10_000);
  }, 30_000);

  it('keeps the pairing and the accessories across a Homebridge restart', async () => {
    const before = (await bridge.controller.accessories()).map((accessory) => accessory.aid).sort();
    await boltAt(frontDoorId(), 'locked');
    await bridge.control.send({ op: 'battery', lock_id: frontDoorId(), level: 0.37 });
    await expect(bridge.controller.readOne(front.battery())).resolves.toBe(37);
    await bridge.restart();

    // No pair-setup: the stored long-term keys still verify.
    accessories = await bridge.controller.accessories();
    expect(accessories.map((accessory) => accessory.aid).sort()).toEqual(before);
    expect(bridge.homebridge.output()).toContain('Restored HomeKit accessory Front Door');
    // State is live again: the battery reading made before the restart is still the lock's.
    await eventually(() => bridge.controller.readOne(front.battery()), 37);
    // The new connection subscribes to everything, as beforeAll did, for the tests that may follow.
    await subscribeAll();
    const mark = bridge.controller.mark();
    await bridge.controller.write(front.target(), Characteristic.LockTargetState.UNSECURED);
    await bridge.controller.waitForEvent(front.current(), Characteristic.LockCurrentState.UNSECURED, mark);
  }, 90_000);
});
