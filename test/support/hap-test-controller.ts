import { Characteristic as HapCharacteristic, HttpClient, Service as HapService, type PairingData } from 'hap-controller';
import type { AccessoryObject } from 'hap-controller/lib/model/accessory.js';

/** A characteristic address `aid.iid`, as hap-controller takes them. */
export type CharacteristicAddress = `${number}.${number}`;

/** One event as received, with the time it arrived. */
interface ReceivedEvent {
  address: CharacteristicAddress;
  value: unknown;
  at: number;
}

interface EventBody {
  characteristics?: { aid: number; iid: number; value: unknown }[];
}

const same = (a: string, b: string): boolean => a.toUpperCase() === b.toUpperCase();

/**
 * A HomeKit controller for tests, on hap-controller (a real HAP client: pair-setup with the PIN,
 * pair-verify, encrypted sessions, events), as the Home app would talk to the bridge.
 */
export class HapTestController {
  private readonly client: HttpClient;
  private readonly events: ReceivedEvent[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly deviceId: string,
    port: number,
    pairingData?: PairingData,
  ) {
    this.client = new HttpClient(deviceId, '127.0.0.1', port, pairingData, { usePersistentConnections: true });
    this.client.on('event', (body: EventBody) => {
      for (const characteristic of body.characteristics ?? []) {
        this.events.push({ address: `${characteristic.aid}.${characteristic.iid}`, value: characteristic.value, at: performance.now() });
      }
      for (const wake of this.waiters) wake();
    });
  }

  /** Pair-setup with the setup code; the controller is then an admin of the bridge. */
  async pair(pin: string): Promise<void> {
    await this.client.pairSetup(pin);
  }

  /** The long-term keys to reconnect later (after a Homebridge restart) without pairing again. */
  pairingData(): PairingData {
    const data = this.client.getLongTermData();
    if (!data) throw new Error('not paired');
    return data;
  }

  async accessories(): Promise<AccessoryObject[]> {
    return (await this.client.getAccessories()).accessories;
  }

  /** Reads characteristics; rejects when the bridge answers any of them with a HAP error status. */
  async read(addresses: CharacteristicAddress[]): Promise<Map<CharacteristicAddress, unknown>> {
    const answer = (await this.client.getCharacteristics(addresses)) as {
      characteristics: { aid: number; iid: number; value: unknown; status?: number }[];
    };
    const failed = answer.characteristics.filter((entry) => entry.status !== undefined && entry.status !== 0);
    if (failed.length > 0) throw new Error(`read errors: ${failed.map((entry) => `${entry.aid}.${entry.iid}=${entry.status ?? 0}`).join(', ')}`);
    return new Map(answer.characteristics.map((entry) => [`${entry.aid}.${entry.iid}`, entry.value]));
  }

  async readOne(address: CharacteristicAddress): Promise<unknown> {
    return (await this.read([address])).get(address);
  }

  async write(address: CharacteristicAddress, value: unknown): Promise<void> {
    await this.client.setCharacteristics({ [address]: value });
  }

  async subscribe(addresses: CharacteristicAddress[]): Promise<void> {
    await this.client.subscribeCharacteristics(addresses);
  }

  /** A marker for {@link waitForEvent}: only events after it count. */
  mark(): number {
    return this.events.length;
  }

  /**
   * Resolves with the arrival time of the first event for `address` with `value` after `since`;
   * rejects after `timeoutMs` — a budget for the event to come at all, not a speed claim (HAP
   * batches events for 250 ms; the rest is slack for a heavily loaded machine).
   */
  async waitForEvent(address: CharacteristicAddress, value: unknown, since: number, timeoutMs = 10_000): Promise<number> {
    const find = (): ReceivedEvent | undefined => this.events.slice(since).find((event) => event.address === address && event.value === value);
    const found = find();
    if (found) return found.at;
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        const seen = this.events.slice(since).map((event) => `${event.address}=${JSON.stringify(event.value)}`);
        reject(new Error(`no event ${address}=${JSON.stringify(value)} within ${timeoutMs} ms (saw: ${seen.join(', ') || 'nothing'})`));
      }, timeoutMs);
      const wake = (): void => {
        const event = find();
        if (!event) return;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(event.at);
      };
      this.waiters.add(wake);
    });
  }

  /** Events received for an address after a marker (to assert that nothing was sent). */
  eventsSince(address: CharacteristicAddress, since: number): unknown[] {
    return this.events.slice(since).filter((event) => event.address === address).map((event) => event.value);
  }

  /** Removes this controller's pairing from the bridge. */
  async unpair(): Promise<void> {
    const data = this.client.getLongTermData();
    if (data) await this.client.removePairing(data.iOSDevicePairingID);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/**
 * Finds `aid.iid` of a characteristic: the accessory whose AccessoryInformation SerialNumber is
 * `serial`, the service of that type (and subtype-free unless `nth` picks among several), the
 * characteristic of that type. Types are hap-nodejs UUIDs (hap-nodejs 2 reports full UUIDs).
 */
export function findCharacteristic(
  accessories: AccessoryObject[],
  serial: string,
  serviceUuid: string,
  characteristicUuid: string,
  nth = 0,
): CharacteristicAddress {
  const accessory = findAccessory(accessories, serial);
  const services = accessory.services.filter((service) => same(HapService.ensureServiceUuid(service.type), serviceUuid));
  const service = services[nth];
  if (!service) throw new Error(`accessory ${serial} has no service ${serviceUuid} #${nth}`);
  const characteristic = service.characteristics.find((entry) => entry.type !== undefined && same(HapCharacteristic.ensureCharacteristicUuid(entry.type), characteristicUuid));
  if (characteristic?.iid === undefined) throw new Error(`service ${serviceUuid} of ${serial} has no characteristic ${characteristicUuid}`);
  return `${accessory.aid}.${characteristic.iid}`;
}

/** The accessory whose SerialNumber — or, failing that, whose Name — is `key`. */
export function findAccessory(accessories: AccessoryObject[], key: string): AccessoryObject {
  const serialUuid = HapCharacteristic.uuidFromCharacteristic('public.hap.characteristic.serial-number');
  const nameUuid = HapCharacteristic.uuidFromCharacteristic('public.hap.characteristic.name');
  const informationUuid = HapService.uuidFromService('public.hap.service.accessory-information');
  const has = (candidate: AccessoryObject, uuid: string): boolean =>
    candidate.services.some(
      (service) =>
        same(HapService.ensureServiceUuid(service.type), informationUuid) &&
        service.characteristics.some((entry) => entry.type !== undefined && same(HapCharacteristic.ensureCharacteristicUuid(entry.type), uuid) && entry.value === key),
    );
  const accessory = accessories.find((candidate) => has(candidate, serialUuid)) ?? accessories.find((candidate) => has(candidate, nameUuid));
  if (!accessory) throw new Error(`no accessory with serial or name ${key}`);
  return accessory;
}

/** The SerialNumber of an accessory found by {@link findAccessory}. */
export function serialNumberOf(accessories: AccessoryObject[], key: string): unknown {
  const serialUuid = HapCharacteristic.uuidFromCharacteristic('public.hap.characteristic.serial-number');
  for (const service of findAccessory(accessories, key).services) {
    for (const entry of service.characteristics) {
      if (entry.type !== undefined && same(HapCharacteristic.ensureCharacteristicUuid(entry.type), serialUuid)) return entry.value;
    }
  }
  return undefined;
}

/** Every service type of an accessory, as full UUIDs. */
export function serviceTypes(accessory: AccessoryObject): string[] {
  return accessory.services.map((service) => HapService.ensureServiceUuid(service.type).toUpperCase());
}
