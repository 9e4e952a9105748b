import type { PortLock } from './lock-port.js';

/*
 * What every ecosystem shows about a lock beside its bolt, the same in each (HomeKit's Accessory
 * Information, Matter's Basic Information and Power Source): one name, one serial number, one
 * battery percent and one "low" for a lock wherever it appears. Each adapter maps these to its
 * own values.
 */

/** Default `homekit.low_battery_threshold` (docs/design.md §5), also Matter's. */
export const DEFAULT_LOW_BATTERY_THRESHOLD = 0.2;

/** A battery reading as every ecosystem shows it. */
export interface BatteryReading {
  /** Whole percent 0..100; null until the first reading. */
  percent: number | null;
  /** Strictly below the threshold; false while unknown. */
  low: boolean;
}

/**
 * Battery 0..1 → whole percent and "low". Out-of-range or non-finite readings are clamped (a lock
 * reporting 1.05 is full, not invalid); the comparison uses the reading, not the rounded percent,
 * so 0.195 with threshold 0.2 is low although it shows 20 %.
 */
export function batteryReading(level: number | null, threshold: number): BatteryReading {
  if (level === null || Number.isNaN(level)) return { percent: null, low: false };
  const clamped = Math.min(1, Math.max(0, level));
  return { percent: Math.round(clamped * 100), low: clamped < threshold };
}

/** Manufacturer and model shown until the lock's Device Information has been read. */
export const FALLBACK_MANUFACTURER = 'eKey Locks';
export const FALLBACK_MODEL = 'Bluetooth LE lock';

/** Manufacturer from the lock's Device Information, else {@link FALLBACK_MANUFACTURER}. */
export function toManufacturer(lock: Pick<PortLock, 'deviceInformation'>): string {
  return nonEmpty(lock.deviceInformation?.manufacturer) ?? FALLBACK_MANUFACTURER;
}

/** Model from the lock's Device Information, else {@link FALLBACK_MODEL}. */
export function toModel(lock: Pick<PortLock, 'deviceInformation'>): string {
  return nonEmpty(lock.deviceInformation?.model) ?? FALLBACK_MODEL;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The serial number every ecosystem shows (the service decided it: {@link PortLock.serialNumber}). */
export function toSerialNumber(lock: Pick<PortLock, 'serialNumber'>): string {
  return lock.serialNumber;
}
