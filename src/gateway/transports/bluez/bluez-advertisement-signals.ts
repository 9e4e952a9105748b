import dbus, { type Message, type MessageBus } from 'dbus-next';
import type { Advertisement } from '../../gatt-transport.js';
import { addMatchRule, removeMatchRule } from './dbus-match-rules.js';

const DEVICE_INTERFACE = 'org.bluez.Device1';
const OBJECT_MANAGER_INTERFACE = 'org.freedesktop.DBus.ObjectManager';
const PROPERTIES_INTERFACE = 'org.freedesktop.DBus.Properties';

/**
 * Devices remembered for merging partial updates. BlueZ sends only what changed (RSSI without
 * ManufacturerData, or the reverse); phones rotate random addresses every few minutes, so the
 * table is bounded and forgets the device heard from least recently.
 */
const MAX_REMEMBERED_DEVICES = 512;

/** What is known of one device's latest advertisement. */
interface HeardDevice {
  address: string;
  rssi: number | null;
  manufacturerData: ReadonlyMap<number, Buffer>;
}

/**
 * Advertisements of one adapter, read from BlueZ's D-Bus signals with two match rules in all,
 * however many devices are around: one for the ObjectManager (InterfacesAdded of a newly
 * discovered device, InterfacesRemoved when BlueZ forgets it) and one for Device1
 * PropertiesChanged under the adapter (RSSI, ManufacturerData). Proxy objects per device would
 * cost a rule each and, with dbus-next's leaks, never give it back (docs/ble-protocol.md
 * "D-Bus match rules"); here messages are taken from the bus's low-level `message` event.
 *
 * Only live signals are reported, never the properties BlueZ still caches for a device that
 * stopped advertising long ago: an advertisement means "heard now".
 */
export class AdvertisementSignals {
  /** Number of match rules this watch holds on the bus while started. */
  static readonly ruleCount = 2;
  private readonly rules: readonly string[];
  private readonly devicePathPrefix: string;
  private readonly heard = new Map<string, HeardDevice>();
  private started = false;
  private readonly onMessage = (message: Message): void => {
    try {
      this.handle(message);
    } catch {
      // A malformed signal is skipped: a throw here would make dbus-next answer a signal with an error.
    }
  };

  constructor(
    private readonly bus: MessageBus,
    adapterPath: string,
    private readonly report: (advertisement: Advertisement) => void,
  ) {
    this.devicePathPrefix = `${adapterPath}/dev_`;
    this.rules = [
      `type='signal',sender='org.bluez',interface='${OBJECT_MANAGER_INTERFACE}'`,
      `type='signal',sender='org.bluez',interface='${PROPERTIES_INTERFACE}',member='PropertiesChanged',path_namespace='${adapterPath}',arg0='${DEVICE_INTERFACE}'`,
    ];
  }

  /** Adds the match rules and starts reporting; resolves when the daemon accepted the rules. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.bus.on('message', this.onMessage);
    // Both refcounts are taken synchronously here, so a stop() during the round trip releases them.
    const added = Promise.all(this.rules.map((rule) => addMatchRule(this.bus, rule)));
    try {
      await added;
    } catch (error) {
      this.stop();
      throw error;
    }
  }

  /** Stops reporting and releases the rules; never throws (a dead bus has nothing left to release). */
  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.bus.off('message', this.onMessage);
    this.heard.clear();
    for (const rule of this.rules) removeMatchRule(this.bus, rule).catch(() => undefined);
  }

  private handle(message: Message): void {
    if (message.type !== dbus.MessageType.SIGNAL) return;
    if (message.interface === PROPERTIES_INTERFACE && message.member === 'PropertiesChanged') {
      const [iface, changed] = message.body as [unknown, unknown];
      if (iface !== DEVICE_INTERFACE || !this.isDevicePath(message.path)) return;
      this.update(message.path, changed, false);
    } else if (message.interface === OBJECT_MANAGER_INTERFACE && message.member === 'InterfacesAdded') {
      const [path, interfaces] = message.body as [unknown, unknown];
      if (typeof path !== 'string' || !this.isDevicePath(path) || !isRecord(interfaces)) return;
      const properties = interfaces[DEVICE_INTERFACE];
      if (properties !== undefined) this.update(path, properties, true);
    } else if (message.interface === OBJECT_MANAGER_INTERFACE && message.member === 'InterfacesRemoved') {
      const [path, interfaces] = message.body as [unknown, unknown];
      if (typeof path === 'string' && Array.isArray(interfaces) && interfaces.includes(DEVICE_INTERFACE)) this.heard.delete(path);
    }
  }

  private isDevicePath(path: string): boolean {
    return path.startsWith(this.devicePathPrefix) && !path.includes('/', this.devicePathPrefix.length);
  }

  /**
   * Merges RSSI/ManufacturerData into what is known and reports it. A new device counts as heard
   * only when BlueZ adds it with an RSSI or data (devices restored from BlueZ's cache have none).
   */
  private update(path: string, properties: unknown, added: boolean): void {
    if (!isRecord(properties)) return;
    const rssi = variantValue(properties.RSSI);
    const manufacturerData = variantValue(properties.ManufacturerData);
    if (rssi === undefined && manufacturerData === undefined) return;
    const known = added ? undefined : this.heard.get(path);
    const device: HeardDevice = {
      address: known?.address ?? addressOfPath(path, this.devicePathPrefix),
      rssi: typeof rssi === 'number' ? rssi : (known?.rssi ?? null),
      manufacturerData: manufacturerData === undefined ? (known?.manufacturerData ?? new Map()) : parseManufacturerData(manufacturerData),
    };
    this.heard.delete(path);
    this.heard.set(path, device);
    if (this.heard.size > MAX_REMEMBERED_DEVICES) {
      const oldest = this.heard.keys().next();
      if (oldest.done !== true) this.heard.delete(oldest.value);
    }
    this.report({ address: device.address, rssi: device.rssi, manufacturerData: new Map(device.manufacturerData) });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The value inside a dbus-next Variant (`{ signature, value }`), undefined when absent. */
function variantValue(variant: unknown): unknown {
  return isRecord(variant) && 'value' in variant ? variant.value : undefined;
}

/** `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF` → `AA:BB:CC:DD:EE:FF`. */
function addressOfPath(path: string, devicePathPrefix: string): string {
  return path.slice(devicePathPrefix.length).replace(/_/g, ':').toUpperCase();
}

/** ManufacturerData `a{qv}` as dbus-next hands it: `{ "76": Variant<Buffer> }`. */
function parseManufacturerData(value: unknown): Map<number, Buffer> {
  const data = new Map<number, Buffer>();
  if (!isRecord(value)) return data;
  for (const [key, variant] of Object.entries(value)) {
    const company = Number(key);
    const bytes = variantValue(variant);
    if (!Number.isInteger(company) || company < 0 || company > 0xffff) continue;
    if (Buffer.isBuffer(bytes)) data.set(company, Buffer.from(bytes));
    else if (Array.isArray(bytes) && bytes.every((byte) => typeof byte === 'number')) data.set(company, Buffer.from(bytes));
  }
  return data;
}
