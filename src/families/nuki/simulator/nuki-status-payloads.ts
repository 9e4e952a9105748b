import { NukiDoorSensorState, NukiLockAction, NukiState } from '../protocol/nuki-commands.js';
import { encodeBatteryReport, encodeConfig, encodeKeyturnerStates } from '../protocol/nuki-messages.js';
import type { NukiLastLockAction } from './nuki-lock-mechanism.js';

/** The lock's state as its status messages report it. */
export interface NukiStatusSnapshot {
  now: number;
  pairingMode: boolean;
  lockState: number;
  trigger: number;
  lastLockAction: NukiLastLockAction | null;
  batteryPercent: number;
  charging: boolean;
  /** Null when the lock has no door sensor. */
  door: 'open' | 'closed' | null;
}

/** The lock's fixed identity, as Config reports it. */
export interface NukiIdentity {
  nukiId: number;
  name: string;
  firmware: [number, number, number];
  hardware: [number, number];
}

/** Lengths of Keyturner States seen in the field (nuki-messages.ts parses each). */
export type NukiKeyturnerStatesLength = 15 | 20 | 27;

/** At or below this charge the battery is reported critical. */
export const CRITICAL_BATTERY_PERCENT = 20;

/** Bytes 21..26 of the 27-byte variant (remote access, radio status on newer firmwares): zeros here. */
const NEWER_FIRMWARE_BYTES = 6;

/** Keyturner States (0x000C) cut to `length` bytes; the simulated clock runs in UTC (offset 0). */
export function keyturnerStatesPayload(status: NukiStatusSnapshot, length: NukiKeyturnerStatesLength): Buffer {
  const full = encodeKeyturnerStates({
    nukiState: status.pairingMode ? NukiState.pairingMode : NukiState.doorMode,
    lockState: status.lockState,
    trigger: status.trigger,
    currentTime: status.now,
    timezoneOffsetMinutes: 0,
    battery: { critical: status.batteryPercent <= CRITICAL_BATTERY_PERCENT, charging: status.charging, percent: status.batteryPercent },
    configUpdateCount: 0,
    lockNGoTimer: 0,
    lastLockAction: status.lastLockAction?.action ?? 0,
    lastLockActionTrigger: status.lastLockAction?.trigger ?? 0,
    lastLockActionCompletionStatus: status.lastLockAction?.completionStatus ?? 0,
    doorSensorState: status.door === null ? NukiDoorSensorState.unavailable : status.door === 'open' ? NukiDoorSensorState.doorOpened : NukiDoorSensorState.doorClosed,
    nightModeActive: false,
    accessoryBatteryState: 0,
    trailing: Buffer.alloc(NEWER_FIRMWARE_BYTES),
  });
  return Buffer.from(full.subarray(0, length));
}

/** Config (0x0015): the identity, the clock, and fixed settings of a lock fresh out of setup. */
export function configPayload(identity: NukiIdentity, now: number, has: { fob: boolean; keypad: boolean }): Buffer {
  return encodeConfig({
    nukiId: identity.nukiId,
    name: identity.name,
    latitude: 0,
    longitude: 0,
    autoUnlatch: false,
    pairingEnabled: true,
    buttonEnabled: true,
    ledEnabled: true,
    ledBrightness: 3,
    currentTime: now,
    timezoneOffsetMinutes: 0,
    dstMode: 0,
    hasFob: has.fob,
    fobAction1: NukiLockAction.unlock,
    fobAction2: NukiLockAction.lock,
    fobAction3: 0,
    singleLock: false,
    advertisingMode: 0,
    hasKeypad: has.keypad,
    firmwareVersion: identity.firmware,
    hardwareRevision: identity.hardware,
    homeKitStatus: 0,
    // 0xFFFF: no timezone (the simulated clock is UTC).
    timezoneId: 0xffff,
    trailing: Buffer.alloc(0),
  });
}

/** Battery Report (0x0011): four AA cells, 4.4 V empty to 6.0 V full, linear in the percentage. */
export function batteryReportPayload(status: NukiStatusSnapshot): Buffer {
  const voltage = Math.round(4400 + status.batteryPercent * 16);
  return encodeBatteryReport({
    batteryDrain: status.lastLockAction === null ? 0 : 120,
    batteryVoltage: voltage,
    criticalBatteryState: status.batteryPercent <= CRITICAL_BATTERY_PERCENT ? 1 : 0,
    lockAction: status.lastLockAction?.action ?? 0,
    startVoltage: voltage,
    lowestVoltage: status.lastLockAction === null ? voltage : voltage - 150,
    lockDistance: status.lastLockAction === null ? 0 : 360,
    startTemperature: 21,
    maxTurnCurrent: status.lastLockAction === null ? 0 : 400,
    batteryResistance: 180,
    trailing: Buffer.alloc(0),
  });
}
