/**
 * A tiny BLE device of another family than ours, for the GATT transport tests (the simulator's and
 * BlueZ's): nothing in a transport may be specific to our profile. It indicates on its status
 * characteristic the reverse of each command written, and advertises its state byte.
 */
import type { GattProfile } from '../../src/gateway/gatt-transport.js';
import {
  GattOperationError,
  type NotificationListener,
  type SimulatedAdvertisement,
  type SimulatedDevice,
  type SimulatedGattService,
  type SimulatedLockLink,
} from '../../src/gateway/transports/simulator/simulated-device.js';

export const TINY_SERVICE = '0000feed-0000-1000-8000-00805f9b34fb';
export const TINY_COMMAND = 'f00d0001-1b2c-4d5e-8f90-a1b2c3d4e5f6';
export const TINY_STATUS = 'f00d0002-1b2c-4d5e-8f90-a1b2c3d4e5f6';
export const TINY_INFO_SERVICE = 'f00d1000-1b2c-4d5e-8f90-a1b2c3d4e5f6';
export const TINY_INFO = 'f00d1001-1b2c-4d5e-8f90-a1b2c3d4e5f6';
export const TINY_COMPANY = 0x004c;

/** A device that indicates on its status characteristic the reverse of each command written; its state byte is advertised. */
export class TinyDevice implements SimulatedDevice {
  readonly name = 'Tiny';
  readonly gattDatabase: readonly SimulatedGattService[] = [
    {
      uuid: TINY_SERVICE,
      characteristics: [
        { uuid: TINY_COMMAND, flags: ['write'] },
        { uuid: TINY_STATUS, flags: ['read', 'indicate'] },
      ],
    },
    { uuid: TINY_INFO_SERVICE, characteristics: [{ uuid: TINY_INFO, flags: ['read'] }] },
  ];
  inRange = true;
  state = 1;
  private readonly listeners = new Set<() => void>();

  constructor(readonly address: string) {}

  openLink(): SimulatedLockLink {
    if (!this.inRange) throw new GattOperationError('not_connected', 'out of range');
    let open = true;
    let listener: NotificationListener | undefined;
    return {
      get open() {
        return open;
      },
      read: (uuid) => {
        if (uuid === TINY_STATUS) return Buffer.from([this.state]);
        if (uuid === TINY_INFO) return Buffer.from('tiny v1');
        throw new GattOperationError('not_supported', 'not readable');
      },
      write: (uuid, value) => {
        if (uuid !== TINY_COMMAND) throw new GattOperationError('not_supported', 'not writable');
        const answer = Buffer.from(value).reverse();
        setImmediate(() => {
          if (open) listener?.(TINY_STATUS, answer);
        });
      },
      onNotification: (next) => {
        listener = next;
      },
      onLost: () => undefined,
      close: () => {
        open = false;
      },
    };
  }

  advertisement(): SimulatedAdvertisement | null {
    return this.inRange ? { manufacturerData: new Map([[TINY_COMPANY, Buffer.from([0x02, 0x15, this.state])]]), rssi: -55 } : null;
  }

  onAdvertisementChange(listener: () => void): () => void {
    const registered = (): void => {
      listener();
    };
    this.listeners.add(registered);
    return () => this.listeners.delete(registered);
  }

  /** A new state byte in the advertisement. */
  setState(state: number): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }

  setInRange(inRange: boolean): void {
    this.inRange = inRange;
    for (const listener of this.listeners) listener();
  }
}

export const TINY_PROFILE: GattProfile = {
  characteristics: [
    { name: 'command', service: TINY_SERVICE, uuid: TINY_COMMAND, required: true, subscribe: false },
    { name: 'status', service: TINY_SERVICE, uuid: TINY_STATUS, required: true, subscribe: true },
    { name: 'info', service: TINY_INFO_SERVICE, uuid: TINY_INFO, required: false, subscribe: false },
  ],
};
