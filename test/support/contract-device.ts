/**
 * The device of the GATT transport contract suite (test/support/gatt-transport-contract.ts): a
 * small device of no family, reachable through every transport (the simulator directly, BlueZ
 * through the fake BlueZ). It answers each write of its command characteristic with a
 * notification of the bytes reversed, sent *before* it acknowledges the write, as ATT allows: the
 * answer reaches the central ahead of the write's response, so it has arrived when `write()`
 * resolves. That is how the suite delivers a value before a notification listener is set.
 */
import type { GattProfile } from '../../src/gateway/gatt-transport.js';
import {
  GattOperationError,
  SimulatedLinkBase,
  type SimulatedAdvertisement,
  type SimulatedDevice,
  type SimulatedGattService,
} from '../../src/gateway/transports/simulator/simulated-device.js';

export const CONTRACT_SERVICE = '0000c0de-0000-1000-8000-00805f9b34fb';
/** Write: answered by a notification on status. */
export const CONTRACT_COMMAND = 'c0de0001-7a1e-4c3b-9d2f-0123456789ab';
/** Read and notify: the last answer, and spontaneous notifications ({@link ContractDevice.notify}). */
export const CONTRACT_STATUS = 'c0de0002-7a1e-4c3b-9d2f-0123456789ab';
/** Read only: a write is refused (not supported). */
export const CONTRACT_INFO = 'c0de0003-7a1e-4c3b-9d2f-0123456789ab';
/** Read: the device fails with an error of its own, not a GATT answer (a firmware bug). */
export const CONTRACT_FAULTY = 'c0de0004-7a1e-4c3b-9d2f-0123456789ab';
/** Read only, and offers neither notifications nor indications. */
export const CONTRACT_PLAIN = 'c0de0005-7a1e-4c3b-9d2f-0123456789ab';
/** Not in the device's GATT database at all. */
export const CONTRACT_ABSENT = 'c0de00ff-7a1e-4c3b-9d2f-0123456789ab';
/** Company id of its manufacturer data (0xFFFF: reserved for tests by the Bluetooth SIG). */
export const CONTRACT_COMPANY = 0xffff;

/** What a driver of this device would ask for: `absent` is optional and missing. */
export const CONTRACT_PROFILE: GattProfile = {
  characteristics: [
    { name: 'command', service: CONTRACT_SERVICE, uuid: CONTRACT_COMMAND, required: true, subscribe: false },
    { name: 'status', service: CONTRACT_SERVICE, uuid: CONTRACT_STATUS, required: true, subscribe: true },
    { name: 'info', service: CONTRACT_SERVICE, uuid: CONTRACT_INFO, required: false, subscribe: false },
    { name: 'faulty', service: CONTRACT_SERVICE, uuid: CONTRACT_FAULTY, required: false, subscribe: false },
    { name: 'absent', service: CONTRACT_SERVICE, uuid: CONTRACT_ABSENT, required: false, subscribe: false },
  ],
};

/** The contract suite's device: what was written to it, what it advertises, its open links. */
export class ContractDevice implements SimulatedDevice {
  readonly name = 'Contract';
  readonly gattDatabase: readonly SimulatedGattService[] = [
    {
      uuid: CONTRACT_SERVICE,
      characteristics: [
        { uuid: CONTRACT_COMMAND, flags: ['write'] },
        { uuid: CONTRACT_STATUS, flags: ['read', 'notify'] },
        { uuid: CONTRACT_INFO, flags: ['read'] },
        { uuid: CONTRACT_FAULTY, flags: ['read'] },
        { uuid: CONTRACT_PLAIN, flags: ['read'] },
      ],
    },
  ];
  readonly inRange = true;
  /** Every value written to the command characteristic, in order. */
  readonly writes: Buffer[] = [];
  /** The byte it advertises. */
  state = 1;
  private readonly links = new Set<ContractLink>();
  private readonly listeners = new Set<() => void>();

  constructor(readonly address: string) {}

  /** Links open now. */
  get openLinks(): number {
    return this.links.size;
  }

  openLink(): ContractLink {
    const link = new ContractLink(this, () => this.links.delete(link));
    this.links.add(link);
    return link;
  }

  advertisement(): SimulatedAdvertisement {
    return { manufacturerData: new Map([[CONTRACT_COMPANY, Buffer.from([this.state])]]), rssi: -60 };
  }

  onAdvertisementChange(listener: () => void): () => void {
    const registered = (): void => {
      listener();
    };
    this.listeners.add(registered);
    return () => this.listeners.delete(registered);
  }

  /** A notification on status to every open link, now. */
  notify(value: Buffer): void {
    for (const link of this.links) link.deliver(CONTRACT_STATUS, value);
  }

  /** The radio loses every open link (the device stays in range and can be connected again). */
  dropLinks(): void {
    for (const link of [...this.links]) link.lose();
  }
}

class ContractLink extends SimulatedLinkBase {
  constructor(
    private readonly device: ContractDevice,
    private readonly forget: () => void,
  ) {
    super();
  }

  read(characteristicUuid: string): Buffer {
    this.assertOpen();
    switch (characteristicUuid) {
      case CONTRACT_STATUS:
        return Buffer.from([this.device.state]);
      case CONTRACT_INFO:
        return Buffer.from('contract v1');
      case CONTRACT_PLAIN:
        return Buffer.from([0]);
      case CONTRACT_FAULTY:
        throw new Error('firmware fault');
      default:
        throw new GattOperationError('not_supported', 'not readable');
    }
  }

  write(characteristicUuid: string, value: Buffer): void {
    this.assertOpen();
    if (characteristicUuid !== CONTRACT_COMMAND) throw new GattOperationError('not_supported', 'not writable');
    this.device.writes.push(Buffer.from(value));
    // The answer goes out before the write is acknowledged (see the file's comment).
    this.deliver(CONTRACT_STATUS, Buffer.from(value).reverse());
  }

  deliver(characteristicUuid: string, value: Buffer): void {
    if (this.open) this.listener?.(characteristicUuid, value);
  }

  protected closed(): void {
    this.forget();
  }
}
