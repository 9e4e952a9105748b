import type { Deadline } from '../../deadline.js';
import { TransportError, type GattProfile } from '../../gatt-transport.js';
import { EsphomeApiError } from './esphome-api-error.js';
import { EsphomeGattConnection, type ResolvedCharacteristic } from './esphome-gatt-connection.js';
import {
  DeviceRequestType,
  deviceRequest,
  getServicesRequest,
  MessageType,
  notifyRequest,
  ProxyFeature,
  readAddress,
  readConnection,
  readHandleAnswer,
  readServices,
  writeDescriptorRequest,
  type ApiMessage,
  type GattServiceEntry,
} from './esphome-messages.js';
import type { ProxySession } from './esphome-proxy-session.js';

/** GATT characteristic property bits (Bluetooth Core Vol 3 Part G §3.3.1.1). */
const Property = { notify: 0x10, indicate: 0x20 } as const;
/** Client Characteristic Configuration Descriptor. */
const CCCD_UUID = '00002902-0000-1000-8000-00805f9b34fb';

/**
 * Opens one GATT link through a proxy, within the deadline (docs/gateways.md "How it works"):
 * connect (V3, with the proxy's cache where it has one, with the address type it heard), the
 * GATT services, the profile resolved by UUID, and each subscription made — the proxy registers
 * the notification, and we write the CCCD ourselves, since for V3 connections the proxy does not.
 * A connect that times out is followed by a disconnect, so the proxy's slot is not leaked.
 * Every failure is a TransportError; the link is released on every path that does not return it.
 */
export async function openLink(session: ProxySession, address: string, addressNumber: number, profile: GattProfile, deadline: Deadline, operationTimeoutMs: number): Promise<EsphomeGattConnection> {
  const sighting = session.sighting(addressNumber);
  const link = new EsphomeGattConnection(address, addressNumber, session, operationTimeoutMs);
  session.links.set(addressNumber, link);
  const flags = session.deviceInfo?.proxyFeatureFlags ?? 0;
  const connectType = (flags & ProxyFeature.RemoteCaching) !== 0 ? DeviceRequestType.ConnectV3WithCache : DeviceRequestType.ConnectV3WithoutCache;
  try {
    const connected = session.waitFor(
      (message) => {
        if (message.type !== MessageType.BluetoothDeviceConnectionResponse) return undefined;
        const answer = readConnection(message.body);
        return answer.address === addressNumber ? answer : undefined;
      },
      deadline.remaining(),
      () => new TransportError('connect_failed', `${address}: connect through proxy ${session.proxyName} timed out`),
    );
    session.send(deviceRequest(addressNumber, connectType, sighting?.addressType ?? 0));
    let answer;
    try {
      answer = await connected;
    } catch (error) {
      // Timed out: the proxy may still be trying and holds a slot for it until told otherwise.
      if (error instanceof TransportError) session.send(deviceRequest(addressNumber, DeviceRequestType.Disconnect));
      throw error;
    }
    if (!answer.connected) throw new TransportError('connect_failed', `${address}: proxy ${session.proxyName} could not connect (error ${answer.error})`);
    const services = await getServices(session, address, addressNumber, deadline);
    const resolved = resolveProfile(address, services, profile);
    link.characteristics = resolved.characteristics;
    await subscribe(session, link, resolved, deadline);
    return link;
  } catch (error) {
    // The link may be up at the proxy: let it go (this also releases the slot).
    if (link.connected) {
      if (error instanceof TransportError && error.failure === 'connect_failed') link.lost();
      else await link.disconnect();
    }
    session.release(link);
    if (error instanceof TransportError) throw error;
    if (error instanceof EsphomeApiError) throw new TransportError('connect_failed', `${address}: proxy ${session.proxyName} went away (${error.message})`, { cause: error });
    throw new TransportError('connect_failed', `${address}: connect through proxy ${session.proxyName} failed`, { cause: error });
  }
}

interface ResolvedProfile {
  characteristics: Map<string, ResolvedCharacteristic>;
  /** Subscriptions to make: handle, the names it notifies, its CCCD and whether it only indicates. */
  subscriptions: { handle: number; names: string[]; cccd: number; indicateOnly: boolean }[];
}

async function getServices(session: ProxySession, address: string, addressNumber: number, deadline: Deadline): Promise<GattServiceEntry[]> {
  const services: GattServiceEntry[] = [];
  const done = session.waitFor(
    (message: ApiMessage) => {
      if (message.type === MessageType.BluetoothGATTGetServicesResponse) {
        const batch = readServices(message.body);
        if (batch.address === addressNumber) services.push(...batch.services);
        return undefined;
      }
      if (message.type === MessageType.BluetoothGATTGetServicesDoneResponse && readAddress(message.body) === addressNumber) return { ok: true as const };
      if (message.type === MessageType.BluetoothGATTErrorResponse && readHandleAnswer(message.body).address === addressNumber) return { ok: false as const };
      if (message.type === MessageType.BluetoothDeviceConnectionResponse) {
        const answer = readConnection(message.body);
        if (answer.address === addressNumber && !answer.connected) return { ok: false as const };
      }
      return undefined;
    },
    deadline.remaining(),
    () => new TransportError('gatt_unavailable', `${address}: the GATT services did not arrive through proxy ${session.proxyName} in time`),
  );
  session.send(getServicesRequest(addressNumber));
  const result = await done;
  if (!result.ok) throw new TransportError('gatt_unavailable', `${address}: proxy ${session.proxyName} could not read the GATT services`);
  return services;
}

function resolveProfile(address: string, services: GattServiceEntry[], profile: GattProfile): ResolvedProfile {
  const characteristics = new Map<string, ResolvedCharacteristic>();
  const byHandle = new Map<number, { names: string[]; cccd: number; indicateOnly: boolean }>();
  for (const spec of profile.characteristics) {
    const service = services.find((candidate) => candidate.uuid === spec.service);
    const characteristic = service?.characteristics.find((candidate) => candidate.uuid === spec.uuid);
    if (characteristic === undefined) {
      if (spec.required) throw new TransportError('gatt_unavailable', `${address} lacks ${spec.name} (${spec.uuid}): not a device of this profile`);
      continue;
    }
    characteristics.set(spec.name, { handle: characteristic.handle, properties: characteristic.properties });
    if (!spec.subscribe) continue;
    const notifies = (characteristic.properties & Property.notify) !== 0;
    const indicates = (characteristic.properties & Property.indicate) !== 0;
    const cccd = characteristic.descriptors.find((descriptor) => descriptor.uuid === CCCD_UUID);
    if ((!notifies && !indicates) || cccd === undefined) throw new TransportError('gatt_unavailable', `${address}: ${spec.name} neither notifies nor indicates`);
    const entry = byHandle.get(characteristic.handle);
    if (entry === undefined) byHandle.set(characteristic.handle, { names: [spec.name], cccd: cccd.handle, indicateOnly: !notifies });
    else entry.names.push(spec.name);
  }
  return { characteristics, subscriptions: [...byHandle].map(([handle, entry]) => ({ handle, ...entry })) };
}

async function subscribe(session: ProxySession, link: EsphomeGattConnection, resolved: ResolvedProfile, deadline: Deadline): Promise<void> {
  link.subscribed(new Map(resolved.subscriptions.map((subscription) => [subscription.handle, subscription.names])));
  for (const subscription of resolved.subscriptions) {
    await exchange(session, link, subscription.handle, notifyRequest(link.addressNumber, subscription.handle, true), MessageType.BluetoothGATTNotifyResponse, deadline);
    // 0x0001 enables notifications, 0x0002 indications (Core Vol 3 Part G §3.3.3.3).
    const value = Buffer.from([subscription.indicateOnly ? 0x02 : 0x01, 0x00]);
    await exchange(session, link, subscription.cccd, writeDescriptorRequest(link.addressNumber, subscription.cccd, value), MessageType.BluetoothGATTWriteResponse, deadline);
  }
}

/** One request of the set-up and its answer for this address and handle (or its refusal). */
async function exchange(session: ProxySession, link: EsphomeGattConnection, handle: number, request: ApiMessage, answerType: number, deadline: Deadline): Promise<void> {
  const answered = session.waitFor(
    (message) => {
      if (link.isLinkDown(message)) return 'down' as const;
      if (message.type !== answerType && message.type !== MessageType.BluetoothGATTErrorResponse) return undefined;
      const answer = readHandleAnswer(message.body);
      if (answer.address !== link.addressNumber || answer.handle !== handle) return undefined;
      return message.type === answerType ? ('ok' as const) : ('refused' as const);
    },
    deadline.remaining(),
    () => new TransportError('gatt_unavailable', `${link.address}: subscribing through proxy ${session.proxyName} timed out`),
  );
  session.send(request);
  const outcome = await answered;
  if (outcome === 'down') throw new TransportError('connect_failed', `${link.address}: the link dropped while subscribing`);
  if (outcome === 'refused') throw new TransportError('gatt_unavailable', `${link.address}: the device refused a subscription (handle ${handle})`);
}
