import { describe, expect, it } from '@jest/globals';
import { CompositeTransport } from '../../../src/gateway/transports/composite/composite-transport.js';
import { SimulatorTransport } from '../../../src/gateway/transports/simulator/simulator-transport.js';
import { chooseTransport, chooseTransportKind } from '../../../src/locks/lock-transport-choice.js';
import { CONTRACT_PROFILE, ContractDevice } from '../../support/contract-device.js';
import { RecordingLogger } from '../../support/recording-logger.js';

/* How the lock subsystem picks the transport its gateway reaches locks through. */

describe('chooseTransportKind', () => {
  it('takes the configured kind, else the default given (the demo: simulator), else bluez', () => {
    expect(chooseTransportKind('simulator')).toBe('simulator');
    expect(chooseTransportKind(undefined, 'simulator')).toBe('simulator');
    expect(chooseTransportKind('bluez', 'simulator')).toBe('bluez');
    expect(chooseTransportKind(undefined)).toBe('bluez');
  });
});

describe('chooseTransport', () => {
  it('puts the host radio it is given behind a composite, as the gateway named host', async () => {
    const device = new ContractDevice('C9:00:00:00:00:01');
    const host = new SimulatorTransport([device], { advertisementIntervalMs: 60_000 });
    const transport = chooseTransport({ host, kind: 'bluez', logger: new RecordingLogger() });
    expect(transport).toBeInstanceOf(CompositeTransport);
    const connection = await transport.connect(device.address, CONTRACT_PROFILE, { timeoutMs: 1_000 });
    expect(transport.gatewayStatus()).toEqual([{ name: 'host', kind: 'simulator', radio: { state: 'online', address: null, connectionsFree: null, connectionsLimit: null }, devices: [{ address: device.address, rssi: null, seenAt: null, connected: true }] }]);
    await connection.disconnect();
    await transport.close();
  });

  it('opens the configured kind as the host radio when given none: the simulator outside the demo reaches nothing', async () => {
    const logger = new RecordingLogger();
    const transport = chooseTransport({ kind: 'simulator', logger });
    expect(transport.gatewayStatus().map((gateway) => [gateway.name, gateway.kind])).toEqual([['host', 'simulator']]);
    await expect(transport.connect('C9:00:00:00:00:02', CONTRACT_PROFILE, { timeoutMs: 1_000 })).rejects.toMatchObject({ name: 'TransportError', failure: 'bus_unavailable' });
    await transport.close();
  });

  it('opens BlueZ for bluez, lazily: nothing logged, nothing connected until the first use', async () => {
    const logger = new RecordingLogger();
    const transport = chooseTransport({ kind: 'bluez', adapter: 'hci1', logger });
    expect(transport.gatewayStatus().map((gateway) => [gateway.name, gateway.kind])).toEqual([['host', 'bluez']]);
    await transport.close();
    expect(logger.lines).toEqual([]);
  });
});

describe('chooseTransport with Bluetooth proxies (docs/design.md §4e)', () => {
  const proxies = [
    { name: 'Hall', host: '127.0.0.1', port: 1 },
    { name: 'Garage', host: 'garage.local', encryption_key: Buffer.alloc(32, 7).toString('base64') },
  ];

  it('puts the host first, then each proxy by name; loads no proxy transport until started', async () => {
    const logger = new RecordingLogger();
    const transport = chooseTransport({ kind: 'simulator', proxies, logger });
    const status = transport.gatewayStatus();
    expect(status.map((gateway) => [gateway.name, gateway.kind])).toEqual([
      ['host', 'simulator'],
      ['Hall', 'esphome'],
      ['Garage', 'esphome'],
    ]);
    expect(status.map((gateway) => [gateway.radio.state, gateway.radio.address])).toEqual([
      ['online', null],
      ['offline', '127.0.0.1:1'],
      ['offline', 'garage.local:6053'],
    ]);
    await transport.close();
  });

  it('leaves the host out with use_host_adapter off: proxies only', async () => {
    const transport = chooseTransport({ kind: 'bluez', useHostAdapter: false, proxies, logger: new RecordingLogger() });
    expect(transport.gatewayStatus().map((gateway) => gateway.name)).toEqual(['Hall', 'Garage']);
    await transport.close();
  });

  it('says once, per proxy without a key, that its traffic is readable on the network; never a key', async () => {
    const logger = new RecordingLogger();
    const transport = chooseTransport({ kind: 'simulator', proxies, logger });
    const warnings = logger.lines.filter((line) => line.level === 'warn').map((line) => line.message);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Proxy Hall has no encryption key');
    expect(logger.text()).not.toContain(Buffer.alloc(32, 7).toString('base64'));
    await transport.close();
  });
});
