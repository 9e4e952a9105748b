import dbus, { type MessageBus } from 'dbus-next';
import marshallers from 'dbus-next/lib/marshallers.js';
import { LockUuids } from '../../../src/families/ekey/protocol/lock-profile.js';
import { GattOperationError, type SimulatedAdvertisement, type SimulatedDevice, type SimulatedLockLink } from '../../../src/gateway/transports/simulator/simulated-device.js';
import { describeError } from '../../../src/domain/errors.js';

const { Interface, ACCESS_READ } = dbus.interface;
const { DBusError, Message, Variant } = dbus;

/**
 * Faults a fake device can be told to show; change them at any time through `device.faults`.
 * The write and notification faults apply to every characteristic, or only to those listed in
 * `faultyCharacteristics`.
 */
export interface FakeDeviceFaults {
  /** Never shows up, even while discovering. */
  neverFound?: boolean;
  /** Device1.Connect fails with this org.bluez.Error.* name. */
  connectError?: string;
  /** Device1.Connect answers only after this many ms. */
  connectDelayMs?: number;
  /** Connected becomes true but ServicesResolved never does. */
  servicesNeverResolve?: boolean;
  /** WriteValue fails with this org.bluez.Error.* name. */
  writeError?: string;
  /** A write is accepted, then the link drops before the device can answer. */
  disconnectAfterWrite?: boolean;
  /** Notifications and indications are lost. */
  dropNotifications?: boolean;
  /** Characteristic UUIDs the three faults above are limited to (default: all). */
  faultyCharacteristics?: readonly string[];
  /** Every ReadValue/WriteValue answers only after this many ms. */
  operationDelayMs?: number;
  /** `writeError` on our profile's Control Point only (older name). */
  controlWriteError?: string;
  /** `disconnectAfterWrite` on our profile's Control Point only (older name). */
  disconnectAfterControlWrite?: boolean;
  /** `dropNotifications` on our profile's Control Point only (older name). */
  dropControlNotifications?: boolean;
}

/** What the fake saw, for assertions. */
export interface FakeDeviceLog {
  connects: number;
  disconnects: number;
  /** The `type` option of every WriteValue, in order. */
  writeTypes: string[];
  /** Advertisements emitted (PropertiesChanged of RSSI/ManufacturerData, InterfacesAdded included). */
  advertisements: number;
}

/** Settings of {@link FakeBluez.start}. */
export interface FakeBluezOptions {
  /** Adapter name (default `hci0`). */
  adapter?: string;
  /** How often every in-range device re-advertises while discovering, ms (default 200). */
  advertisementIntervalMs?: number;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const DEVICE_INTERFACE = 'org.bluez.Device1';
const OBJECT_MANAGER_INTERFACE = 'org.freedesktop.DBus.ObjectManager';

/**
 * BlueZ types ManufacturerData `a{qv}`, but dbus-next 0.10.2 turns every dict into a JS object
 * before marshalling, so integer keys arrive at its `q` marshaller as strings and are refused.
 * The fake relaxes exactly that check (numeric strings are marshalled as numbers) so it can
 * send what BlueZ sends; the code under test only receives such dicts.
 */
function allowIntegerDictKeys(): void {
  const patched = Symbol.for('fake-bluez.integer-dict-keys');
  const table = marshallers as typeof marshallers & { [patched]?: true };
  if (table[patched] === true) return;
  if (typeof table.MakeSimpleMarshaller !== 'function') throw new Error('dbus-next internals changed: cannot marshal a{qv} in the fake BlueZ');
  const make = table.MakeSimpleMarshaller;
  table.MakeSimpleMarshaller = (signature: string) => {
    const marshaller = make(signature);
    if (signature !== 'q') return marshaller;
    const marshall = marshaller.marshall.bind(marshaller);
    marshaller.marshall = (stream, data) => {
      marshall(stream, typeof data === 'string' && /^\d+$/.test(data) ? Number(data) : data);
    };
    return marshaller;
  };
  table[patched] = true;
}
allowIntegerDictKeys();

/** ManufacturerData as BlueZ types it: company id → Variant(`ay`) of the bytes after it. */
function manufacturerDataValue(data: ReadonlyMap<number, Buffer>): Record<number, InstanceType<typeof Variant>> {
  const value: Record<number, InstanceType<typeof Variant>> = {};
  for (const [company, bytes] of data) value[company] = new Variant('ay', Buffer.from(bytes));
  return value;
}

class AgentManager1 extends Interface {
  RegisterAgent(): void {
    // never called by node-ble; present because node-ble looks the interface up
  }
}
AgentManager1.configureMembers({ methods: { RegisterAgent: { inSignature: 'os', outSignature: '' } } });

class Adapter1 extends Interface {
  constructor(private readonly fake: FakeBluez) {
    super('org.bluez.Adapter1');
  }
  get Address(): string {
    return '00:1A:7D:DA:71:13';
  }
  get Name(): string {
    return 'fake-bluez';
  }
  get Alias(): string {
    return 'fake-bluez';
  }
  get Powered(): boolean {
    return true;
  }
  get Discovering(): boolean {
    return this.fake.discovering;
  }
  SetDiscoveryFilter(filter: Record<string, InstanceType<typeof Variant>>): void {
    // The fake only has LE devices and always reports repeated advertisements; it records the filter.
    const plain: Record<string, unknown> = {};
    for (const [key, variant] of Object.entries(filter)) plain[key] = variant.value;
    this.fake.discoveryFilter = plain;
  }
  StartDiscovery(): void {
    if (this.fake.discovering) throw new DBusError('org.bluez.Error.InProgress', 'Operation already in progress');
    this.fake.setDiscovering(true);
  }
  StopDiscovery(): void {
    if (!this.fake.discovering) throw new DBusError('org.bluez.Error.Failed', 'No discovery started');
    this.fake.setDiscovering(false);
  }
}
Adapter1.configureMembers({
  properties: {
    Address: { signature: 's', access: ACCESS_READ },
    Name: { signature: 's', access: ACCESS_READ },
    Alias: { signature: 's', access: ACCESS_READ },
    Powered: { signature: 'b', access: ACCESS_READ },
    Discovering: { signature: 'b', access: ACCESS_READ },
  },
  methods: {
    SetDiscoveryFilter: { inSignature: 'a{sv}', outSignature: '' },
    StartDiscovery: { inSignature: '', outSignature: '' },
    StopDiscovery: { inSignature: '', outSignature: '' },
  },
});

class Device1 extends Interface {
  constructor(private readonly device: FakeDevice) {
    super(DEVICE_INTERFACE);
  }
  get Address(): string {
    return this.device.address;
  }
  get AddressType(): string {
    return 'random';
  }
  get Name(): string {
    return this.device.simulated.name;
  }
  get Alias(): string {
    return this.device.simulated.name;
  }
  get RSSI(): number {
    return this.device.lastAdvertisement.rssi;
  }
  get ManufacturerData(): Record<number, InstanceType<typeof Variant>> {
    return manufacturerDataValue(this.device.lastAdvertisement.manufacturerData);
  }
  get UUIDs(): string[] {
    return this.device.simulated.gattDatabase.map((s) => s.uuid);
  }
  get Paired(): boolean {
    return false;
  }
  get Connected(): boolean {
    return this.device.connected;
  }
  get ServicesResolved(): boolean {
    return this.device.servicesResolved;
  }
  async Connect(): Promise<void> {
    await this.device.connect();
  }
  Disconnect(): void {
    this.device.disconnect();
  }
}
Device1.configureMembers({
  properties: {
    Address: { signature: 's', access: ACCESS_READ },
    AddressType: { signature: 's', access: ACCESS_READ },
    Name: { signature: 's', access: ACCESS_READ },
    Alias: { signature: 's', access: ACCESS_READ },
    RSSI: { signature: 'n', access: ACCESS_READ },
    ManufacturerData: { signature: 'a{qv}', access: ACCESS_READ },
    UUIDs: { signature: 'as', access: ACCESS_READ },
    Paired: { signature: 'b', access: ACCESS_READ },
    Connected: { signature: 'b', access: ACCESS_READ },
    ServicesResolved: { signature: 'b', access: ACCESS_READ },
  },
  methods: {
    Connect: { inSignature: '', outSignature: '' },
    Disconnect: { inSignature: '', outSignature: '' },
  },
});

class GattService1 extends Interface {
  constructor(
    private readonly uuid: string,
    private readonly devicePath: string,
  ) {
    super('org.bluez.GattService1');
  }
  get UUID(): string {
    return this.uuid;
  }
  get Primary(): boolean {
    return true;
  }
  get Device(): string {
    return this.devicePath;
  }
}
GattService1.configureMembers({
  properties: {
    UUID: { signature: 's', access: ACCESS_READ },
    Primary: { signature: 'b', access: ACCESS_READ },
    Device: { signature: 'o', access: ACCESS_READ },
  },
});

class GattCharacteristic1 extends Interface {
  notifying = false;
  value: Buffer = Buffer.alloc(0);
  constructor(
    private readonly device: FakeDevice,
    readonly uuid: string,
    private readonly flags: readonly string[],
    private readonly servicePath: string,
  ) {
    super('org.bluez.GattCharacteristic1');
  }
  get UUID(): string {
    return this.uuid;
  }
  get Service(): string {
    return this.servicePath;
  }
  get Flags(): string[] {
    return [...this.flags];
  }
  get Notifying(): boolean {
    return this.notifying;
  }
  get Value(): Buffer {
    return this.value;
  }
  async ReadValue(_options: Record<string, InstanceType<typeof Variant>>): Promise<Buffer> {
    return this.device.read(this.uuid);
  }
  async WriteValue(value: Buffer, options: Record<string, InstanceType<typeof Variant>>): Promise<void> {
    const type: unknown = options.type?.value;
    await this.device.write(this.uuid, Buffer.from(value), typeof type === 'string' ? type : 'reliable');
  }
  StartNotify(): void {
    if (!this.device.connected) throw new DBusError('org.bluez.Error.NotConnected', 'Not Connected');
    if (!this.flags.includes('notify') && !this.flags.includes('indicate')) throw new DBusError('org.bluez.Error.NotSupported', 'Operation is not supported');
    this.notifying = true;
  }
  StopNotify(): void {
    this.notifying = false;
  }
}
GattCharacteristic1.configureMembers({
  properties: {
    UUID: { signature: 's', access: ACCESS_READ },
    Service: { signature: 'o', access: ACCESS_READ },
    Flags: { signature: 'as', access: ACCESS_READ },
    Notifying: { signature: 'b', access: ACCESS_READ },
    Value: { signature: 'ay', access: ACCESS_READ },
  },
  methods: {
    ReadValue: { inSignature: 'a{sv}', outSignature: 'ay' },
    WriteValue: { inSignature: 'aya{sv}', outSignature: '' },
    StartNotify: { inSignature: '', outSignature: '' },
    StopNotify: { inSignature: '', outSignature: '' },
  },
});

/** Shown before a device ever advertised (BlueZ would not know the device then). */
const NO_ADVERTISEMENT: SimulatedAdvertisement = { manufacturerData: new Map(), rssi: -127 };

/** One simulated device as a BlueZ device object tree. */
export class FakeDevice {
  readonly faults: FakeDeviceFaults;
  readonly log: FakeDeviceLog = { connects: 0, disconnects: 0, writeTypes: [], advertisements: 0 };
  readonly path: string;
  readonly address: string;
  connected = false;
  servicesResolved = false;
  exported = false;
  /** What the device advertised last (BlueZ keeps it in Device1's properties). */
  lastAdvertisement: SimulatedAdvertisement = NO_ADVERTISEMENT;
  private link: SimulatedLockLink | null = null;
  private readonly deviceInterface: Device1;
  private readonly characteristics = new Map<string, GattCharacteristic1>();
  private readonly objects: [string, InstanceType<typeof Interface>][] = [];

  constructor(
    private readonly bus: MessageBus,
    readonly simulated: SimulatedDevice,
    adapterPath: string,
    faults: FakeDeviceFaults,
  ) {
    this.faults = { ...faults };
    this.address = simulated.address.toUpperCase();
    this.path = `${adapterPath}/dev_${this.address.replace(/:/g, '_')}`;
    this.deviceInterface = new Device1(this);
    this.objects.push([this.path, this.deviceInterface]);
    let handle = 1;
    for (const service of simulated.gattDatabase) {
      const servicePath = `${this.path}/service${(handle++).toString(16).padStart(4, '0')}`;
      this.objects.push([servicePath, new GattService1(service.uuid, this.path)]);
      for (const characteristic of service.characteristics) {
        const path = `${servicePath}/char${(handle++).toString(16).padStart(4, '0')}`;
        const iface = new GattCharacteristic1(this, characteristic.uuid, characteristic.flags, servicePath);
        this.characteristics.set(characteristic.uuid, iface);
        this.objects.push([path, iface]);
      }
    }
  }

  /** Puts the device on the bus (what BlueZ does once discovery has seen it), with InterfacesAdded. */
  export(): void {
    if (this.exported) return;
    const advertisement = this.simulated.advertisement();
    if (advertisement !== null) this.lastAdvertisement = advertisement;
    for (const [path, iface] of this.objects) this.bus.export(path, iface);
    this.exported = true;
    const properties: Record<string, InstanceType<typeof Variant>> = {
      Address: new Variant('s', this.address),
      AddressType: new Variant('s', 'random'),
      Name: new Variant('s', this.simulated.name),
      Alias: new Variant('s', this.simulated.name),
      UUIDs: new Variant('as', this.simulated.gattDatabase.map((s) => s.uuid)),
      Paired: new Variant('b', false),
      Connected: new Variant('b', this.connected),
      ServicesResolved: new Variant('b', this.servicesResolved),
    };
    if (advertisement !== null) {
      properties.RSSI = new Variant('n', advertisement.rssi);
      if (advertisement.manufacturerData.size > 0) properties.ManufacturerData = new Variant('a{qv}', manufacturerDataValue(advertisement.manufacturerData));
      this.log.advertisements += 1;
    }
    this.bus.send(Message.newSignal('/', OBJECT_MANAGER_INTERFACE, 'InterfacesAdded', 'oa{sa{sv}}', [this.path, { [DEVICE_INTERFACE]: properties }]));
  }

  /** Removes the device from the bus (what BlueZ does when it forgets a device), with InterfacesRemoved. */
  unexport(): void {
    if (!this.exported) return;
    this.dropLink(false);
    for (const [path, iface] of this.objects) this.bus.unexport(path, iface);
    this.exported = false;
    this.bus.send(Message.newSignal('/', OBJECT_MANAGER_INTERFACE, 'InterfacesRemoved', 'oas', [this.path, [DEVICE_INTERFACE]]));
  }

  /**
   * One advertisement received while discovering: PropertiesChanged of RSSI and, when the device
   * sends any, ManufacturerData — repeated each time, as BlueZ does with DuplicateData.
   */
  advertise(): void {
    if (!this.exported || this.faults.neverFound === true || !this.simulated.inRange) return;
    const advertisement = this.simulated.advertisement();
    if (advertisement === null) return;
    this.lastAdvertisement = advertisement;
    const changed: Record<string, unknown> = { RSSI: advertisement.rssi };
    if (advertisement.manufacturerData.size > 0) changed.ManufacturerData = manufacturerDataValue(advertisement.manufacturerData);
    this.log.advertisements += 1;
    Interface.emitPropertiesChanged(this.deviceInterface, changed, []);
  }

  async connect(): Promise<void> {
    this.log.connects += 1;
    if (this.faults.connectDelayMs !== undefined) await delay(this.faults.connectDelayMs);
    if (this.faults.connectError !== undefined) throw new DBusError(this.faults.connectError, 'Connect refused by fake');
    if (this.connected) return;
    let link: SimulatedLockLink;
    try {
      link = this.simulated.openLink();
    } catch {
      throw new DBusError('org.bluez.Error.Failed', 'le-connection-abort-by-local');
    }
    this.link = link;
    link.onNotification((uuid, value) => {
      this.notify(uuid, value);
    });
    link.onLost(() => {
      if (this.link === link) this.dropLink(true);
    });
    this.connected = true;
    Interface.emitPropertiesChanged(this.deviceInterface, { Connected: true }, []);
    if (this.faults.servicesNeverResolve !== true) {
      this.servicesResolved = true;
      Interface.emitPropertiesChanged(this.deviceInterface, { ServicesResolved: true }, []);
    }
  }

  disconnect(): void {
    this.log.disconnects += 1;
    this.dropLink(true);
  }

  /** Drops the link as if the radio lost it (a disconnect in the middle of anything). */
  dropLink(signal: boolean): void {
    this.link?.close();
    this.link = null;
    for (const characteristic of this.characteristics.values()) characteristic.notifying = false;
    if (!this.connected) return;
    this.connected = false;
    this.servicesResolved = false;
    if (signal) Interface.emitPropertiesChanged(this.deviceInterface, { Connected: false, ServicesResolved: false }, []);
  }

  async read(uuid: string): Promise<Buffer> {
    if (this.faults.operationDelayMs !== undefined) await delay(this.faults.operationDelayMs);
    const link = this.requireLink();
    try {
      return link.read(uuid);
    } catch (error) {
      throw toBluezError(error);
    }
  }

  async write(uuid: string, value: Buffer, type: string): Promise<void> {
    this.log.writeTypes.push(type);
    if (this.faults.operationDelayMs !== undefined) await delay(this.faults.operationDelayMs);
    const link = this.requireLink();
    const writeError = this.faultApplies(uuid) ? this.faults.writeError : undefined;
    const controlWriteError = uuid === LockUuids.controlPoint ? this.faults.controlWriteError : undefined;
    const error = writeError ?? controlWriteError;
    if (error !== undefined) throw new DBusError(error, 'Write refused by fake');
    try {
      link.write(uuid, value);
    } catch (failure) {
      throw toBluezError(failure);
    }
    const dropAfterWrite =
      (this.faultApplies(uuid) && this.faults.disconnectAfterWrite === true) || (uuid === LockUuids.controlPoint && this.faults.disconnectAfterControlWrite === true);
    if (dropAfterWrite) {
      setImmediate(() => {
        this.dropLink(true);
      });
    }
  }

  private faultApplies(uuid: string): boolean {
    return this.faults.faultyCharacteristics?.includes(uuid) ?? true;
  }

  private requireLink(): SimulatedLockLink {
    if (this.link === null || !this.connected) throw new DBusError('org.bluez.Error.NotConnected', 'Not Connected');
    return this.link;
  }

  /** Notifications and indications look the same on D-Bus: PropertiesChanged(Value) on the characteristic. */
  private notify(uuid: string, value: Buffer): void {
    if (this.faultApplies(uuid) && this.faults.dropNotifications === true) return;
    if (uuid === LockUuids.controlPoint && this.faults.dropControlNotifications === true) return;
    const characteristic = this.characteristics.get(uuid);
    if (characteristic === undefined || !characteristic.notifying) return;
    characteristic.value = value;
    Interface.emitPropertiesChanged(characteristic, { Value: value }, []);
  }
}

function toBluezError(error: unknown): Error {
  if (error instanceof GattOperationError) {
    if (error.reason === 'not_connected') return new DBusError('org.bluez.Error.NotConnected', error.message);
    if (error.reason === 'invalid_length') return new DBusError('org.bluez.Error.InvalidValueLength', error.message);
    return new DBusError('org.bluez.Error.NotSupported', error.message);
  }
  return new DBusError('org.bluez.Error.Failed', describeError(error));
}

/**
 * BlueZ's D-Bus API (the part node-ble 1.13 and our scanner use), served on a private bus and
 * backed by {@link SimulatedDevice}s of any family, so the real BlueZ transport can drive
 * simulated devices over real D-Bus. While discovering, every in-range device advertises
 * (InterfacesAdded when first seen, then PropertiesChanged of RSSI/ManufacturerData on every
 * change and every `advertisementIntervalMs`).
 *
 * @example
 * const daemon = await startPrivateDbusDaemon();
 * const bluez = await FakeBluez.start(daemon.address);
 * const device = bluez.addDevice(lock, { servicesNeverResolve: true });
 * const transport = new BluezTransport({ busAddress: daemon.address });
 */
export class FakeBluez {
  discovering = false;
  /** The last SetDiscoveryFilter, values unwrapped (e.g. `{ Transport: 'le', DuplicateData: true }`). */
  discoveryFilter: Record<string, unknown> = {};
  readonly adapterPath: string;
  private readonly devices = new Map<string, { device: FakeDevice; stopListening: () => void }>();
  private readonly adapterInterface: Adapter1;
  private advertisementTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly bus: MessageBus,
    adapterName: string,
    private readonly advertisementIntervalMs: number,
  ) {
    this.adapterPath = `/org/bluez/${adapterName}`;
    this.adapterInterface = new Adapter1(this);
  }

  /** Connects to the bus, takes the name org.bluez and exports the adapter. */
  static async start(busAddress: string, options: FakeBluezOptions = {}): Promise<FakeBluez> {
    const bus = dbus.sessionBus({ busAddress });
    bus.on('error', () => undefined);
    const fake = new FakeBluez(bus, options.adapter ?? 'hci0', options.advertisementIntervalMs ?? 200);
    bus.export('/org/bluez', new AgentManager1('org.bluez.AgentManager1'));
    bus.export(fake.adapterPath, fake.adapterInterface);
    await bus.requestName('org.bluez', 0);
    return fake;
  }

  /** Adds a device; it appears on the bus once discovery runs while it is in range (unless `neverFound`). */
  addDevice(simulated: SimulatedDevice, faults: FakeDeviceFaults = {}): FakeDevice {
    const device = new FakeDevice(this.bus, simulated, this.adapterPath, faults);
    const previous = this.devices.get(device.address);
    if (previous !== undefined) {
      previous.stopListening();
      previous.device.unexport();
    }
    const stopListening = simulated.onAdvertisementChange(() => {
      if (!this.discovering) return;
      this.exportVisible();
      device.advertise();
    });
    this.devices.set(device.address, { device, stopListening });
    if (this.discovering) this.exportVisible();
    return device;
  }

  /** Same as {@link addDevice}; the name from before devices had families. */
  addLock(simulated: SimulatedDevice, faults: FakeDeviceFaults = {}): FakeDevice {
    return this.addDevice(simulated, faults);
  }

  /** The fake device of an address. */
  device(address: string): FakeDevice {
    const entry = this.devices.get(address.toUpperCase());
    if (entry === undefined) throw new Error(`no fake device ${address}`);
    return entry.device;
  }

  /** @internal Adapter1 */
  setDiscovering(on: boolean): void {
    this.discovering = on;
    Interface.emitPropertiesChanged(this.adapterInterface, { Discovering: on }, []);
    if (this.advertisementTimer !== null) clearInterval(this.advertisementTimer);
    this.advertisementTimer = null;
    if (!on) return;
    this.exportVisible();
    this.advertisementTimer = setInterval(() => {
      for (const { device } of this.devices.values()) device.advertise();
    }, this.advertisementIntervalMs);
    this.advertisementTimer.unref();
  }

  /** Discovery sees every advertising device that is not set to stay hidden. */
  private exportVisible(): void {
    for (const { device } of this.devices.values()) {
      if (device.simulated.inRange && device.faults.neverFound !== true) device.export();
    }
  }

  /** Drops every link and leaves the bus. */
  stop(): void {
    // Calls still routed to us while the socket closes are swallowed: answering them on the closed
    // stream would throw from dbus-next's message loop (an uncaught exception in the test run).
    this.bus.addMethodHandler(() => true);
    if (this.advertisementTimer !== null) clearInterval(this.advertisementTimer);
    this.advertisementTimer = null;
    for (const { device, stopListening } of this.devices.values()) {
      stopListening();
      device.dropLink(false);
    }
    this.bus.disconnect();
  }
}
