import type { Bolt } from '../domain/lock-vocabulary.js';
import { batteryReading } from '../lock-port/lock-identity.js';

/*
 * Pure mappings from the lock port's state to Matter DoorLock and Power Source attributes
 * (docs/matter.md "Mapping", docs/design.md §5b). No matter.js import: the numbers are the
 * specification's, and a unit test holds them equal to matter.js's constants.
 */

/** Matter DoorLock cluster LockState values (`DoorLock.LockState`); null is "unknown" (the attribute is nullable). */
export const MatterLockStateValue = {
  /** The bolt is neither fully thrown nor retracted: Matter's word for a jam. */
  NOT_FULLY_LOCKED: 0,
  /** Bolt thrown. */
  LOCKED: 1,
  /** Bolt retracted. */
  UNLOCKED: 2,
} as const;
/** One of {@link MatterLockStateValue}. */
export type MatterLockStateValue = (typeof MatterLockStateValue)[keyof typeof MatterLockStateValue];

/**
 * Bolt → Matter DoorLock LockState (docs/design.md §5b). As in HomeKit, a move in progress keeps
 * the last settled state: Matter has no "moving" value, and NotFullyLocked would read as a jam.
 * A value outside the type (bad data) is Matter's "unknown", null.
 */
export function toMatterLockState(bolt: Bolt): MatterLockStateValue | null {
  switch (bolt) {
    case 'locked':
      return MatterLockStateValue.LOCKED;
    case 'unlocked':
      return MatterLockStateValue.UNLOCKED;
    case 'jammed':
      return MatterLockStateValue.NOT_FULLY_LOCKED;
    case 'unknown':
      return null;
    default:
      return unknownBolt(bolt);
  }
}

/** The answer for a bolt value outside the type: the compiler checks the switch covered every member. */
function unknownBolt(_bolt: never): null {
  return null;
}

/** Matter Power Source BatChargeLevel values (`PowerSource.BatChargeLevel`). */
export const MatterBatChargeLevelValue = {
  /** At or above the low-battery threshold, or unknown. */
  OK: 0,
  /** Below the threshold: replace the batteries soon. */
  WARNING: 1,
} as const;
/** One of {@link MatterBatChargeLevelValue}. */
export type MatterBatChargeLevelValue = (typeof MatterBatChargeLevelValue)[keyof typeof MatterBatChargeLevelValue];

/** The Matter Power Source attributes that follow a battery reading. */
export interface MatterBatteryValues {
  /** BatPercentRemaining in half-percent steps (0..200); null until the first reading. */
  batPercentRemaining: number | null;
  /** BatChargeLevel: WARNING strictly below the threshold, as HAP's StatusLowBattery. */
  batChargeLevel: MatterBatChargeLevelValue;
  /** BatReplacementNeeded: true while the level is low. */
  batReplacementNeeded: boolean;
}

/**
 * Battery 0..1 → Matter Power Source attributes, from the same {@link batteryReading} as HomeKit,
 * so every ecosystem shows the same whole percent and calls the battery low at the same reading
 * (BatPercentRemaining counts half percents: 42 % is 84).
 */
export function toMatterBatteryValues(level: number | null, threshold: number): MatterBatteryValues {
  const reading = batteryReading(level, threshold);
  return {
    batPercentRemaining: reading.percent === null ? null : reading.percent * 2,
    batChargeLevel: reading.low ? MatterBatChargeLevelValue.WARNING : MatterBatChargeLevelValue.OK,
    batReplacementNeeded: reading.low,
  };
}
