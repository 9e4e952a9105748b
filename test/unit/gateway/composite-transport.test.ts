import { afterEach, describe, expect, it } from '@jest/globals';
import { TransportError, type Advertisement } from '../../../src/gateway/gatt-transport.js';
import { CompositeTransport, type CompositeTransportOptions } from '../../../src/gateway/transports/composite/composite-transport.js';
import { HEARD_WITHIN_MS } from '../../../src/gateway/transports/composite/gateway-route.js';
import { DeferredTransport } from '../../../src/gateway/transports/shared/deferred-transport.js';
import { SimulatorTransport } from '../../../src/gateway/transports/simulator/simulator-transport.js';
import { UnavailableTransport } from '../../../src/gateway/transports/shared/unavailable-transport.js';
import { CONTRACT_COMPANY, CONTRACT_PROFILE, ContractDevice } from '../../support/contract-device.js';
import { describeGattTransport } from '../../support/gatt-transport-contract.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';

/*
 * The composite transport (docs/architecture.md "Transports"): several radios as one, over simulator transports
 * that hear the same device with different signals. The routing rules as a table are in
 * gateway-route.test.ts; the GattTransport contract runs at the end.
 */

const CONNECT = { timeoutMs: 2_000 };
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const ADDRESS = 'C8:00:00:00:00:01';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A simulator transport per gateway name, the device within reach of each, and the composite over them. */
function rig(names: string[] = ['host', 'hall'], options: CompositeTransportOptions = {}) {
  const clock = new ManualClock();
  const device = new ContractDevice(ADDRESS);
  const radios = new Map(names.map((name) => [name, new SimulatorTransport([device], { advertisementIntervalMs: 60_000 })]));
  const composite = new CompositeTransport(
    names.map((name) => ({ name, transport: radio(name) })),
    { clock, ...options },
  );
  cleanups.push(() => composite.close());
  function radio(name: string): SimulatorTransport {
    const found = radios.get(name);
    if (found === undefined) throw new Error(`no radio ${name}`);
    return found;
  }
  const radioConditions = new Map<string, { linkFails?: boolean; connectDelayMs?: number }>();
  /** Makes a radio fail or stall its connects (keeping the signal it hears with). */
  function impair(name: string, conditions: { linkFails?: boolean; connectDelayMs?: number }): void {
    radioConditions.set(name, conditions);
    radio(name).setRadio(ADDRESS, conditions);
  }
  /** Each named radio hears the device now, with this signal. */
  function hear(signals: Record<string, number>): void {
    for (const [name, rssi] of Object.entries(signals)) {
      radio(name).setRadio(ADDRESS, { ...radioConditions.get(name), rssi });
      radio(name).advertiseNow();
    }
  }
  /** The gateway holding a connection to the device, by the composite's own account. */
  function holder(): string[] {
    return composite
      .gatewayStatus()
      .filter((gateway) => gateway.devices.some((entry) => entry.address === ADDRESS && entry.connected))
      .map((gateway) => gateway.name);
  }
  /**
   * Starts the watch that routing learns from (kept for the test). A simulator delivers what it
   * hears at once when watched: every radio has heard the device as advertised (-60 dBm) when this
   * resolves, and `seen` starts empty.
   */
  async function watch(): Promise<Advertisement[]> {
    const seen: Advertisement[] = [];
    const unwatch = composite.watchAdvertisements((advertisement) => seen.push(advertisement));
    cleanups.push(() => {
      unwatch();
      return Promise.resolve();
    });
    await turn();
    seen.length = 0;
    return seen;
  }
  return { clock, device, radio, composite, hear, impair, holder, watch };
}

describe('CompositeTransport advertisements', () => {
  it("delivers every gateway's advertisements as one watch, each tagged with the gateway that heard it and its signal", async () => {
    const { watch, hear } = rig();
    const seen = await watch();
    hear({ hall: -50, host: -80 });
    expect(seen).toEqual([
      { address: ADDRESS, rssi: -50, manufacturerData: new Map([[CONTRACT_COMPANY, Buffer.from([1])]]), gateway: 'hall' },
      { address: ADDRESS, rssi: -80, manufacturerData: new Map([[CONTRACT_COMPANY, Buffer.from([1])]]), gateway: 'host' },
    ]);
  });

  it('stops delivering from every gateway on unwatch, which is idempotent', () => {
    const { composite, hear } = rig();
    const seen: Advertisement[] = [];
    const unwatch = composite.watchAdvertisements((advertisement) => seen.push(advertisement));
    unwatch();
    unwatch();
    hear({ hall: -50, host: -80 });
    expect(seen).toEqual([]);
  });
});

describe('CompositeTransport routing', () => {
  it('connects through the gateway that heard the address strongest', async () => {
    const { watch, hear, composite, holder, device } = rig();
    await watch();
    hear({ host: -80, hall: -50 });
    const connection = await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(holder()).toEqual(['hall']);
    expect(device.openLinks).toBe(1);
    await connection.disconnect();
    expect(holder()).toEqual([]);
  });

  it('lets the host win a tie', async () => {
    const { watch, hear, composite, holder } = rig(['hall', 'host']);
    await watch();
    hear({ hall: -60, host: -60 });
    await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(holder()).toEqual(['host']);
  });

  it('counts an advertisement for 60 s; after that, as if nobody heard it: the configured order', async () => {
    const { watch, hear, composite, holder, clock } = rig();
    await watch();
    hear({ hall: -50 });
    clock.advance(HEARD_WITHIN_MS);
    const first = await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(holder()).toEqual(['hall']);
    await first.disconnect();
    clock.advance(1);
    await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(holder()).toEqual(['host']);
  });

  it('when nobody heard it, tries each gateway in the configured order', async () => {
    const { radio, composite, holder } = rig();
    radio('host').removeDevice(ADDRESS);
    await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(holder()).toEqual(['hall']);
  });

  it('fails over to the next gateway that heard it when a connect fails', async () => {
    const { watch, hear, impair, composite, holder } = rig();
    await watch();
    impair('hall', { linkFails: true });
    hear({ host: -80, hall: -50 });
    await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(holder()).toEqual(['host']);
  });

  it("fails over within the caller's timeout: a gateway that stalls gets its share, not the whole budget", async () => {
    const { watch, hear, impair, composite, holder } = rig();
    await watch();
    impair('hall', { connectDelayMs: 5_000 });
    hear({ host: -80, hall: -50 });
    const started = performance.now();
    await composite.connect(ADDRESS, CONTRACT_PROFILE, { timeoutMs: 1_000 });
    expect(performance.now() - started).toBeLessThan(1_000 + 1_500);
    expect(holder()).toEqual(['host']);
  });

  it('tries only the gateways that heard it when any did, and says why each failed', async () => {
    const { watch, hear, impair, composite, radio, device } = rig();
    radio('host').removeDevice(ADDRESS);
    await watch();
    impair('hall', { linkFails: true });
    hear({ hall: -50 });
    // The host could reach it now, but has not heard it.
    radio('host').addDevice(device);
    const error = await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ failure: 'connect_failed' });
    expect(device.openLinks).toBe(0);
  });

  it('names every failure when no gateway reaches it', async () => {
    const { composite, radio } = rig();
    radio('host').removeDevice(ADDRESS);
    radio('hall').setRadio(ADDRESS, { linkFails: true });
    const error = await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).failure).toBe('connect_failed');
    expect((error as TransportError).message).toMatch(/^C8:00:00:00:00:01: no gateway reached it \(host: No device advertising at C8:00:00:00:00:01; hall: .*the link could not be established\)$/);
  });

  it('keeps to the allow-list of the address: a stronger gateway it does not name is never used', async () => {
    const { watch, hear, composite, holder } = rig(['host', 'hall'], { allowedGateways: (address) => (address === ADDRESS ? ['hall'] : undefined) });
    await watch();
    hear({ host: -40, hall: -90 });
    await composite.connect(ADDRESS.toLowerCase(), CONTRACT_PROFILE, CONNECT);
    expect(holder()).toEqual(['hall']);
  });

  it('refuses an address whose allow-list names no configured gateway, as not_found', async () => {
    const { composite, device } = rig(['host', 'hall'], { allowedGateways: () => ['garage'] });
    await expect(composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT)).rejects.toMatchObject({
      name: 'TransportError',
      failure: 'not_found',
      message: 'C8:00:00:00:00:01: no configured gateway may serve it (allowed: garage)',
    });
    expect(device.openLinks).toBe(0);
  });

  it('with one gateway, passes its connects through unchanged: its budget and its own error', async () => {
    const only = new SimulatorTransport([], { advertisementIntervalMs: 60_000 });
    const composite = new CompositeTransport([{ name: 'host', transport: only }]);
    cleanups.push(() => composite.close());
    const direct = await only.connect(ADDRESS, CONTRACT_PROFILE, CONNECT).catch((error: unknown) => error);
    const through = await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT).catch((error: unknown) => error);
    expect(through).toBeInstanceOf(TransportError);
    expect(through).toEqual(direct);
    expect((through as TransportError).message).toBe((direct as TransportError).message);
  });
});

describe('CompositeTransport.gatewayStatus', () => {
  it('says which gateway heard which device, how strongly and when, and which holds the connection', async () => {
    const { watch, hear, composite, clock } = rig();
    await watch();
    const heardAt = clock.now();
    hear({ host: -80, hall: -50 });
    clock.advance(5_000);
    hear({ host: -75 });
    const connection = await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(composite.gatewayStatus()).toEqual([
      { name: 'host', kind: 'simulator', radio: { state: 'online', address: null, connectionsFree: null, connectionsLimit: null }, devices: [{ address: ADDRESS, rssi: -75, seenAt: heardAt + 5_000, connected: false }] },
      { name: 'hall', kind: 'simulator', radio: { state: 'online', address: null, connectionsFree: null, connectionsLimit: null }, devices: [{ address: ADDRESS, rssi: -50, seenAt: heardAt, connected: true }] },
    ]);
    await connection.disconnect();
    expect(composite.gatewayStatus()[1]?.devices[0]?.connected).toBe(false);
  });

  it('lists a device a gateway holds a connection to without having heard it', async () => {
    const { composite } = rig(['host'], { listenForRoutes: false });
    await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(composite.gatewayStatus()).toEqual([{ name: 'host', kind: 'simulator', radio: { state: 'online', address: null, connectionsFree: null, connectionsLimit: null }, devices: [{ address: ADDRESS, rssi: null, seenAt: null, connected: true }] }]);
  });

  it('is a copy: changing what it answered changes nothing', async () => {
    const { watch, hear, composite } = rig();
    await watch();
    hear({ hall: -50 });
    const status = composite.gatewayStatus();
    status[1]?.devices.splice(0);
    expect(composite.gatewayStatus()[1]?.devices).toHaveLength(1);
  });
});

/** A transport whose close fails (a proxy's socket that is already gone). */
class UnclosableTransport extends UnavailableTransport {
  override close(): Promise<void> {
    return Promise.reject(new Error('socket already gone'));
  }
}

describe('CompositeTransport lifecycle', () => {
  function deferredSimulator(device: ContractDevice): { transport: DeferredTransport; inner: SimulatorTransport; loads: () => number } {
    const inner = new SimulatorTransport([device], { advertisementIntervalMs: 60_000 });
    let loads = 0;
    const transport = new DeferredTransport(
      'bluez',
      () => {
        loads += 1;
        return Promise.resolve(inner);
      },
      new RecordingLogger(),
    );
    return { transport, inner, loads: () => loads };
  }

  it('loads and watches nothing before its first use; with several gateways it listens for routes from then on', async () => {
    const device = new ContractDevice(ADDRESS);
    const host = deferredSimulator(device);
    const hall = new SimulatorTransport([device], { advertisementIntervalMs: 60_000 });
    const composite = new CompositeTransport([
      { name: 'host', transport: host.transport },
      { name: 'hall', transport: hall },
    ]);
    cleanups.push(() => composite.close());
    expect(host.loads()).toBe(0);
    hall.advertiseNow();
    expect(composite.gatewayStatus().flatMap((gateway) => gateway.devices)).toEqual([]);
    const connection = await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    expect(host.loads()).toBe(1);
    hall.advertiseNow();
    expect(composite.gatewayStatus()[1]?.devices.map((entry) => entry.rssi)).toEqual([-60]);
    await connection.disconnect();
  });

  it('with one gateway, scans only while someone watches, as that gateway alone would', async () => {
    const device = new ContractDevice(ADDRESS);
    const host = deferredSimulator(device);
    const composite = new CompositeTransport([{ name: 'host', transport: host.transport }]);
    cleanups.push(() => composite.close());
    const connection = await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    host.inner.advertiseNow();
    expect(composite.gatewayStatus()[0]?.devices.map((entry) => entry.seenAt)).toEqual([null]);
    await connection.disconnect();
  });

  it('closes every gateway, and says which one failed to close', async () => {
    const device = new ContractDevice(ADDRESS);
    const host = deferredSimulator(device);
    const seen: Advertisement[] = [];
    const hall = new SimulatorTransport([device], { advertisementIntervalMs: 60_000 });
    const stubborn = new UnclosableTransport('attic-kind', 'never reachable', new RecordingLogger());
    const logger = new RecordingLogger();
    const composite = new CompositeTransport(
      [
        { name: 'host', transport: host.transport },
        { name: 'hall', transport: hall },
        { name: 'attic', transport: stubborn },
      ],
      { logger },
    );
    await composite.connect(ADDRESS, CONTRACT_PROFILE, CONNECT);
    composite.watchAdvertisements((advertisement) => seen.push(advertisement));
    await composite.close();
    hall.advertiseNow();
    expect(seen).toEqual([]);
    await expect(host.transport.connect(ADDRESS, CONTRACT_PROFILE, CONNECT)).rejects.toMatchObject({ failure: 'bus_unavailable' });
    expect(logger.lines.filter((line) => line.level !== 'debug')).toEqual([{ level: 'warn', message: 'Closing gateway attic: socket already gone' }]);
  });

  it('refuses gateways without distinct names, and an empty list', () => {
    const radio = new SimulatorTransport();
    expect(() => new CompositeTransport([])).toThrow('at least one gateway');
    expect(
      () =>
        new CompositeTransport([
          { name: 'host', transport: radio },
          { name: 'host', transport: radio },
        ]),
    ).toThrow('distinct names');
  });
});

describeGattTransport('CompositeTransport over the simulator (the host alone)', ({ operationTimeoutMs }) => {
  const host = new SimulatorTransport([], { operationTimeoutMs, advertisementIntervalMs: 60_000 });
  const transport = new CompositeTransport([{ name: 'host', transport: host }]);
  return {
    transport,
    add: (device) => {
      host.addDevice(device);
    },
    stallConnects: (address) => {
      host.setRadio(address, { connectDelayMs: 5_000 });
    },
    stallOperations: (address) => {
      host.setRadio(address, { operationDelayMs: 5_000 });
    },
    close: () => transport.close(),
  };
});

describeGattTransport('CompositeTransport over two simulators that both hear every device', ({ operationTimeoutMs }) => {
  const radios = ['host', 'hall'].map((name) => ({ name, transport: new SimulatorTransport([], { operationTimeoutMs, advertisementIntervalMs: 60_000 }) }));
  const transport = new CompositeTransport(radios);
  const everyRadio = (work: (radio: SimulatorTransport) => void): void => {
    for (const { transport: radio } of radios) work(radio);
  };
  return {
    transport,
    add: (device) => {
      everyRadio((radio) => {
        radio.addDevice(device);
      });
    },
    stallConnects: (address) => {
      everyRadio((radio) => {
        radio.setRadio(address, { connectDelayMs: 5_000 });
      });
    },
    stallOperations: (address) => {
      everyRadio((radio) => {
        radio.setRadio(address, { operationDelayMs: 5_000 });
      });
    },
    close: () => transport.close(),
  };
});
