/**
 * A fake ESPHome Bluetooth proxy: ESPHome's native API (plaintext, or Noise_NNpsk0 with a
 * pre-shared key) over real TCP on loopback, relaying to the project's simulated devices
 * (`SimulatedDevice`: our profile's SimulatedLock, the simulated Nuki and Opener, the contract's
 * and tiny devices). It behaves as ESPHome's bluetooth_proxy does where our transport depends on
 * it (see README.md beside it): one advertisement subscription, connection slots reported with
 * proto3's omission of zero, V3 connections whose CCCD the client writes, GATT errors, no answer
 * to a connect for an address already connecting, every GATT link dropped when the API client
 * goes, and unknown message ids skipped.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { decodeNoiseMessage, encodeNoiseFrame, encodeNoiseMessage, encodePlaintextFrame, FrameReader } from '../../gateway/transports/esphome/api-frames.js';
import { advertisingDataOf } from '../../gateway/transports/esphome/advertising-data.js';
import { NoiseHandshake, type NoiseTransportKeys } from '../../gateway/transports/esphome/noise-handshake.js';
import { ProtoFields, ProtoWriter } from '../../gateway/transports/esphome/protobuf-fields.js';
import { GattOperationError, type SimulatedDevice, type SimulatedLockLink } from '../../gateway/transports/simulator/simulated-device.js';
import { gattTableOf, type FakeCharacteristic, type FakeService } from './fake-proxy-gatt.js';

/** Settings of a fake proxy; every field has a default. */
export interface FakeProxyOptions {
  /** The device's name (Hello, DeviceInfo, the Noise server hello). */
  name?: string;
  /** Base64 of the 32-byte Noise key; absent: the plaintext API. */
  encryptionKey?: string;
  /** Connection slots (ESPHome's `connection_slots`, default 3). */
  slots?: number;
  /** `bluetooth_proxy_feature_flags` (default: passive scan, active connections, remote caching, pairing, cache clearing, raw advertisements, scanner state). */
  featureFlags?: number;
  /** The API version it announces (default 1.13). */
  apiVersion?: { major: number; minor: number };
  /** How often every device in range is advertised while a client subscribes, ms (default 100). */
  advertisementIntervalMs?: number;
  /** The port to listen on (default: a free one). */
  port?: number;
}

/** What the fake saw, for assertions. */
export interface FakeProxyLog {
  /** API clients that connected (TCP). */
  clients: number;
  /** Noise handshakes that failed on the key. */
  keyFailures: number;
  connectRequests: number;
  disconnectRequests: number;
  /** GATT characteristic writes relayed to a device (75). */
  writes: number;
  /** CCCD values written, as hex ("0100"). */
  cccdWrites: string[];
  /** Message ids the fake received and did not know. */
  unknownMessages: number[];
  /** Advertisement subscriptions received and ended (unsubscribe or API client gone). */
  advertisementSubscriptions: number;
  advertisementUnsubscriptions: number;
}

interface DeviceEntry {
  device: SimulatedDevice;
  rssi: number | undefined;
  stallConnects: boolean;
  stallOperations: boolean;
  stopListening: (() => void) | null;
}

/** One slot: a link being made (device null until up) or up. */
interface Slot {
  address: number;
  client: FakeApiClient;
  link: SimulatedLockLink | null;
  table: FakeService[];
  /** Characteristic value handles with notifications registered (78). */
  notifying: Set<number>;
  /** Characteristic value handles whose CCCD the client enabled (77). */
  cccdEnabled: Set<number>;
}

const DEFAULT_FLAGS = 1 | 2 | 4 | 8 | 16 | 32 | 64;
const SIG_BASE_TAIL = '-0000-1000-8000-00805f9b34fb';

/** Field-number constants of the messages, straight from api.proto (independent of the transport's table). */
const Id = {
  Hello: 1,
  HelloResponse: 2,
  Auth: 3,
  AuthResponse: 4,
  Disconnect: 5,
  DisconnectResponse: 6,
  Ping: 7,
  PingResponse: 8,
  DeviceInfo: 9,
  DeviceInfoResponse: 10,
  ListEntities: 11,
  ListEntitiesDone: 19,
  SubscribeStates: 20,
  GetTimeResponse: 37,
  SubscribeAdvertisements: 66,
  LegacyAdvertisement: 67,
  DeviceRequest: 68,
  DeviceConnection: 69,
  GetServices: 70,
  GetServicesResponse: 71,
  GetServicesDone: 72,
  Read: 73,
  ReadResponse: 74,
  Write: 75,
  ReadDescriptor: 76,
  WriteDescriptor: 77,
  Notify: 78,
  NotifyData: 79,
  SubscribeConnectionsFree: 80,
  ConnectionsFree: 81,
  GattError: 82,
  WriteResponse: 83,
  NotifyResponse: 84,
  UnsubscribeAdvertisements: 87,
  RawAdvertisements: 93,
} as const;

const hexAddress = (address: string): number => Number.parseInt(address.replace(/:/g, ''), 16);

/** The fake proxy. `start()` listens on 127.0.0.1; `stop()` ends everything. */
export class FakeEsphomeProxy {
  readonly log: FakeProxyLog = { clients: 0, keyFailures: 0, connectRequests: 0, disconnectRequests: 0, writes: 0, cccdWrites: [], unknownMessages: [], advertisementSubscriptions: 0, advertisementUnsubscriptions: 0 };
  readonly name: string;
  readonly slots: number;
  readonly featureFlags: number;
  readonly apiVersion: { major: number; minor: number };
  readonly psk: Buffer | null;
  private readonly devices = new Map<number, DeviceEntry>();
  private readonly clients = new Set<FakeApiClient>();
  private readonly active = new Map<number, Slot>();
  private server: Server | null = null;
  private listeningPort = 0;
  private advertisementTimer: NodeJS.Timeout | null = null;
  private readonly advertisementIntervalMs: number;
  /** Addresses whose next characteristic write kills the proxy instead of reaching the device. */
  private readonly dieOnWriteTo = new Set<number>();

  private constructor(options: FakeProxyOptions) {
    this.name = options.name ?? 'hall-proxy';
    this.slots = options.slots ?? 3;
    this.featureFlags = options.featureFlags ?? DEFAULT_FLAGS;
    this.apiVersion = options.apiVersion ?? { major: 1, minor: 13 };
    this.psk = options.encryptionKey === undefined ? null : Buffer.from(options.encryptionKey, 'base64');
    this.advertisementIntervalMs = options.advertisementIntervalMs ?? 100;
  }

  static async start(options: FakeProxyOptions = {}): Promise<FakeEsphomeProxy> {
    const proxy = new FakeEsphomeProxy(options);
    await proxy.listen(options.port ?? 0);
    return proxy;
  }

  get port(): number {
    return this.listeningPort;
  }

  /** API clients connected now. */
  get clientCount(): number {
    return this.clients.size;
  }

  /** GATT links up or being made now (each holds a slot). */
  get usedSlots(): number {
    return this.active.size;
  }

  /** Links up now to this address. */
  openLinksTo(address: string): number {
    const slot = this.active.get(hexAddress(address));
    return slot?.link?.open === true ? 1 : 0;
  }

  /** Puts a device in this proxy's reach; `rssi` is how strongly this proxy hears it (default: what it advertises). */
  addDevice(device: SimulatedDevice, options: { rssi?: number } = {}): void {
    const address = hexAddress(device.address);
    this.removeDevice(device.address);
    const entry: DeviceEntry = { device, rssi: options.rssi, stallConnects: false, stallOperations: false, stopListening: null };
    entry.stopListening = device.onAdvertisementChange(() => {
      queueMicrotask(() => {
        this.advertise([entry]);
      });
    });
    this.devices.set(address, entry);
  }

  removeDevice(address: string): void {
    const entry = this.devices.get(hexAddress(address));
    entry?.stopListening?.();
    this.devices.delete(hexAddress(address));
  }

  /** How strongly this proxy hears the device from now on. */
  setRssi(address: string, rssi: number): void {
    const entry = this.devices.get(hexAddress(address));
    if (entry !== undefined) entry.rssi = rssi;
  }

  /** Connects to this address get no answer from now on (as when the device is gone mid-connect). */
  stallConnects(address: string): void {
    const entry = this.devices.get(hexAddress(address));
    if (entry !== undefined) entry.stallConnects = true;
  }

  /** Reads and writes of links to this address get no answer from now on. */
  stallOperations(address: string): void {
    const entry = this.devices.get(hexAddress(address));
    if (entry !== undefined) entry.stallOperations = true;
  }

  /**
   * The proxy dies (as {@link kill}) when the next characteristic write to this address arrives,
   * before relaying it: a command in flight that the device never got.
   */
  dieOnNextWrite(address: string): void {
    this.dieOnWriteTo.add(hexAddress(address));
  }

  /** Sends every client a message whose id this fake's ESPHome has and the client may not know. */
  sendUnknownMessage(type = 146, body: Buffer = new ProtoWriter().uint(1, 42).finish()): void {
    for (const client of this.clients) client.send(type, body);
  }

  /** Every API connection ends at once (the proxy rebooted); it keeps listening. */
  dropClients(): void {
    for (const client of [...this.clients]) client.destroy();
  }

  /** The proxy is unplugged: every connection ends and it stops listening, until {@link restart}. */
  async kill(): Promise<void> {
    this.dropClients();
    const server = this.server;
    this.server = null;
    if (server !== null) {
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    }
  }

  /** Listens again on the same port after {@link kill}. */
  async restart(): Promise<void> {
    if (this.server === null) await this.listen(this.listeningPort);
  }

  async stop(): Promise<void> {
    await this.kill();
    this.stopAdvertising();
    for (const entry of this.devices.values()) entry.stopListening?.();
    this.devices.clear();
  }

  private async listen(port: number): Promise<void> {
    const server = createServer((socket) => {
      this.accept(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    this.listeningPort = address.port;
    this.server = server;
  }

  private accept(socket: Socket): void {
    this.log.clients += 1;
    socket.setNoDelay(true);
    const client = new FakeApiClient(this, socket);
    this.clients.add(client);
    socket.on('close', () => {
      this.clients.delete(client);
      this.clientGone(client);
    });
  }

  /** ESPHome drops every GATT link when its subscribed API client goes. */
  private clientGone(client: FakeApiClient): void {
    if (client.subscribedToAdvertisements) this.log.advertisementUnsubscriptions += 1;
    for (const slot of [...this.active.values()]) {
      if (slot.client !== client) continue;
      this.active.delete(slot.address);
      slot.link?.close();
    }
    this.connectionsFreeChanged();
    if (![...this.clients].some((other) => other.subscribedToAdvertisements)) this.stopAdvertising();
  }

  // ---- what API clients ask ----

  /** @internal */
  subscribeAdvertisements(client: FakeApiClient): void {
    this.log.advertisementSubscriptions += 1;
    client.subscribedToAdvertisements = true;
    if (this.advertisementTimer === null) {
      this.advertisementTimer = setInterval(() => {
        this.advertise([...this.devices.values()]);
      }, this.advertisementIntervalMs);
      this.advertisementTimer.unref();
    }
    queueMicrotask(() => {
      this.advertise([...this.devices.values()]);
    });
  }

  /** @internal */
  unsubscribeAdvertisements(client: FakeApiClient): void {
    if (!client.subscribedToAdvertisements) return;
    client.subscribedToAdvertisements = false;
    this.log.advertisementUnsubscriptions += 1;
    // With no subscriber left, the proxy drops every GATT link (ESPHome's bluetooth_proxy).
    if (![...this.clients].some((other) => other.subscribedToAdvertisements)) {
      this.stopAdvertising();
      for (const slot of [...this.active.values()]) this.dropSlot(slot);
    }
  }

  /** @internal The body of BluetoothConnectionsFreeResponse now: `free` left out when 0 (proto3). */
  connectionsFreeBody(): Buffer {
    const writer = new ProtoWriter().uint(1, this.slots - this.active.size).uint(2, this.slots);
    const allocated = [...this.active.keys()].map((address) => BigInt(address));
    return writer.repeatedUint64(3, allocated).finish();
  }

  /** @internal */
  deviceRequest(client: FakeApiClient, fields: ProtoFields): void {
    const address = fields.uint(1);
    const type = fields.uint(2);
    if (type === 1) {
      this.log.disconnectRequests += 1;
      const slot = this.active.get(address);
      if (slot !== undefined) this.dropSlot(slot);
      else client.send(Id.DeviceConnection, new ProtoWriter().uint(1, address).finish());
      return;
    }
    if (type !== 4 && type !== 5) return;
    this.log.connectRequests += 1;
    // ESPHome answers nothing to a connect for an address it is already connecting.
    if (this.active.has(address)) return;
    if (this.active.size >= this.slots) {
      client.send(Id.DeviceConnection, new ProtoWriter().uint(1, address).int32(4, -1).finish());
      return;
    }
    const entry = this.devices.get(address);
    const slot: Slot = { address, client, link: null, table: [], notifying: new Set(), cccdEnabled: new Set() };
    this.active.set(address, slot);
    this.connectionsFreeChanged();
    if (entry?.stallConnects === true) return;
    if (entry === undefined || !entry.device.inRange) {
      // The ESP32 gives up (ESP_GATT_CONN_FAIL_ESTABLISH = 0x85) and frees the slot.
      setTimeout(() => {
        if (this.active.get(address) !== slot) return;
        this.active.delete(address);
        client.send(Id.DeviceConnection, new ProtoWriter().uint(1, address).int32(4, 0x85).finish());
        this.connectionsFreeChanged();
      }, 20);
      return;
    }
    let link: SimulatedLockLink;
    try {
      link = entry.device.openLink();
    } catch {
      this.active.delete(address);
      client.send(Id.DeviceConnection, new ProtoWriter().uint(1, address).int32(4, 0x85).finish());
      this.connectionsFreeChanged();
      return;
    }
    slot.link = link;
    slot.table = gattTableOf(entry.device);
    link.onNotification((uuid, value) => {
      const characteristic = this.characteristicOf(slot, uuid);
      // Delivered only once the client both registered (78) and enabled the CCCD (77).
      if (characteristic === undefined || !slot.notifying.has(characteristic.handle) || !slot.cccdEnabled.has(characteristic.handle)) return;
      slot.client.send(Id.NotifyData, new ProtoWriter().uint(1, address).uint(2, characteristic.handle).bytes(3, value, true).finish());
    });
    link.onLost(() => {
      if (this.active.get(address) !== slot) return;
      this.active.delete(address);
      slot.client.send(Id.DeviceConnection, new ProtoWriter().uint(1, address).finish());
      this.connectionsFreeChanged();
    });
    client.send(Id.DeviceConnection, new ProtoWriter().uint(1, address).bool(2, true).uint(3, 247).finish());
  }

  /** @internal */
  getServices(client: FakeApiClient, address: number): void {
    const slot = this.active.get(address);
    if (slot?.link?.open !== true) {
      client.send(Id.GattError, new ProtoWriter().uint(1, address).int32(3, -1).finish());
      return;
    }
    const short = client.apiMinor >= 12;
    for (const service of slot.table) {
      const writer = new ProtoWriter().uint(1, address);
      const serviceWriter = uuidFields(new ProtoWriter(), service.uuid, 1, 4, short).uint(2, service.handle);
      for (const characteristic of service.characteristics) {
        const characteristicWriter = uuidFields(new ProtoWriter(), characteristic.uuid, 1, 5, short).uint(2, characteristic.handle).uint(3, characteristic.properties);
        if (characteristic.cccd !== null) characteristicWriter.message(4, uuidFields(new ProtoWriter(), '00002902' + SIG_BASE_TAIL, 1, 3, short).uint(2, characteristic.cccd));
        serviceWriter.message(3, characteristicWriter);
      }
      writer.message(2, serviceWriter);
      client.send(Id.GetServicesResponse, writer.finish());
    }
    client.send(Id.GetServicesDone, new ProtoWriter().uint(1, address).finish());
  }

  /** @internal Read (73), write (75), notify (78), descriptor read (76) and write (77). */
  gattRequest(client: FakeApiClient, type: number, fields: ProtoFields): void {
    const address = fields.uint(1);
    const handle = fields.uint(2);
    const slot = this.active.get(address);
    const refuse = (code: number): void => {
      client.send(Id.GattError, new ProtoWriter().uint(1, address).uint(2, handle).int32(3, code).finish());
    };
    const link = slot?.link;
    if (slot === undefined || link === null || link === undefined || !link.open) {
      refuse(0x85);
      return;
    }
    if (this.devices.get(address)?.stallOperations === true) return;
    if (type === Id.WriteDescriptor || type === Id.ReadDescriptor) {
      const characteristic = slot.table.flatMap((service) => service.characteristics).find((candidate) => candidate.cccd === handle);
      if (characteristic === undefined) {
        refuse(0x01);
        return;
      }
      if (type === Id.ReadDescriptor) {
        const enabled = slot.cccdEnabled.has(characteristic.handle);
        client.send(Id.ReadResponse, new ProtoWriter().uint(1, address).uint(2, handle).bytes(3, Buffer.from([enabled ? 1 : 0, 0]), true).finish());
        return;
      }
      const value = fields.bytes(3);
      this.log.cccdWrites.push(value.toString('hex'));
      if ((value[0] ?? 0) & 0x03) slot.cccdEnabled.add(characteristic.handle);
      else slot.cccdEnabled.delete(characteristic.handle);
      client.send(Id.WriteResponse, new ProtoWriter().uint(1, address).uint(2, handle).finish());
      return;
    }
    const characteristic = slot.table.flatMap((service) => service.characteristics).find((candidate) => candidate.handle === handle);
    if (characteristic === undefined) {
      refuse(0x01);
      return;
    }
    if (type === Id.Notify) {
      if (fields.bool(3)) slot.notifying.add(handle);
      else slot.notifying.delete(handle);
      client.send(Id.NotifyResponse, new ProtoWriter().uint(1, address).uint(2, handle).finish());
      return;
    }
    try {
      if (type === Id.Read) {
        const value = link.read(characteristic.uuid);
        client.send(Id.ReadResponse, new ProtoWriter().uint(1, address).uint(2, handle).bytes(3, value, true).finish());
      } else {
        this.log.writes += 1;
        if (this.dieOnWriteTo.delete(address)) {
          void this.kill();
          return;
        }
        link.write(characteristic.uuid, fields.bytes(4));
        if (fields.bool(3)) client.send(Id.WriteResponse, new ProtoWriter().uint(1, address).uint(2, handle).finish());
      }
    } catch (error) {
      // ATT errors: read/write not permitted; anything else the device throws is "unlikely error".
      refuse(error instanceof GattOperationError ? (type === Id.Read ? 0x02 : 0x03) : 0x0e);
    }
  }

  private characteristicOf(slot: Slot, uuid: string): FakeCharacteristic | undefined {
    return slot.table.flatMap((service) => service.characteristics).find((candidate) => candidate.uuid === uuid);
  }

  private dropSlot(slot: Slot): void {
    if (this.active.get(slot.address) !== slot) return;
    this.active.delete(slot.address);
    slot.link?.close();
    slot.client.send(Id.DeviceConnection, new ProtoWriter().uint(1, slot.address).finish());
    this.connectionsFreeChanged();
  }

  private connectionsFreeChanged(): void {
    for (const client of this.clients) if (client.subscribedToConnectionsFree) client.send(Id.ConnectionsFree, this.connectionsFreeBody());
  }

  private advertise(entries: DeviceEntry[]): void {
    const subscribers = [...this.clients].filter((client) => client.subscribedToAdvertisements);
    if (subscribers.length === 0) return;
    const heard = entries.flatMap((entry) => {
      if (!entry.device.inRange || this.devices.get(hexAddress(entry.device.address)) !== entry) return [];
      const advertisement = entry.device.advertisement();
      if (advertisement === null) return [];
      return [{ address: hexAddress(entry.device.address), rssi: entry.rssi ?? advertisement.rssi, data: advertisingDataOf(advertisement.manufacturerData), manufacturerData: advertisement.manufacturerData }];
    });
    if (heard.length === 0) return;
    for (const client of subscribers) {
      if (client.rawAdvertisements) {
        const writer = new ProtoWriter();
        for (const entry of heard) writer.message(1, new ProtoWriter().uint(1, entry.address).sint(2, entry.rssi).uint(3, 0).bytes(4, entry.data));
        client.send(Id.RawAdvertisements, writer.finish());
        continue;
      }
      for (const entry of heard) {
        const writer = new ProtoWriter().uint(1, entry.address).sint(3, entry.rssi);
        for (const [company, bytes] of entry.manufacturerData) {
          writer.message(6, new ProtoWriter().bytes(1, `0x${company.toString(16).toUpperCase().padStart(4, '0')}`).bytes(3, bytes));
        }
        client.send(Id.LegacyAdvertisement, writer.finish());
      }
    }
  }

  private stopAdvertising(): void {
    if (this.advertisementTimer !== null) clearInterval(this.advertisementTimer);
    this.advertisementTimer = null;
  }
}

/** A UUID as api.proto carries it: `short_uuid` for a Bluetooth SIG UUID to a client ≥ 1.12, else the two 64-bit halves. */
function uuidFields(writer: ProtoWriter, uuid: string, longField: number, shortField: number, short: boolean): ProtoWriter {
  if (short && uuid.endsWith(SIG_BASE_TAIL)) return writer.uint(shortField, Number.parseInt(uuid.slice(0, 8), 16));
  const hex = uuid.replace(/-/g, '');
  // Unpacked, one key per half, as ESPHome's encoder writes repeated scalars.
  return writer.repeatedUint64(longField, [BigInt(`0x${hex.slice(0, 16)}`), BigInt(`0x${hex.slice(16)}`)]);
}

/** One API client of the fake: framing, handshake, and the messages of the proxy's API. */
class FakeApiClient {
  subscribedToAdvertisements = false;
  subscribedToConnectionsFree = false;
  rawAdvertisements = false;
  apiMinor = 0;
  private framing: 'unknown' | 'plaintext' | 'noise' = 'unknown';
  private reader: FrameReader | null = null;
  private handshake: NoiseHandshake | null = null;
  private keys: NoiseTransportKeys | null = null;
  private noiseStep: 'hello' | 'handshake' | 'done' = 'hello';
  private pending = Buffer.alloc(0);

  constructor(
    private readonly proxy: FakeEsphomeProxy,
    private readonly socket: Socket,
  ) {
    socket.on('data', (data: Buffer) => {
      try {
        this.received(data);
      } catch {
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
  }

  send(type: number, body: Buffer): void {
    if (this.socket.destroyed) return;
    if (this.framing === 'plaintext') this.socket.write(encodePlaintextFrame({ type, body }));
    else if (this.keys !== null) this.socket.write(encodeNoiseFrame(this.keys.send.encrypt(encodeNoiseMessage({ type, body }))));
  }

  destroy(): void {
    this.socket.destroy();
  }

  private received(data: Buffer): void {
    if (this.framing === 'unknown') {
      this.pending = Buffer.concat([this.pending, data]);
      const indicator = this.pending[0];
      if (indicator === undefined) return;
      if (this.proxy.psk === null) {
        if (indicator !== 0x00) {
          // A Noise client on a plaintext device: "Bad indicator byte", said in plaintext.
          this.socket.end(encodePlaintextFrame({ type: Id.Disconnect, body: Buffer.alloc(0) }));
          return;
        }
        this.framing = 'plaintext';
        this.reader = new FrameReader('plaintext');
      } else {
        if (indicator !== 0x01) {
          // A plaintext client on an encrypted device: rejected with a Noise frame.
          this.socket.end(encodeNoiseFrame(Buffer.concat([Buffer.from([0x01]), Buffer.from('Bad indicator byte')])));
          return;
        }
        this.framing = 'noise';
        this.reader = new FrameReader('noise');
        this.handshake = new NoiseHandshake('responder', this.proxy.psk);
      }
      data = this.pending;
    }
    const reader = this.reader;
    if (reader === null) return;
    for (const frame of reader.push(data)) {
      if (Buffer.isBuffer(frame)) this.noiseFrame(frame);
      else this.message(frame.type, frame.body);
    }
  }

  private noiseFrame(payload: Buffer): void {
    if (this.noiseStep === 'hello') {
      // The client's empty hello: answer with the chosen protocol, our name and MAC.
      this.noiseStep = 'handshake';
      this.socket.write(encodeNoiseFrame(Buffer.concat([Buffer.from([0x01]), Buffer.from(`${this.proxy.name}\0`), Buffer.from('AA:BB:CC:00:11:22\0')])));
      return;
    }
    if (this.noiseStep === 'handshake') {
      const handshake = this.handshake;
      if (handshake === null || payload[0] !== 0x00) {
        this.socket.end(encodeNoiseFrame(Buffer.concat([Buffer.from([0x01]), Buffer.from('Bad handshake packet')])));
        return;
      }
      try {
        handshake.readMessage(payload.subarray(1));
      } catch {
        this.proxy.log.keyFailures += 1;
        this.socket.end(encodeNoiseFrame(Buffer.concat([Buffer.from([0x01]), Buffer.from('Handshake MAC failure')])));
        return;
      }
      this.socket.write(encodeNoiseFrame(Buffer.concat([Buffer.from([0x00]), handshake.writeMessage()])));
      this.keys = handshake.split();
      this.noiseStep = 'done';
      return;
    }
    if (this.keys === null) return;
    const message = decodeNoiseMessage(this.keys.receive.decrypt(payload));
    this.message(message.type, message.body);
  }

  private message(type: number, body: Buffer): void {
    const fields = ProtoFields.decode(body);
    switch (type) {
      case Id.Hello:
        this.apiMinor = fields.uint(3);
        this.send(Id.HelloResponse, new ProtoWriter().uint(1, this.proxy.apiVersion.major).uint(2, this.proxy.apiVersion.minor).bytes(3, `${this.proxy.name} (ESPHome 2026.10.0)`).bytes(4, this.proxy.name).finish());
        return;
      case Id.Auth:
        this.send(Id.AuthResponse, Buffer.alloc(0));
        return;
      case Id.Disconnect:
        this.send(Id.DisconnectResponse, Buffer.alloc(0));
        this.socket.end();
        return;
      case Id.Ping:
        this.send(Id.PingResponse, Buffer.alloc(0));
        return;
      case Id.PingResponse:
      case Id.GetTimeResponse:
      case Id.SubscribeStates:
        return;
      case Id.DeviceInfo:
        this.send(
          Id.DeviceInfoResponse,
          new ProtoWriter()
            .bytes(2, this.proxy.name)
            .bytes(3, 'AA:BB:CC:00:11:22')
            .bytes(4, '2026.10.0')
            .bytes(6, 'esp32dev')
            .uint(15, this.proxy.featureFlags)
            .bytes(18, 'AA:BB:CC:00:11:24')
            .bool(19, this.proxy.psk !== null)
            .finish(),
        );
        return;
      case Id.ListEntities:
        this.send(Id.ListEntitiesDone, Buffer.alloc(0));
        return;
      case Id.SubscribeAdvertisements:
        // Current firmware (with the raw-advertisements feature) always sends raw batches, whatever
        // the flags; the legacy message is for firmware without it.
        this.rawAdvertisements = (this.proxy.featureFlags & 32) !== 0;
        this.proxy.subscribeAdvertisements(this);
        return;
      case Id.UnsubscribeAdvertisements:
        this.proxy.unsubscribeAdvertisements(this);
        return;
      case Id.SubscribeConnectionsFree:
        this.subscribedToConnectionsFree = true;
        this.send(Id.ConnectionsFree, this.proxy.connectionsFreeBody());
        return;
      case Id.DeviceRequest:
        this.proxy.deviceRequest(this, fields);
        return;
      case Id.GetServices:
        this.proxy.getServices(this, fields.uint(1));
        return;
      case Id.Read:
      case Id.Write:
      case Id.ReadDescriptor:
      case Id.WriteDescriptor:
      case Id.Notify:
        this.proxy.gattRequest(this, type, fields);
        return;
      default:
        // ESPHome logs an unknown id and reads on.
        this.proxy.log.unknownMessages.push(type);
    }
  }
}
