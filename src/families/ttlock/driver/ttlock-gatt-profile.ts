import type { GattProfile } from '../../../gateway/gatt-transport.js';

/**
 * What a TTLock offers over GATT (docs/ttlock.md "GATT"): service 0x1910 with FFF2 (write) and
 * FFF4 (notify), and the standard Device Information strings some locks add (manufacturer
 * "Sciener", model, firmware, hardware: the DEF CON 34 capture reads them).
 */
export const TTLOCK_SERVICE = '00001910-0000-1000-8000-00805f9b34fb';
export const TTLOCK_WRITE = '0000fff2-0000-1000-8000-00805f9b34fb';
export const TTLOCK_NOTIFY = '0000fff4-0000-1000-8000-00805f9b34fb';
export const DEVICE_INFORMATION_SERVICE = '0000180a-0000-1000-8000-00805f9b34fb';
export const MANUFACTURER_NAME = '00002a29-0000-1000-8000-00805f9b34fb';
export const MODEL_NUMBER = '00002a24-0000-1000-8000-00805f9b34fb';
export const FIRMWARE_REVISION = '00002a26-0000-1000-8000-00805f9b34fb';
export const HARDWARE_REVISION = '00002a27-0000-1000-8000-00805f9b34fb';

export const TTLOCK_GATT_PROFILE: GattProfile = {
  characteristics: [
    { name: 'write', service: TTLOCK_SERVICE, uuid: TTLOCK_WRITE, required: true, subscribe: false },
    { name: 'notify', service: TTLOCK_SERVICE, uuid: TTLOCK_NOTIFY, required: true, subscribe: true },
    { name: 'manufacturer', service: DEVICE_INFORMATION_SERVICE, uuid: MANUFACTURER_NAME, required: false, subscribe: false },
    { name: 'model', service: DEVICE_INFORMATION_SERVICE, uuid: MODEL_NUMBER, required: false, subscribe: false },
    { name: 'firmware', service: DEVICE_INFORMATION_SERVICE, uuid: FIRMWARE_REVISION, required: false, subscribe: false },
  ],
};
