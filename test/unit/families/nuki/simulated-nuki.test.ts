import { describe, expect, it } from '@jest/globals';
import nacl from 'tweetnacl';
import { NukiCommand, NukiCompletionStatus, NukiDoorSensorState, NukiErrorCode, NukiLockAction, NukiLockState, NukiLogSortOrder, NukiTrigger } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { decodeUnencryptedFrame, encodeEncryptedFrame, encodeUnencryptedFrame } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import { NukiMessageAssembler } from '../../../../src/families/nuki/protocol/nuki-message-assembler.js';
import {
  decodeBatteryReport,
  decodeConfig,
  decodeErrorReport,
  decodeKeyturnerStates,
  decodeLogEntry,
  decodeLogEntryCount,
  encodeLockAction,
  encodeRequestConfig,
  encodeRequestData,
  encodeVerifySecurityPin,
} from '../../../../src/families/nuki/protocol/nuki-messages.js';
import { NUKI_APPLE_COMPANY_ID, NukiUuids, parseNukiBeacon } from '../../../../src/families/nuki/protocol/nuki-uuids.js';
import { GattOperationError } from '../../../../src/gateway/transports/simulator/simulated-device.js';
import { SimulatedNuki, type SimulatedNukiOptions } from '../../../../src/families/nuki/simulator/simulated-nuki.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { until } from '../../../support/polling.js';
import { NukiTestClient, describeMessage, type ReceivedMessage } from './simulated-nuki-client.js';

const KEY = Buffer.alloc(32, 9);
const GATEWAY_ID = 2;
const PIN = 4321;

function setUp(options: Partial<SimulatedNukiOptions> = {}): { nuki: SimulatedNuki; clock: ManualClock; client: NukiTestClient } {
  const clock = new ManualClock();
  const nuki = new SimulatedNuki({
    address: 'aa:bb:cc:00:00:03',
    name: 'Back Door',
    clock,
    securityPin: PIN,
    authorizations: [
      { id: GATEWAY_ID, name: 'Gateway', type: 'app', sharedKey: KEY },
      { id: 5, name: "Olivia's iPhone", type: 'app' },
    ],
    ...options,
  });
  return { nuki, clock, client: new NukiTestClient(nuki, GATEWAY_ID, KEY) };
}

function words(messages: ReceivedMessage[]): string[] {
  return messages.map(describeMessage);
}

/** Raw USDIO indications read as one unencrypted frame (the lock's answer when it cannot encrypt). */
function unencryptedErrorOf(indications: Buffer[]): { errorCode: number; command: number } {
  const frame = decodeUnencryptedFrame(Buffer.concat(indications));
  expect(frame).toMatchObject({ command: NukiCommand.errorReport, crcOk: true });
  return decodeErrorReport(frame.payload);
}

describe('SimulatedNuki GATT', () => {
  it('offers the pairing and keyturner services with write + indicate characteristics', () => {
    const { nuki } = setUp();
    expect(nuki.gattDatabase.map((service) => service.uuid)).toEqual([NukiUuids.initializationService, NukiUuids.pairingService, NukiUuids.keyturnerService]);
    const characteristics = nuki.gattDatabase.flatMap((service) => service.characteristics);
    expect(characteristics).toEqual([
      { uuid: NukiUuids.pairingGdio, flags: ['write', 'indicate'] },
      { uuid: NukiUuids.keyturnerGdio, flags: ['write', 'indicate'] },
      { uuid: NukiUuids.keyturnerUsdio, flags: ['write', 'indicate'] },
    ]);
  });

  it('throws GATT errors only for reads, empty writes, unknown characteristics and closed links', () => {
    const { client } = setUp();
    const reason = (operation: () => unknown): string | undefined => {
      try {
        operation();
      } catch (error) {
        return error instanceof GattOperationError ? error.reason : 'other';
      }
      return undefined;
    };
    expect(reason(() => client.link.read(NukiUuids.keyturnerUsdio))).toBe('not_supported');
    expect(reason(() => { client.link.write(NukiUuids.keyturnerUsdio, Buffer.alloc(0)); })).toBe('invalid_length');
    expect(reason(() => { client.link.write('00002a19-0000-1000-8000-00805f9b34fb', Buffer.from([1])); })).toBe('not_supported');
    expect(reason(() => { client.link.write(NukiUuids.keyturnerUsdio, Buffer.from([1, 2, 3])); })).toBeUndefined();
    client.link.close();
    expect(reason(() => { client.link.write(NukiUuids.keyturnerUsdio, Buffer.from([1])); })).toBe('not_connected');
  });
});

describe('SimulatedNuki keyturner channel', () => {
  it.each([20, 185])('cuts replies into indications of at most %i bytes that the assembler rebuilds', async (fragmentSize) => {
    const { client } = setUp({ fragmentSize });
    const [reply] = await client.requestData(NukiCommand.keyturnerStates);
    // 30-byte header + 16-byte MAC + authorization id, command, 27-byte payload and CRC = 81 bytes.
    expect(client.indications.map((indication) => indication.length)).toEqual(fragmentSize === 20 ? [20, 20, 20, 20, 1] : [81]);
    expect(reply?.crcOk).toBe(true);
    expect(decodeKeyturnerStates(reply?.payload ?? Buffer.alloc(0))).toMatchObject({ nukiState: 0x02, lockState: NukiLockState.locked, currentTime: Date.UTC(2026, 0, 15, 12, 0, 0) });
  });

  it.each([15, 20, 27] as const)('sends Keyturner States of %i bytes when so configured', async (length) => {
    const { client } = setUp({ keyturnerStatesLength: length, batteryPercent: 42 });
    const [reply] = await client.requestData(NukiCommand.keyturnerStates);
    expect(reply?.payload.length).toBe(length);
    expect(decodeKeyturnerStates(reply?.payload ?? Buffer.alloc(0)).battery).toEqual({ critical: false, charging: false, percent: 42 });
  });

  it('reports a critical battery at 20 % and below, and charging', async () => {
    const { nuki, client } = setUp();
    nuki.setBattery(20, true);
    expect((await client.states()).battery).toEqual({ critical: true, charging: true, percent: 20 });
  });

  it('answers Request Config with its identity', async () => {
    const { client } = setUp({ nukiId: 0x2a3b4c5d, firmware: [3, 1, 4], hardware: [5, 9] });
    const [reply] = await client.exchange(NukiCommand.requestConfig, encodeRequestConfig({ nonce: await client.challenge() }));
    expect(decodeConfig(reply?.payload ?? Buffer.alloc(0))).toMatchObject({ nukiId: 0x2a3b4c5d, name: 'Back Door', firmwareVersion: [3, 1, 4], hardwareRevision: [5, 9] });
  });

  it('answers Request Data(Battery Report), refuses other requested data, and answers the keyturner GDIO with an error', async () => {
    const { nuki, client } = setUp({ batteryPercent: 50 });
    const [report] = await client.requestData(NukiCommand.batteryReport);
    expect(decodeBatteryReport(report?.payload ?? Buffer.alloc(0))).toMatchObject({ batteryVoltage: 5200, criticalBatteryState: 0 });
    expect(words(await client.requestData(NukiCommand.config))).toEqual(['Error Report K_ERROR_BAD_PARAMETER']);
    const gdio: Buffer[] = [];
    client.link.onNotification((uuid, value) => {
      if (uuid === NukiUuids.keyturnerGdio) gdio.push(value);
    });
    client.link.write(NukiUuids.keyturnerGdio, encodeUnencryptedFrame(NukiCommand.requestData, encodeRequestData({ command: NukiCommand.keyturnerStates, additionalData: Buffer.alloc(0) })));
    await nuki.settled();
    expect(unencryptedErrorOf(gdio)).toEqual({ errorCode: NukiErrorCode.ERROR_UNKNOWN, command: NukiCommand.requestData });
  });

  it('uses each challenge once: a reused or stale nonce gets K_ERROR_BAD_NONCE', async () => {
    const { client } = setUp();
    const verify = (nonce: Buffer, securityPin = PIN): Promise<ReceivedMessage[]> =>
      client.exchange(NukiCommand.verifySecurityPin, encodeVerifySecurityPin({ nonce, securityPin }));
    const nonce = await client.challenge();
    expect(words(await verify(nonce))).toEqual(['Status COMPLETE']);
    expect(words(await verify(nonce))).toEqual(['Error Report K_ERROR_BAD_NONCE']);
    const stale = await client.challenge();
    await client.challenge();
    expect(words(await verify(stale))).toEqual(['Error Report K_ERROR_BAD_NONCE']);
    expect(words(await verify(await client.challenge(), 1111))).toEqual(['Error Report K_ERROR_BAD_PIN']);
  });

  it('unlocks: ACCEPTED, unlocking, unlocked, COMPLETE; logged under the authorization', async () => {
    const { nuki, client, clock } = setUp();
    expect(words(await client.lockAction(NukiLockAction.unlock, 'Olivia'))).toEqual([
      'Status ACCEPTED',
      'Keyturner States unlocking',
      'Keyturner States unlocked',
      'Status COMPLETE',
    ]);
    expect(nuki.bolt).toBe('unlocked');
    expect(nuki.log).toEqual([
      {
        index: 1,
        timestamp: clock.now(),
        authorizationId: GATEWAY_ID,
        name: 'Gateway Olivia',
        detail: { kind: 'lock_action', action: NukiLockAction.unlock, trigger: NukiTrigger.system, flags: 0, completionStatus: NukiCompletionStatus.success, trailing: Buffer.alloc(0) },
      },
    ]);
    expect(words(await client.lockAction(NukiLockAction.lock))).toEqual(['Status ACCEPTED', 'Keyturner States locking', 'Keyturner States locked', 'Status COMPLETE']);
    expect(nuki.bolt).toBe('locked');
  });

  it('refuses an unknown action with K_ERROR_BAD_PARAMETER', async () => {
    const { client } = setUp();
    expect(words(await client.lockAction(0x81))).toEqual(['Error Report K_ERROR_BAD_PARAMETER']);
  });

  it('reports a blocked motor (0xFE, K_ERROR_MOTOR_BLOCKED) and stays blocked until a manual turn', async () => {
    const { nuki, client } = setUp();
    nuki.faults.motorBlocked = true;
    expect(words(await client.lockAction(NukiLockAction.unlock))).toEqual(['Status ACCEPTED', 'Keyturner States unlocking', 'Keyturner States motorBlocked', 'Error Report K_ERROR_MOTOR_BLOCKED']);
    expect(nuki.faults.motorBlocked).toBe(false);
    expect(nuki.bolt).toBe('jammed');
    expect(nuki.log.at(-1)?.detail).toMatchObject({ kind: 'lock_action', completionStatus: NukiCompletionStatus.motorBlocked });
    expect(words(await client.lockAction(NukiLockAction.lock))).toEqual(['Error Report K_ERROR_MOTOR_BLOCKED']);
    nuki.manualTurn('locked');
    expect(nuki.bolt).toBe('locked');
    expect(words(await client.lockAction(NukiLockAction.unlock))).toEqual(['Status ACCEPTED', 'Keyturner States unlocking', 'Keyturner States unlocked', 'Status COMPLETE']);
  });

  it('jams a tap after jamNextMove()', async () => {
    const { nuki } = setUp();
    nuki.jamNextMove();
    expect(nuki.tap("Olivia's iPhone", 'unlock')).toBe('accepted');
    expect(nuki.bolt).toBe('moving');
    await nuki.idle();
    expect(nuki.bolt).toBe('jammed');
  });

  it('answers K_ERROR_BUSY while the motor runs, and while the busy fault is set', async () => {
    const { nuki, client } = setUp({
      motorTimeMs: 30,
      authorizations: [
        { id: GATEWAY_ID, name: 'Gateway', type: 'app', sharedKey: KEY },
        { id: 3, name: 'Bridge', type: 'bridge', sharedKey: Buffer.alloc(32, 3) },
      ],
    });
    const other = new NukiTestClient(nuki, 3, Buffer.alloc(32, 3));
    const action = (nonce: Buffer, lockAction: number): Buffer => encodeLockAction({ action: lockAction, appId: 7, flags: 0, nameSuffix: null, nonce });
    const [first, second] = [await client.challenge(), await other.challenge()];
    client.send(NukiCommand.lockAction, action(first, NukiLockAction.unlock));
    expect(nuki.isMoving).toBe(true);
    expect(words(await other.exchange(NukiCommand.lockAction, action(second, NukiLockAction.lock)))).toEqual(['Error Report K_ERROR_BUSY']);
    expect(nuki.bolt).toBe('unlocked');
    nuki.faults.busy = true;
    expect(words(await client.lockAction(NukiLockAction.lock))).toEqual(['Error Report K_ERROR_BUSY']);
    expect(nuki.bolt).toBe('unlocked');
  });

  it('never sends the final COMPLETE under the missingComplete fault', async () => {
    const { nuki, client } = setUp();
    nuki.faults.missingComplete = true;
    expect(words(await client.lockAction(NukiLockAction.unlock))).toEqual(['Status ACCEPTED', 'Keyturner States unlocking', 'Keyturner States unlocked']);
    expect(nuki.bolt).toBe('unlocked');
  });

  it('drops the link after ACCEPTED under disconnectMidAction; the move still happens and is logged', async () => {
    const { nuki, client } = setUp();
    nuki.faults.disconnectMidAction = true;
    expect(words(await client.lockAction(NukiLockAction.unlock))).toEqual(['Status ACCEPTED']);
    await until(() => client.lost, 'the link loss');
    expect(client.lost).toBe(true);
    expect(client.link.open).toBe(false);
    expect(nuki.connectionCount).toBe(0);
    expect(nuki.bolt).toBe('unlocked');
    expect(nuki.log.map((entry) => entry.authorizationId)).toEqual([GATEWAY_ID]);
    expect(nuki.faults.disconnectMidAction).toBe(false);
  });

  it('answers an unknown authorization, or a wrong key, with an unencrypted K_ERROR_NOT_AUTHORIZED', async () => {
    const { nuki } = setUp();
    for (const client of [new NukiTestClient(nuki, 99, KEY), new NukiTestClient(nuki, 5, KEY), new NukiTestClient(nuki, GATEWAY_ID, Buffer.alloc(32, 1))]) {
      await client.requestData(NukiCommand.keyturnerStates);
      expect(unencryptedErrorOf(client.indications).errorCode).toBe(NukiErrorCode.K_ERROR_NOT_AUTHORIZED);
    }
    const { nuki: faulty, client } = setUp();
    faulty.faults.unknownAuthorization = true;
    await client.requestData(NukiCommand.keyturnerStates);
    expect(unencryptedErrorOf(client.indications).errorCode).toBe(NukiErrorCode.K_ERROR_NOT_AUTHORIZED);
  });

  it('corrupts the CRC of the next reply only under the badCrc fault', async () => {
    const { nuki, client } = setUp();
    nuki.faults.badCrc = true;
    const [corrupted] = await client.requestData(NukiCommand.keyturnerStates);
    const [intact] = await client.requestData(NukiCommand.keyturnerStates);
    expect([corrupted?.crcOk, intact?.crcOk]).toEqual([false, true]);
  });

  it('answers a command with a bad CRC inside the ciphertext with ERROR_BAD_CRC', async () => {
    const { nuki, client } = setUp();
    // An encrypted frame whose plaintext CRC is wrong: encrypt a frame, then re-encrypt its body with the CRC flipped.
    const good = encodeEncryptedFrame({ sharedKey: KEY, authorizationId: GATEWAY_ID, nonce: Buffer.alloc(24, 3), command: NukiCommand.requestData, payload: encodeRequestData({ command: NukiCommand.keyturnerStates, additionalData: Buffer.alloc(0) }) });
    const opened = nacl.secretbox.open(good.subarray(30), good.subarray(0, 24), KEY);
    if (opened === null) throw new Error('cannot open our own frame');
    const plaintext = Buffer.from(opened);
    plaintext[plaintext.length - 1] = (plaintext[plaintext.length - 1] ?? 0) ^ 0xff;
    const bad = Buffer.concat([good.subarray(0, 30), Buffer.from(nacl.secretbox(plaintext, good.subarray(0, 24), KEY))]);
    client.link.write(NukiUuids.keyturnerUsdio, bad);
    await nuki.settled();
    expect(words(client.messages)).toEqual(['Error Report ERROR_BAD_CRC']);
  });
});

describe('SimulatedNuki log', () => {
  it('logs every bolt move with increasing indexes and reads them back with the PIN', async () => {
    const { nuki, client } = setUp({ firstLogIndex: 41 });
    expect(nuki.tap("Olivia's iPhone", 'unlock')).toBe('accepted');
    await nuki.idle();
    nuki.manualTurn('locked');
    await client.lockAction(NukiLockAction.unlock);
    nuki.autoLock();
    await nuki.idle();
    nuki.fob('unlock');
    await nuki.idle();
    expect(nuki.log.map((entry) => [entry.index, entry.authorizationId, entry.name])).toEqual([
      [41, 5, "Olivia's iPhone"],
      [42, 0, ''],
      [43, GATEWAY_ID, 'Gateway'],
      [44, 0, ''],
      [45, 0, 'Nuki Fob'],
    ]);
    expect(nuki.log.map((entry) => (entry.detail.kind === 'lock_action' ? entry.detail.trigger : -1))).toEqual([
      NukiTrigger.system,
      NukiTrigger.manual,
      NukiTrigger.system,
      NukiTrigger.autoLock,
      NukiTrigger.system,
    ]);

    const ascending = await client.readLog({ startIndex: 0, count: 3, sortOrder: NukiLogSortOrder.ascending, totalCount: true, securityPin: PIN });
    expect(words(ascending)).toEqual(['Log Entry Count 5', 'Log Entry 41', 'Log Entry 42', 'Log Entry 43', 'Status COMPLETE']);
    expect(decodeLogEntry(ascending[1]?.payload ?? Buffer.alloc(0))).toEqual(nuki.log[0]);
    expect(decodeLogEntryCount(ascending[0]?.payload ?? Buffer.alloc(0))).toEqual({ loggingEnabled: true, count: 5, doorSensorEnabled: false, doorSensorLoggingEnabled: false });

    // §5 Request Log Entries: entries after (before) the start index, not the one at it.
    expect(words(await client.readLog({ startIndex: 43, count: 10, sortOrder: NukiLogSortOrder.ascending, totalCount: false, securityPin: PIN }))).toEqual(['Log Entry 44', 'Log Entry 45', 'Status COMPLETE']);
    expect(words(await client.readLog({ startIndex: 0, count: 2, sortOrder: NukiLogSortOrder.descending, totalCount: true, securityPin: PIN }))).toEqual(['Log Entry Count 5', 'Log Entry 45', 'Log Entry 44', 'Status COMPLETE']);
    expect(words(await client.readLog({ startIndex: 43, count: 10, sortOrder: NukiLogSortOrder.descending, totalCount: false, securityPin: PIN }))).toEqual(['Log Entry 42', 'Log Entry 41', 'Status COMPLETE']);
    expect(words(await client.readLog({ startIndex: 0, count: 10, sortOrder: NukiLogSortOrder.ascending, totalCount: true, securityPin: 1 }))).toEqual(['Error Report K_ERROR_BAD_PIN']);
  });

  it('refuses a tap by a name that is no authorization', () => {
    const { nuki } = setUp();
    expect(nuki.tap('Mallory', 'unlock')).toBe('refused');
    expect(nuki.bolt).toBe('locked');
    expect(nuki.log).toEqual([]);
  });

  it('drops the oldest entries beyond its capacity, keeping the numbering', async () => {
    const { nuki } = setUp({ logCapacity: 2 });
    for (const bolt of ['unlocked', 'locked', 'unlocked'] as const) nuki.manualTurn(bolt);
    await nuki.idle();
    expect(nuki.log.map((entry) => entry.index)).toEqual([2, 3]);
  });

  it('logs keypad actions (type 0x05) and door sensor changes (type 0x06)', async () => {
    const { nuki, client } = setUp({ hasDoorSensor: true, authorizations: [{ id: GATEWAY_ID, name: 'Gateway', type: 'app', sharedKey: KEY }, { id: 9, name: 'Keypad', type: 'keypad' }] });
    nuki.keypad('unlock');
    await nuki.idle();
    nuki.setDoor('open');
    expect(nuki.log.map((entry) => [entry.authorizationId, entry.detail])).toEqual([
      [9, { kind: 'other', type: 0x05, data: Buffer.from([NukiLockAction.unlock, 0x01, 0x00, 0x01, 0x00]) }],
      [0, { kind: 'other', type: 0x06, data: Buffer.from([0x00]) }],
    ]);
    expect((await client.states()).doorSensorState).toBe(NukiDoorSensorState.doorOpened);
  });
});

describe('SimulatedNuki advertising and range', () => {
  function beaconPower(nuki: SimulatedNuki): number | undefined {
    const data = nuki.advertisement()?.manufacturerData.get(NUKI_APPLE_COMPANY_ID);
    return data === undefined ? undefined : parseNukiBeacon(data)?.measuredPower;
  }

  it('flags a new state in its iBeacon until an authorized central reads Keyturner States', async () => {
    const { nuki, client } = setUp();
    let changes = 0;
    nuki.onAdvertisementChange(() => changes++);
    const data = nuki.advertisement()?.manufacturerData.get(NUKI_APPLE_COMPANY_ID) ?? Buffer.alloc(0);
    expect(parseNukiBeacon(data)).toMatchObject({ serviceUuid: NukiUuids.keyturnerService, measuredPower: -60, newState: false });

    nuki.tap("Olivia's iPhone", 'unlock');
    await nuki.idle();
    expect(beaconPower(nuki)).toBe(-59);
    expect(changes).toBe(1);

    await client.states();
    expect(beaconPower(nuki)).toBe(-60);
    expect(changes).toBe(2);

    nuki.setBattery(50);
    expect(beaconPower(nuki)).toBe(-59);
  });

  it('does not clear the flag for a central it could not authorize', async () => {
    const { nuki } = setUp();
    nuki.manualTurn('unlocked');
    await new NukiTestClient(nuki, 99, KEY).requestData(NukiCommand.keyturnerStates);
    expect(beaconPower(nuki)).toBe(-59);
  });

  it('goes silent out of range: no advertisement, no connection, open links lost', async () => {
    const { nuki, client } = setUp();
    let changes = 0;
    nuki.onAdvertisementChange(() => changes++);
    nuki.goOutOfRange();
    expect(nuki.inRange).toBe(false);
    expect(nuki.advertisement()).toBeNull();
    expect(() => nuki.openLink()).toThrow(GattOperationError);
    await until(() => client.lost, 'the link loss');
    expect(client.lost).toBe(true);
    expect(nuki.connectionCount).toBe(0);
    nuki.comeBackInRange();
    expect(nuki.advertisement()).not.toBeNull();
    expect(changes).toBe(2);
    const again = new NukiTestClient(nuki, GATEWAY_ID, KEY);
    expect((await again.states()).lockState).toBe(NukiLockState.locked);
  });

  it('delays every reply by replyDelayMs', async () => {
    const { nuki, client } = setUp();
    nuki.faults.replyDelayMs = 40;
    const started = Date.now();
    client.send(NukiCommand.requestData, encodeRequestData({ command: NukiCommand.keyturnerStates, additionalData: Buffer.alloc(0) }));
    // A Nuki without the delay, asked just after, has answered: an undelayed reply would have come by now.
    const prompt = setUp();
    const promptReply = prompt.client.requestData(NukiCommand.keyturnerStates);
    await expect(promptReply).resolves.toHaveLength(1);
    expect(client.messages).toEqual([]);
    await nuki.settled();
    expect(client.messages).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
  });

  it('reassembles a 20-byte-fragmented stream of several messages with one assembler', async () => {
    const { client } = setUp();
    await client.lockAction(NukiLockAction.unlock);
    const assembler = new NukiMessageAssembler('encrypted');
    const frames = client.indications.flatMap((indication) => assembler.push(indication));
    expect(client.indications.every((indication) => indication.length <= 20)).toBe(true);
    // Challenge, then ACCEPTED, two Keyturner States and COMPLETE.
    expect(frames).toHaveLength(5);
    expect(assembler.bufferedBytes).toBe(0);
  });
});
