import dbus from 'dbus-next';
import type NodeBle from 'node-ble';
import { withTimeout, type Deadline } from '../../deadline.js';
import type { GatewayLogger } from '../../gateway-logger.js';
import { TransportError } from '../../gatt-transport.js';
import type { DeviceHandle, Session } from './bluez-bus-session.js';
import { dbusErrorName, raceOrFail, toTransportError } from './bluez-errors.js';
import { helperOf } from './node-ble-internals.js';
import { describeError } from '../../../domain/errors.js';

/**
 * LE discovery on a session's adapter, shared by its users (device lookups and the advertisement
 * watch): on with the first, off with the last, the on/off calls one after the other.
 */
export class BluezDiscovery {
  constructor(private readonly options: { operationTimeoutMs: number; discoveryIntervalMs: number; logger: GatewayLogger }) {}

  /** The device object, from BlueZ's cache or by LE discovery. */
  async findDevice(session: Session, adapter: NodeBle.Adapter, address: string, deadline: Deadline): Promise<DeviceHandle> {
    const cached = session.devices.get(address);
    if (cached !== undefined) return cached;
    let device: NodeBle.Device | undefined;
    try {
      device = await raceOrFail(deadline, adapter.getDevice(address), 'not_found', `${address} not found`);
    } catch (error) {
      if (!(error instanceof Error) || error.message !== 'Device not found') throw error;
    }
    if (device === undefined) {
      // Without discovery the device may still show up (another client may be scanning).
      await this.start(session, adapter, deadline);
      try {
        const remaining = deadline.remaining();
        if (remaining <= 0) throw new TransportError('not_found', `${address} not found`);
        device = await raceOrFail(deadline, adapter.waitDevice(address, remaining, this.options.discoveryIntervalMs), 'not_found', `${address} not found`);
      } catch (error) {
        throw toTransportError(error, 'not_found');
      } finally {
        await this.stop(session, adapter);
      }
    }
    const handle: DeviceHandle = { device, characteristics: new Map(), profiles: new Map() };
    session.devices.set(address, handle);
    return handle;
  }

  /** One more discovery user; true when discovery is on. */
  async start(session: Session, adapter: NodeBle.Adapter, deadline: Deadline): Promise<boolean> {
    session.discoveryUsers += 1;
    return (await deadline.race(this.sync(session, adapter))) === true;
  }

  /** One discovery user fewer; discovery stops with the last. Never throws. */
  async stop(session: Session, adapter: NodeBle.Adapter): Promise<void> {
    session.discoveryUsers = Math.max(0, session.discoveryUsers - 1);
    await this.sync(session, adapter);
  }

  /** Brings discovery in line with its users, after any on/off still under way. Never rejects. */
  private sync(session: Session, adapter: NodeBle.Adapter): Promise<boolean> {
    const step = session.discoveryChain.then(async () => {
      if (session.broken) return false;
      const wanted = session.discoveryUsers > 0;
      if (wanted && !session.discoveryOn) {
        session.discoveryOn = await this.turnOn(adapter);
      } else if (!wanted && session.discoveryOn) {
        session.discoveryOn = false;
        await this.turnOff(adapter);
      }
      return session.discoveryOn;
    });
    session.discoveryChain = step.then(() => undefined);
    return step;
  }

  /**
   * SetDiscoveryFilter(Transport=le, DuplicateData=true) and StartDiscovery. DuplicateData makes
   * BlueZ report every advertisement, not only changes, so a lock that repeats "new state" is
   * heard each time; BlueZ before 5.48 refuses the key, and then only changes are reported.
   */
  private async turnOn(adapter: NodeBle.Adapter): Promise<boolean> {
    const helper = helperOf(adapter);
    const call = (method: string, ...args: unknown[]): Promise<unknown> => withTimeout(helper.callMethod(method, ...args), this.options.operationTimeoutMs, () => new Error(`${method} timed out`));
    try {
      try {
        await call('SetDiscoveryFilter', { Transport: new dbus.Variant('s', 'le'), DuplicateData: new dbus.Variant('b', true) });
      } catch (error) {
        if (dbusErrorName(error) !== 'org.bluez.Error.InvalidArguments') throw error;
        await call('SetDiscoveryFilter', { Transport: new dbus.Variant('s', 'le') });
      }
      try {
        await call('StartDiscovery');
      } catch (error) {
        // Discovery is already running (ours, as BlueZ counts it per client, or another's in the fake).
        if (dbusErrorName(error) !== 'org.bluez.Error.InProgress') throw error;
      }
      return true;
    } catch (error) {
      this.options.logger.debug(`StartDiscovery: ${describeError(error)}`);
      return false;
    }
  }

  private async turnOff(adapter: NodeBle.Adapter): Promise<void> {
    try {
      await withTimeout(helperOf(adapter).callMethod('StopDiscovery'), this.options.operationTimeoutMs, () => new Error('StopDiscovery timed out'));
    } catch (error) {
      this.options.logger.debug(`StopDiscovery: ${describeError(error)}`);
    }
  }
}
