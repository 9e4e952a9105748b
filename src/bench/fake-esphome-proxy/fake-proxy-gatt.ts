/**
 * The GATT table a fake proxy reports for a simulated device: handles numbered as a GATT server
 * numbers them (service, then per characteristic its value and, where it notifies or indicates,
 * its CCCD), properties from the device's BlueZ-style flags.
 */
import type { SimulatedDevice } from '../../gateway/transports/simulator/simulated-device.js';

export interface FakeCharacteristic {
  serviceUuid: string;
  uuid: string;
  handle: number;
  properties: number;
  /** Handle of its Client Characteristic Configuration Descriptor; null when it neither notifies nor indicates. */
  cccd: number | null;
}

export interface FakeService {
  uuid: string;
  handle: number;
  characteristics: FakeCharacteristic[];
}

const PROPERTY_BITS: Record<string, number> = { read: 0x02, 'write-without-response': 0x04, write: 0x08, notify: 0x10, indicate: 0x20 };

export function gattTableOf(device: SimulatedDevice): FakeService[] {
  let handle = 1;
  return device.gattDatabase.map((service) => {
    const serviceHandle = handle;
    handle += 1;
    const characteristics = service.characteristics.map((characteristic) => {
      const properties = characteristic.flags.reduce((bits, flag) => bits | (PROPERTY_BITS[flag] ?? 0), 0);
      // Declaration, then value.
      const valueHandle = handle + 1;
      handle += 2;
      let cccd: number | null = null;
      if ((properties & 0x30) !== 0) {
        cccd = handle;
        handle += 1;
      }
      return { serviceUuid: service.uuid, uuid: characteristic.uuid, handle: valueHandle, properties, cccd };
    });
    return { uuid: service.uuid, handle: serviceHandle, characteristics };
  });
}
