import dbus, { type MessageBus, type Variant } from 'dbus-next';
import { LockUuids } from '../../../src/gateway/lock-profile.js';
import { GattOperationError, type SimulatedLock, type SimulatedLockLink } from '../../../src/gateway/simulator/simulated-lock.js';

const { Interface, ACCESS_READ } = dbus.interface;
const { DBusError } = dbus;

/** Faults a fake device can be told to show; change them at any time through `device.faults`. */
export interface FakeDeviceFaults {
  /** Never shows up, even while discovering. */
  neverFound?: boolean;
  /** Device1.Connect fails with this org.bluez.Error.* name. */
  connectError?: string;
  /** Device1.Connect answers only after this many ms. */
  connectDelayMs?: number;
  /** Connected becomes true but ServicesResolved never does. */
  servicesNeverResolve?: boolean;
  /** WriteValue on the Control Point fails with this org.bluez.Error.* name. */
  controlWriteError?: string;
  /** The Control Point write is accepted, then the link drops before the lock can answer. */
  disconnectAfterControlWrite?: boolean;
  /** Control Point notifications (command answers) are lost. */
  dropControlNotifications?: boolean;
  /** Every ReadValue/WriteValue answers only after this many ms. */
  operationDelayMs?: number;
}

/** What the fake saw, for assertions. */
export interface FakeDeviceLog {
  connects: number;
  disconnects: number;
  /** The `type` option of every WriteValue, in order. */
  writeTypes: string[];
}

interface ServiceDefinition {
  uuid: string;
  characteristics: { uuid: string; flags: string[] }[];
}

/** The lock's GATT database as BlueZ would present it. */
const GATT_DATABASE: ServiceDefinition[] = [
  {
    uuid: LockUuids.lockService,
    characteristics: [
      { uuid: LockUuids.boltState, flags: ['read', 'notify'] },
      { uuid: LockUuids.controlPoint, flags: ['write', 'notify'] },
      { uuid: LockUuids.activity, flags: ['write', 'notify'] },
      { uuid: LockUuids.credentials, flags: ['write', 'notify'] },
    ],
  },
  { uuid: LockUuids.batteryService, characteristics: [{ uuid: LockUuids.batteryLevel, flags: ['read', 'notify'] }] },
  {
    uuid: LockUuids.deviceInformationService,
    characteristics: [
      { uuid: LockUuids.manufacturerName, flags: ['read'] },
      { uuid: LockUuids.modelNumber, flags: ['read'] },
      { uuid: LockUuids.serialNumber, flags: ['read'] },
      { uuid: LockUuids.firmwareRevision, flags: ['read'] },
    ],
  },
];

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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
  SetDiscoveryFilter(_filter: Record<string, Variant>): void {
    // node-ble always asks for Transport=le; the fake only has LE devices.
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
    super('org.bluez.Device1');
  }
  get Address(): string {
    return this.device.lock.address;
  }
  get AddressType(): string {
    return 'random';
  }
  get Name(): string {
    return this.device.lock.name;
  }
  get Alias(): string {
    return this.device.lock.name;
  }
  get RSSI(): number {
    return -60;
  }
  get UUIDs(): string[] {
    return GATT_DATABASE.map((s) => s.uuid);
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
    private readonly flags: string[],
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
    return this.flags;
  }
  get Notifying(): boolean {
    return this.notifying;
  }
  get Value(): Buffer {
    return this.value;
  }
  async ReadValue(_options: Record<string, Variant>): Promise<Buffer> {
    return this.device.read(this.uuid);
  }
  async WriteValue(value: Buffer, options: Record<string, Variant>): Promise<void> {
    const type: unknown = options.type?.value;
    await this.device.write(this.uuid, Buffer.from(value), typeof type === 'string' ? type : 'reliable');
  }
  StartNotify(): void {
    if (!this.device.connected) throw new DBusError('org.bluez.Error.NotConnected', 'Not Connected');
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

/** One simulated lock as a BlueZ device object tree. */
export class FakeDevice {
  readonly faults: FakeDeviceFaults;
  readonly log: FakeDeviceLog = { connects: 0, disconnects: 0, writeTypes: [] };
  readonly path: string;
  connected = false;
  servicesResolved = false;
  exported = false;
  private link: SimulatedLockLink | null = null;
  private readonly deviceInterface: Device1;
  private readonly characteristics = new Map<string, GattCharacteristic1>();
  private readonly objects: [string, InstanceType<typeof Interface>][] = [];

  constructor(
    private readonly bus: MessageBus,
    readonly lock: SimulatedLock,
    adapterPath: string,
    faults: FakeDeviceFaults,
  ) {
    this.faults = { ...faults };
    this.path = `${adapterPath}/dev_${lock.address.replace(/:/g, '_')}`;
    this.deviceInterface = new Device1(this);
    this.objects.push([this.path, this.deviceInterface]);
    let handle = 1;
    for (const service of GATT_DATABASE) {
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

  /** Puts the device on the bus (what BlueZ does once discovery has seen it). */
  export(): void {
    if (this.exported) return;
    for (const [path, iface] of this.objects) this.bus.export(path, iface);
    this.exported = true;
  }

  /** Removes the device from the bus (what BlueZ does when it forgets a device). */
  unexport(): void {
    if (!this.exported) return;
    this.dropLink(false);
    for (const [path, iface] of this.objects) this.bus.unexport(path, iface);
    this.exported = false;
  }

  async connect(): Promise<void> {
    this.log.connects += 1;
    if (this.faults.connectDelayMs !== undefined) await delay(this.faults.connectDelayMs);
    if (this.faults.connectError !== undefined) throw new DBusError(this.faults.connectError, 'Connect refused by fake');
    if (this.connected) return;
    let link: SimulatedLockLink;
    try {
      link = this.lock.openLink();
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
    if (uuid === LockUuids.controlPoint && this.faults.controlWriteError !== undefined) {
      throw new DBusError(this.faults.controlWriteError, 'Write refused by fake');
    }
    try {
      link.write(uuid, value);
    } catch (error) {
      throw toBluezError(error);
    }
    if (uuid === LockUuids.controlPoint && this.faults.disconnectAfterControlWrite === true) {
      setImmediate(() => {
        this.dropLink(true);
      });
    }
  }

  private requireLink(): SimulatedLockLink {
    if (this.link === null || !this.connected) throw new DBusError('org.bluez.Error.NotConnected', 'Not Connected');
    return this.link;
  }

  private notify(uuid: string, value: Buffer): void {
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
  return new DBusError('org.bluez.Error.Failed', error instanceof Error ? error.message : String(error));
}

/**
 * BlueZ's D-Bus API (the part node-ble 1.13 uses), served on a private bus and backed by
 * SimulatedLock objects, so the real BlueZ transport can drive simulated locks over real D-Bus.
 *
 * @example
 * const daemon = await startPrivateDbusDaemon();
 * const bluez = await FakeBluez.start(daemon.address);
 * const device = bluez.addLock(lock, { servicesNeverResolve: true });
 * const transport = new BluezTransport({ busAddress: daemon.address });
 */
export class FakeBluez {
  discovering = false;
  readonly adapterPath: string;
  private readonly devices = new Map<string, FakeDevice>();
  private readonly adapterInterface: Adapter1;

  private constructor(
    private readonly bus: MessageBus,
    adapterName: string,
  ) {
    this.adapterPath = `/org/bluez/${adapterName}`;
    this.adapterInterface = new Adapter1(this);
  }

  /** Connects to the bus, takes the name org.bluez and exports the adapter. */
  static async start(busAddress: string, options: { adapter?: string } = {}): Promise<FakeBluez> {
    const bus = dbus.sessionBus({ busAddress });
    bus.on('error', () => undefined);
    const fake = new FakeBluez(bus, options.adapter ?? 'hci0');
    bus.export('/org/bluez', new AgentManager1('org.bluez.AgentManager1'));
    bus.export(fake.adapterPath, fake.adapterInterface);
    await bus.requestName('org.bluez', 0);
    return fake;
  }

  /** Adds a lock; it appears on the bus once discovery runs (unless `neverFound`). */
  addLock(lock: SimulatedLock, faults: FakeDeviceFaults = {}): FakeDevice {
    const device = new FakeDevice(this.bus, lock, this.adapterPath, faults);
    this.devices.set(lock.address, device);
    if (this.discovering) this.exportVisible();
    return device;
  }

  /** The fake device of a lock address. */
  device(address: string): FakeDevice {
    const device = this.devices.get(address.toUpperCase());
    if (device === undefined) throw new Error(`no fake device ${address}`);
    return device;
  }

  /** @internal Adapter1 */
  setDiscovering(on: boolean): void {
    this.discovering = on;
    Interface.emitPropertiesChanged(this.adapterInterface, { Discovering: on }, []);
    if (on) this.exportVisible();
  }

  /** Discovery sees every advertising lock that is not set to stay hidden. */
  private exportVisible(): void {
    for (const device of this.devices.values()) {
      if (device.lock.inRange && device.faults.neverFound !== true) device.export();
    }
  }

  /** Drops every link and leaves the bus. */
  stop(): void {
    for (const device of this.devices.values()) device.dropLink(false);
    this.bus.disconnect();
  }
}
