import { ProtoFields, ProtoWriter } from './protobuf-fields.js';

/**
 * The messages of ESPHome's native API (api.proto) that a Bluetooth proxy's client uses, by id,
 * with the client's side of each: requests written, answers read. Ids and field numbers are
 * api.proto's; docs/gateways.md "How it works" lists them. Every other id the device may send
 * (entity states, logs, …) is left alone, never a reason to close the link.
 */
export const MessageType = {
  HelloRequest: 1,
  HelloResponse: 2,
  AuthenticationRequest: 3,
  AuthenticationResponse: 4,
  DisconnectRequest: 5,
  DisconnectResponse: 6,
  PingRequest: 7,
  PingResponse: 8,
  DeviceInfoRequest: 9,
  DeviceInfoResponse: 10,
  ListEntitiesRequest: 11,
  ListEntitiesDoneResponse: 19,
  SubscribeStatesRequest: 20,
  GetTimeRequest: 36,
  GetTimeResponse: 37,
  SubscribeBluetoothLEAdvertisementsRequest: 66,
  BluetoothLEAdvertisementResponse: 67,
  BluetoothDeviceRequest: 68,
  BluetoothDeviceConnectionResponse: 69,
  BluetoothGATTGetServicesRequest: 70,
  BluetoothGATTGetServicesResponse: 71,
  BluetoothGATTGetServicesDoneResponse: 72,
  BluetoothGATTReadRequest: 73,
  BluetoothGATTReadResponse: 74,
  BluetoothGATTWriteRequest: 75,
  BluetoothGATTReadDescriptorRequest: 76,
  BluetoothGATTWriteDescriptorRequest: 77,
  BluetoothGATTNotifyRequest: 78,
  BluetoothGATTNotifyDataResponse: 79,
  SubscribeBluetoothConnectionsFreeRequest: 80,
  BluetoothConnectionsFreeResponse: 81,
  BluetoothGATTErrorResponse: 82,
  BluetoothGATTWriteResponse: 83,
  BluetoothGATTNotifyResponse: 84,
  UnsubscribeBluetoothLEAdvertisementsRequest: 87,
  BluetoothLERawAdvertisementsResponse: 93,
} as const;

/** `BluetoothDeviceRequest.request_type` (api.proto `BluetoothDeviceRequestType`). */
export const DeviceRequestType = {
  Disconnect: 1,
  ConnectV3WithCache: 4,
  ConnectV3WithoutCache: 5,
} as const;

/** `DeviceInfoResponse.bluetooth_proxy_feature_flags` bits the transport needs. */
export const ProxyFeature = {
  ActiveConnections: 2,
  RemoteCaching: 4,
  RawAdvertisements: 32,
} as const;

/** The API version this client speaks (what aioesphomeapi and esphome-client announce). */
export const CLIENT_API_VERSION = { major: 1, minor: 14 } as const;

/** One message as it travels: its id and its protobuf body. */
export interface ApiMessage {
  type: number;
  body: Buffer;
}

const message = (type: number, writer: ProtoWriter = new ProtoWriter()): ApiMessage => ({ type, body: writer.finish() });

export const helloRequest = (clientInfo: string): ApiMessage =>
  message(MessageType.HelloRequest, new ProtoWriter().bytes(1, clientInfo).uint(2, CLIENT_API_VERSION.major).uint(3, CLIENT_API_VERSION.minor));

export const authenticationRequest = (): ApiMessage => message(MessageType.AuthenticationRequest);
export const deviceInfoRequest = (): ApiMessage => message(MessageType.DeviceInfoRequest);
export const listEntitiesRequest = (): ApiMessage => message(MessageType.ListEntitiesRequest);
export const subscribeStatesRequest = (): ApiMessage => message(MessageType.SubscribeStatesRequest);
export const pingRequest = (): ApiMessage => message(MessageType.PingRequest);
export const pingResponse = (): ApiMessage => message(MessageType.PingResponse);
export const disconnectRequest = (): ApiMessage => message(MessageType.DisconnectRequest);
export const disconnectResponse = (): ApiMessage => message(MessageType.DisconnectResponse);
export const subscribeConnectionsFree = (): ApiMessage => message(MessageType.SubscribeBluetoothConnectionsFreeRequest);

/** GetTimeResponse: the device asks the client for the time (field 1, fixed32 seconds). */
export function getTimeResponse(nowMs: number): ApiMessage {
  const body = Buffer.alloc(5);
  body[0] = (1 << 3) | 5;
  body.writeUInt32LE(Math.floor(nowMs / 1000) >>> 0, 1);
  return { type: MessageType.GetTimeResponse, body };
}

/** Subscribes to advertisements; `raw` asks for BluetoothLERawAdvertisementsResponse (flag bit 0). */
export const subscribeAdvertisements = (raw: boolean): ApiMessage =>
  message(MessageType.SubscribeBluetoothLEAdvertisementsRequest, new ProtoWriter().uint(1, raw ? 1 : 0));

export const deviceRequest = (address: number, requestType: number, addressType?: number): ApiMessage => {
  const writer = new ProtoWriter().uint(1, address).uint(2, requestType);
  if (addressType !== undefined) writer.bool(3, true).uint(4, addressType);
  return message(MessageType.BluetoothDeviceRequest, writer);
};

export const getServicesRequest = (address: number): ApiMessage => message(MessageType.BluetoothGATTGetServicesRequest, new ProtoWriter().uint(1, address));
export const readRequest = (address: number, handle: number): ApiMessage => message(MessageType.BluetoothGATTReadRequest, new ProtoWriter().uint(1, address).uint(2, handle));

export const writeRequest = (address: number, handle: number, data: Buffer, response: boolean): ApiMessage =>
  message(MessageType.BluetoothGATTWriteRequest, new ProtoWriter().uint(1, address).uint(2, handle).bool(3, response).bytes(4, data));

export const writeDescriptorRequest = (address: number, handle: number, data: Buffer): ApiMessage =>
  message(MessageType.BluetoothGATTWriteDescriptorRequest, new ProtoWriter().uint(1, address).uint(2, handle).bytes(3, data));

export const notifyRequest = (address: number, handle: number, enable: boolean): ApiMessage =>
  message(MessageType.BluetoothGATTNotifyRequest, new ProtoWriter().uint(1, address).uint(2, handle).bool(3, enable));

/** HelloResponse. */
export interface HelloAnswer {
  major: number;
  minor: number;
  serverInfo: string;
  name: string;
}

export function readHello(body: Buffer): HelloAnswer {
  const fields = ProtoFields.decode(body);
  return { major: fields.uint(1), minor: fields.uint(2), serverInfo: fields.string(3), name: fields.string(4) };
}

/** DeviceInfoResponse, the fields a proxy's client needs. */
export interface DeviceInfo {
  name: string;
  macAddress: string;
  esphomeVersion: string;
  model: string;
  proxyFeatureFlags: number;
}

export function readDeviceInfo(body: Buffer): DeviceInfo {
  const fields = ProtoFields.decode(body);
  return { name: fields.string(2), macAddress: fields.string(3), esphomeVersion: fields.string(4), model: fields.string(6), proxyFeatureFlags: fields.uint(15) };
}

/** One advertisement as a proxy relays it. */
export interface RelayedAdvertisement {
  /** The 48-bit address as a number. */
  address: number;
  rssi: number;
  addressType: number;
  /** Raw AD structures (raw advertisements); null for the legacy message, which sends them parsed. */
  data: Buffer | null;
  /** Manufacturer data of the legacy message (company id → bytes after it). */
  manufacturerData: Map<number, Buffer>;
}

/** BluetoothLERawAdvertisementsResponse: a batch. */
export function readRawAdvertisements(body: Buffer): RelayedAdvertisement[] {
  return ProtoFields.decode(body)
    .messages(1)
    .map((entry) => ({ address: entry.uint(1), rssi: entry.sint(2), addressType: entry.uint(3), data: entry.bytes(4), manufacturerData: new Map() }));
}

/** BluetoothLEAdvertisementResponse (firmware without raw advertisements): manufacturer data by `0x….` company ids. */
export function readLegacyAdvertisement(body: Buffer): RelayedAdvertisement {
  const fields = ProtoFields.decode(body);
  const manufacturerData = new Map<number, Buffer>();
  for (const entry of fields.messages(6)) {
    const company = Number.parseInt(entry.string(1), 16);
    if (!Number.isInteger(company)) continue;
    const data = entry.has(3) ? entry.bytes(3) : Buffer.from(entry.repeatedUint64(2).map(Number));
    manufacturerData.set(company, data);
  }
  return { address: fields.uint(1), rssi: fields.sint(3), addressType: fields.uint(7), data: null, manufacturerData };
}

/** BluetoothDeviceConnectionResponse. */
export interface ConnectionAnswer {
  address: number;
  connected: boolean;
  mtu: number;
  error: number;
}

export function readConnection(body: Buffer): ConnectionAnswer {
  const fields = ProtoFields.decode(body);
  return { address: fields.uint(1), connected: fields.bool(2), mtu: fields.uint(3), error: fields.int32(4) };
}

/** A GATT attribute of BluetoothGATTGetServicesResponse with its UUID in full lower-case form. */
export interface GattAttribute {
  uuid: string;
  handle: number;
}

export interface GattCharacteristicEntry extends GattAttribute {
  properties: number;
  descriptors: GattAttribute[];
}

export interface GattServiceEntry extends GattAttribute {
  characteristics: GattCharacteristicEntry[];
}

/** BluetoothGATTGetServicesResponse: its address and the services of this batch. */
export function readServices(body: Buffer): { address: number; services: GattServiceEntry[] } {
  const fields = ProtoFields.decode(body);
  return {
    address: fields.uint(1),
    services: fields.messages(2).map((service) => ({
      uuid: uuidOf(service, 1, 4),
      handle: service.uint(2),
      characteristics: service.messages(3).map((characteristic) => ({
        uuid: uuidOf(characteristic, 1, 5),
        handle: characteristic.uint(2),
        properties: characteristic.uint(3),
        descriptors: characteristic.messages(4).map((descriptor) => ({ uuid: uuidOf(descriptor, 1, 3), handle: descriptor.uint(2) })),
      })),
    })),
  };
}

/** Messages that carry an address and a handle (read, write, notify answers, errors, notification data). */
export interface HandleAnswer {
  address: number;
  handle: number;
  /** Field 3: the data of a read answer or a notification, the error code of BluetoothGATTErrorResponse. */
  data: Buffer;
  error: number;
}

export function readHandleAnswer(body: Buffer): HandleAnswer {
  const fields = ProtoFields.decode(body);
  return { address: fields.uint(1), handle: fields.uint(2), data: fields.bytes(3), error: fields.int32(3) };
}

/** Only the address (GetServicesDone). */
export function readAddress(body: Buffer): number {
  return ProtoFields.decode(body).uint(1);
}

/** BluetoothConnectionsFreeResponse: a missing `free` is 0 (proto3 leaves zeros out). */
export function readConnectionsFree(body: Buffer): { free: number; limit: number } {
  const fields = ProtoFields.decode(body);
  return { free: fields.uint(1), limit: fields.uint(2) };
}

const BASE_UUID_TAIL = '-0000-1000-8000-00805f9b34fb';

/** A UUID of api.proto: `repeated uint64 uuid` as [high, low] 64-bit halves, or `short_uuid` (16 or 32 bits) for clients ≥ 1.12. */
function uuidOf(fields: ProtoFields, longField: number, shortField: number): string {
  const halves = fields.repeatedUint64(longField);
  const [high, low] = halves;
  if (high !== undefined && low !== undefined) {
    const hex = high.toString(16).padStart(16, '0') + low.toString(16).padStart(16, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return `${fields.uint(shortField).toString(16).padStart(8, '0')}${BASE_UUID_TAIL}`;
}

/** A full UUID as api.proto's two 64-bit halves (for the fake proxy and tests). */
export function uuidHalves(uuid: string): [bigint, bigint] {
  const hex = uuid.replace(/-/g, '');
  return [BigInt(`0x${hex.slice(0, 16)}`), BigInt(`0x${hex.slice(16)}`)];
}

/** `AA:BB:CC:DD:EE:FF` → the 48-bit number ESPHome uses. */
export function addressToNumber(address: string): number {
  return Number.parseInt(address.replace(/:/g, ''), 16);
}

/** The 48-bit number ESPHome uses → `AA:BB:CC:DD:EE:FF`. */
export function numberToAddress(value: number): string {
  const hex = value.toString(16).padStart(12, '0').toUpperCase();
  return hex.match(/../g)?.join(':') ?? hex;
}
