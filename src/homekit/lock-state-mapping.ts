import type { ActivitySource, Bolt, BoltTarget, DoorState } from '../domain/lock-vocabulary.js';
import { batteryReading } from '../lock-port/lock-identity.js';

/*
 * Pure mappings from the lock port's state to HomeKit characteristic values (docs/homekit.md
 * "Mapping", docs/design.md §5). HomeKit's own table: Matter keeps its own in
 * src/matter/matter-lock-state-mapping.ts, and a unit test holds the two in agreement through the
 * protocols' own enums. No HAP import: the numbers are the protocol's, and unit tests hold them
 * equal to hap-nodejs's constants.
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

/**
 * Bolt → LockCurrentState (docs/design.md §5; docs/homekit.md "Mapping"). A move in progress does
 * not change the current state: the Home app shows "Locking…/Unlocking…" from the target state
 * until the bolt settles, which is what users expect; reporting UNKNOWN for every motor run would
 * flash "Unknown" instead. A value outside the type (bad data) reads as UNKNOWN.
 */
export function toLockCurrentState(bolt: Bolt, _moving: boolean): LockCurrentStateValue {
  switch (bolt) {
    case 'locked':
      return LockCurrentStateValue.SECURED;
    case 'unlocked':
      return LockCurrentStateValue.UNSECURED;
    case 'jammed':
      return LockCurrentStateValue.JAMMED;
    case 'unknown':
      return LockCurrentStateValue.UNKNOWN;
    default:
      return unknownBolt(bolt, LockCurrentStateValue.UNKNOWN);
  }
}

/**
 * Bolt → LockTargetState after the bolt moved for a reason outside HomeKit (or a HomeKit command
 * ended). A settled bolt becomes the target so current equals target; jammed and unknown have no
 * target of their own, so the previous target stays (null = leave it).
 */
export function toLockTargetState(bolt: Bolt): LockTargetStateValue | null {
  switch (bolt) {
    case 'locked':
      return LockTargetStateValue.SECURED;
    case 'unlocked':
      return LockTargetStateValue.UNSECURED;
    case 'jammed':
    case 'unknown':
      return null;
    default:
      return unknownBolt(bolt, null);
  }
}

/** The answer for a bolt value outside the type (bad data): the compiler checks the switch covered every member. */
function unknownBolt<T>(_bolt: never, answer: T): T {
  return answer;
}

/** LockTargetState written by HomeKit → the bolt position to request. */
export function toBoltTarget(targetState: LockTargetStateValue): BoltTarget {
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

/** Battery 0..1 → BatteryLevel percent and StatusLowBattery ({@link batteryReading}: the same percent and "low" as Matter). */
export function toBatteryValues(level: number | null, threshold: number): BatteryValues {
  const reading = batteryReading(level, threshold);
  return { level: reading.percent, low: reading.low ? StatusLowBatteryValue.BATTERY_LEVEL_LOW : StatusLowBatteryValue.BATTERY_LEVEL_NORMAL };
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
export function toContactSensor(door: DoorState): { state: ContactSensorStateValue | null; fault: StatusFaultValue } {
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
export function toLockLastKnownAction(source: ActivitySource | null, bolt: Bolt): LockLastKnownActionValue | null {
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
