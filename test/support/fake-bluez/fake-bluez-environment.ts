import { FakeBluez, type FakeBluezOptions } from './fake-bluez.js';
import { startPrivateDbusDaemon } from './private-dbus-daemon.js';

/** A private dbus-daemon with a fake BlueZ on it. */
export interface FakeBluezEnvironment {
  /** Bus address for `new BluezTransport({ busAddress })`. */
  busAddress: string;
  bluez: FakeBluez;
  /** Stops the fake and the daemon, and restores DBUS_SYSTEM_BUS_ADDRESS if it was set here. */
  stop(): Promise<void>;
}

/**
 * Starts a private bus and a fake BlueZ, for a `beforeAll`. With `asSystemBus`, also points
 * DBUS_SYSTEM_BUS_ADDRESS at it, so code that builds `new BluezTransport()` with no address
 * (the app's composition root) talks to the fake.
 *
 * @example
 * let env: FakeBluezEnvironment;
 * beforeAll(async () => { env = await startFakeBluezEnvironment(); });
 * afterAll(() => env.stop());
 * // env.bluez.addDevice(new SimulatedLock({...}), { dropNotifications: true });
 */
export async function startFakeBluezEnvironment(options: { asSystemBus?: boolean } & FakeBluezOptions = {}): Promise<FakeBluezEnvironment> {
  const daemon = await startPrivateDbusDaemon();
  const { asSystemBus: _asSystemBus, ...bluezOptions } = options;
  const bluez = await FakeBluez.start(daemon.address, bluezOptions);
  const previous = process.env.DBUS_SYSTEM_BUS_ADDRESS;
  if (options.asSystemBus === true) process.env.DBUS_SYSTEM_BUS_ADDRESS = daemon.address;
  return {
    busAddress: daemon.address,
    bluez,
    stop: async () => {
      if (options.asSystemBus === true) {
        if (previous === undefined) delete process.env.DBUS_SYSTEM_BUS_ADDRESS;
        else process.env.DBUS_SYSTEM_BUS_ADDRESS = previous;
      }
      bluez.stop();
      await daemon.stop();
    },
  };
}
