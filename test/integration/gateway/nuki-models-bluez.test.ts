import { describe, expect, it } from '@jest/globals';
import { NukiFamilyUuids } from '../../../src/families/nuki/nuki-api-level.js';
import { pairNukiDevice } from '../../../src/families/nuki/nuki-device-pairing.js';
import { smartLockVariant } from '../../../src/families/nuki/smart-lock-variant.js';
import { openerVariant } from '../../../src/families/nuki-opener/opener-variant.js';
import { SimulatedOpener } from '../../../src/families/nuki-opener/simulator/simulated-opener.js';
import { NukiDriver } from '../../../src/families/nuki/driver/nuki-driver.js';
import type { ActivityEvent } from '../../../src/gateway/gateway-events.js';
import type { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { NUKI_APPLE_COMPANY_ID, parseNukiBeacon } from '../../../src/families/nuki/protocol/nuki-uuids.js';
import { SimulatedNuki } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { ManualClock } from '../../support/manual-clock.js';
import { useNukiBluez } from '../../support/nuki-gateway-rig.js';
import { until } from '../../support/polling.js';

/**
 * docs/design.md §4d over the production transport (node-ble → a private dbus-daemon → the fake
 * BlueZ): pairing detects an API 2.3 Smart Lock (Ultra) and an Opener, and the driver then runs
 * their commands with the credentials pairing produced.
 */

const ULTRA_PIN = 482_913;
const OPENER_PIN = 1_357;
const bluez = useNukiBluez('C0:FF:EE:23:00');

function gatewayFor(clock: ManualClock, lockAddress: string, driver: NukiDriver): { gateway: LockGateway; activity: ActivityEvent[] } {
  const started = bluez.gateway(clock, { id: 'lock', address: lockAddress, name: 'Door', driver });
  started.gateway.start();
  return started;
}

describe('API 2.3 Smart Lock (Ultra) over the fake BlueZ', () => {
  it('pairs on the 2.3 pairing service with the 6-digit PIN, then locks, unlatches and reads its log with the u32 PIN', async () => {
    const clock = new ManualClock();
    const ultra = new SimulatedNuki({ address: bluez.address(), name: 'Ultra', clock, securityPin: ULTRA_PIN, model: 'smart_lock_ultra', batteryPercent: 80 });
    bluez.environment.bluez.addDevice(ultra);
    expect(ultra.gattDatabase.map((service) => service.uuid)).toContain(NukiFamilyUuids.lockPairingServiceApi23);
    expect(ultra.gattDatabase.map((service) => service.uuid)).not.toContain(NukiFamilyUuids.lockPairingService);
    ultra.startPairingMode();
    const beacon = parseNukiBeacon(ultra.advertisement()?.manufacturerData.get(NUKI_APPLE_COMPANY_ID) ?? Buffer.alloc(0));
    expect(beacon?.serviceUuid).toBe(NukiFamilyUuids.lockPairingServiceApi23);

    const { credentials, target } = await pairNukiDevice(bluez.transport(), ultra.address, {
      name: 'eKey Gateway',
      idType: 'app',
      appId: 0x0123_4567,
      securityPin: ULTRA_PIN,
      connectTimeoutMs: 5_000,
    });
    expect(target).toMatchObject({ kind: 'smart_lock', apiLevel: '2.3' });
    expect(ultra.pairingMode).toBe(false);
    expect(ultra.authorizations).toEqual([{ id: credentials.authorizationId, name: 'eKey Gateway', type: 'app', appId: 0x0123_4567 }]);
    expect(credentials.lockUuid.equals(ultra.lockUuid)).toBe(true);

    const driver = new NukiDriver(
      { sharedKey: credentials.sharedKey, authorizationId: credentials.authorizationId, appId: credentials.appId, securityPin: ULTRA_PIN },
      { idleDisconnectMs: 50, variant: smartLockVariant('2.3') },
    );
    const { gateway, activity } = gatewayFor(clock, ultra.address, driver);
    await until(() => gateway.getSnapshot('lock')?.bolt === 'locked', 'the first state read');
    expect(await gateway.sendCommand('lock', 'unlatch')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(ultra.lockState).toBe(0x05);
    expect(await gateway.sendCommand('lock', 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    // A turn by hand is read back from the log, which needs the PIN (u32 on API 2.3).
    clock.advance(5_000);
    ultra.manualTurn('unlocked');
    await until(() => activity.some((event) => event.record.source === 'manual'), 'the manual turn from the log');
    expect(activity.find((event) => event.record.source === 'manual')?.record.action).toBe('unlock');
  });

  it('refuses a wrong PIN (bad_pin) and asks for one when none is given, pairing nobody', async () => {
    const clock = new ManualClock();
    const go = new SimulatedNuki({ address: bluez.address(), name: 'Go', clock, securityPin: ULTRA_PIN, model: 'smart_lock_go' });
    bluez.environment.bluez.addDevice(go);
    go.startPairingMode();
    const options = { name: 'eKey Gateway', idType: 'app' as const, appId: 9, connectTimeoutMs: 5_000 };
    await expect(pairNukiDevice(bluez.transport(), go.address, { ...options, securityPin: 111_111 })).rejects.toMatchObject({ reason: 'bad_pin' });
    await expect(pairNukiDevice(bluez.transport(), go.address, { ...options, securityPin: null })).rejects.toThrow(/6-digit security PIN/);
    expect(go.authorizations).toEqual([]);
  });
});

describe('Nuki Opener over the fake BlueZ', () => {
  it('pairs as an Opener, then: strike on unlock, Ring to Open opens once on a ring, Continuous Mode on every ring, lock turns both off', async () => {
    const clock = new ManualClock();
    const opener = new SimulatedOpener({ address: bluez.address(), name: 'Building Door', clock, securityPin: OPENER_PIN });
    bluez.environment.bluez.addDevice(opener);
    opener.startPairingMode();
    const { credentials, target } = await pairNukiDevice(bluez.transport(), opener.address, {
      name: 'eKey Gateway',
      idType: 'app',
      appId: 0x0bad_cafe,
      securityPin: null,
      connectTimeoutMs: 5_000,
    });
    expect(target).toMatchObject({ kind: 'opener', apiLevel: '2.2', pairingService: NukiFamilyUuids.openerPairingService });
    expect(opener.authorizations.map((entry) => entry.name)).toEqual(['eKey Gateway']);

    const driver = new NukiDriver(
      { sharedKey: credentials.sharedKey, authorizationId: credentials.authorizationId, appId: credentials.appId, securityPin: OPENER_PIN },
      { idleDisconnectMs: 50, variant: openerVariant() },
    );
    expect(driver.family).toBe('nuki-opener');
    const { gateway, activity } = gatewayFor(clock, opener.address, driver);
    await until(() => gateway.getSnapshot('lock')?.bolt === 'locked', 'the first state read');
    expect(gateway.getSnapshot('lock')?.batteryLevel).toBe(1);

    // The strike: completed once the Opener reported it done; it logged the actuation, no mode is on.
    expect(await gateway.sendCommand('lock', 'unlock')).toEqual({ status: 'completed', bolt: 'locked' });
    expect(opener.log.at(-1)?.detail).toMatchObject({ kind: 'lock_action', action: 0x03 });

    expect(await gateway.sendCommand('lock', 'ring_to_open_on')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(opener.ringToOpen).toBe(true);
    clock.advance(5_000);
    expect(await opener.ring()).toEqual({ opened: true });
    expect(opener.ringToOpen).toBe(false);
    await until(() => activity.some((event) => event.record.ring !== undefined), 'the ring from the log');
    expect(activity.find((event) => event.record.ring !== undefined)?.record.ring).toEqual({ opened: true });
    await until(() => gateway.getSnapshot('lock')?.bolt === 'locked', 'Ring to Open ending');

    expect(await gateway.sendCommand('lock', 'continuous_mode_on')).toEqual({ status: 'completed', bolt: 'unlocked' });
    clock.advance(5_000);
    expect(await opener.ring()).toEqual({ opened: true });
    expect(await opener.ring()).toEqual({ opened: true });
    expect(opener.continuousMode).toBe(true);
    await until(() => activity.filter((event) => event.record.ring?.opened === true).length === 3, 'both rings under Continuous Mode');

    expect(await gateway.sendCommand('lock', 'ring_to_open_on')).toMatchObject({ status: 'completed' });
    expect(await gateway.sendCommand('lock', 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    expect([opener.ringToOpen, opener.continuousMode]).toEqual([false, false]);
    clock.advance(5_000);
    expect(await opener.ring()).toEqual({ opened: false });
    await until(() => activity.some((event) => event.record.ring?.opened === false), 'a ring that opened nothing');
  });

  it('reports the critical battery flag as a low level', async () => {
    const clock = new ManualClock();
    const opener = new SimulatedOpener({
      address: bluez.address(),
      name: 'Side Gate',
      clock,
      securityPin: OPENER_PIN,
      batteryCritical: true,
      authorizations: [{ id: 3, name: 'Gateway', sharedKey: Buffer.alloc(32, 7) }],
    });
    bluez.environment.bluez.addDevice(opener);
    const driver = new NukiDriver({ sharedKey: Buffer.alloc(32, 7), authorizationId: 3, appId: 1, securityPin: OPENER_PIN }, { idleDisconnectMs: 50, variant: openerVariant() });
    const { gateway } = gatewayFor(clock, opener.address, driver);
    await until(() => gateway.getSnapshot('lock')?.batteryLevel !== null && gateway.getSnapshot('lock')?.batteryLevel !== undefined, 'the battery');
    expect(gateway.getSnapshot('lock')?.batteryLevel).toBe(0.05);
  });
});
