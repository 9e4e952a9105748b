import { afterEach, describe, expect, it } from '@jest/globals';
import { pairTtlockOverGatt, TtlockPairingError } from '../../../src/families/ttlock/driver/ttlock-pairing-link.js';
import { keypadCodeIdOf } from '../../../src/families/ttlock/driver/ttlock-keypad-code-id.js';
import { SimulatedTtlock, type SimulatedTtlockOptions } from '../../../src/families/ttlock/simulator/simulated-ttlock.js';
import { KeypadError } from '../../../src/gateway/keypad-access.js';
import { ManualClock } from '../../support/manual-clock.js';
import { gatewayRecordingLogger, useNukiBluez } from '../../support/nuki-gateway-rig.js';
import { until } from '../../support/polling.js';
import { pairedSimulatedTtlock, ttlockGateway, type TtlockGatewayRig } from '../../support/ttlock-gateway-rig.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';

/**
 * The TTLock driver and the gateway core over the production transport: node-ble → dbus-next →
 * a private dbus-daemon → the fake BlueZ serving a SimulatedTtlock (its frames cut into 20-byte
 * writes and notifications, its advertisement as ManufacturerData): pairing in setting mode,
 * commands per connection, the lock's own idle drop, keypad codes, and the log read back.
 */

const LOCK_ID = 'side-door-over-bluez';
const ZONE = 'Europe/Berlin';

// The fake BlueZ of this file (useNukiBluez holds nothing Nuki-specific but its name).
const bluez = useNukiBluez('C0:FF:EE:77:00');
failOnUnhandledRejections({ settleMs: 20 });

interface Rig extends TtlockGatewayRig {
  clock: ManualClock;
  lock: SimulatedTtlock;
}

function newLock(clock: ManualClock, options: Partial<SimulatedTtlockOptions> = {}): SimulatedTtlock {
  const address = bluez.address();
  const lock = pairedSimulatedTtlock({ address, name: `TTLock ${address}`, clock, timeZone: ZONE, batteryPercent: 64, ...options });
  bluez.environment.bluez.addDevice(lock);
  return lock;
}

function newRig(options: Partial<SimulatedTtlockOptions> & { driver?: Parameters<typeof ttlockGateway>[3]['driver'] } = {}): Rig {
  const clock = new ManualClock(Date.parse('2026-06-13T10:00:00Z'));
  const { driver, ...lockOptions } = options;
  const lock = newLock(clock, lockOptions);
  const transport = bluez.transport();
  const built = ttlockGateway(transport, clock, { id: LOCK_ID, address: lock.address }, { logger: gatewayRecordingLogger(), ...(driver === undefined ? {} : { driver }) });
  // bluez.gateway would add a second transport; this one is stopped with the others after the test.
  afterEachStop.push(() => built.gateway.stop());
  return { ...built, clock, lock };
}

const afterEachStop: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of afterEachStop.splice(0)) await stop();
});

async function started(r: Rig): Promise<void> {
  r.gateway.start();
  expect(await r.gateway.refresh(LOCK_ID)).toBe(true);
}

describe('TTLock over the fake BlueZ', () => {
  it('pairs with a lock in setting mode, then locks and unlocks with the keys the lock gave', async () => {
    const clock = new ManualClock(Date.parse('2026-06-13T10:00:00Z'));
    const lock = new SimulatedTtlock({ address: bluez.address(), name: 'TTLock new', clock, timeZone: ZONE });
    bluez.environment.bluez.addDevice(lock);
    lock.touchKeypad();
    const transport = bluez.transport();
    const secrets = await pairTtlockOverGatt(transport, lock.address, { connectTimeoutMs: 5_000, timeZone: ZONE, now: () => clock.now() });
    expect(lock.paired).toBe(true);
    expect(lock.inSettingMode).toBe(false);
    const held = lock.adminSecrets;
    expect(held?.aesKey.equals(secrets.aesKey)).toBe(true);
    expect([held?.adminPs, held?.unlockKey]).toEqual([secrets.adminPs, secrets.unlockKey]);
    expect(lock.adminCode).toBe(secrets.adminKeypadCode);
    expect(secrets.adminKeypadCode).toMatch(/^\d{7}$/);

    const gateway = ttlockGateway(bluez.transport(), clock, { id: LOCK_ID, address: lock.address }, {
      logger: gatewayRecordingLogger(),
      credentials: { aesKey: secrets.aesKey, adminPs: secrets.adminPs, unlockKey: secrets.unlockKey, uid: secrets.uid, version: secrets.version },
    });
    afterEachStop.push(() => gateway.gateway.stop());
    gateway.gateway.start();
    expect(await gateway.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(lock.bolt).toBe('unlocked');
    expect(await gateway.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    // Every chunk went as a write with response (the transport's one write type: delivery is confirmed).
    expect(new Set(bluez.environment.bluez.device(lock.address).log.writeTypes)).toEqual(new Set(['request']));
  });

  it('refuses to pair a lock that is not in setting mode, and one that is paired already', async () => {
    const clock = new ManualClock();
    const fresh = new SimulatedTtlock({ address: bluez.address(), name: 'TTLock asleep', clock, timeZone: ZONE });
    bluez.environment.bluez.addDevice(fresh);
    await expect(pairTtlockOverGatt(bluez.transport(), fresh.address, { connectTimeoutMs: 5_000, timeZone: ZONE })).rejects.toMatchObject({ name: TtlockPairingError.name, reason: 'not_setting_mode' });
    expect(fresh.paired).toBe(false);
    const paired = newLock(clock);
    await expect(pairTtlockOverGatt(bluez.transport(), paired.address, { connectTimeoutMs: 5_000, timeZone: ZONE })).rejects.toMatchObject({ reason: 'not_setting_mode' });
    expect(paired.adminSecrets?.adminPs).toBe(0x26d2fc7b);
  });

  it('reads the battery and the device information; a command after the lock dropped the idle link connects again', async () => {
    const r = newRig({ idleDropMs: 300, driver: { idleDisconnectMs: 10_000 } });
    await started(r);
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ batteryLevel: 0.64, bolt: 'locked', deviceInformation: { manufacturer: 'Sciener' } });
    await until(() => r.gateway.getSnapshot(LOCK_ID)?.connected === false, 'the lock dropping the idle link', 10_000);
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(r.lock.bolt).toBe('unlocked');
  });

  it('retries within the deadline when the link drops before the lock answered', async () => {
    const r = newRig();
    await started(r);
    r.lock.faults.dropBeforeAnswer = 1;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(r.lock.faults.dropBeforeAnswer).toBe(0);
  });

  it('reads what the keypad did while the lock was out of reach once it is back, every entry once', async () => {
    const r = newRig();
    r.lock.addVendorCode('482913');
    await started(r);
    r.lock.goOutOfRange();
    await until(() => !r.gateway.isReachable(LOCK_ID) || r.gateway.getSnapshot(LOCK_ID)?.connected === false, 'the lock away');
    expect(r.lock.typeCode('482913', 'unlock')).toBe('unlocked');
    expect(r.lock.typeCode('123123', 'lock')).toBe('refused');
    expect(r.lock.typeCode('482913', 'lock')).toBe('locked');
    r.lock.comeBackInRange();
    await until(() => r.activity.length >= 3, 'the three entries read back', 15_000);
    expect(r.activity.map(({ record }) => [record.sequence, record.action, record.keypadCodeId ?? null, record.keypadRefused ?? false])).toEqual([
      [1, 'unlock', keypadCodeIdOf('482913'), false],
      [2, 'unlock', null, true],
      [3, 'lock', keypadCodeIdOf('482913'), false],
    ]);
    expect(await r.gateway.refresh(LOCK_ID)).toBe(true);
    expect(r.activity).toHaveLength(3);
  });

  it('adds, lists, rewrites and removes passcodes in a keypad session; a full store is keypad_full', async () => {
    const r = newRig({ passcodeCapacity: 2 });
    await started(r);
    const from = Date.parse('2026-06-13T08:00:00Z');
    const until_ = Date.parse('2026-06-20T08:00:00Z');
    const window = { allowedFrom: from, allowedUntil: until_, weekdays: [], fromTime: null, untilTime: null };
    const result = await r.gateway.keypadSession(LOCK_ID, async (keypad) => {
      const id = await keypad.addCode({ code: '048291', name: 'eKey 1', enabled: true, window });
      await keypad.addCode({ code: '555123', name: 'eKey 2', enabled: true, window: { ...window, allowedFrom: null, allowedUntil: null } });
      const full = await keypad.addCode({ code: '777777', name: 'eKey 3', enabled: true, window }).catch((error: unknown) => error);
      const listed = await keypad.listCodes();
      await keypad.updateCode(id, { code: '048291', name: 'eKey 1', enabled: true, window: { ...window, allowedUntil: until_ + 86_400_000 } });
      await keypad.removeCode(keypadCodeIdOf('555123'));
      return { id, full, listed, after: await keypad.listCodes() };
    });
    if (result.status !== 'done') throw new Error(`session ${result.status}`);
    expect(result.value.full).toBeInstanceOf(KeypadError);
    expect((result.value.full as KeypadError).failure).toBe('keypad_full');
    expect(result.value.listed).toEqual([
      { codeId: keypadCodeIdOf('048291'), code: '048291', name: '', enabled: true, window },
      { codeId: keypadCodeIdOf('555123'), code: '555123', name: '', enabled: true, window: { ...window, allowedFrom: null, allowedUntil: null } },
    ]);
    expect(result.value.after).toEqual([{ codeId: result.value.id, code: '048291', name: '', enabled: true, window: { ...window, allowedUntil: until_ + 86_400_000 } }]);
    // As the lock holds it: minutes on its local clock (Berlin, summer time).
    expect(r.lock.passcodes()).toEqual([{ type: 3, code: '048291', start: { year: 2026, month: 6, day: 13, hour: 10, minute: 0, second: 0 }, end: { year: 2026, month: 6, day: 21, hour: 10, minute: 0, second: 0 } }]);
  });
});
