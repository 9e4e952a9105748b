import { afterEach, describe, expect, it } from '@jest/globals';
import type { LockCommandType } from '../../../src/domain/lock-command-type.js';
import { failed, type CommandOutcome } from '../../../src/gateway/command-outcome.js';
import { EXPIRED, type Deadline } from '../../../src/gateway/deadline.js';
import type { Advertisement, GattConnection, GattProfile } from '../../../src/gateway/gatt-transport.js';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import type { ConnectionPolicy, DriverContext, LockDriver } from '../../../src/gateway/lock-driver.js';
import {
  GattOperationError,
  SimulatedLinkBase,
  type SimulatedAdvertisement,
  type SimulatedDevice,
  type SimulatedGattService,
  type SimulatedLockLink,
} from '../../../src/gateway/transports/simulator/simulated-device.js';
import { SimulatorTransport } from '../../../src/gateway/transports/simulator/simulator-transport.js';
import { testLogger } from '../../support/fake-bluez/test-logger.js';
import { ManualClock } from '../../support/manual-clock.js';
import { until } from '../../support/polling.js';

/**
 * docs/ble-protocol.md "Connection policy": an on-demand lock whose policy has `retryPauseMs` (a
 * lock that drops links by itself, wakes only briefly) is tried again within the command's own
 * deadline; without it, one attempt. Never a command that outlives its deadline.
 */

const SERVICE = '0000b0b0-0000-1000-8000-00805f9b34fb';
const STATE = 'b0b00001-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const COMMAND = 'b0b00002-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const ADDRESS = 'B0:B0:00:00:00:01';
const LOCK_ID = 'retry-lock';

/** A lock that drops the link instead of answering the next `dropsBeforeAnswer` commands; 0 locked, 1 unlocked. */
class DroppingDevice implements SimulatedDevice {
  readonly name = 'Dropping lock';
  readonly gattDatabase: readonly SimulatedGattService[] = [
    {
      uuid: SERVICE,
      characteristics: [
        { uuid: STATE, flags: ['read', 'notify'] },
        { uuid: COMMAND, flags: ['write'] },
      ],
    },
  ];
  inRange = true;
  bolt = 0;
  dropsBeforeAnswer = 0;
  commandsHeard = 0;
  connects = 0;
  private readonly links = new Set<DroppingLink>();

  constructor(readonly address: string) {}

  openLink(): SimulatedLockLink {
    if (!this.inRange) throw new GattOperationError('not_connected', 'out of range');
    this.connects += 1;
    const link = new DroppingLink(this);
    this.links.add(link);
    return link;
  }

  advertisement(): SimulatedAdvertisement | null {
    return this.inRange ? { manufacturerData: new Map(), rssi: -60 } : null;
  }

  onAdvertisementChange(): () => void {
    return () => undefined;
  }

  command(link: DroppingLink, value: number): void {
    this.commandsHeard += 1;
    if (this.dropsBeforeAnswer > 0) {
      this.dropsBeforeAnswer -= 1;
      link.lose();
      return;
    }
    this.bolt = value;
    link.deliver(Buffer.from([this.bolt]));
  }

  forget(link: DroppingLink): void {
    this.links.delete(link);
  }
}

class DroppingLink extends SimulatedLinkBase {
  constructor(private readonly device: DroppingDevice) {
    super();
  }

  read(uuid: string): Buffer {
    this.assertOpen();
    if (uuid === STATE) return Buffer.from([this.device.bolt]);
    throw new GattOperationError('not_supported', 'not readable');
  }

  write(uuid: string, value: Buffer): void {
    this.assertOpen();
    if (uuid !== COMMAND) throw new GattOperationError('not_supported', 'not writable');
    setImmediate(() => {
      if (this.open) this.device.command(this, value[0] ?? 0);
    });
  }

  deliver(value: Buffer): void {
    const listener = this.listener;
    setImmediate(() => listener?.(STATE, value));
  }

  protected closed(): void {
    this.device.forget(this);
  }
}

/** Connects per command; the link dropping before the answer is `delivery_failed`, as every driver reports it. */
class OnDemandDriver implements LockDriver {
  readonly family = 'retry-test';
  readonly profile: GattProfile = {
    characteristics: [
      { name: 'state', service: SERVICE, uuid: STATE, required: true, subscribe: true },
      { name: 'command', service: SERVICE, uuid: COMMAND, required: true, subscribe: false },
    ],
  };
  readonly unusableReason = null;
  private context: DriverContext | null = null;
  private waiting: ((value: number | 'lost') => void) | null = null;

  constructor(readonly connectionPolicy: ConnectionPolicy) {}

  attach(context: DriverContext): void {
    this.context = context;
  }

  async readState(connection: GattConnection): Promise<void> {
    const value = (await connection.read('state'))[0] ?? 0;
    this.context?.reportBolt(value === 1 ? 'unlocked' : 'locked', null);
  }

  readDeviceInformation(): Promise<null> {
    return Promise.resolve(null);
  }

  prepare(): Promise<void> {
    return Promise.resolve();
  }

  readActivitySince(): Promise<void> {
    return Promise.resolve();
  }

  async executeCommand(connection: GattConnection, action: LockCommandType, deadline: Deadline): Promise<CommandOutcome> {
    const answer = new Promise<number | 'lost'>((resolve) => {
      this.waiting = resolve;
    });
    try {
      await connection.write('command', Buffer.from([action === 'unlock' ? 1 : 0]));
    } catch {
      return failed('delivery_failed');
    }
    const value = await deadline.race(answer);
    if (value === EXPIRED) return failed('timeout');
    if (value === 'lost') return failed('delivery_failed');
    return { status: 'completed', bolt: value === 1 ? 'unlocked' : 'locked' };
  }

  handleNotification(_connection: GattConnection, _characteristic: string, value: Buffer): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.(value[0] ?? 0);
  }

  linkLost(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.('lost');
  }

  interpretAdvertisement(_advertisement: Advertisement): boolean {
    return false;
  }
}

const gateways: LockGateway[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.stop();
});

function rig(policy: ConnectionPolicy, commandTimeoutMs = 3_000): { device: DroppingDevice; gateway: LockGateway; transport: SimulatorTransport } {
  const device = new DroppingDevice(ADDRESS);
  const transport = new SimulatorTransport([device], { advertisementIntervalMs: 50 });
  const gateway = new LockGateway(transport, new ManualClock(), testLogger(), { connectTimeoutMs: 500, operationTimeoutMs: 500, commandTimeoutMs });
  gateway.addLock({ id: LOCK_ID, address: ADDRESS, name: 'Side Door', driver: new OnDemandDriver(policy) });
  gateways.push(gateway);
  return { device, gateway, transport };
}

/** Calls `after(n)` after the transport's n-th failed connect from now on (every call still goes through). */
function onFailedConnect(transport: SimulatorTransport, after: (failures: number) => void): void {
  let failures = 0;
  const connect = transport.connect.bind(transport);
  transport.connect = (...args) =>
    connect(...args).catch((error: unknown) => {
      failures += 1;
      after(failures);
      throw error;
    });
}

describe('an on-demand lock with retryPauseMs', () => {
  it('connects again and completes when the lock drops the link before it answered', async () => {
    const { device, gateway } = rig({ kind: 'on_demand', idleDisconnectMs: 50, retryPauseMs: 20 });
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.bolt === 'locked', 'the first read');
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === false, 'the idle release');
    device.dropsBeforeAnswer = 2;
    const connectsBefore = device.connects;
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(device.commandsHeard).toBe(3);
    expect(device.connects - connectsBefore).toBe(3);
    expect(gateway.getSnapshot(LOCK_ID)?.bolt).toBe('unlocked');
  });

  it('connects again while the lock is not reachable yet, within the deadline', async () => {
    const { device, gateway, transport } = rig({ kind: 'on_demand', idleDisconnectMs: 50, retryPauseMs: 20 });
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.bolt === 'locked', 'the first read');
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === false, 'the idle release');
    device.inRange = false;
    const connectsBefore = device.connects;
    let failedConnects = 0;
    // The lock wakes up after three attempts found it asleep, while the command still waits.
    onFailedConnect(transport, (failures) => {
      failedConnects = failures;
      if (failures === 3) device.inRange = true;
    });
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(failedConnects).toBe(3);
    expect(device.connects - connectsBefore).toBe(1);
  });

  it('ends lock_offline at its deadline when the lock never answers a connect, never later', async () => {
    const { device, gateway } = rig({ kind: 'on_demand', idleDisconnectMs: 50, retryPauseMs: 20 }, 400);
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.bolt === 'locked', 'the first read');
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === false, 'the idle release');
    device.inRange = false;
    const started = performance.now();
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
    // Ended by its deadline (0.4 s), not left hanging: a bound for a loaded machine, not a speed claim.
    expect(performance.now() - started).toBeLessThan(2_500);
  });

  it('ends delivery_failed when every attempt within the deadline loses its link', async () => {
    const { device, gateway } = rig({ kind: 'on_demand', idleDisconnectMs: 50, retryPauseMs: 20 }, 2_000);
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.bolt === 'locked', 'the first read');
    device.dropsBeforeAnswer = 1_000;
    const started = performance.now();
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(device.commandsHeard).toBeGreaterThan(1);
    // Ended by its deadline (2 s), not left hanging: a bound for a loaded machine, not a speed claim.
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(device.bolt).toBe(0);
  });
});

describe('an on-demand lock without retryPauseMs', () => {
  it('makes one attempt: a dropped link is delivery_failed', async () => {
    const { device, gateway } = rig({ kind: 'on_demand', idleDisconnectMs: 50 });
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.bolt === 'locked', 'the first read');
    device.dropsBeforeAnswer = 1;
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(device.commandsHeard).toBe(1);
  });

  it('makes one attempt: an unreachable lock is lock_offline at once', async () => {
    const { device, gateway } = rig({ kind: 'on_demand', idleDisconnectMs: 50 });
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.bolt === 'locked', 'the first read');
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === false, 'the idle release');
    device.inRange = false;
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
  });
});
