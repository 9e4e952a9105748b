import { afterEach, describe, expect, it } from '@jest/globals';
import { NukiDriver } from '../../../../../src/families/nuki/driver/nuki-driver.js';
import { KeypadError, type KeypadCodeWrite } from '../../../../../src/gateway/keypad-access.js';
import { LockGateway } from '../../../../../src/gateway/lock-gateway.js';
import { SimulatedNuki } from '../../../../../src/families/nuki/simulator/simulated-nuki.js';
import { SimulatorTransport } from '../../../../../src/gateway/transports/simulator/simulator-transport.js';
import { ManualClock } from '../../../../support/manual-clock.js';
import { RecordingLogger } from '../../../../support/recording-logger.js';

const LOCK_ID = '7b0c3f4e-0000-4000-8000-00000000000c';
const ADDRESS = 'AA:BB:CC:00:00:0C';
const KEY = Buffer.alloc(32, 0x4b);
const PIN = 4321;
const NOON = Date.UTC(2026, 5, 1, 12, 0, 0);

const gateways: LockGateway[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.stop();
});

function rig(options: { keypad?: boolean; capacity?: number; pin?: number | null } = {}) {
  const clock = new ManualClock(NOON);
  const nuki = new SimulatedNuki({
    address: ADDRESS,
    name: 'Back Door',
    clock,
    securityPin: PIN,
    keypad: options.keypad ?? true,
    ...(options.capacity === undefined ? {} : { keypadCapacity: options.capacity }),
    timeZone: 'Europe/Berlin',
    authorizations: [{ id: 7, name: 'Gateway', type: 'app', sharedKey: KEY }],
  });
  const logger = new RecordingLogger();
  const gateway = new LockGateway(new SimulatorTransport([nuki], { advertisementIntervalMs: 3_600_000 }), clock, logger, {
    connectTimeoutMs: 2_000,
    operationTimeoutMs: 2_000,
    commandTimeoutMs: 10_000,
    presenceCheckIntervalMs: 3_600_000,
  });
  gateway.addLock({
    id: LOCK_ID,
    address: ADDRESS,
    name: 'Back Door',
    driver: new NukiDriver({ sharedKey: KEY, authorizationId: 7, appId: 1, securityPin: options.pin === undefined ? PIN : options.pin }, { idleDisconnectMs: 20 }),
  });
  gateways.push(gateway);
  gateway.start();
  return { clock, nuki, gateway, logger };
}

const weekdays: KeypadCodeWrite = {
  code: '482913',
  name: 'eKey 1',
  enabled: true,
  window: { allowedFrom: NOON - 3_600_000, allowedUntil: NOON + 7 * 86_400_000, weekdays: [1, 2, 3, 4, 5], fromTime: '09:00', untilTime: '17:30' },
};

describe('keypad codes through the Nuki driver and the simulated lock', () => {
  it('adds, lists, updates and removes a code; the lock holds exactly what was written', async () => {
    const { nuki, gateway } = rig();
    const result = await gateway.keypadSession(LOCK_ID, async (keypad) => {
      const id = await keypad.addCode(weekdays);
      const listed = await keypad.listCodes();
      await keypad.updateCode(id, { ...weekdays, enabled: false, window: { ...weekdays.window, weekdays: [] } });
      const updated = await keypad.listCodes();
      return { id, listed, updated };
    });
    expect(result.status).toBe('done');
    if (result.status !== 'done') return;
    expect(result.value.listed).toEqual([{ codeId: result.value.id, ...weekdays }]);
    expect(result.value.updated).toEqual([{ codeId: result.value.id, ...weekdays, enabled: false, window: { ...weekdays.window, weekdays: [] } }]);
    expect(nuki.keypadCodes()).toHaveLength(1);
    const removed = await gateway.keypadSession(LOCK_ID, async (keypad) => {
      await keypad.removeCode(result.value.id);
      return keypad.listCodes();
    });
    expect(removed).toEqual({ status: 'done', value: [] });
    expect(nuki.keypadCodes()).toEqual([]);
  });

  it('the lock judges a typed code itself, on its own clock in its own zone', async () => {
    const { nuki, gateway, clock } = rig();
    await gateway.keypadSession(LOCK_ID, (keypad) => keypad.addCode(weekdays));
    // 2026-06-01 is a Monday; noon UTC is 14:00 in Berlin: inside 09:00–17:30.
    expect(nuki.typeCode('482913', 'unlock')).toBe('accepted');
    expect(nuki.typeCode('482914', 'unlock')).toBe('refused');
    clock.set(Date.UTC(2026, 5, 1, 15, 30)); // 17:30 in Berlin: the window's end is exclusive
    expect(nuki.typeCode('482913', 'lock')).toBe('refused');
    nuki.setClockOffset(-120); // the lock's clock two minutes slow: 17:28 on its face
    expect(nuki.typeCode('482913', 'lock')).toBe('accepted');
  });

  it('a full keypad answers K_ERROR_TOO_MANY_ENTRIES: keypad_full', async () => {
    const { gateway } = rig({ capacity: 1 });
    const failure = await gateway
      .keypadSession(LOCK_ID, async (keypad) => {
        await keypad.addCode(weekdays);
        await keypad.addCode({ ...weekdays, code: '555555' });
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KeypadError);
    expect((failure as KeypadError).failure).toBe('keypad_full');
  });

  it('a code the lock holds already is code_exists; an invalid one is refused_by_lock', async () => {
    const { gateway, nuki } = rig();
    nuki.addVendorCode('654321');
    const exists = await gateway.keypadSession(LOCK_ID, (keypad) => keypad.addCode({ ...weekdays, code: '654321' })).catch((error: unknown) => error);
    expect((exists as KeypadError).failure).toBe('code_exists');
    const invalid = await gateway.keypadSession(LOCK_ID, (keypad) => keypad.addCode({ ...weekdays, code: '123456' })).catch((error: unknown) => error);
    expect((invalid as KeypadError).failure).toBe('refused_by_lock');
  });

  it('a link lost mid-write is link_lost, whether or not the lock stored the code', async () => {
    const { gateway, nuki } = rig();
    nuki.faults.dropKeypadWrite = 'before_applying';
    const before = await gateway.keypadSession(LOCK_ID, (keypad) => keypad.addCode(weekdays)).catch((error: unknown) => error);
    expect((before as KeypadError).failure).toBe('link_lost');
    expect(nuki.keypadCodes()).toEqual([]);
    nuki.faults.dropKeypadWrite = 'after_applying';
    const after = await gateway.keypadSession(LOCK_ID, (keypad) => keypad.addCode(weekdays)).catch((error: unknown) => error);
    expect((after as KeypadError).failure).toBe('link_lost');
    expect(nuki.keypadCodes().map((code) => code.code)).toEqual([482913]);
  });

  it('without a stored security PIN nothing is sent: no_security_pin', async () => {
    const { gateway, nuki } = rig({ pin: null });
    const failure = await gateway.keypadSession(LOCK_ID, (keypad) => keypad.addCode(weekdays)).catch((error: unknown) => error);
    expect((failure as KeypadError).failure).toBe('no_security_pin');
    expect(nuki.keypadCodes()).toEqual([]);
  });

  it('an out-of-range lock is lock_offline', async () => {
    const { gateway, nuki } = rig();
    nuki.goOutOfRange();
    expect(await gateway.keypadSession(LOCK_ID, (keypad) => keypad.listCodes())).toEqual({ status: 'lock_offline' });
  });

  it('sets the lock clock when it is off by more than 60 s at a connect, not when it is off by less', async () => {
    const { gateway, nuki, logger } = rig();
    await gateway.keypadSession(LOCK_ID, (keypad) => keypad.listCodes());
    await gateway.stop();
    gateways.splice(0);
    nuki.setClockOffset(45);
    const second = new LockGateway(new SimulatorTransport([nuki], { advertisementIntervalMs: 3_600_000 }), { now: () => NOON }, logger, { presenceCheckIntervalMs: 3_600_000 });
    second.addLock({ id: LOCK_ID, address: ADDRESS, name: 'Back Door', driver: new NukiDriver({ sharedKey: KEY, authorizationId: 7, appId: 1, securityPin: PIN }, { idleDisconnectMs: 20 }) });
    gateways.push(second);
    second.start();
    await second.keypadSession(LOCK_ID, (keypad) => keypad.listCodes());
    expect(nuki.lockNow() - NOON).toBe(45_000);
    nuki.setClockOffset(-3_600);
    await second.stop();
    gateways.splice(0);
    const third = new LockGateway(new SimulatorTransport([nuki], { advertisementIntervalMs: 3_600_000 }), { now: () => NOON }, logger, { presenceCheckIntervalMs: 3_600_000 });
    third.addLock({ id: LOCK_ID, address: ADDRESS, name: 'Back Door', driver: new NukiDriver({ sharedKey: KEY, authorizationId: 7, appId: 1, securityPin: PIN }, { idleDisconnectMs: 20 }) });
    gateways.push(third);
    third.start();
    await third.keypadSession(LOCK_ID, (keypad) => keypad.listCodes());
    expect(Math.abs(nuki.lockNow() - NOON)).toBeLessThan(1_000);
    expect(logger.lines.some((line) => line.message.includes('its clock was off by -3600 s; set it'))).toBe(true);
  });
});
