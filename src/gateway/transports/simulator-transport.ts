import { LockUuids } from '../lock-profile.js';
import {
  TransportError,
  type ConnectOptions,
  type LockConnection,
  type LockTransport,
  type NotifyingCharacteristic,
  type ReadableCharacteristic,
  type WritableCharacteristic,
} from '../lock-transport.js';
import { GattOperationError, type SimulatedLock, type SimulatedLockLink } from '../simulator/simulated-lock.js';

const NAME_OF_UUID = new Map<string, NotifyingCharacteristic>([
  [LockUuids.boltState, 'boltState'],
  [LockUuids.controlPoint, 'controlPoint'],
  [LockUuids.activity, 'activity'],
  [LockUuids.batteryLevel, 'batteryLevel'],
  [LockUuids.credentials, 'credentials'],
]);

/**
 * The in-process transport: connects to {@link SimulatedLock} objects by address. Used by the
 * demo and by most app tests; it carries the same bytes as the BlueZ transport.
 */
export class SimulatorTransport implements LockTransport {
  readonly kind = 'simulator' as const;
  private readonly locks = new Map<string, SimulatedLock>();

  constructor(locks: Iterable<SimulatedLock> = []) {
    for (const lock of locks) this.addLock(lock);
  }

  /** Makes a simulated lock reachable through this transport. */
  addLock(lock: SimulatedLock): void {
    this.locks.set(lock.address.toUpperCase(), lock);
  }

  /** Forgets a simulated lock (as if it were carried away for good). */
  removeLock(address: string): void {
    this.locks.delete(address.toUpperCase());
  }

  /** The simulated lock at an address, for demo drivers. */
  getLock(address: string): SimulatedLock | undefined {
    return this.locks.get(address.toUpperCase());
  }

  connect(address: string, _options: ConnectOptions): Promise<LockConnection> {
    const lock = this.locks.get(address.toUpperCase());
    if (lock === undefined || !lock.inRange) {
      return Promise.reject(new TransportError('not_found', `No lock advertising at ${address}`));
    }
    return Promise.resolve(new SimulatedConnection(lock.address, lock.openLink()));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

class SimulatedConnection implements LockConnection {
  private disconnectListener: (() => void) | undefined;
  private closedByUs = false;

  constructor(
    readonly address: string,
    private readonly link: SimulatedLockLink,
  ) {
    link.onLost(() => {
      if (!this.closedByUs) this.disconnectListener?.();
    });
  }

  get connected(): boolean {
    return this.link.open;
  }

  read(characteristic: ReadableCharacteristic): Promise<Buffer> {
    return this.run(() => this.link.read(LockUuids[characteristic]));
  }

  write(characteristic: WritableCharacteristic, value: Buffer): Promise<void> {
    return this.run(() => {
      this.link.write(LockUuids[characteristic], value);
    });
  }

  onNotification(listener: (characteristic: NotifyingCharacteristic, value: Buffer) => void): void {
    this.link.onNotification((uuid, value) => {
      const name = NAME_OF_UUID.get(uuid);
      if (name !== undefined) listener(name, value);
    });
  }

  onDisconnect(listener: () => void): void {
    this.disconnectListener = listener;
  }

  disconnect(): Promise<void> {
    this.closedByUs = true;
    this.link.close();
    return Promise.resolve();
  }

  private async run<T>(operation: () => T): Promise<T> {
    // Yield once so callers never see a synchronous answer, as over a real radio.
    await Promise.resolve();
    try {
      return operation();
    } catch (error) {
      if (error instanceof GattOperationError) {
        throw new TransportError(error.reason === 'not_connected' ? 'not_connected' : 'operation_failed', error.message, { cause: error });
      }
      throw error;
    }
  }
}
