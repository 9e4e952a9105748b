import { afterEach, describe, expect, it } from '@jest/globals';
import { NukiDriver, type NukiDriverCredentials, type NukiDriverOptions } from '../../../../src/families/nuki/driver/nuki-driver.js';
import type { ActivityEvent, LockGatewayEvents } from '../../../../src/gateway/gateway-events.js';
import { LockGateway, type LockGatewayOptions } from '../../../../src/gateway/lock-gateway.js';
import { NukiCommand, NukiLogSortOrder } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { randomNukiNonce } from '../../../../src/families/nuki/protocol/nuki-crypto.js';
import { encodeEncryptedFrame } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import { decodeRequestLogEntries, encodeRequestData } from '../../../../src/families/nuki/protocol/nuki-messages.js';
import type { SimulatedNuki, SimulatedNukiOptions } from '../../../../src/families/nuki/simulator/simulated-nuki.js';
import { SimulatorTransport } from '../../../../src/gateway/transports/simulator/simulator-transport.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { NukiWireRecorder } from '../../../support/nuki-wire-recorder.js';
import { gatewayRecordingLogger, nextGatewayEvent, pairedSimulatedNuki, startUntilReleased } from '../../../support/nuki-gateway-rig.js';
import type { RecordingLogger } from '../../../support/recording-logger.js';

const LOCK_ID = '7b0c3f4e-0000-4000-8000-00000000000b';
const ADDRESS = 'AA:BB:CC:00:00:0B';
const KEY = Buffer.alloc(32, 0x5a);
const GATEWAY_AUTHORIZATION = 11;
const LINKED = "Olivia's iPhone";
const PIN = 4321;
const APP_ID = 0x1234;
/** Longer than the default cooldown after a read, so a new change counts as news (docs/design.md §4b). */
const LATER = 5_000;

interface RigOptions {
  nuki?: Partial<SimulatedNukiOptions>;
  credentials?: Partial<NukiDriverCredentials>;
  driver?: NukiDriverOptions;
  gateway?: LockGatewayOptions;
  unpaired?: boolean;
}

interface Rig {
  clock: ManualClock;
  nuki: SimulatedNuki;
  simulator: SimulatorTransport;
  wire: NukiWireRecorder;
  logger: RecordingLogger;
  gateway: LockGateway;
  activity: ActivityEvent[];
  bolts: LockGatewayEvents['bolt'][0][];
  connectivity: boolean[];
}

const rigs: Rig[] = [];

/**
 * A budget longer than Jest lets a test run (30 s): with the gateway's other timers set to it, an
 * outcome that arrives at all came from the lock's answer or from the one budget a test tightens
 * on purpose — so no test needs a wall-clock bound that a loaded machine could miss.
 */
const BEYOND_THE_TEST_MS = 60_000;

afterEach(async () => {
  for (const r of rigs.splice(0)) await r.gateway.stop();
});

/**
 * A simulated Nuki pre-paired with the gateway's authorization (as the demo pairs its Back
 * Door) and with a linked phone; the gateway reaches it through the simulator transport. The
 * link is released 20 ms after its last use, so every session ends with an awaitable release.
 */
function rig(options: RigOptions = {}): Rig {
  const clock = new ManualClock();
  const nuki = pairedSimulatedNuki({
    address: ADDRESS,
    name: 'Back Door',
    clock,
    gateway: { id: GATEWAY_AUTHORIZATION, sharedKey: KEY },
    linkedPhone: LINKED,
    securityPin: PIN,
    batteryPercent: 64,
    ...(options.nuki === undefined ? {} : { overrides: options.nuki }),
  });
  // Re-advertising only when a test says so (advertiseNow), and on every change of the beacon.
  const simulator = new SimulatorTransport([nuki], { advertisementIntervalMs: 3_600_000 });
  const wire = new NukiWireRecorder(simulator, KEY);
  const logger = gatewayRecordingLogger();
  const gateway = new LockGateway(wire, clock, logger, {
    connectTimeoutMs: 2_000,
    operationTimeoutMs: 2_000,
    commandTimeoutMs: 5_000,
    presenceCheckIntervalMs: 3_600_000,
    ...options.gateway,
  });
  const driver =
    options.unpaired === true
      ? new NukiDriver(null)
      : new NukiDriver({ sharedKey: KEY, authorizationId: GATEWAY_AUTHORIZATION, appId: APP_ID, securityPin: PIN, ...options.credentials }, { idleDisconnectMs: 20, ...options.driver });
  const r: Rig = { clock, nuki, simulator, wire, logger, gateway, activity: [], bolts: [], connectivity: [] };
  gateway.on('activity', (event) => r.activity.push(event));
  gateway.on('bolt', (event) => r.bolts.push(event));
  gateway.on('connectivity', (event) => r.connectivity.push(event.online));
  gateway.addLock({ id: LOCK_ID, address: ADDRESS, name: 'Back Door', driver });
  rigs.push(r);
  return r;
}

/** Starts the gateway and waits until the read at start is done and the link released. */
const start = (r: Rig): Promise<void> => startUntilReleased(r);

/** Resolves with the next `event` whose payload matches (within 5 s). */
function nextEvent<K extends keyof LockGatewayEvents>(gateway: LockGateway, event: K, matches?: (payload: LockGatewayEvents[K][0]) => boolean, timeoutMs = 5_000): Promise<LockGatewayEvents[K][0]> {
  return nextGatewayEvent(gateway, event, matches, timeoutMs);
}

/** Resolves once `count` activity events have arrived in total. */
function activityCount(r: Rig, count: number, timeoutMs = 5_000): Promise<void> {
  if (r.activity.length >= count) return Promise.resolve();
  return nextEvent(r.gateway, 'activity', () => r.activity.length >= count, timeoutMs).then(() => undefined);
}

function linesAt(r: Rig, level: 'warn' | 'error', containing: string): string[] {
  return r.logger.lines.filter((line) => line.level === level && line.message.includes(containing)).map((line) => line.message);
}

function records(r: Rig): [number, string, string, string | null | undefined, boolean][] {
  return r.activity.map(({ record, backlog }) => [record.sequence, record.action, record.source, record.actor, backlog]);
}

/** An encrypted Request Data(Challenge) of the gateway's authorization, written behind the driver's back. */
function stolenChallengeRequest(): Buffer {
  return encodeEncryptedFrame({
    sharedKey: KEY,
    authorizationId: GATEWAY_AUTHORIZATION,
    nonce: randomNukiNonce(24),
    command: NukiCommand.requestData,
    payload: encodeRequestData({ command: NukiCommand.challenge, additionalData: Buffer.alloc(0) }),
  });
}

describe('Nuki driver: state', () => {
  it('reads bolt, battery percent, door sensor and device information at start, then releases the link', async () => {
    const r = rig({ nuki: { bolt: 'unlocked', door: 'open', firmware: [3, 1, 2], hardware: [4, 0], nukiId: 0x2a0f_00b1 } });
    const information = nextEvent(r.gateway, 'device_information');
    await start(r);
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({
      family: 'nuki',
      bolt: 'unlocked',
      batteryLevel: 0.64,
      door: 'open',
      online: true,
      connected: false,
      unusableReason: null,
    });
    expect((await information).deviceInformation).toEqual({
      manufacturer: 'Nuki Home Solutions',
      model: 'Nuki Smart Lock (hardware 4.0)',
      serial: '2A0F00B1',
      firmware: '3.1.2',
    });
    expect(r.wire.connects).toBe(1);
    expect(r.nuki.connectionCount).toBe(0);
  });

  it.each([15, 20, 27] as const)('reads Keyturner States of %i bytes and completes commands with them', async (length) => {
    const r = rig({ nuki: { keyturnerStatesLength: length } });
    await start(r);
    // Byte 18 (door sensor) exists from the 20-byte variant on.
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ bolt: 'locked', batteryLevel: 0.64, door: length >= 20 ? 'closed' : null });
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    expect(r.nuki.bolt).toBe('locked');
  });

  it('an unpaired lock stays offline, fails commands as lock_offline, logs one error and never connects', async () => {
    const r = rig({ unpaired: true });
    r.gateway.start();
    r.simulator.advertiseNow();
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
    r.simulator.advertiseNow();
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ online: false, connected: false, unusableReason: expect.stringContaining('not paired') });
    expect(r.gateway.isReachable(LOCK_ID)).toBe(false);
    expect(r.logger.lines.filter((line) => line.level === 'error')).toEqual([{ level: 'error', message: expect.stringContaining('nuki pair') }]);
    expect(r.wire.connects).toBe(0);
    expect(r.nuki.bolt).toBe('locked');
  });
});

describe('Nuki driver: commands', () => {
  it('locks and unlocks: completed only on COMPLETE with the requested state, bolt reported', async () => {
    const r = rig();
    await start(r);
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(r.nuki.bolt).toBe('unlocked');
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('unlocked');
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    expect(r.nuki.bolt).toBe('locked');
    expect(r.bolts.filter((event) => event.source === 'remote').map((event) => event.bolt)).toEqual(['unlocked', 'locked']);
    // Each Lock Action carried a challenge of its own, asked for just before (single use, spec §5).
    const names = r.wire.commandNames;
    const actions = names.flatMap((name, index) => (name === 'Lock Action' ? [names[index - 1]] : []));
    expect(actions).toEqual(['Request Data(Challenge)', 'Request Data(Challenge)']);
  });

  it('motor blocked → failed jammed, and the bolt is reported jammed', async () => {
    const r = rig();
    await start(r);
    r.nuki.jamNextMove();
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'jammed' });
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('jammed');
    expect(r.nuki.bolt).toBe('jammed');
    // Still blocked: the lock refuses at once with K_ERROR_MOTOR_BLOCKED, also jammed.
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'jammed' });
  });

  it('busy → delivery_failed, and the lock did not move', async () => {
    const r = rig();
    await start(r);
    r.nuki.faults.busy = true;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(r.nuki.bolt).toBe('locked');
    r.nuki.faults.busy = false;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
  });

  it('a disconnect mid-action → delivery_failed, and the move appears in the log read afterwards', async () => {
    const r = rig();
    await start(r);
    r.clock.advance(LATER);
    r.nuki.faults.disconnectMidAction = true;
    const readBack = activityCount(r, 1);
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    await readBack;
    expect(r.nuki.bolt).toBe('unlocked');
    expect(records(r)).toEqual([[1, 'unlock', 'remote', undefined, false]]);
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('unlocked');
  });

  it('no COMPLETE in time → timeout', async () => {
    // The fault also withholds the COMPLETE that ends a log read: it is set once the read that
    // follows the first command (the beacon flags its move) has been answered.
    // Only the command's 300 ms can end it: every other budget lasts beyond the test.
    const r = rig({ driver: { idleDisconnectMs: 60_000 }, gateway: { operationTimeoutMs: BEYOND_THE_TEST_MS, connectTimeoutMs: BEYOND_THE_TEST_MS } });
    r.gateway.start();
    const readAfterCommand = activityCount(r, 1);
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    await readAfterCommand;
    r.nuki.faults.missingComplete = true;
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock', { timeoutMs: 300 })).toEqual({ status: 'failed', reason: 'timeout' });
    // The lock did move; only its confirmation was missing.
    expect(r.nuki.bolt).toBe('locked');
  });

  it('a command queued behind a slow read ends as timeout at its deadline, and is never sent', async () => {
    const r = rig();
    await start(r);
    // Every reply frame now takes 300 ms: a read of state and log takes well over a second.
    r.nuki.faults.replyDelayMs = 300;
    r.clock.advance(LATER);
    const reading = r.wire.nextWrite(NukiCommand.requestData);
    r.nuki.setBattery(50);
    await reading;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock', { timeoutMs: 200 })).toEqual({ status: 'failed', reason: 'timeout' });
    // At its deadline, not when the queue reached it: the read was still writing requests then.
    const writesAtOutcome = r.wire.written.length;
    r.nuki.faults.replyDelayMs = 0;
    await r.wire.nextRelease();
    expect(r.wire.written.length).toBeGreaterThan(writesAtOutcome);
    expect(r.wire.commandNames).not.toContain('Lock Action');
    expect(r.nuki.bolt).toBe('locked');
  });

  it('an authorization the lock forgets on a live link → delivery_failed, and an error line says to pair again', async () => {
    const r = rig({ driver: { idleDisconnectMs: 60_000 } });
    r.gateway.start();
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    r.nuki.faults.unknownAuthorization = true;
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(r.nuki.bolt).toBe('unlocked');
    // Once per episode, not once per attempt.
    expect(linesAt(r, 'error', 'pair it again')).toHaveLength(1);
  });

  it('an authorization the lock no longer knows when connecting: the connect fails, an error line says to pair again', async () => {
    const r = rig();
    r.nuki.faults.unknownAuthorization = true;
    r.gateway.start();
    // The core counts a connect whose state read fails as not reached (as for every family).
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
    expect(linesAt(r, 'error', 'pair it again')).toHaveLength(1);
    expect(r.nuki.bolt).toBe('locked');
    r.nuki.faults.unknownAuthorization = false;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
  });

  it('a reply with a bad CRC is dropped: the command fails as delivery_failed at once, the next one works', async () => {
    // At once: every budget lasts beyond the test, so an outcome at all came from the dropped reply.
    const r = rig({
      driver: { idleDisconnectMs: 60_000 },
      gateway: { operationTimeoutMs: BEYOND_THE_TEST_MS, connectTimeoutMs: BEYOND_THE_TEST_MS, commandTimeoutMs: BEYOND_THE_TEST_MS },
    });
    r.gateway.start();
    const readAfterCommand = activityCount(r, 1);
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    await readAfterCommand; // the read after the command (see the timeout case)
    // The next reply is the Challenge the Lock Action needs.
    r.nuki.faults.badCrc = true;
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(linesAt(r, 'warn', 'bad_crc').length).toBeGreaterThanOrEqual(1);
    expect(r.nuki.bolt).toBe('unlocked');
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
  });

  it('a challenge spent before the Lock Action (K_ERROR_BAD_NONCE) → one retry with a fresh challenge', async () => {
    const r = rig();
    await start(r);
    let stolen = 0;
    r.wire.beforeWrite = async (message, connection) => {
      if (message.command !== NukiCommand.lockAction || stolen > 0) return;
      stolen += 1;
      await connection.write('usdio', stolenChallengeRequest());
    };
    const before = r.wire.written.length;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    const exchanges = r.wire.commandNames.slice(before);
    const firstAction = exchanges.indexOf('Lock Action');
    expect(exchanges.slice(firstAction - 1, firstAction + 3)).toEqual(['Request Data(Challenge)', 'Lock Action', 'Request Data(Challenge)', 'Lock Action']);
    expect(exchanges.filter((name) => name === 'Lock Action')).toHaveLength(2);
    expect(stolen).toBe(1);
    expect(r.nuki.bolt).toBe('unlocked');
  });

  it('a second bad nonce in a row → delivery_failed after exactly two tries', async () => {
    const r = rig();
    await start(r);
    r.wire.beforeWrite = async (message, connection) => {
      if (message.command === NukiCommand.lockAction) await connection.write('usdio', stolenChallengeRequest());
    };
    const before = r.wire.written.length;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(r.wire.written.slice(before).filter((message) => message.command === NukiCommand.lockAction)).toHaveLength(2);
    expect(r.nuki.bolt).toBe('locked');
  });
});

describe('Nuki driver: link and presence', () => {
  it('releases the on-demand link idleDisconnectMs after the last exchange, and reconnects for the next command', async () => {
    const r = rig({ driver: { idleDisconnectMs: 150 } });
    await start(r);
    const released = r.wire.nextRelease();
    const commandDone = performance.now();
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(r.gateway.getSnapshot(LOCK_ID)?.connected).toBe(true);
    await released;
    expect(performance.now() - commandDone).toBeGreaterThanOrEqual(140);
    expect(r.gateway.getSnapshot(LOCK_ID)?.connected).toBe(false);
    expect(r.nuki.connectionCount).toBe(0);
    expect(r.wire.connects).toBe(2);
  });

  it('news our own Lock Action raised is read once our commands pause, not between back-to-back commands', async () => {
    const r = rig({ driver: { ownNewsSettleMs: 30 } });
    await start(r);
    r.clock.advance(LATER);
    const before = r.wire.written.length;
    // Each command raises the lock's news flag (it flags every change, ours too).
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(r.nuki.newStateFlagged).toBe(true);
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    // Back to back: the three Lock Actions followed one another with no state or log read between
    // (the connect before the first one reads both, as every connect does).
    const sinceFirstAction = r.wire.commandNames.slice(before);
    const during = sinceFirstAction.slice(sinceFirstAction.indexOf('Lock Action'));
    expect(during.filter((name) => name === 'Lock Action')).toHaveLength(3);
    expect(during).not.toContain('Request Data(Keyturner States)');
    expect(during).not.toContain('Request Log Entries');
    // Once they pause, one read of state and log: our moves come in as remote records, the flag clears.
    await activityCount(r, 3);
    expect(records(r)).toEqual([
      [1, 'unlock', 'remote', undefined, false],
      [2, 'lock', 'remote', undefined, false],
      [3, 'unlock', 'remote', undefined, false],
    ]);
    const after = r.wire.commandNames.slice(before + sinceFirstAction.length);
    expect(after.filter((name) => name === 'Request Data(Keyturner States)')).toHaveLength(1);
    expect(r.nuki.newStateFlagged).toBe(false);
  });

  it('someone else turning the lock while our news waits is read with it: nothing is lost', async () => {
    const r = rig({ driver: { ownNewsSettleMs: 30 } });
    await start(r);
    r.clock.advance(LATER);
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    r.nuki.manualTurn('locked');
    await activityCount(r, 2);
    expect(records(r)).toEqual([
      [1, 'unlock', 'remote', undefined, false],
      [2, 'lock', 'manual', undefined, false],
    ]);
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('locked');
  });

  it('beacon news → connects, reads state and log; presence follows advertisements', async () => {
    const r = rig({ gateway: { offlineAfterS: 30 } });
    await start(r);
    expect(r.connectivity).toEqual([true]);
    r.clock.advance(LATER);
    const before = r.wire.written.length;
    const battery = nextEvent(r.gateway, 'battery');
    const released = r.wire.nextRelease();
    r.nuki.setBattery(40);
    expect((await battery).level).toBe(0.4);
    await released;
    expect(r.wire.connects).toBe(2);
    expect(r.wire.commandNames.slice(before)).toEqual(expect.arrayContaining(['Request Data(Keyturner States)', 'Request Log Entries']));
    expect(r.nuki.newStateFlagged).toBe(false);

    // No advertisement for offlineAfterS: offline. Advertisements again: online, without connecting.
    r.clock.advance(31_000);
    r.gateway.checkPresence();
    expect(r.gateway.getSnapshot(LOCK_ID)?.online).toBe(false);
    r.simulator.advertiseNow();
    expect(r.gateway.getSnapshot(LOCK_ID)?.online).toBe(true);
    expect(r.connectivity).toEqual([true, false, true]);
    expect(r.wire.connects).toBe(2);
  });
});

describe('Nuki driver: activity from the log', () => {
  it('a linked authorization is a tap with its actor, our commands remote, a thumb-turn manual', async () => {
    const r = rig();
    await start(r);
    r.clock.advance(LATER);
    r.nuki.tap(LINKED, 'unlock');
    await activityCount(r, 1);
    r.clock.advance(LATER);
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    await activityCount(r, 2);
    r.clock.advance(LATER);
    r.nuki.manualTurn('unlocked');
    await activityCount(r, 3);
    expect(records(r)).toEqual([
      [1, 'unlock', 'tap', LINKED, false],
      [2, 'lock', 'remote', undefined, false],
      [3, 'unlock', 'manual', undefined, false],
    ]);
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ bolt: 'unlocked', lastActivitySource: 'manual', lastSequence: 3 });
  });

  it('the first read anchors at the newest entry: history before the gateway is not replayed', async () => {
    const clock = new ManualClock();
    const r = rig({ nuki: { clock } });
    r.nuki.tap(LINKED, 'unlock');
    await r.nuki.idle();
    r.nuki.manualTurn('locked');
    expect(r.nuki.log.map((entry) => entry.index)).toEqual([1, 2]);
    await start(r);
    expect(r.activity).toEqual([]);
    expect(r.gateway.getSnapshot(LOCK_ID)?.lastSequence).toBe(2);
    // The anchor is one entry read newest first, then the read after it.
    const reads = r.wire.written.filter((message) => message.command === NukiCommand.requestLogEntries).map((message) => decodeRequestLogEntries(message.payload));
    expect(reads.map(({ startIndex, count, sortOrder }) => [startIndex, count, sortOrder])).toEqual([
      [0, 1, NukiLogSortOrder.descending],
      [2, 20, NukiLogSortOrder.ascending],
    ]);
    r.clock.advance(LATER);
    r.nuki.tap(LINKED, 'unlock');
    await activityCount(r, 1);
    expect(records(r)).toEqual([[3, 'unlock', 'tap', LINKED, false]]);
  });

  it('delivers every entry once, in pages, also after a period out of range', async () => {
    const r = rig({ driver: { logPageSize: 2 }, gateway: { offlineAfterS: 30 } });
    await start(r);
    r.clock.advance(LATER);
    const released = r.wire.nextRelease();
    r.nuki.tap(LINKED, 'unlock');
    await activityCount(r, 1);
    // The read that delivered it is over before the lock leaves.
    await released;

    r.nuki.goOutOfRange();
    r.clock.advance(31_000);
    r.gateway.checkPresence();
    expect(r.gateway.getSnapshot(LOCK_ID)?.online).toBe(false);
    r.nuki.manualTurn('locked');
    r.nuki.tap(LINKED, 'unlock');
    await r.nuki.idle();
    r.nuki.setDoor('open'); // logged, but not a bolt move
    r.nuki.manualTurn('locked');
    r.nuki.tap('Gateway', 'unlock');
    await r.nuki.idle();
    r.nuki.comeBackInRange();
    await activityCount(r, 5);
    expect(records(r)).toEqual([
      [1, 'unlock', 'tap', LINKED, false],
      [2, 'lock', 'manual', undefined, true],
      [3, 'unlock', 'tap', LINKED, true],
      [5, 'lock', 'manual', undefined, true],
      [6, 'unlock', 'remote', undefined, true],
    ]);

    // Read again on news: nothing twice.
    r.clock.advance(LATER);
    const readAgain = r.wire.nextRelease();
    r.nuki.setBattery(50);
    await readAgain;
    r.clock.advance(LATER);
    r.nuki.manualTurn('locked');
    await activityCount(r, 6);
    expect(records(r).map(([sequence]) => sequence)).toEqual([1, 2, 3, 5, 6, 7]);
  });

  it('a read cut short after the state (the lock left before its log was read) is owed: the log is read once the lock is back', async () => {
    const r = rig({ gateway: { offlineAfterS: 30 } });
    await start(r);
    r.clock.advance(LATER);
    // Our own command: its news is read once our commands pause; that read is cut after the state.
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    let cut = false;
    r.wire.beforeWrite = (message) => {
      if (cut || message.command !== NukiCommand.requestLogEntries) return;
      cut = true;
      r.nuki.goOutOfRange();
    };
    for (let waited = 0; linesAt(r, 'warn', 'failed').length === 0; waited += 5) {
      if (waited > 5_000) throw new Error('the cut read never ended');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The state was read, so the lock's news flag is down: only the gateway knows the log is unread.
    expect(cut).toBe(true);
    expect(r.nuki.newStateFlagged).toBe(false);
    expect(r.activity).toEqual([]);

    r.clock.advance(LATER);
    r.nuki.comeBackInRange();
    r.simulator.advertiseNow();
    await activityCount(r, 1);
    expect(records(r).map(([sequence, action, source]) => [sequence, action, source])).toEqual([[1, 'lock', 'remote']]);
  });

  it('a log entry with a bad CRC is not lost: the next read delivers it', async () => {
    const r = rig();
    await start(r);
    let corrupted = false;
    r.wire.beforeWrite = (message) => {
      if (message.command !== NukiCommand.requestLogEntries || corrupted) return;
      corrupted = true;
      // The next reply is the first Log Entry of this read.
      r.nuki.faults.badCrc = true;
    };
    r.clock.advance(LATER);
    const released = r.wire.nextRelease();
    r.nuki.tap(LINKED, 'unlock');
    await released;
    expect(corrupted).toBe(true);
    expect(r.activity).toEqual([]);
    r.clock.advance(LATER);
    r.nuki.manualTurn('locked');
    await activityCount(r, 2);
    expect(records(r).map(([sequence, , source]) => [sequence, source])).toEqual([
      [1, 'tap'],
      [2, 'manual'],
    ]);
  });

  it('without a security PIN: no log read, one warning, state and commands still work', async () => {
    const r = rig({ credentials: { securityPin: null } });
    await start(r);
    r.clock.advance(LATER);
    const released = r.wire.nextRelease();
    r.nuki.tap(LINKED, 'unlock');
    await released;
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('unlocked');
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    expect(r.wire.commandNames).not.toContain('Request Log Entries');
    expect(r.activity).toEqual([]);
    expect(linesAt(r, 'warn', 'security PIN')).toHaveLength(1);
  });

  it('with a wrong security PIN: one warning, state and commands still work', async () => {
    const r = rig({ credentials: { securityPin: 1111 } });
    await start(r);
    r.clock.advance(LATER);
    const released = r.wire.nextRelease();
    r.nuki.tap(LINKED, 'unlock');
    await released;
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ bolt: 'unlocked', batteryLevel: 0.64 });
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    expect(r.activity).toEqual([]);
    expect(linesAt(r, 'warn', 'security PIN')).toHaveLength(1);
  });
});
