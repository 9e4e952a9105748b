import type { ActivityRecord, ActivitySource, DeviceInformation, DoorState, LockAction } from '../../../domain/lock-vocabulary.js';
import { NukiCompletionStatus, NukiDoorSensorState, NukiLockAction, NukiLockState, NukiLogEntryType, NukiTrigger } from '../protocol/nuki-commands.js';
import type { NukiBatteryState, NukiConfig, NukiLogEntry } from '../protocol/nuki-messages.js';
import type { ReportedBolt } from '../../../gateway/lock-driver.js';

/**
 * docs/design.md §4b: locked → `locked`; unlocked, unlatched, unlocked (lock 'n' go) → `unlocked`;
 * unlocking, locking, unlatching → moving; motor blocked → `jammed`; everything else (uncalibrated,
 * calibration, boot run, undefined) → `unknown`.
 */
export function boltOfNukiLockState(lockState: number): ReportedBolt {
  switch (lockState) {
    case NukiLockState.locked:
      return 'locked';
    case NukiLockState.unlocked:
    case NukiLockState.unlatched:
    case NukiLockState.unlockedLockNGo:
      return 'unlocked';
    case NukiLockState.unlocking:
    case NukiLockState.locking:
    case NukiLockState.unlatching:
      return 'moving';
    case NukiLockState.motorBlocked:
      return 'jammed';
    default:
      return 'unknown';
  }
}

/**
 * What moved the bolt, from a Nuki trigger: a Bluetooth command (`system`) names no one here (our
 * own commands are marked `remote` by the gateway, others come with their log entry); the wheel,
 * a key and the button are `manual`; timers and auto-lock are `auto`.
 */
export function sourceOfNukiTrigger(trigger: number): ActivitySource | null {
  switch (trigger) {
    case NukiTrigger.manual:
    case NukiTrigger.button:
      return 'manual';
    case NukiTrigger.automatic:
    case NukiTrigger.autoLock:
      return 'auto';
    default:
      return null;
  }
}

/** The door sensor state; null when the lock has no sensor or it is switched off. */
export function doorOfNukiSensorState(state: number | null): DoorState | null {
  switch (state) {
    case NukiDoorSensorState.doorClosed:
      return 'closed';
    case NukiDoorSensorState.doorOpened:
      return 'open';
    case NukiDoorSensorState.doorStateUnknown:
    case NukiDoorSensorState.calibrating:
      return 'unknown';
    default:
      return null;
  }
}

/** Level reported for a lock that only says "critical" (older firmwares): 5 %, so HomeKit shows it low. */
export const CRITICAL_ONLY_BATTERY_LEVEL = 0.05;

/**
 * The battery level on the service's 0..1 scale: the firmware's percentage where it reports one;
 * else 5 % when critical; else null (the lock does not say, and we do not guess).
 */
export function batteryLevelOfNuki(battery: NukiBatteryState): number | null {
  if (battery.percent !== null) return Math.min(100, battery.percent) / 100;
  return battery.critical ? CRITICAL_ONLY_BATTERY_LEVEL : null;
}

/** Which way a Nuki lock action moves the bolt; null for fob actions (they name no direction). */
export function directionOfNukiAction(action: number): LockAction | null {
  switch (action) {
    case NukiLockAction.lock:
    case NukiLockAction.fullLock:
      return 'lock';
    case NukiLockAction.unlock:
    case NukiLockAction.unlatch:
    case NukiLockAction.lockNGo:
    case NukiLockAction.lockNGoWithUnlatch:
      return 'unlock';
    default:
      return null;
  }
}

/** The Nuki lock state a completed action of ours must leave the bolt in. */
export function reachedTarget(lockState: number, action: LockAction): boolean {
  const bolt = boltOfNukiLockState(lockState);
  return action === 'lock' ? bolt === 'locked' : bolt === 'unlocked';
}

/**
 * One log entry as an activity record, or null when it is not a completed bolt move (logging
 * switched, calibration, door sensor, failed actions) or a code refused at the keypad. docs/design.md §4b: the log index is the
 * activity sequence; an action by our own authorization is `remote` (recorded from the command);
 * by another app or bridge authorization a `tap` naming it (linked authorizations become taps by
 * their user); the wheel, a key or the button `manual`; timers `auto`; keypad codes and fobs `fob`.
 */
export function activityOfNukiLogEntry(entry: NukiLogEntry, ourAuthorizationId: number, now: number): ActivityRecord | null {
  const detail = entry.detail;
  const timestamp = entry.timestamp ?? now;
  if (detail.kind === 'lock_action') {
    if (detail.completionStatus !== 0) return null;
    const action = directionOfNukiAction(detail.action);
    if (action === null) {
      // Fob actions 1-3 carry no direction in the log; the bolt state read tells where it went.
      return null;
    }
    const unlatched = detail.action === NukiLockAction.unlatch || detail.action === NukiLockAction.lockNGoWithUnlatch;
    const base = { sequence: entry.index, action, credential: null, timestamp, ...(unlatched ? { unlatched: true } : {}) };
    if (detail.trigger === NukiTrigger.system) {
      if (entry.authorizationId === ourAuthorizationId) return { ...base, source: 'remote' };
      return { ...base, source: 'tap', actor: entry.name };
    }
    return { ...base, source: sourceOfNukiTrigger(detail.trigger) ?? 'manual' };
  }
  if (detail.type === NukiLogEntryType.keypadAction) {
    const lockAction = detail.data[0];
    const completion = detail.data[2];
    const action = lockAction === undefined ? null : directionOfNukiAction(lockAction);
    // docs/design.md §4c: a code the lock refused is a `keypad_refused` event (never the code).
    if (action !== null && completion === NukiCompletionStatus.invalidCode) {
      return { sequence: entry.index, action, source: 'fob', credential: null, timestamp, keypadRefused: true };
    }
    if (action === null || completion !== 0) return null;
    // Type 0x05 data: action, source, completion status, code id u16 (docs/design.md §4c: a code
    // of an eKey makes the entry that holder's; any other keypad entry is like a fob: no event).
    const record: ActivityRecord = { sequence: entry.index, action, source: 'fob', credential: null, timestamp };
    if (detail.data.length >= 5 && detail.data[1] === 0x01) {
      const codeId = detail.data.readUInt16LE(3);
      if (codeId !== 0) record.keypadCodeId = codeId;
    }
    return record;
  }
  return null;
}

/** Device Information from the lock's Config: the Nuki id is the serial (as the Nuki app shows it, 8 hex digits). */
export function deviceInformationOfNukiConfig(config: NukiConfig): DeviceInformation {
  return {
    manufacturer: 'Nuki Home Solutions',
    model: `Nuki Smart Lock (hardware ${config.hardwareRevision.join('.')})`,
    serial: config.nukiId.toString(16).toUpperCase().padStart(8, '0'),
    firmware: config.firmwareVersion.join('.'),
  };
}
