import type NodeBle from 'node-ble';
import { EXPIRED, type Deadline } from '../../deadline.js';
import { TransportError, type GattProfile } from '../../gatt-transport.js';
import type { Characteristic, DeviceHandle } from './bluez-bus-session.js';
import { raceOrFail } from './bluez-errors.js';
import { helperOf, variantValue } from './node-ble-internals.js';

/* GATT resolution once the link is up: the device's services, then a profile's characteristics. */

/** Device1.ServicesResolved, with a timeout: node-ble's gatt() waits for it forever. */
export async function waitServicesResolved(device: NodeBle.Device, deadline: Deadline): Promise<void> {
  const helper = helperOf(device);
  let settle: (resolved: boolean) => void = () => undefined;
  const changed = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  const onChange = (props: unknown): void => {
    if (variantValue(props, 'ServicesResolved') === true) settle(true);
    if (variantValue(props, 'Connected') === false) settle(false);
  };
  helper.on('PropertiesChanged', onChange);
  try {
    const now = await raceOrFail(deadline, helper.prop('ServicesResolved'), 'gatt_unavailable', 'ServicesResolved not answered');
    if (now === true) return;
    const result = await deadline.race(changed);
    if (result === EXPIRED) throw new TransportError('gatt_unavailable', 'GATT services were not resolved in time');
    if (!result) throw new TransportError('not_connected', 'disconnected while resolving services');
  } finally {
    helper.off('PropertiesChanged', onChange);
  }
}

/**
 * The profile's characteristics by name, looked up once per (device, profile) and kept with the
 * device: the characteristic proxies (one match rule each) are reused by every later connection.
 */
export async function resolveProfile(address: string, handle: DeviceHandle, profile: GattProfile, deadline: Deadline): Promise<Map<string, Characteristic>> {
  const key = profileKey(profile);
  const cached = handle.profiles.get(key);
  if (cached !== undefined) return cached;
  let gatt: NodeBle.GattServer | undefined;
  const services = new Map<string, NodeBle.GattService | null>();
  const lookup = <T>(operation: Promise<T>): Promise<T | null> =>
    raceOrFail(deadline, operation, 'gatt_unavailable', 'GATT lookup timed out').catch((error: unknown) => {
      if (error instanceof TransportError) throw error;
      return null; // node-ble: "Service not available" / "Characteristic not available"
    });
  const found = new Map<string, Characteristic>();
  for (const spec of profile.characteristics) {
    const uuidKey = `${spec.service}/${spec.uuid}`;
    let characteristic = handle.characteristics.get(uuidKey);
    if (characteristic === undefined) {
      gatt ??= await raceOrFail(deadline, handle.device.gatt(), 'gatt_unavailable', 'GATT lookup timed out');
      let service = services.get(spec.service);
      if (service === undefined) {
        service = await lookup(gatt.getPrimaryService(spec.service));
        services.set(spec.service, service);
      }
      characteristic = service === null ? null : await lookup(service.getCharacteristic(spec.uuid));
      handle.characteristics.set(uuidKey, characteristic);
    }
    if (characteristic === null) {
      if (spec.required) throw new TransportError('gatt_unavailable', `${address} lacks ${spec.name} (${spec.uuid}): not a device of this profile`);
      continue;
    }
    found.set(spec.name, characteristic);
  }
  handle.profiles.set(key, found);
  return found;
}

/** Identity of a profile by content, so equal profiles built twice share one resolution. */
function profileKey(profile: GattProfile): string {
  return profile.characteristics.map((spec) => `${spec.name}=${spec.service}/${spec.uuid}${spec.required ? '!' : '?'}`).join(',');
}
