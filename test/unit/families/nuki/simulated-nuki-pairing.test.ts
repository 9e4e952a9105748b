import { describe, expect, it } from '@jest/globals';
import { NukiCommand, NukiErrorCode } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { decodeUnencryptedFrame, encodeUnencryptedFrame } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import { decodeErrorReport, encodeRequestData } from '../../../../src/families/nuki/protocol/nuki-messages.js';
import { NukiPairingError, pairNukiLock, type NukiPairingFailure } from '../../../../src/families/nuki/protocol/nuki-pairing.js';
import { NukiUuids } from '../../../../src/families/nuki/protocol/nuki-uuids.js';
import { SimulatedNuki, type SimulatedNukiOptions } from '../../../../src/families/nuki/simulator/simulated-nuki.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { NukiTestClient, pairingChannel } from './simulated-nuki-client.js';

const PAIRING = { name: 'Gateway', idType: 'app', appId: 0x1234, stepTimeoutMs: 1000 } as const;

function setUp(options: Partial<SimulatedNukiOptions> = {}): { nuki: SimulatedNuki; clock: ManualClock } {
  const clock = new ManualClock();
  const nuki = new SimulatedNuki({ address: 'aa:bb:cc:00:00:02', name: 'Back Door', clock, securityPin: 1234, ...options });
  return { nuki, clock };
}

async function pairingFailure(promise: Promise<unknown>): Promise<NukiPairingFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof NukiPairingError) return error.reason;
    throw error;
  }
  throw new Error('pairing succeeded');
}

describe('SimulatedNuki pairing (Authorize App, §9)', () => {
  it('makes its key pair once, on first use: the public key read before pairing is the one the pairing sends, and each lock has its own', async () => {
    const { nuki } = setUp();
    const before = nuki.publicKey;
    expect(before).toHaveLength(32);
    expect(nuki.publicKey.equals(before)).toBe(true);
    expect(setUp().nuki.publicKey.equals(before)).toBe(false);
    nuki.startPairingMode();
    const credentials = await pairNukiLock(pairingChannel(nuki.openLink()), PAIRING);
    expect(credentials.lockPublicKey.equals(before)).toBe(true);
  });

  it.each([20, 185])('pairs with pairNukiLock over %i-byte indications, and the credentials work on the USDIO', async (fragmentSize) => {
    const { nuki } = setUp({ fragmentSize });
    nuki.startPairingMode();
    const credentials = await pairNukiLock(pairingChannel(nuki.openLink()), PAIRING);

    expect(credentials.authorizationId).toBe(1);
    expect(credentials.lockPublicKey.equals(nuki.publicKey)).toBe(true);
    expect(credentials.lockUuid.equals(nuki.lockUuid)).toBe(true);
    expect(nuki.authorizations).toEqual([{ id: 1, name: 'Gateway', type: 'app', appId: 0x1234 }]);
    expect(nuki.pairingMode).toBe(false);

    const client = new NukiTestClient(nuki, credentials.authorizationId, credentials.sharedKey);
    expect((await client.states()).lockState).toBe(0x01);
  });

  it('gives the next free id after pre-paired authorizations', async () => {
    const { nuki } = setUp({ authorizations: [{ id: 2, name: "Olivia's iPhone", type: 'app' }] });
    nuki.startPairingMode();
    const credentials = await pairNukiLock(pairingChannel(nuki.openLink()), PAIRING);
    expect(credentials.authorizationId).toBe(3);
  });

  it('answers P_ERROR_NOT_PAIRING outside pairing mode', async () => {
    const { nuki } = setUp();
    expect(await pairingFailure(pairNukiLock(pairingChannel(nuki.openLink()), PAIRING))).toBe('not_pairing_mode');
    expect(nuki.authorizations).toEqual([]);
  });

  it('leaves pairing mode after pairingTimeoutMs of the injected clock', async () => {
    const { nuki, clock } = setUp({ pairingTimeoutMs: 30_000 });
    nuki.startPairingMode();
    clock.advance(29_999);
    expect(nuki.pairingMode).toBe(true);
    clock.advance(1);
    expect(nuki.pairingMode).toBe(false);
    expect(await pairingFailure(pairNukiLock(pairingChannel(nuki.openLink()), PAIRING))).toBe('not_pairing_mode');
  });

  it('accepts one pairing per pairing mode', async () => {
    const { nuki } = setUp();
    nuki.startPairingMode();
    await pairNukiLock(pairingChannel(nuki.openLink()), PAIRING);
    expect(await pairingFailure(pairNukiLock(pairingChannel(nuki.openLink()), PAIRING))).toBe('not_pairing_mode');
  });

  it('answers P_ERROR_BAD_AUTHENTICATOR to a forged Authorization Authenticator and stores nothing', async () => {
    const { nuki } = setUp();
    nuki.startPairingMode();
    const forge = (frame: Buffer): Buffer => {
      const { command, payload } = decodeUnencryptedFrame(frame);
      if (command !== NukiCommand.authorizationAuthenticator) return frame;
      const forged = Buffer.from(payload);
      forged[0] = (forged[0] ?? 0) ^ 0x01;
      return encodeUnencryptedFrame(command, forged);
    };
    expect(await pairingFailure(pairNukiLock(pairingChannel(nuki.openLink(), forge), PAIRING))).toBe('bad_authenticator');
    expect(nuki.authorizations).toEqual([]);
    expect(nuki.pairingMode).toBe(true);
  });

  it('answers P_ERROR_MAX_USER when the authorization list is full', async () => {
    const { nuki } = setUp({ maxAuthorizations: 1, authorizations: [{ id: 1, name: 'Owner', type: 'app', sharedKey: Buffer.alloc(32, 1) }] });
    nuki.startPairingMode();
    expect(await pairingFailure(pairNukiLock(pairingChannel(nuki.openLink()), PAIRING))).toBe('max_users');
    expect(nuki.authorizations.map((entry) => entry.id)).toEqual([1]);
  });

  it('answers ERROR_BAD_CRC to a frame whose CRC is wrong', async () => {
    const { nuki } = setUp();
    nuki.startPairingMode();
    const link = nuki.openLink();
    const received: Buffer[] = [];
    link.onNotification((_uuid, value) => received.push(value));
    const frame = encodeUnencryptedFrame(NukiCommand.requestData, encodeRequestData({ command: NukiCommand.publicKey, additionalData: Buffer.alloc(0) }));
    frame[frame.length - 1] = (frame[frame.length - 1] ?? 0) ^ 0xff;
    link.write(NukiUuids.pairingGdio, frame);
    await nuki.settled();
    const reply = decodeUnencryptedFrame(Buffer.concat(received));
    expect(reply.command).toBe(NukiCommand.errorReport);
    expect(decodeErrorReport(reply.payload)).toEqual({ errorCode: NukiErrorCode.ERROR_BAD_CRC, command: NukiCommand.requestData });
  });

  it('answers the spec example request for the public key with 36 bytes in two 20-byte indications', async () => {
    const { nuki } = setUp();
    nuki.startPairingMode();
    const link = nuki.openLink();
    const received: Buffer[] = [];
    link.onNotification((_uuid, value) => received.push(value));
    link.write(NukiUuids.pairingGdio, Buffer.from('0100030027A7', 'hex'));
    await nuki.settled();
    expect(received.map((indication) => indication.length)).toEqual([20, 16]);
    const reply = decodeUnencryptedFrame(Buffer.concat(received));
    expect(reply).toEqual({ command: NukiCommand.publicKey, payload: nuki.publicKey, crcOk: true });
  });
});
