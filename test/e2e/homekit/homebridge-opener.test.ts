import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Characteristic, Service } from '@homebridge/hap-nodejs';
import { Characteristic as HapCharacteristic, Service as HapService } from 'hap-controller';
import type { AccessoryObject } from 'hap-controller/lib/model/accessory.js';
import { findAccessory, findCharacteristic, serviceTypes, type CharacteristicAddress } from '../../support/hap-test-controller.js';
import { canUsePrivateNetwork, describeWhen } from '../../support/homebridge-process.js';
import { HomeKitDemoBridge } from '../../support/homekit-demo-bridge.js';
import { readUntil } from '../../support/polling.js';

/*
 * docs/design.md §4d, §5: the demo's Nuki Opener (Building Door) and unlatch in HomeKit, with the
 * real `homebridge` binary in a private network namespace and hap-controller as the Home app:
 * the Opener is a lock whose unlock opens the strike, a Doorbell that fires on a ring, and
 * switches for Ring to Open and Continuous Mode; with `homekit.unlatch: "separate"`, Back Door
 * (a Smart Lock) has a second lock service "Open Back Door" that unlatches.
 */

const describeE2E = describeWhen(canUsePrivateNetwork(), 'The HomeKit end-to-end test runs Homebridge in a private network namespace and needs root (unshare -n, ip). Run as root.');

/** The `aid.iid` of a characteristic of the service whose Name is `serviceName`, on the accessory named `accessoryName`. */
function namedCharacteristic(accessories: AccessoryObject[], accessoryName: string, serviceUuid: string, serviceName: string, characteristicUuid: string): CharacteristicAddress {
  const accessory = findAccessory(accessories, accessoryName);
  const candidates = accessory.services.filter((service) => HapService.ensureServiceUuid(service.type).toUpperCase() === serviceUuid.toUpperCase());
  const nameUuid = Characteristic.Name.UUID.toUpperCase();
  for (const [index, service] of candidates.entries()) {
    const named = service.characteristics.some((entry) => entry.type !== undefined && HapCharacteristic.ensureCharacteristicUuid(entry.type).toUpperCase() === nameUuid && entry.value === serviceName);
    if (named) return findCharacteristic(accessories, accessoryName, serviceUuid, characteristicUuid, index);
  }
  throw new Error(`${accessoryName} has no service named "${serviceName}"`);
}

interface ApiEvent {
  type: string;
  mode?: string;
  unlatched?: boolean;
  opened?: boolean;
  performer?: { id: string };
}

describeE2E('Homebridge: the Nuki Opener and unlatch, driven by a HomeKit controller', () => {
  const bridge = new HomeKitDemoBridge({ storagePrefix: 'ekey-hb-opener-', pin: '031-45-157', username: '0E:4B:00:00:E2:E4', platform: { homekit: { unlatch: 'separate' } } });
  let accessories: AccessoryObject[];
  let token = '';

  const lockId = (name: string): string => bridge.lockId(name);
  const building = {
    current: (): CharacteristicAddress => namedCharacteristic(accessories, 'Building Door', Service.LockMechanism.UUID, 'Building Door', Characteristic.LockCurrentState.UUID),
    target: (): CharacteristicAddress => namedCharacteristic(accessories, 'Building Door', Service.LockMechanism.UUID, 'Building Door', Characteristic.LockTargetState.UUID),
    doorbell: (): CharacteristicAddress => findCharacteristic(accessories, 'Building Door', Service.Doorbell.UUID, Characteristic.ProgrammableSwitchEvent.UUID),
    ringToOpen: (): CharacteristicAddress => namedCharacteristic(accessories, 'Building Door', Service.Switch.UUID, 'Building Door Ring to Open', Characteristic.On.UUID),
    continuousMode: (): CharacteristicAddress => namedCharacteristic(accessories, 'Building Door', Service.Switch.UUID, 'Building Door Continuous Mode', Characteristic.On.UUID),
  };
  const back = {
    current: (): CharacteristicAddress => namedCharacteristic(accessories, 'Back Door', Service.LockMechanism.UUID, 'Back Door', Characteristic.LockCurrentState.UUID),
    openCurrent: (): CharacteristicAddress => namedCharacteristic(accessories, 'Back Door', Service.LockMechanism.UUID, 'Open Back Door', Characteristic.LockCurrentState.UUID),
    openTarget: (): CharacteristicAddress => namedCharacteristic(accessories, 'Back Door', Service.LockMechanism.UUID, 'Open Back Door', Characteristic.LockTargetState.UUID),
  };

  const newestEvent = async (name: string, type?: string): Promise<ApiEvent | undefined> =>
    ((await bridge.api(token, 'GET', `/locks/${lockId(name)}/events?limit=1${type === undefined ? '' : `&type=${type}`}`)).json.lock_events as ApiEvent[])[0];
  /** Polls the history until its newest event (of `type`) matches; the event is recorded when the lock's log is read. */
  const eventuallyNewest = (name: string, expected: Partial<ApiEvent>, type?: string): Promise<ApiEvent | undefined> =>
    readUntil(
      () => newestEvent(name, type),
      (newest) => newest !== undefined && Object.entries(expected).every(([key, value]) => JSON.stringify(newest[key as keyof ApiEvent]) === JSON.stringify(value)),
      { everyMs: 50 },
    );
  const openerBolt = async (): Promise<string> => {
    const owner = bridge.homebridge.demo.users[0]?.id ?? '';
    const locks = (await bridge.api(token, 'GET', `/users/${owner}/locks`)).json.locks as { id: string; bolt_state: string }[];
    return locks.find((lock) => lock.id === lockId('Building Door'))?.bolt_state ?? '';
  };

  beforeAll(async () => {
    await bridge.start();
    accessories = await bridge.controller.accessories();
    token = await bridge.signIn();
    // One subscribe per connection (hap-controller 0.10.2, see homebridge-hap.test.ts).
    await bridge.controller.subscribe([building.current(), building.target(), building.doorbell(), building.ringToOpen(), building.continuousMode(), back.current(), back.openCurrent()]);
  }, 240_000);

  afterAll(() => bridge.dispose(), 30_000);

  it('shows Building Door as a lock with a Doorbell and two switches, Back Door with "Open Back Door", Front Door without (it cannot unlatch)', () => {
    expect(bridge.homebridge.demo.locks.map((lock) => lock.name)).toEqual(['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door']);
    const opener = serviceTypes(findAccessory(accessories, 'Building Door'));
    expect(opener).toEqual(expect.arrayContaining([Service.LockMechanism.UUID, Service.Doorbell.UUID, Service.Switch.UUID]));
    expect(opener.filter((type) => type === Service.Switch.UUID)).toHaveLength(2);
    expect(building.ringToOpen()).toMatch(/^\d+\.\d+$/);
    expect(building.continuousMode()).toMatch(/^\d+\.\d+$/);
    expect(serviceTypes(findAccessory(accessories, 'Back Door')).filter((type) => type === Service.LockMechanism.UUID)).toHaveLength(2);
    expect(serviceTypes(findAccessory(accessories, 'D0:E1:00:00:00:01')).filter((type) => type === Service.LockMechanism.UUID)).toHaveLength(1);
    expect(serviceTypes(findAccessory(accessories, 'D0:E1:00:00:00:01'))).not.toContain(Service.Doorbell.UUID);
  });

  it('presses the Doorbell (SINGLE_PRESS) when someone rings, so the Home app notifies', async () => {
    const mark = bridge.controller.mark();
    await bridge.control.send({ op: 'ring', lock_id: lockId('Building Door') });
    await bridge.controller.waitForEvent(building.doorbell(), Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS, mark);
    expect(await eventuallyNewest('Building Door', { type: 'ring' }, 'ring')).toMatchObject({ type: 'ring' });
  });

  it('switches Ring to Open on from HomeKit; the next ring opens the door once, rings the Doorbell and turns the switch off', async () => {
    const on = bridge.controller.mark();
    await bridge.controller.write(building.ringToOpen(), true);
    await bridge.controller.waitForEvent(building.current(), Characteristic.LockCurrentState.UNSECURED, on);
    expect(await eventuallyNewest('Building Door', { type: 'unlock', mode: 'ring_to_open' })).toMatchObject({ type: 'unlock', mode: 'ring_to_open' });
    // HAP carries a bool characteristic as 1/0 on the wire.
    await expect(bridge.controller.readOne(building.ringToOpen())).resolves.toBe(1);
    const ring = bridge.controller.mark();
    await bridge.control.send({ op: 'ring', lock_id: lockId('Building Door') });
    await bridge.controller.waitForEvent(building.doorbell(), Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS, ring);
    await bridge.controller.waitForEvent(building.ringToOpen(), 0, ring);
    await bridge.controller.waitForEvent(building.current(), Characteristic.LockCurrentState.SECURED, ring);
    expect(await eventuallyNewest('Building Door', { type: 'ring', opened: true }, 'ring')).toMatchObject({ opened: true });
  });

  it('switches Continuous Mode on and off from HomeKit: the API shows the mode events and the bolt', async () => {
    const on = bridge.controller.mark();
    await bridge.controller.write(building.continuousMode(), true);
    await bridge.controller.waitForEvent(building.current(), Characteristic.LockCurrentState.UNSECURED, on);
    expect(await eventuallyNewest('Building Door', { type: 'unlock', mode: 'continuous_mode' })).toMatchObject({ mode: 'continuous_mode' });
    expect(await openerBolt()).toBe('unlocked');
    const off = bridge.controller.mark();
    await bridge.controller.write(building.continuousMode(), false);
    await bridge.controller.waitForEvent(building.current(), Characteristic.LockCurrentState.SECURED, off);
    expect(await eventuallyNewest('Building Door', { type: 'lock', mode: 'continuous_mode' })).toMatchObject({ type: 'lock', mode: 'continuous_mode' });
    expect(await openerBolt()).toBe('locked');
  });

  it('shows a mode switched through the API on its switch', async () => {
    const mark = bridge.controller.mark();
    const created = await bridge.api(token, 'POST', `/locks/${lockId('Building Door')}/commands`, { type: 'continuous_mode_on' });
    expect(created.status).toBe(201);
    await bridge.controller.waitForEvent(building.continuousMode(), 1, mark);
    const off = bridge.controller.mark();
    expect((await bridge.api(token, 'POST', `/locks/${lockId('Building Door')}/commands`, { type: 'lock' })).status).toBe(201);
    await bridge.controller.waitForEvent(building.continuousMode(), 0, off);
  });

  it("opens the strike on a LockTargetState UNSECURED write: an unlock event without a mode, and the Opener is back to locked", async () => {
    const mark = bridge.controller.mark();
    await bridge.controller.write(building.target(), Characteristic.LockTargetState.UNSECURED);
    const opened = await eventuallyNewest('Building Door', { type: 'unlock' });
    expect(opened).toMatchObject({ type: 'unlock', performer: { id: bridge.homebridge.demo.users[0]?.id } });
    expect(opened).not.toHaveProperty('mode');
    // The write set the target to UNSECURED; the outcome puts it back where the Opener is: locked.
    await bridge.controller.waitForEvent(building.target(), Characteristic.LockTargetState.SECURED, mark);
    await expect(bridge.controller.readOne(building.current())).resolves.toBe(Characteristic.LockCurrentState.SECURED);
  });

  it('unlatches Back Door from "Open Back Door" (homekit.unlatch "separate"): an unlock event with "unlatched": true, both lock services unsecured', async () => {
    const backDoor = lockId('Back Door');
    await bridge.control.send({ op: 'manual', lock_id: backDoor, bolt: 'locked' });
    const mark = bridge.controller.mark();
    await bridge.controller.write(back.openTarget(), Characteristic.LockTargetState.UNSECURED);
    await bridge.controller.waitForEvent(back.openCurrent(), Characteristic.LockCurrentState.UNSECURED, mark);
    await bridge.controller.waitForEvent(back.current(), Characteristic.LockCurrentState.UNSECURED, mark);
    expect(await eventuallyNewest('Back Door', { type: 'unlock', unlatched: true })).toMatchObject({ type: 'unlock', unlatched: true, performer: { id: bridge.homebridge.demo.users[0]?.id } });
  });
});
