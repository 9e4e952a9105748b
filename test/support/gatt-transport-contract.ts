/**
 * The contract every GATT transport keeps (src/gateway/gatt-transport.ts), as one suite that each
 * transport's test file runs over a rig of its own: the simulator transport, the BlueZ transport
 * over the fake BlueZ, the composite transport over one radio and over two that hear the same
 * device. A new transport (docs/architecture.md "Adding a transport") passes it before anything
 * else uses it.
 *
 * What the gateway core relies on, and so what is checked here: connect resolves the driver's
 * profile (discovery as `has()`, `gatt_unavailable` without a required characteristic); writes are
 * acknowledged; notifications arrive by the profile's names; a value that arrives before
 * `onNotification` is set is delivered once it is set (a connection is handed over between
 * `connect()` resolving and the caller setting its listeners, src/gateway/lock-link.ts); a drop is
 * reported exactly once, also when it came before `onDisconnect` was set, and never after
 * `disconnect()`; connects and operations end within their budgets; and every failure is a
 * TransportError, never a raw Error or a D-Bus error.
 *
 * @example
 * describeGattTransport('SimulatorTransport', ({ operationTimeoutMs }) => {
 *   const transport = new SimulatorTransport([], { operationTimeoutMs });
 *   return { transport, add: (device) => transport.addDevice(device), stallConnects: …, stallOperations: …, close: () => transport.close() };
 * });
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { TransportError, type Advertisement, type GattConnection, type GattProfile, type GattTransport, type TransportFailure } from '../../src/gateway/gatt-transport.js';
import { CONTRACT_ABSENT, CONTRACT_COMPANY, CONTRACT_PLAIN, CONTRACT_PROFILE, CONTRACT_SERVICE, ContractDevice } from './contract-device.js';
import { until } from './polling.js';

/** A transport under test, with the means to put devices in its reach and to make its radio slow. */
export interface GattTransportRig {
  readonly transport: GattTransport;
  /** Puts a device within reach (of every radio that should hear it). */
  add(device: ContractDevice): void;
  /** From now on, a connect to this address gets no answer for at least 5 s. */
  stallConnects(address: string): void;
  /** From now on, reads and writes of links to this address get no answer for at least 5 s. */
  stallOperations(address: string): void;
  /** Ends what the rig started. */
  close(): Promise<void>;
}

/** What the suite asks of a rig. */
export interface GattTransportRigOptions {
  /** The budget of each read and write, ms: the transport is built with it. */
  operationTimeoutMs: number;
}

export type MakeGattTransportRig = (options: GattTransportRigOptions) => GattTransportRig | Promise<GattTransportRig>;

const OPERATION_TIMEOUT_MS = 1_000;
const CONNECT = { timeoutMs: 5_000 };
/** The connect budget where the radio stalls. */
const STALLED_CONNECT_MS = 1_000;
/**
 * How much later than its budget a call that timed out may end on a loaded machine. Shorter than
 * the rigs' stalls (5 s), so a call that waited for the radio instead fails the test.
 */
const LATE_MS = 2_500;

let addresses = 0;
/** A fresh address for every device of the process: rigs may share one fake BlueZ. */
function freshAddress(): string {
  addresses += 1;
  const hex = (value: number): string => value.toString(16).padStart(2, '0').toUpperCase();
  return `C7:0A:00:00:${hex(addresses >> 8)}:${hex(addresses & 0xff)}`;
}

/** The TransportError `work` fails with; fails the test when it succeeds or fails with anything else. */
async function transportFailure(work: Promise<unknown>): Promise<TransportError> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).name).toBe('TransportError');
    return error as TransportError;
  }
  throw new Error('expected a TransportError, but it succeeded');
}

async function expectFailure(work: Promise<unknown>, failure: TransportFailure): Promise<void> {
  expect((await transportFailure(work)).failure).toBe(failure);
}

/** Runs the GattTransport contract over transports that `makeRig` builds, one per test. */
export function describeGattTransport(name: string, makeRig: MakeGattTransportRig): void {
  describe(`${name} keeps the GattTransport contract`, () => {
    let rig: GattTransportRig;
    const connections: GattConnection[] = [];

    beforeEach(async () => {
      rig = await makeRig({ operationTimeoutMs: OPERATION_TIMEOUT_MS });
    });

    afterEach(async () => {
      for (const connection of connections.splice(0)) await connection.disconnect();
      await rig.close();
    });

    function newDevice(): ContractDevice {
      const device = new ContractDevice(freshAddress());
      rig.add(device);
      return device;
    }

    async function connect(device: ContractDevice, profile: GattProfile = CONTRACT_PROFILE): Promise<GattConnection> {
      const connection = await rig.transport.connect(device.address.toLowerCase(), profile, CONNECT);
      connections.push(connection);
      return connection;
    }

    function collect(connection: GattConnection): [string, Buffer][] {
      const values: [string, Buffer][] = [];
      connection.onNotification((characteristic, value) => values.push([characteristic, value]));
      return values;
    }

    function countDrops(connection: GattConnection): { drops: number } {
      const counter = { drops: 0 };
      connection.onDisconnect(() => {
        counter.drops += 1;
      });
      return counter;
    }

    /**
     * A full round trip on a new connection to the device: whatever the transport still had to
     * report of an earlier link (a late second drop report) has come by then.
     */
    async function roundTrip(device: ContractDevice): Promise<void> {
      const connection = await connect(device);
      const values = collect(connection);
      await connection.write('command', Buffer.from([7, 8]));
      await until(() => values.length === 1, 'the answer of the round trip');
      await connection.disconnect();
    }

    describe('connect and discovery', () => {
      it('connects by any case of the address, resolves the profile by name, and says what the device lacks through has()', async () => {
        const device = newDevice();
        const connection = await connect(device);
        expect(connection.address).toBe(device.address);
        expect(connection.connected).toBe(true);
        expect(['command', 'status', 'info', 'faulty'].filter((characteristic) => connection.has(characteristic))).toEqual(['command', 'status', 'info', 'faulty']);
        expect(connection.has('absent')).toBe(false);
        expect(connection.has('not-in-the-profile')).toBe(false);
        expect(device.openLinks).toBe(1);
      });

      it('fails with gatt_unavailable when a required characteristic is missing', async () => {
        const device = newDevice();
        const profile: GattProfile = { characteristics: [{ name: 'absent', service: CONTRACT_SERVICE, uuid: CONTRACT_ABSENT, required: true, subscribe: false }] };
        await expectFailure(rig.transport.connect(device.address, profile, CONNECT), 'gatt_unavailable');
      });

      it('fails with gatt_unavailable when a subscribed characteristic neither notifies nor indicates', async () => {
        const device = newDevice();
        const profile: GattProfile = { characteristics: [{ name: 'plain', service: CONTRACT_SERVICE, uuid: CONTRACT_PLAIN, required: true, subscribe: true }] };
        await expectFailure(rig.transport.connect(device.address, profile, CONNECT), 'gatt_unavailable');
      });

      it('connects again to the same device after a disconnect', async () => {
        const device = newDevice();
        const first = await connect(device);
        await first.disconnect();
        const second = await connect(device);
        expect(await second.read('info')).toEqual(Buffer.from('contract v1'));
      });
    });

    describe('reads, writes and notifications', () => {
      it('reads a characteristic by its profile name', async () => {
        const connection = await connect(newDevice());
        expect(await connection.read('info')).toEqual(Buffer.from('contract v1'));
      });

      it('writes with response: the device has the value when write() resolves', async () => {
        const device = newDevice();
        const connection = await connect(device);
        await connection.write('command', Buffer.from([1, 2, 3]));
        expect(device.writes).toEqual([Buffer.from([1, 2, 3])]);
      });

      it('delivers notifications by profile name, in order: answers and spontaneous ones', async () => {
        const device = newDevice();
        const connection = await connect(device);
        const values = collect(connection);
        await connection.write('command', Buffer.from([1, 2]));
        device.notify(Buffer.from([9]));
        await until(() => values.length === 2, 'two notifications');
        expect(values).toEqual([
          ['status', Buffer.from([2, 1])],
          ['status', Buffer.from([9])],
        ]);
      });

      it('delivers nothing of a characteristic the profile does not subscribe to', async () => {
        const device = newDevice();
        const profile: GattProfile = { characteristics: CONTRACT_PROFILE.characteristics.map((spec) => ({ ...spec, subscribe: false })) };
        const connection = await connect(device, profile);
        const values = collect(connection);
        // The answer comes before the write's acknowledgement: had it been delivered, it would be here.
        await connection.write('command', Buffer.from([1, 2]));
        expect(await connection.read('status')).toEqual(Buffer.from([1]));
        expect(values).toEqual([]);
      });

      it('keeps values that arrive before onNotification is set, and delivers them once it is, in order', async () => {
        const device = newDevice();
        const connection = await connect(device);
        // Each answer arrives before its write resolves: both are here before a listener is.
        await connection.write('command', Buffer.from([1, 2]));
        await connection.write('command', Buffer.from([3, 4]));
        const values = collect(connection);
        device.notify(Buffer.from([5]));
        await until(() => values.length === 3, 'the two kept values and the new one');
        expect(values).toEqual([
          ['status', Buffer.from([2, 1])],
          ['status', Buffer.from([4, 3])],
          ['status', Buffer.from([5])],
        ]);
      });
    });

    describe('drops and disconnects', () => {
      it('reports a drop exactly once; the connection then says so and refuses to work', async () => {
        const device = newDevice();
        const connection = await connect(device);
        const counter = countDrops(connection);
        device.dropLinks();
        await until(() => counter.drops === 1, 'the drop report');
        expect(connection.connected).toBe(false);
        await expectFailure(connection.read('info'), 'not_connected');
        await connection.disconnect(); // after the drop: no second report
        await roundTrip(device);
        expect(counter.drops).toBe(1);
      });

      it('reports a drop that happened before onDisconnect was set, once it is set', async () => {
        const device = newDevice();
        const witness = newDevice();
        const connection = await connect(device);
        const witnessed = countDrops(await connect(witness));
        device.dropLinks();
        witness.dropLinks();
        // The transport reports drops in the order they happen: once the witness's is reported,
        // the device's has been handled too, with no listener to tell.
        await until(() => witnessed.drops === 1, "the witness's drop report");
        expect(connection.connected).toBe(false);
        const counter = countDrops(connection);
        await until(() => counter.drops === 1, 'the earlier drop, reported now');
        await roundTrip(device);
        expect(counter.drops).toBe(1);
      });

      it('reports nothing after disconnect(), which is idempotent; the connection then refuses to work', async () => {
        const device = newDevice();
        const connection = await connect(device);
        const counter = countDrops(connection);
        const values = collect(connection);
        await connection.disconnect();
        await connection.disconnect();
        expect(connection.connected).toBe(false);
        await until(() => device.openLinks === 0, 'the device to let go of the link');
        await expectFailure(connection.read('info'), 'not_connected');
        await expectFailure(connection.write('command', Buffer.from([1])), 'not_connected');
        await roundTrip(device);
        expect(counter.drops).toBe(0);
        expect(values).toEqual([]);
      });
    });

    describe('budgets', () => {
      it('ends a connect the radio does not complete within its timeout, as a TransportError', async () => {
        const device = newDevice();
        rig.stallConnects(device.address);
        const started = performance.now();
        await transportFailure(rig.transport.connect(device.address, CONTRACT_PROFILE, { timeoutMs: STALLED_CONNECT_MS }));
        expect(performance.now() - started).toBeLessThan(STALLED_CONNECT_MS + LATE_MS);
      });

      it('ends reads and writes the device does not answer within the operation timeout, as operation_failed', async () => {
        const device = newDevice();
        const connection = await connect(device);
        rig.stallOperations(device.address);
        const started = performance.now();
        await Promise.all([expectFailure(connection.read('info'), 'operation_failed'), expectFailure(connection.write('command', Buffer.from([1])), 'operation_failed')]);
        expect(performance.now() - started).toBeLessThan(OPERATION_TIMEOUT_MS + LATE_MS);
      });
    });

    describe('errors are TransportErrors only', () => {
      it('an address nobody advertises: not_found', async () => {
        await expectFailure(rig.transport.connect(freshAddress(), CONTRACT_PROFILE, { timeoutMs: STALLED_CONNECT_MS }), 'not_found');
      });

      it('a write the device refuses, a read that fails inside the device, a characteristic it lacks: operation_failed', async () => {
        const connection = await connect(newDevice());
        await expectFailure(connection.write('info', Buffer.from([1])), 'operation_failed');
        await expectFailure(connection.read('faulty'), 'operation_failed');
        await expectFailure(connection.read('absent'), 'operation_failed');
        await expectFailure(connection.read('not-in-the-profile'), 'operation_failed');
        // None of that ended the link.
        expect(await connection.read('info')).toEqual(Buffer.from('contract v1'));
      });
    });

    describe('advertisements', () => {
      it('delivers what it hears, by address, with manufacturer data; unwatching twice is harmless', async () => {
        const device = newDevice();
        const seen: Advertisement[] = [];
        const unwatch = rig.transport.watchAdvertisements((advertisement) => {
          if (advertisement.address === device.address) seen.push(advertisement);
        });
        try {
          await until(() => seen.length > 0, 'an advertisement');
          expect(seen[0]?.manufacturerData).toEqual(new Map([[CONTRACT_COMPANY, Buffer.from([1])]]));
          expect(typeof seen[0]?.rssi).toBe('number');
        } finally {
          unwatch();
          unwatch();
        }
      });
    });
  });
}
