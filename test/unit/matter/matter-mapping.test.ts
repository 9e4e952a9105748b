import { MatterBatChargeLevelValue, MatterLockStateValue, toMatterBatteryValues, toMatterLockState } from '../../../src/matter/matter-lock-state-mapping.js';
import type { Bolt } from '../../../src/domain/lock-vocabulary.js';
import { describe, expect, it } from '@jest/globals';
import { Characteristic } from '@homebridge/hap-nodejs';
import { DoorLock } from '@matter/main/clusters/door-lock';
import { PowerSource } from '@matter/main/clusters/power-source';
import type { CommandResult } from '../../../src/lock-port/lock-port.js';
import { LockCurrentStateValue, toBatteryValues, toLockCurrentState } from '../../../src/homekit/lock-state-mapping.js';
import { matterCommandError, matterRefusal } from '../../../src/matter/matter-command-outcome.js';
import {
  MATTER_BAT_USER_REPLACEABLE,
  MATTER_LOCK_TYPE_DEAD_BOLT,
  MATTER_OPERATING_MODE_NORMAL,
  MATTER_POWER_SOURCE_ACTIVE,
  matterLabel,
} from '../../../src/matter/matter-door-lock.js';

describe('Matter value tables', () => {
  it('equal matter.js constants (the version Homebridge 2.4 runs)', () => {
    expect(MatterLockStateValue).toEqual({
      NOT_FULLY_LOCKED: DoorLock.LockState.NotFullyLocked,
      LOCKED: DoorLock.LockState.Locked,
      UNLOCKED: DoorLock.LockState.Unlocked,
    });
    expect(MatterBatChargeLevelValue).toEqual({ OK: PowerSource.BatChargeLevel.Ok, WARNING: PowerSource.BatChargeLevel.Warning });
    expect(MATTER_LOCK_TYPE_DEAD_BOLT).toBe(DoorLock.LockType.DeadBolt);
    expect(MATTER_OPERATING_MODE_NORMAL).toBe(DoorLock.OperatingMode.Normal);
    expect(MATTER_POWER_SOURCE_ACTIVE).toBe(PowerSource.PowerSourceStatus.Active);
    expect(MATTER_BAT_USER_REPLACEABLE).toBe(PowerSource.BatReplaceability.UserReplaceable);
  });
});

describe('toMatterLockState (docs/design.md §5b)', () => {
  // Expected values from matter.js's DoorLock cluster, not from our own table.
  it.each<[Bolt, number | null]>([
    ['locked', DoorLock.LockState.Locked],
    ['unlocked', DoorLock.LockState.Unlocked],
    ['jammed', DoorLock.LockState.NotFullyLocked],
    ['unknown', null],
  ])('%s → %p', (bolt, lockState) => {
    expect(toMatterLockState(bolt)).toBe(lockState);
  });

  it('reads a value outside the type (bad data) as unknown, in both ecosystems', () => {
    expect(toMatterLockState('ajar' as Bolt)).toBeNull();
    expect(toLockCurrentState('ajar' as Bolt, false)).toBe(LockCurrentStateValue.UNKNOWN);
  });
});

describe('HomeKit and Matter show every bolt state alike', () => {
  // What each protocol's values mean, from the protocols' own enums (hap-nodejs, matter.js), not
  // from our tables: the two adapters map independently and must land on the same meaning.
  const hapMeaning = new Map<number, string>([
    [Characteristic.LockCurrentState.SECURED, 'bolt thrown'],
    [Characteristic.LockCurrentState.UNSECURED, 'bolt retracted'],
    [Characteristic.LockCurrentState.JAMMED, 'bolt stuck'],
    [Characteristic.LockCurrentState.UNKNOWN, 'not known'],
  ]);
  const matterMeaning = new Map<number | null, string>([
    [DoorLock.LockState.Locked, 'bolt thrown'],
    [DoorLock.LockState.Unlocked, 'bolt retracted'],
    [DoorLock.LockState.NotFullyLocked, 'bolt stuck'],
    [null, 'not known'],
  ]);

  it.each<Bolt>(['locked', 'unlocked', 'jammed', 'unknown'])('%s means the same in both', (bolt) => {
    const inHomeKit = hapMeaning.get(toLockCurrentState(bolt, false));
    expect(inHomeKit).toBeDefined();
    expect(matterMeaning.get(toMatterLockState(bolt))).toBe(inHomeKit);
  });

  it('keeps the four bolt states apart in both (no two share a value)', () => {
    const bolts: Bolt[] = ['locked', 'unlocked', 'jammed', 'unknown'];
    expect(new Set(bolts.map((bolt) => toLockCurrentState(bolt, false))).size).toBe(4);
    expect(new Set(bolts.map((bolt) => toMatterLockState(bolt))).size).toBe(4);
  });

  it('shows the same battery percent and calls it low at the same reading', () => {
    for (const level of [null, 0, 0.005, 0.12, 0.195, 0.2, 0.42, 0.999, 1, 1.05, -0.1]) {
      const hap = toBatteryValues(level, 0.2);
      const matter = toMatterBatteryValues(level, 0.2);
      expect(matter.batPercentRemaining).toBe(hap.level === null ? null : hap.level * 2);
      const low = hap.low === Characteristic.StatusLowBattery.BATTERY_LEVEL_LOW;
      expect(matter.batChargeLevel).toBe(low ? PowerSource.BatChargeLevel.Warning : PowerSource.BatChargeLevel.Ok);
      expect(matter.batReplacementNeeded).toBe(low);
    }
  });
});

describe('toMatterBatteryValues', () => {
  it.each<[number | null, number, number | null, number, boolean]>([
    [null, 0.2, null, PowerSource.BatChargeLevel.Ok, false],
    [0.42, 0.2, 84, PowerSource.BatChargeLevel.Ok, false],
    [1, 0.2, 200, PowerSource.BatChargeLevel.Ok, false],
    [1.05, 0.2, 200, PowerSource.BatChargeLevel.Ok, false],
    [-0.1, 0.2, 0, PowerSource.BatChargeLevel.Warning, true],
    [0.2, 0.2, 40, PowerSource.BatChargeLevel.Ok, false],
    // Low by the reading, not the rounded percent, exactly as HomeKit's StatusLowBattery.
    [0.195, 0.2, 40, PowerSource.BatChargeLevel.Warning, true],
    [0.12, 0.2, 24, PowerSource.BatChargeLevel.Warning, true],
  ])('%p with threshold %p → %p half-percent, charge level %p', (level, threshold, percent, chargeLevel, replace) => {
    expect(toMatterBatteryValues(level, threshold)).toEqual({ batPercentRemaining: percent, batChargeLevel: chargeLevel, batReplacementNeeded: replace });
  });
});

describe('matterLabel', () => {
  it('keeps names up to 32 bytes and cuts longer ones between whole characters', () => {
    expect(matterLabel('  Front Door ')).toBe('Front Door');
    expect(matterLabel('A'.repeat(40))).toBe('A'.repeat(32));
    const cut = matterLabel(`${'ü'.repeat(15)}Tür 🚪 unten`);
    expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(32);
    expect(cut).toBe(`${'ü'.repeat(15)}T`);
    expect(matterLabel('Haustür 🚪')).toBe('Haustür 🚪');
  });
});

describe('matterCommandError (the status a refused or failed command answers)', () => {
  const completed = (bolt: 'locked' | 'unlocked'): CommandResult => ({ status: 'completed', bolt, commandId: 'c1' });

  it('answers nothing when the lock confirmed the requested position', () => {
    expect(matterCommandError('Front Door', 'unlocked', completed('unlocked'))).toBeNull();
    expect(matterCommandError('Front Door', 'locked', completed('locked'))).toBeNull();
  });

  it('answers Busy only when the lock’s queue is full', () => {
    expect(matterCommandError('Front Door', 'locked', { status: 'rejected', reason: 'queue_full' })).toEqual({
      status: 'busy',
      message: 'Front Door: lock refused: queue_full',
    });
  });

  it.each<CommandResult>([
    { status: 'rejected', reason: 'no_usable_key' },
    { status: 'rejected', reason: 'lock_unreachable' },
    { status: 'rejected', reason: 'unknown_lock' },
    { status: 'rejected', reason: 'unknown_user' },
    { status: 'rejected', reason: 'unavailable' },
    { status: 'failed', reason: 'jammed', commandId: 'c1' },
    { status: 'failed', reason: 'timeout', commandId: 'c1' },
    { status: 'failed', reason: 'delivery_failed', commandId: 'c1' },
    { status: 'failed', reason: 'lock_offline', commandId: 'c1' },
    { status: 'failed', reason: 'interrupted', commandId: 'c1' },
    { status: 'failed', reason: 'superseded', commandId: 'c1' },
  ])('answers Failure for %p', (result) => {
    const error = matterCommandError('Garden Gate', 'unlocked', result);
    expect(error?.status).toBe('failure');
    expect(error?.message).toBe(`Garden Gate: unlock ${result.status === 'failed' ? 'failed' : 'refused'}: ${result.status === 'completed' ? '' : result.reason}`);
  });

  it('answers Failure when a completed command left the bolt elsewhere', () => {
    expect(matterCommandError('Front Door', 'locked', completed('unlocked'))).toEqual({ status: 'failure', message: 'Front Door: lock ended unlocked' });
  });

  it('answers Failure for a command that could not be sent', () => {
    expect(matterRefusal('Front Door', 'locked', 'no such user')).toEqual({ status: 'failure', message: 'Front Door: lock refused: no such user' });
  });
});
