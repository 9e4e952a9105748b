import type { GattProfile } from '../../../gateway/gatt-transport.js';
import { LockUuids } from '../protocol/lock-profile.js';

/**
 * Our open lock profile (docs/ble-protocol.md) as the transport sees it: the Lock Service's four
 * characteristics and the Battery Level are required; Device Information is optional.
 * Subscriptions are made in this order on every connection.
 */
export const EKEY_GATT_PROFILE: GattProfile = {
  characteristics: [
    { name: 'boltState', service: LockUuids.lockService, uuid: LockUuids.boltState, required: true, subscribe: true },
    { name: 'controlPoint', service: LockUuids.lockService, uuid: LockUuids.controlPoint, required: true, subscribe: true },
    { name: 'activity', service: LockUuids.lockService, uuid: LockUuids.activity, required: true, subscribe: true },
    { name: 'batteryLevel', service: LockUuids.batteryService, uuid: LockUuids.batteryLevel, required: true, subscribe: true },
    { name: 'credentials', service: LockUuids.lockService, uuid: LockUuids.credentials, required: true, subscribe: true },
    { name: 'manufacturerName', service: LockUuids.deviceInformationService, uuid: LockUuids.manufacturerName, required: false, subscribe: false },
    { name: 'modelNumber', service: LockUuids.deviceInformationService, uuid: LockUuids.modelNumber, required: false, subscribe: false },
    { name: 'serialNumber', service: LockUuids.deviceInformationService, uuid: LockUuids.serialNumber, required: false, subscribe: false },
    { name: 'firmwareRevision', service: LockUuids.deviceInformationService, uuid: LockUuids.firmwareRevision, required: false, subscribe: false },
  ],
};
