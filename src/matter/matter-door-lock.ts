import { toManufacturer, toModel, toSerialNumber } from '../lock-port/lock-identity.js';
import { toMatterBatteryValues, toMatterLockState } from './matter-lock-state-mapping.js';
import type { MatterAccessory, MatterAPI } from 'homebridge';
import type { PortLock } from '../lock-port/lock-port.js';

/*
 * One lock as a Matter door lock (docs/design.md §5b): the accessory Homebridge's Matter API registers —
 * a featureless DoorLock (no PINs, users or schedules: Homebridge composes none) plus a battery
 * Power Source cluster on the same endpoint. Values come from the shared mapping
 * (lock-state-mapping.ts); this file only arranges them the way the API wants them.
 */

/** What Homebridge stores with each cached Matter lock. */
export interface MatterLockContext {
  /** The service's lock id. */
  lockId: string;
}

/** Matter DoorLock LockType DeadBolt (`DoorLock.LockType.DeadBolt`): what our locks and a Nuki drive. */
export const MATTER_LOCK_TYPE_DEAD_BOLT = 0;
/** Matter DoorLock OperatingMode Normal (`DoorLock.OperatingMode.Normal`). */
export const MATTER_OPERATING_MODE_NORMAL = 0;
/** Matter Power Source PowerSourceStatus Active (`PowerSource.PowerSourceStatus.Active`). */
export const MATTER_POWER_SOURCE_ACTIVE = 1;
/** Matter Power Source BatReplaceability UserReplaceable (`PowerSource.BatReplaceability.UserReplaceable`). */
export const MATTER_BAT_USER_REPLACEABLE = 2;
/** Matter's limit on the Basic Information strings (node label, vendor, product, serial number). */
export const MATTER_LABEL_MAX = 32;

/** The Matter accessory UUID of a lock: derived from its id (stable across restarts and renames), apart from its HAP UUID. */
export function matterLockUuid(matter: Pick<MatterAPI, 'uuid'>, lockId: string): string {
  return matter.uuid.generate(`${lockId}:matter`);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A string cut to Matter's Basic Information limit: 32 bytes of UTF-8, cut between whole
 * characters (graphemes), so "Kellertür" or an emoji never ends up half written.
 */
export function matterLabel(value: string): string {
  let out = '';
  for (const { segment } of graphemes.segment(value.trim())) {
    if (Buffer.byteLength(out + segment, 'utf8') > MATTER_LABEL_MAX) break;
    out += segment;
  }
  return out;
}

/** The `doorLock` cluster state for a lock. */
export function doorLockState(lock: Pick<PortLock, 'bolt'>): { lockState: number | null } {
  return { lockState: toMatterLockState(lock.bolt) };
}

/** The battery attributes of the `powerSource` cluster for a lock. */
export function powerSourceState(lock: Pick<PortLock, 'batteryLevel'>, lowBatteryThreshold: number): ReturnType<typeof toMatterBatteryValues> {
  return toMatterBatteryValues(lock.batteryLevel, lowBatteryThreshold);
}

/**
 * The bridged endpoint's Reachable attribute (Bridged Device Basic Information): false while the
 * lock cannot be reached (no gateway connection, out of range), so Matter apps show it as not
 * responding, as HomeKit shows StatusFault; the last known state stays.
 */
export function reachability(lock: Pick<PortLock, 'online'>): { reachable: boolean } {
  return { reachable: lock.online };
}

/** The two commands of a featureless DoorLock. */
export interface DoorLockHandlers {
  lockDoor: () => Promise<void>;
  unlockDoor: () => Promise<void>;
}

/** Builds the Matter accessory for one lock. */
export function buildMatterDoorLock(
  matter: Pick<MatterAPI, 'uuid' | 'deviceTypes'>,
  lock: PortLock,
  lowBatteryThreshold: number,
  handlers: DoorLockHandlers,
): MatterAccessory<MatterLockContext> {
  return {
    UUID: matterLockUuid(matter, lock.id),
    displayName: matterLabel(lock.name) || 'Lock',
    deviceType: matter.deviceTypes.DoorLock,
    serialNumber: matterLabel(toSerialNumber(lock)),
    manufacturer: matterLabel(toManufacturer(lock)),
    model: matterLabel(toModel(lock)),
    context: { lockId: lock.id },
    clusters: {
      doorLock: {
        ...doorLockState(lock),
        lockType: MATTER_LOCK_TYPE_DEAD_BOLT,
        actuatorEnabled: true,
        operatingMode: MATTER_OPERATING_MODE_NORMAL,
      },
      powerSource: {
        status: MATTER_POWER_SOURCE_ACTIVE,
        order: 0,
        description: 'Battery',
        batPresent: true,
        batReplaceability: MATTER_BAT_USER_REPLACEABLE,
        ...powerSourceState(lock, lowBatteryThreshold),
      },
    },
    handlers: {
      doorLock: {
        lockDoor: handlers.lockDoor,
        unlockDoor: handlers.unlockDoor,
      },
    },
  };
}
