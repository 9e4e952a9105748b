import { describe, expect, it } from '@jest/globals';
import { NukiDriver, type NukiDriverCredentials, type NukiDriverOptions } from '../../../src/families/nuki/driver/nuki-driver.js';
import { pairNukiOverGatt } from '../../../src/families/nuki/driver/nuki-pairing-link.js';
import type { ActivityEvent } from '../../../src/gateway/gateway-events.js';
import type { LockGateway, LockGatewayOptions } from '../../../src/gateway/lock-gateway.js';
import { NukiCommand } from '../../../src/families/nuki/protocol/nuki-commands.js';
import { NukiPairingError } from '../../../src/families/nuki/protocol/nuki-pairing.js';
import { NUKI_APPLE_COMPANY_ID, parseNukiBeacon } from '../../../src/families/nuki/protocol/nuki-uuids.js';
import type { SimulatedNuki, SimulatedNukiOptions } from '../../../src/families/nuki/simulator/simulated-nuki.js';
import { ManualClock } from '../../support/manual-clock.js';
import { NukiWireRecorder } from '../../support/nuki-wire-recorder.js';
import { gatewayRecordingLogger, nextGatewayEvent, pairedSimulatedNuki, startUntilReleased, useNukiBluez } from '../../support/nuki-gateway-rig.js';
import type { RecordingLogger } from '../../support/recording-logger.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';

/**
 * The Nuki driver and the gateway core over the production transport: node-ble → dbus-next →
 * a private dbus-daemon → the fake BlueZ serving a SimulatedNuki (indications fragmented as the
 * lock's MTU cuts them, the iBeacon as ManufacturerData).
 */

const KEY = Buffer.alloc(32, 0x6b);
const GATEWAY_AUTHORIZATION = 21;
const LINKED = "Olivia's iPhone";
const PIN = 2468;
const LOCK_ID = 'nuki-over-bluez';
/** Past the driver's news cooldown on the manual clock. */
const LATER = 5_000;

const bluez = useNukiBluez('C0:FF:EE:4E:00');
// Late answers of abandoned D-Bus calls must never surface as unhandled rejections.
failOnUnhandledRejections({ settleMs: 20 });

interface Rig {
  clock: ManualClock;
  nuki: SimulatedNuki;
  address: string;
  wire: NukiWireRecorder;
  logger: RecordingLogger;
  gateway: LockGateway;
  activity: ActivityEvent[];
}

function newNuki(options: Partial<SimulatedNukiOptions> = {}): { nuki: SimulatedNuki; address: string; clock: ManualClock } {
  const clock = new ManualClock();
  const address = bluez.address();
  const nuki = pairedSimulatedNuki({
    address,
    name: `Nuki ${address}`,
    clock,
    gateway: { id: GATEWAY_AUTHORIZATION, sharedKey: KEY },
    linkedPhone: LINKED,
    securityPin: PIN,
    batteryPercent: 72,
    overrides: options,
  });
  bluez.environment.bluez.addDevice(nuki);
  return { nuki, address, clock };
}

function newGateway(
  lock: { nuki: SimulatedNuki; address: string; clock: ManualClock },
  credentials: NukiDriverCredentials,
  options: { driver?: NukiDriverOptions; gateway?: LockGatewayOptions } = {},
): Rig {
  const wire = new NukiWireRecorder(bluez.transport(), credentials.sharedKey);
  const logger = gatewayRecordingLogger();
  const driver = new NukiDriver(credentials, { idleDisconnectMs: 50, ...options.driver });
  const { gateway, activity } = bluez.gateway(lock.clock, { id: LOCK_ID, address: lock.address, name: 'Back Door', driver }, { transport: wire, logger, gateway: options.gateway });
  return { ...lock, wire, logger, gateway, activity };
}

const PRE_PAIRED: NukiDriverCredentials = { sharedKey: KEY, authorizationId: GATEWAY_AUTHORIZATION, appId: 77, securityPin: PIN };

const start = (r: Rig): Promise<void> => startUntilReleased(r, 10_000);

const nextEvent = nextGatewayEvent;

function activityCount(r: Rig, count: number): Promise<void> {
  if (r.activity.length >= count) return Promise.resolve();
  return nextEvent(r.gateway, 'activity', () => r.activity.length >= count).then(() => undefined);
}

function records(r: Rig): [number, string, string, string | null | undefined, boolean][] {
  return r.activity.map(({ record, backlog }) => [record.sequence, record.action, record.source, record.actor, backlog]);
}

describe('Nuki over the fake BlueZ', () => {
  describe.each([20, 185])('indications of at most %i bytes', (fragmentSize) => {
    it('pairs through the pairing service in pairing mode, then locks and unlocks with the new credentials', async () => {
      const lock = newNuki({ fragmentSize, authorizations: [] });
      lock.nuki.startPairingMode();
      const pairingTransport = bluez.transport();
      let credentials;
      try {
        credentials = await pairNukiOverGatt(pairingTransport, lock.address, { name: 'eKey Gateway', idType: 'app', appId: 0x0abc_def0, connectTimeoutMs: 5_000 });
      } finally {
        await pairingTransport.close();
      }
      expect(lock.nuki.pairingMode).toBe(false);
      expect(lock.nuki.authorizations).toEqual([{ id: credentials.authorizationId, name: 'eKey Gateway', type: 'app', appId: 0x0abc_def0 }]);
      expect(credentials.lockPublicKey.equals(lock.nuki.publicKey)).toBe(true);

      const r = newGateway(lock, { sharedKey: credentials.sharedKey, authorizationId: credentials.authorizationId, appId: credentials.appId, securityPin: PIN });
      await start(r);
      expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ bolt: 'locked', batteryLevel: 0.72, door: 'closed', deviceInformation: { manufacturer: 'Nuki Home Solutions' } });
      expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
      expect(lock.nuki.bolt).toBe('unlocked');
      expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
      expect(lock.nuki.bolt).toBe('locked');
      // Every write was a write with response (spec: long writes, confirmed).
      expect(new Set(bluez.environment.bluez.device(lock.address).log.writeTypes)).toEqual(new Set(['request']));
    });

    it('reads a log longer than a page, every entry once', async () => {
      const lock = newNuki({ fragmentSize });
      const r = newGateway(lock, PRE_PAIRED, { driver: { logPageSize: 3 } });
      await start(r);
      lock.nuki.goOutOfRange();
      for (let turn = 0; turn < 4; turn += 1) {
        lock.nuki.manualTurn('unlocked');
        lock.nuki.manualTurn('locked');
      }
      lock.nuki.comeBackInRange();
      await activityCount(r, 8);
      expect(records(r).map(([sequence, action, source, , backlog]) => [sequence, action, source, backlog])).toEqual(
        Array.from({ length: 8 }, (_, index) => [index + 1, index % 2 === 0 ? 'unlock' : 'lock', 'manual', false]),
      );
    });
  });

  it('refuses to pair outside pairing mode', async () => {
    const lock = newNuki({ authorizations: [] });
    const transport = bluez.transport();
    try {
      await expect(pairNukiOverGatt(transport, lock.address, { name: 'eKey Gateway', idType: 'app', appId: 5, connectTimeoutMs: 5_000 })).rejects.toMatchObject({
        name: NukiPairingError.name,
        reason: 'not_pairing_mode',
      });
    } finally {
      await transport.close();
    }
    expect(lock.nuki.authorizations).toEqual([]);
  });

  it('motor blocked → jammed; busy → delivery_failed', async () => {
    const lock = newNuki();
    const r = newGateway(lock, PRE_PAIRED);
    await start(r);
    lock.nuki.faults.busy = true;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(lock.nuki.bolt).toBe('locked');
    lock.nuki.faults.busy = false;
    lock.nuki.faults.motorBlocked = true;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'jammed' });
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('jammed');
    lock.nuki.manualTurn('unlocked');
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
  });

  it('a disconnect mid-action → delivery_failed; the move is read back from the log afterwards', async () => {
    const lock = newNuki();
    const r = newGateway(lock, PRE_PAIRED);
    await start(r);
    lock.nuki.faults.disconnectMidAction = true;
    const lost = r.wire.nextLoss();
    const readBack = activityCount(r, 1);
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    await lost;
    await readBack;
    expect(lock.nuki.bolt).toBe('unlocked');
    expect(records(r)).toEqual([[1, 'unlock', 'remote', undefined, false]]);
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('unlocked');
  });

  it('an authorization the lock forgets → delivery_failed, and an error line says to pair again', async () => {
    const lock = newNuki();
    const r = newGateway(lock, PRE_PAIRED, { driver: { idleDisconnectMs: 60_000 } });
    r.gateway.start();
    const readAfterCommand = activityCount(r, 1);
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    await readAfterCommand;
    lock.nuki.faults.unknownAuthorization = true;
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(lock.nuki.bolt).toBe('unlocked');
    expect(r.logger.lines.filter((line) => line.level === 'error' && line.message.includes('pair it again'))).toHaveLength(1);
  });

  it('a lock out of reach: offline, then its log is read back when it returns (nothing lost, nothing twice)', async () => {
    const lock = newNuki();
    const r = newGateway(lock, PRE_PAIRED, { gateway: { offlineAfterS: 30 } });
    await start(r);
    r.clock.advance(LATER);
    const released = r.wire.nextRelease();
    lock.nuki.tap(LINKED, 'unlock');
    await activityCount(r, 1);
    // The read that delivered it is over before the lock leaves.
    await released;

    lock.nuki.goOutOfRange();
    r.clock.advance(31_000);
    r.gateway.checkPresence();
    expect(r.gateway.getSnapshot(LOCK_ID)?.online).toBe(false);
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock', { timeoutMs: 1_500 })).toEqual({ status: 'failed', reason: 'lock_offline' });

    lock.nuki.manualTurn('locked');
    lock.nuki.tap(LINKED, 'unlock');
    await lock.nuki.idle();
    lock.nuki.manualTurn('locked');
    const online = nextEvent(r.gateway, 'connectivity', (event) => event.online);
    lock.nuki.comeBackInRange();
    await online;
    await activityCount(r, 4);
    const sequences = records(r).map(([sequence]) => sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(sequences).toEqual(lock.nuki.log.filter((entry) => entry.detail.kind === 'lock_action' && entry.detail.completionStatus === 0).map((entry) => entry.index));
    expect(records(r).slice(-3)).toEqual([
      [sequences.at(-3), 'lock', 'manual', undefined, true],
      [sequences.at(-2), 'unlock', 'tap', LINKED, true],
      [sequences.at(-1), 'lock', 'manual', undefined, true],
    ]);
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ online: true, bolt: 'locked' });
  });

  it('a beacon flagging news (ManufacturerData) makes the gateway connect and read state and log', async () => {
    const lock = newNuki();
    const r = newGateway(lock, PRE_PAIRED);
    await start(r);
    expect(r.wire.connects).toBe(1);
    const device = bluez.environment.bluez.device(lock.address);
    const advertisedBefore = device.log.advertisements;
    r.clock.advance(LATER);
    const battery = nextEvent(r.gateway, 'battery');
    const before = r.wire.written.length;
    lock.nuki.setBattery(30);
    // What the fake put on the bus: the iBeacon with measured power −59.
    expect(parseNukiBeacon(lock.nuki.advertisement()?.manufacturerData.get(NUKI_APPLE_COMPANY_ID) ?? Buffer.alloc(0))?.newState).toBe(true);
    expect((await battery).level).toBe(0.3);
    await r.wire.nextRelease();
    expect(device.log.advertisements).toBeGreaterThan(advertisedBefore);
    expect(r.wire.connects).toBe(2);
    expect(r.wire.written.slice(before).map((message) => message.command)).toEqual(expect.arrayContaining([NukiCommand.requestData, NukiCommand.requestLogEntries]));
    expect(lock.nuki.newStateFlagged).toBe(false);
  });
});
