import { isLockFamilyId, lockFamily } from '../families/registry.js';
import type { ActivitySource } from '../domain/lock-vocabulary.js';
import type { HomeKitBolt, HomeKitBoltTarget, HomeKitDoor, HomeKitLock } from './lock-port.js';

/*
 * Pure mappings from the service's lock state to what each ecosystem shows: HomeKit
 * characteristic values (docs/homekit.md "Mapping") and Matter DoorLock / Power Source attributes
 * (docs/matter.md "Mapping", docs/design.md §5b). The one place a lock's state is translated: the HomeKit
 * accessory (lock-accessory.ts) and the Matter door lock (src/matter/) are two thin views of the
 * same lock port that both read these tables. No HAP or matter.js import: the numbers are the
 * protocols', and unit tests hold them equal to hap-nodejs's and matter.js's constants.
 */

/** HAP LockCurrentState values. */
export const LockCurrentStateValue = {
  /** Bolt retracted. */
  UNSECURED: 0,
  /** Bolt thrown. */
  SECURED: 1,
  /** A motorised move could not finish. */
  JAMMED: 2,
  /** Nobody knows, e.g. the lock was never read. */
  UNKNOWN: 3,
} as const;
/** One of {@link LockCurrentStateValue}. */
export type LockCurrentStateValue = (typeof LockCurrentStateValue)[keyof typeof LockCurrentStateValue];

/** HAP LockTargetState values. */
export const LockTargetStateValue = {
  /** Unlock. */
  UNSECURED: 0,
  /** Lock. */
  SECURED: 1,
} as const;
/** One of {@link LockTargetStateValue}. */
export type LockTargetStateValue = (typeof LockTargetStateValue)[keyof typeof LockTargetStateValue];

/** HAP StatusLowBattery values. */
export const StatusLowBatteryValue = {
  /** At or above the threshold, or unknown. */
  BATTERY_LEVEL_NORMAL: 0,
  /** Below the threshold. */
  BATTERY_LEVEL_LOW: 1,
} as const;
/** One of {@link StatusLowBatteryValue}. */
export type StatusLowBatteryValue = (typeof StatusLowBatteryValue)[keyof typeof StatusLowBatteryValue];

/** HAP StatusFault values. */
export const StatusFaultValue = {
  /** Reachable. */
  NO_FAULT: 0,
  /** Unreachable: the state shown is the last known one. */
  GENERAL_FAULT: 1,
} as const;
/** One of {@link StatusFaultValue}. */
export type StatusFaultValue = (typeof StatusFaultValue)[keyof typeof StatusFaultValue];

/** HAP LockLastKnownAction values. */
export const LockLastKnownActionValue = {
  /** Locked from inside (thumb turn). */
  SECURED_PHYSICALLY_INTERIOR: 0,
  /** Unlocked from inside. */
  UNSECURED_PHYSICALLY_INTERIOR: 1,
  /** Locked at the lock from outside. */
  SECURED_PHYSICALLY_EXTERIOR: 2,
  /** Unlocked at the lock from outside. */
  UNSECURED_PHYSICALLY_EXTERIOR: 3,
  /** Locked with a keypad code. */
  SECURED_BY_KEYPAD: 4,
  /** Unlocked with a keypad code. */
  UNSECURED_BY_KEYPAD: 5,
  /** Locked from afar (app, API, HomeKit, remote control). */
  SECURED_REMOTELY: 6,
  /** Unlocked from afar. */
  UNSECURED_REMOTELY: 7,
  /** Locked by the lock's auto-lock timer. */
  SECURED_BY_AUTO_SECURE_TIMEOUT: 8,
  /** Locked by hand, side unknown. */
  SECURED_PHYSICALLY: 9,
  /** Unlocked by hand, side unknown. */
  UNSECURED_PHYSICALLY: 10,
} as const;
/** One of {@link LockLastKnownActionValue}. */
export type LockLastKnownActionValue = (typeof LockLastKnownActionValue)[keyof typeof LockLastKnownActionValue];

/** Compile-time exhaustiveness: a `switch` that misses a case fails to type-check here. */
function unreachable(value: never): never {
  throw new Error(`Unhandled value ${String(value)}`);
}

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

/** What one bolt state looks like in each ecosystem. */
export interface BoltView {
  /** HAP LockCurrentState. */
  hapCurrent: LockCurrentStateValue;
  /** HAP LockTargetState once the bolt is there; null: leave the previous target (no target of its own). */
  hapTarget: LockTargetStateValue | null;
  /** Matter DoorLock LockState; null is Matter's "unknown". */
  matter: MatterLockStateValue | null;
}

/**
 * The bolt table (docs/design.md §5 and §5b), read by both adapters:
 *
 * | bolt       | HAP current | HAP target | Matter LockState     |
 * |------------|-------------|------------|----------------------|
 * | `locked`   | SECURED     | SECURED    | Locked (1)           |
 * | `unlocked` | UNSECURED   | UNSECURED  | Unlocked (2)         |
 * | `jammed`   | JAMMED      | unchanged  | NotFullyLocked (0)   |
 * | `unknown`  | UNKNOWN     | unchanged  | null                 |
 */
export const BOLT_VIEWS: Readonly<Record<HomeKitBolt, Readonly<BoltView>>> = {
  locked: { hapCurrent: LockCurrentStateValue.SECURED, hapTarget: LockTargetStateValue.SECURED, matter: MatterLockStateValue.LOCKED },
  unlocked: { hapCurrent: LockCurrentStateValue.UNSECURED, hapTarget: LockTargetStateValue.UNSECURED, matter: MatterLockStateValue.UNLOCKED },
  jammed: { hapCurrent: LockCurrentStateValue.JAMMED, hapTarget: null, matter: MatterLockStateValue.NOT_FULLY_LOCKED },
  unknown: { hapCurrent: LockCurrentStateValue.UNKNOWN, hapTarget: null, matter: null },
};

/** The row of {@link BOLT_VIEWS}; a value outside the type (bad data) reads as `unknown`. */
function boltView(bolt: HomeKitBolt): Readonly<BoltView> {
  return Object.hasOwn(BOLT_VIEWS, bolt) ? BOLT_VIEWS[bolt] : BOLT_VIEWS.unknown;
}

/**
 * Bolt → LockCurrentState. A move in progress does not change the current state: the Home app
 * shows "Locking…/Unlocking…" from the target state until the bolt settles, which is what users
 * expect; reporting UNKNOWN for every motor run would flash "Unknown" instead.
 */
export function toLockCurrentState(bolt: HomeKitBolt, _moving: boolean): LockCurrentStateValue {
  return boltView(bolt).hapCurrent;
}

/**
 * Bolt → LockTargetState after the bolt moved for a reason outside HomeKit (or a HomeKit command
 * ended). A settled bolt becomes the target so current equals target; jammed and unknown have no
 * target of their own, so the previous target stays (null = leave it).
 */
export function toLockTargetState(bolt: HomeKitBolt): LockTargetStateValue | null {
  return boltView(bolt).hapTarget;
}

/**
 * Bolt → Matter DoorLock LockState (docs/design.md §5b). As in HomeKit, a move in progress keeps the last
 * settled state: Matter has no "moving" value, and NotFullyLocked would read as a jam.
 */
export function toMatterLockState(bolt: HomeKitBolt): MatterLockStateValue | null {
  return boltView(bolt).matter;
}

/** LockTargetState written by HomeKit → the bolt position to request. */
export function toBoltTarget(targetState: LockTargetStateValue): HomeKitBoltTarget {
  switch (targetState) {
    case LockTargetStateValue.SECURED:
      return 'locked';
    case LockTargetStateValue.UNSECURED:
      return 'unlocked';
    default:
      return unreachable(targetState);
  }
}

/** Parses a LockTargetState written by a controller; null when it is not 0 or 1. */
export function parseLockTargetState(value: unknown): LockTargetStateValue | null {
  if (value === LockTargetStateValue.SECURED || value === LockTargetStateValue.UNSECURED) return value;
  return null;
}

/** The Battery service's values for one reading. */
export interface BatteryValues {
  /** BatteryLevel 0..100 (whole percent); null until the first reading (leave the value as is). */
  level: number | null;
  /** StatusLowBattery: LOW strictly below the threshold; NORMAL when unknown. */
  low: StatusLowBatteryValue;
}

/** Default `homekit.low_battery_threshold` (docs/design.md §5). */
export const DEFAULT_LOW_BATTERY_THRESHOLD = 0.2;

/**
 * Battery 0..1 → BatteryLevel percent and StatusLowBattery. Out-of-range or non-finite readings
 * are clamped (a lock reporting 1.05 is full, not invalid); the comparison uses the reading, not
 * the rounded percent, so 0.195 with threshold 0.2 is low although it shows 20 %.
 */
export function toBatteryValues(level: number | null, threshold: number): BatteryValues {
  if (level === null || Number.isNaN(level)) return { level: null, low: StatusLowBatteryValue.BATTERY_LEVEL_NORMAL };
  const clamped = Math.min(1, Math.max(0, level));
  return {
    level: Math.round(clamped * 100),
    low: clamped < threshold ? StatusLowBatteryValue.BATTERY_LEVEL_LOW : StatusLowBatteryValue.BATTERY_LEVEL_NORMAL,
  };
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
 * Battery 0..1 → Matter Power Source attributes, derived from {@link toBatteryValues} so every
 * ecosystem shows the same whole percent and calls the battery low at the same reading
 * (BatPercentRemaining counts half percents: 42 % is 84).
 */
export function toMatterBatteryValues(level: number | null, threshold: number): MatterBatteryValues {
  const values = toBatteryValues(level, threshold);
  const low = values.low === StatusLowBatteryValue.BATTERY_LEVEL_LOW;
  return {
    batPercentRemaining: values.level === null ? null : values.level * 2,
    batChargeLevel: low ? MatterBatChargeLevelValue.WARNING : MatterBatChargeLevelValue.OK,
    batReplacementNeeded: low,
  };
}

/** Manufacturer and model shown until the lock's Device Information has been read. */
export const FALLBACK_MANUFACTURER = 'eKey Locks';
export const FALLBACK_MODEL = 'Bluetooth LE lock';

/** Manufacturer from the lock's Device Information, else {@link FALLBACK_MANUFACTURER}. */
export function toManufacturer(lock: Pick<HomeKitLock, 'deviceInformation'>): string {
  return nonEmpty(lock.deviceInformation?.manufacturer) ?? FALLBACK_MANUFACTURER;
}

/** Model from the lock's Device Information, else {@link FALLBACK_MODEL}. */
export function toModel(lock: Pick<HomeKitLock, 'deviceInformation'>): string {
  return nonEmpty(lock.deviceInformation?.model) ?? FALLBACK_MODEL;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * HomeKit's serial number: a Nuki shows its Nuki ID, as the Nuki app does (read from the lock's
 * Config, docs/design.md §4b); every other lock its Bluetooth address (docs/homekit.md), which is stable
 * and printed on nothing else; the lock id when neither is known.
 */
export function toSerialNumber(lock: Pick<HomeKitLock, 'family' | 'bleAddress' | 'deviceInformation' | 'id'>): string {
  const ownSerial = isLockFamilyId(lock.family) ? lockFamily(lock.family).serialNumberOf(lock.deviceInformation ?? undefined) : undefined;
  if (ownSerial !== undefined) return ownSerial;
  return lock.bleAddress.trim() === '' ? lock.id : lock.bleAddress;
}

/** ContactSensorState values (HAP: 0 = contact detected, the door is closed). */
export const ContactSensorStateValue = {
  /** The door is closed. */
  CONTACT_DETECTED: 0,
  /** The door is open. */
  CONTACT_NOT_DETECTED: 1,
} as const;
/** One of {@link ContactSensorStateValue}. */
export type ContactSensorStateValue = (typeof ContactSensorStateValue)[keyof typeof ContactSensorStateValue];

/**
 * The door sensor → ContactSensorState and the sensor's StatusFault (docs/homekit.md "Door
 * sensor"): closed is contact, open is no contact; a sensor that cannot tell keeps its last
 * state and reports a fault instead of guessing.
 */
export function toContactSensor(door: HomeKitDoor): { state: ContactSensorStateValue | null; fault: StatusFaultValue } {
  switch (door) {
    case 'closed':
      return { state: ContactSensorStateValue.CONTACT_DETECTED, fault: StatusFaultValue.NO_FAULT };
    case 'open':
      return { state: ContactSensorStateValue.CONTACT_NOT_DETECTED, fault: StatusFaultValue.NO_FAULT };
    case 'unknown':
      return { state: null, fault: StatusFaultValue.GENERAL_FAULT };
    default:
      return unreachable(door);
  }
}

/** Reachability → StatusFault on the LockMechanism service (docs/homekit.md "Offline locks"). */
export function toStatusFault(online: boolean): StatusFaultValue {
  return online ? StatusFaultValue.NO_FAULT : StatusFaultValue.GENERAL_FAULT;
}

/**
 * What moved the bolt, and where it went → LockLastKnownAction; null when there is nothing to
 * report (source unknown, or the bolt jammed/unknown: the previous action stays).
 *
 * | source      | locked                          | unlocked                      |
 * |-------------|---------------------------------|-------------------------------|
 * | tap         | SECURED_PHYSICALLY_EXTERIOR     | UNSECURED_PHYSICALLY_EXTERIOR |
 * | triple_tap  | SECURED_PHYSICALLY_EXTERIOR     | UNSECURED_PHYSICALLY_EXTERIOR |
 * | manual      | SECURED_PHYSICALLY              | UNSECURED_PHYSICALLY          |
 * | remote      | SECURED_REMOTELY                | UNSECURED_REMOTELY            |
 * | fob         | SECURED_REMOTELY                | UNSECURED_REMOTELY            |
 * | auto        | SECURED_BY_AUTO_SECURE_TIMEOUT  | UNSECURED_REMOTELY            |
 */
export function toLockLastKnownAction(source: ActivitySource | null, bolt: HomeKitBolt): LockLastKnownActionValue | null {
  if (source === null) return null;
  switch (bolt) {
    case 'locked':
      return securedBy(source);
    case 'unlocked':
      return unsecuredBy(source);
    case 'jammed':
    case 'unknown':
      return null;
    default:
      return unreachable(bolt);
  }
}

function securedBy(source: ActivitySource): LockLastKnownActionValue {
  switch (source) {
    // A phone tap and the triple-tap feature both happen at the lock's outside.
    case 'tap':
    case 'triple_tap':
      return LockLastKnownActionValue.SECURED_PHYSICALLY_EXTERIOR;
    // Thumb turn or key: the lock cannot tell which side.
    case 'manual':
      return LockLastKnownActionValue.SECURED_PHYSICALLY;
    // Gateway commands (API, HomeKit) and radio key fobs act from a distance.
    case 'remote':
    case 'fob':
      return LockLastKnownActionValue.SECURED_REMOTELY;
    case 'auto':
      return LockLastKnownActionValue.SECURED_BY_AUTO_SECURE_TIMEOUT;
    default:
      return unreachable(source);
  }
}

function unsecuredBy(source: ActivitySource): LockLastKnownActionValue {
  switch (source) {
    case 'tap':
    case 'triple_tap':
      return LockLastKnownActionValue.UNSECURED_PHYSICALLY_EXTERIOR;
    case 'manual':
      return LockLastKnownActionValue.UNSECURED_PHYSICALLY;
    case 'remote':
    case 'fob':
      return LockLastKnownActionValue.UNSECURED_REMOTELY;
    // HAP has no "unsecured automatically"; nobody stood at the door, so "remotely" is nearest.
    case 'auto':
      return LockLastKnownActionValue.UNSECURED_REMOTELY;
    default:
      return unreachable(source);
  }
}

/**
 * Firmware string → HAP FirmwareRevision (`major[.minor[.patch]]`, digits only); null when the
 * string carries no such version (HAP-NodeJS rejects other formats).
 */
export function toFirmwareRevision(firmware: string): string | null {
  const match = /(\d+)(\.\d+)?(\.\d+)?/.exec(firmware);
  return match ? match[0] : null;
}
