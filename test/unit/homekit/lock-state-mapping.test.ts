import { toSerialNumber } from '../../../src/lock-port/lock-identity.js';
import { serialNumberOf } from '../../../src/locks/service-lock-port.js';
import type { ActivitySource, Bolt } from '../../../src/domain/lock-vocabulary.js';
import { describe, expect, it } from '@jest/globals';
import { Characteristic } from '@homebridge/hap-nodejs';
import {
  ContactSensorStateValue,
  LockCurrentStateValue,
  LockLastKnownActionValue,
  LockTargetStateValue,
  StatusFaultValue,
  StatusLowBatteryValue,
  parseLockTargetState,
  toBatteryValues,
  toBoltTarget,
  toContactSensor,
  toFirmwareRevision,
  toLockCurrentState,
  toLockLastKnownAction,
  toLockTargetState,
  toStatusFault,
} from '../../../src/homekit/lock-state-mapping.js';

const BOLTS: Bolt[] = ['locked', 'unlocked', 'jammed', 'unknown'];
const SOURCES: ActivitySource[] = ['tap', 'remote', 'manual', 'triple_tap', 'fob', 'auto'];

describe('HAP value tables', () => {
  it('equal hap-nodejs constants', () => {
    expect(LockCurrentStateValue).toEqual({
      UNSECURED: Characteristic.LockCurrentState.UNSECURED,
      SECURED: Characteristic.LockCurrentState.SECURED,
      JAMMED: Characteristic.LockCurrentState.JAMMED,
      UNKNOWN: Characteristic.LockCurrentState.UNKNOWN,
    });
    expect(LockTargetStateValue).toEqual({ UNSECURED: Characteristic.LockTargetState.UNSECURED, SECURED: Characteristic.LockTargetState.SECURED });
    expect(StatusLowBatteryValue).toEqual({
      BATTERY_LEVEL_NORMAL: Characteristic.StatusLowBattery.BATTERY_LEVEL_NORMAL,
      BATTERY_LEVEL_LOW: Characteristic.StatusLowBattery.BATTERY_LEVEL_LOW,
    });
    expect(StatusFaultValue).toEqual({ NO_FAULT: Characteristic.StatusFault.NO_FAULT, GENERAL_FAULT: Characteristic.StatusFault.GENERAL_FAULT });
    expect(ContactSensorStateValue).toEqual({
      CONTACT_DETECTED: Characteristic.ContactSensorState.CONTACT_DETECTED,
      CONTACT_NOT_DETECTED: Characteristic.ContactSensorState.CONTACT_NOT_DETECTED,
    });
    for (const [name, value] of Object.entries(LockLastKnownActionValue)) {
      expect([name, (Characteristic.LockLastKnownAction as unknown as Record<string, number>)[name]]).toEqual([name, value]);
    }
  });
});

describe('toLockCurrentState', () => {
  it.each([
    ['locked', false, LockCurrentStateValue.SECURED],
    ['locked', true, LockCurrentStateValue.SECURED],
    ['unlocked', false, LockCurrentStateValue.UNSECURED],
    ['unlocked', true, LockCurrentStateValue.UNSECURED],
    ['jammed', false, LockCurrentStateValue.JAMMED],
    ['jammed', true, LockCurrentStateValue.JAMMED],
    ['unknown', false, LockCurrentStateValue.UNKNOWN],
    ['unknown', true, LockCurrentStateValue.UNKNOWN],
  ] as const)('maps %s (moving: %s) to %s', (bolt, moving, expected) => {
    expect(toLockCurrentState(bolt, moving)).toBe(expected);
  });
});

describe('toLockTargetState', () => {
  it.each([
    ['locked', LockTargetStateValue.SECURED],
    ['unlocked', LockTargetStateValue.UNSECURED],
    ['jammed', null],
    ['unknown', null],
  ] as const)('maps %s to %s (null keeps the previous target)', (bolt, expected) => {
    expect(toLockTargetState(bolt)).toBe(expected);
  });

  it('round-trips with toBoltTarget', () => {
    expect(toBoltTarget(LockTargetStateValue.SECURED)).toBe('locked');
    expect(toBoltTarget(LockTargetStateValue.UNSECURED)).toBe('unlocked');
    expect(toLockTargetState(toBoltTarget(LockTargetStateValue.SECURED))).toBe(LockTargetStateValue.SECURED);
  });

  it.each([
    [0, 0],
    [1, 1],
    [2, null],
    ['1', null],
    [null, null],
    [true, null],
  ])('parses a written value %p as %p', (written, expected) => {
    expect(parseLockTargetState(written)).toBe(expected);
  });
});

describe('toBatteryValues', () => {
  it.each([
    [null, 0.2, null, StatusLowBatteryValue.BATTERY_LEVEL_NORMAL],
    [Number.NaN, 0.2, null, StatusLowBatteryValue.BATTERY_LEVEL_NORMAL],
    [1, 0.2, 100, StatusLowBatteryValue.BATTERY_LEVEL_NORMAL],
    [0.42, 0.2, 42, StatusLowBatteryValue.BATTERY_LEVEL_NORMAL],
    [0.2, 0.2, 20, StatusLowBatteryValue.BATTERY_LEVEL_NORMAL],
    [0.195, 0.2, 20, StatusLowBatteryValue.BATTERY_LEVEL_LOW],
    [0.15, 0.2, 15, StatusLowBatteryValue.BATTERY_LEVEL_LOW],
    [0, 0.2, 0, StatusLowBatteryValue.BATTERY_LEVEL_LOW],
    [0, 0, 0, StatusLowBatteryValue.BATTERY_LEVEL_NORMAL],
    [0.5, 0.6, 50, StatusLowBatteryValue.BATTERY_LEVEL_LOW],
    [1.05, 0.2, 100, StatusLowBatteryValue.BATTERY_LEVEL_NORMAL],
    [-0.1, 0.2, 0, StatusLowBatteryValue.BATTERY_LEVEL_LOW],
    [0.004, 0.2, 0, StatusLowBatteryValue.BATTERY_LEVEL_LOW],
  ])('maps level %p with threshold %p to %p %%, low %p', (level, threshold, percent, low) => {
    expect(toBatteryValues(level, threshold)).toEqual({ level: percent, low });
  });
});

describe('toStatusFault', () => {
  it('is a fault exactly when the lock is offline', () => {
    expect(toStatusFault(true)).toBe(StatusFaultValue.NO_FAULT);
    expect(toStatusFault(false)).toBe(StatusFaultValue.GENERAL_FAULT);
  });
});

describe('toContactSensor (a Nuki door sensor, docs/design.md §4b)', () => {
  it.each([
    ['closed', { state: ContactSensorStateValue.CONTACT_DETECTED, fault: StatusFaultValue.NO_FAULT }],
    ['open', { state: ContactSensorStateValue.CONTACT_NOT_DETECTED, fault: StatusFaultValue.NO_FAULT }],
    // The sensor cannot tell (calibrating, unknown): keep the last state, show a fault.
    ['unknown', { state: null, fault: StatusFaultValue.GENERAL_FAULT }],
  ] as const)('maps a %s door to %p', (door, expected) => {
    expect(toContactSensor(door)).toEqual(expected);
  });

  it('never guesses a state for an unexpected input', () => {
    expect(() => toContactSensor('ajar' as never)).toThrow('Unhandled value ajar');
  });
});

describe('toLockLastKnownAction', () => {
  const A = LockLastKnownActionValue;
  const table: Record<ActivitySource, Record<Bolt, number | null>> = {
    tap: { locked: A.SECURED_PHYSICALLY_EXTERIOR, unlocked: A.UNSECURED_PHYSICALLY_EXTERIOR, jammed: null, unknown: null },
    triple_tap: { locked: A.SECURED_PHYSICALLY_EXTERIOR, unlocked: A.UNSECURED_PHYSICALLY_EXTERIOR, jammed: null, unknown: null },
    manual: { locked: A.SECURED_PHYSICALLY, unlocked: A.UNSECURED_PHYSICALLY, jammed: null, unknown: null },
    remote: { locked: A.SECURED_REMOTELY, unlocked: A.UNSECURED_REMOTELY, jammed: null, unknown: null },
    fob: { locked: A.SECURED_REMOTELY, unlocked: A.UNSECURED_REMOTELY, jammed: null, unknown: null },
    auto: { locked: A.SECURED_BY_AUTO_SECURE_TIMEOUT, unlocked: A.UNSECURED_REMOTELY, jammed: null, unknown: null },
  };
  const cases = SOURCES.flatMap((source) => BOLTS.map((bolt) => [source, bolt, table[source][bolt]] as const));

  it.each(cases)('maps source %s with bolt %s to %p', (source, bolt, expected) => {
    expect(toLockLastKnownAction(source, bolt)).toBe(expected);
  });

  it.each(BOLTS)('reports nothing for an unknown source (bolt %s)', (bolt) => {
    expect(toLockLastKnownAction(null, bolt)).toBeNull();
  });

  it('only produces values HAP allows', () => {
    const valid = new Set<number>(Object.values(A));
    for (const [source, bolt] of cases) {
      const action = toLockLastKnownAction(source, bolt);
      if (action !== null) expect(valid.has(action)).toBe(true);
    }
  });
});

describe('toFirmwareRevision', () => {
  it.each([
    ['1.0.0', '1.0.0'],
    ['v2.3', '2.3'],
    ['fw 4.5.6-beta', '4.5.6'],
    ['7', '7'],
    ['', null],
    ['beta', null],
  ])('turns %p into %p', (firmware, expected) => {
    expect(toFirmwareRevision(firmware)).toBe(expected);
  });
});

describe('serialNumberOf (the service decides it; every ecosystem shows PortLock.serialNumber)', () => {
  const nukiInformation = { manufacturer: 'Nuki Home Solutions', model: 'Nuki Smart Lock (hardware 2.0)', serial: '2A3B4C5D', firmware: '2.14.6' };
  const lock = { id: '0b6e8c2a-5d1f-4c3e-9a7b-1234567890ab', bleAddress: 'D0:E1:00:00:00:03' };

  it('is the Nuki ID for a Nuki whose Config was read (docs/design.md §4b: Nuki id → HomeKit serial)', () => {
    expect(serialNumberOf({ ...lock, family: 'nuki' }, nukiInformation)).toBe('2A3B4C5D');
  });

  it('is the Bluetooth address for a Nuki not read yet, for every lock of our profile, and for a family this version does not know', () => {
    expect(serialNumberOf({ ...lock, family: 'nuki' }, null)).toBe('D0:E1:00:00:00:03');
    expect(serialNumberOf({ ...lock, family: 'ekey' }, { ...nukiInformation, serial: 'D0E100000001' })).toBe('D0:E1:00:00:00:03');
    expect(serialNumberOf({ ...lock, family: 'acme' }, nukiInformation)).toBe('D0:E1:00:00:00:03');
  });

  it('falls back to the lock id when there is no address', () => {
    expect(serialNumberOf({ ...lock, bleAddress: null, family: 'ekey' }, null)).toBe(lock.id);
  });

  it('is what the port shows', () => {
    expect(toSerialNumber({ serialNumber: 'X-1' })).toBe('X-1');
  });
});
