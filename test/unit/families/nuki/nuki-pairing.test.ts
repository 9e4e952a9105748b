import { describe, expect, it } from '@jest/globals';
import { NukiCommand, NukiErrorCode, NukiIdType, NukiStatusCode } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { createNukiKeyPair, deriveNukiSharedKey, nukiAuthenticator, randomNukiNonce, verifyNukiAuthenticator } from '../../../../src/families/nuki/protocol/nuki-crypto.js';
import { decodeUnencryptedFrame, encodeUnencryptedFrame } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import {
  authorizationAuthenticatorBytes,
  authorizationDataAuthenticatedBytes,
  authorizationIdAuthenticatedBytes,
  authorizationIdConfirmationAuthenticatedBytes,
  decodeAuthorizationAuthenticator,
  decodeAuthorizationData,
  decodeAuthorizationIdConfirmation,
  decodePublicKey,
  decodeRequestData,
  encodeAuthorizationId,
  encodeChallenge,
  encodeErrorReport,
  encodePublicKey,
  encodeStatus,
} from '../../../../src/families/nuki/protocol/nuki-messages.js';
import { NukiPairingError, pairNukiLock, type NukiPairingChannel, type NukiPairingFailure } from '../../../../src/families/nuki/protocol/nuki-pairing.js';

/** Which client message the test lock answers differently, and how. */
interface Twist {
  /** The client command after which the lock misbehaves. */
  after: number;
  reply: 'error' | 'bad_crc' | 'unexpected' | 'wrong_authenticator' | 'status_accepted' | 'silence';
  errorCode?: number;
}

/**
 * A lock in pairing mode, written from the lock's side of §9 with the same message and crypto
 * functions, so a pairing that succeeds here agrees with the spec's arithmetic both ways.
 */
class TestLock implements NukiPairingChannel {
  readonly keyPair = createNukiKeyPair();
  readonly lockUuid = Buffer.alloc(16, 0x5a);
  readonly authorizationId = 9;
  readonly received: number[] = [];
  readonly timeouts: number[] = [];
  confirmedWith: { authorizationId: number; name: string; idType: number; appId: number } | undefined;
  private readonly outbox: Buffer[] = [];
  private clientPublicKey: Buffer = Buffer.alloc(0);
  private sharedKey: Buffer = Buffer.alloc(0);
  private challenge: Buffer = Buffer.alloc(0);
  private clientName = '';
  private clientIdType = -1;
  private clientAppId = -1;

  constructor(private readonly twist?: Twist) {}

  send(frame: Buffer): Promise<void> {
    const { command, payload, crcOk } = decodeUnencryptedFrame(frame);
    expect(crcOk).toBe(true);
    this.received.push(command);
    if (this.twist?.after === command) {
      this.misbehave(this.twist, command);
      return Promise.resolve();
    }
    switch (command) {
      case NukiCommand.requestData:
        expect(decodeRequestData(payload).command).toBe(NukiCommand.publicKey);
        this.reply(NukiCommand.publicKey, encodePublicKey({ publicKey: this.keyPair.publicKey }));
        break;
      case NukiCommand.publicKey:
        this.clientPublicKey = decodePublicKey(payload).publicKey;
        this.sharedKey = deriveNukiSharedKey(this.keyPair.secretKey, this.clientPublicKey);
        this.newChallenge();
        break;
      case NukiCommand.authorizationAuthenticator: {
        const { authenticator } = decodeAuthorizationAuthenticator(payload);
        expect(verifyNukiAuthenticator(this.sharedKey, authenticator, authorizationAuthenticatorBytes(this.clientPublicKey, this.keyPair.publicKey, this.challenge))).toBe(true);
        this.newChallenge();
        break;
      }
      case NukiCommand.authorizationData: {
        const data = decodeAuthorizationData(payload);
        expect(verifyNukiAuthenticator(this.sharedKey, data.authenticator, authorizationDataAuthenticatedBytes(data, this.challenge))).toBe(true);
        this.clientName = data.name;
        this.clientIdType = data.idType;
        this.clientAppId = data.appId;
        this.challenge = randomNukiNonce(32);
        const fields = { authorizationId: this.authorizationId, lockUuid: this.lockUuid, nonce: this.challenge };
        const authenticator = nukiAuthenticator(this.sharedKey, authorizationIdAuthenticatedBytes(fields, data.nonce));
        this.reply(NukiCommand.authorizationId, encodeAuthorizationId({ ...fields, authenticator }));
        break;
      }
      case NukiCommand.authorizationIdConfirmation: {
        const confirmation = decodeAuthorizationIdConfirmation(payload);
        expect(
          verifyNukiAuthenticator(this.sharedKey, confirmation.authenticator, authorizationIdConfirmationAuthenticatedBytes(confirmation.authorizationId, this.challenge)),
        ).toBe(true);
        this.confirmedWith = { authorizationId: confirmation.authorizationId, name: this.clientName, idType: this.clientIdType, appId: this.clientAppId };
        this.reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.COMPLETE }));
        break;
      }
      default:
        throw new Error(`unexpected command 0x${command.toString(16)}`);
    }
    return Promise.resolve();
  }

  receive(timeoutMs: number): Promise<Buffer> {
    this.timeouts.push(timeoutMs);
    const frame = this.outbox.shift();
    return frame === undefined ? Promise.reject(new Error(`nothing within ${timeoutMs} ms`)) : Promise.resolve(frame);
  }

  private newChallenge(): void {
    this.challenge = randomNukiNonce(32);
    this.reply(NukiCommand.challenge, encodeChallenge({ nonce: this.challenge }));
  }

  private reply(command: number, payload: Buffer): void {
    this.outbox.push(encodeUnencryptedFrame(command, payload));
  }

  private misbehave(twist: Twist, command: number): void {
    switch (twist.reply) {
      case 'error':
        this.reply(NukiCommand.errorReport, encodeErrorReport({ errorCode: twist.errorCode ?? 0xff, command }));
        break;
      case 'bad_crc': {
        const frame = encodeUnencryptedFrame(NukiCommand.challenge, Buffer.alloc(32, 1));
        frame.writeUInt8(frame.readUInt8(frame.length - 1) ^ 0xff, frame.length - 1);
        this.outbox.push(frame);
        break;
      }
      case 'unexpected':
        this.reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.COMPLETE }));
        break;
      case 'wrong_authenticator':
        this.reply(NukiCommand.authorizationId, encodeAuthorizationId({ authenticator: Buffer.alloc(32, 0xee), authorizationId: 9, lockUuid: this.lockUuid, nonce: Buffer.alloc(32, 1) }));
        break;
      case 'status_accepted':
        this.reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.ACCEPTED }));
        break;
      case 'silence':
        break;
    }
  }
}

const OPTIONS = { name: 'ekey-locks gateway', idType: 'app', appId: 0x12345678 } as const;

async function failureOf(lock: TestLock, options: Partial<Parameters<typeof pairNukiLock>[1]> = {}): Promise<{ reason: NukiPairingFailure; message: string }> {
  try {
    await pairNukiLock(lock, { ...OPTIONS, ...options });
  } catch (error) {
    if (error instanceof NukiPairingError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('pairing succeeded');
}

describe('pairNukiLock', () => {
  it('pairs with a lock that follows §9 and returns what later sessions need', async () => {
    const lock = new TestLock();
    const credentials = await pairNukiLock(lock, OPTIONS);
    expect(credentials).toMatchObject({ authorizationId: 9, appId: 0x12345678, idType: 'app', lockUuid: lock.lockUuid, lockPublicKey: lock.keyPair.publicKey });
    expect(credentials.sharedKey).toHaveLength(32);
    expect(lock.confirmedWith).toEqual({ authorizationId: 9, name: 'ekey-locks gateway', idType: NukiIdType.app, appId: 0x12345678 });
    expect(lock.received).toEqual([
      NukiCommand.requestData,
      NukiCommand.publicKey,
      NukiCommand.authorizationAuthenticator,
      NukiCommand.authorizationData,
      NukiCommand.authorizationIdConfirmation,
    ]);
  });

  it('pairs as a bridge when asked, and waits stepTimeoutMs for each message', async () => {
    const lock = new TestLock();
    const credentials = await pairNukiLock(lock, { ...OPTIONS, idType: 'bridge', stepTimeoutMs: 1234 });
    expect(credentials.idType).toBe('bridge');
    expect(lock.confirmedWith?.idType).toBe(NukiIdType.bridge);
    expect(lock.timeouts).toEqual([1234, 1234, 1234, 1234, 1234]);
  });

  it('derives the same shared key as the lock', async () => {
    const lock = new TestLock();
    const ours = createNukiKeyPair();
    const credentials = await pairNukiLock(lock, { ...OPTIONS, keyPair: ours });
    expect(credentials.sharedKey).toEqual(deriveNukiSharedKey(lock.keyPair.secretKey, ours.publicKey));
  });

  it.each([
    ['not_pairing_mode', NukiCommand.requestData, NukiErrorCode.P_ERROR_NOT_PAIRING],
    ['bad_authenticator', NukiCommand.authorizationAuthenticator, NukiErrorCode.P_ERROR_BAD_AUTHENTICATOR],
    ['max_users', NukiCommand.authorizationData, NukiErrorCode.P_ERROR_MAX_USER],
    ['protocol', NukiCommand.authorizationData, NukiErrorCode.P_ERROR_BAD_PARAMETER],
    ['protocol', NukiCommand.publicKey, NukiErrorCode.ERROR_BAD_CRC],
  ] as const)('maps an Error Report to %s', async (reason, after, errorCode) => {
    expect(await failureOf(new TestLock({ after, reply: 'error', errorCode }))).toMatchObject({ reason });
  });

  it('names the error code in the message', async () => {
    const { message } = await failureOf(new TestLock({ after: NukiCommand.requestData, reply: 'error', errorCode: NukiErrorCode.P_ERROR_NOT_PAIRING }));
    expect(message).toContain('P_ERROR_NOT_PAIRING');
  });

  it('refuses to confirm when the lock’s Authorization-ID authenticator is wrong', async () => {
    const lock = new TestLock({ after: NukiCommand.authorizationData, reply: 'wrong_authenticator' });
    expect(await failureOf(lock)).toMatchObject({ reason: 'bad_authenticator' });
    expect(lock.received).not.toContain(NukiCommand.authorizationIdConfirmation);
  });

  it('is a protocol failure on a bad CRC, an unexpected message or a final status other than COMPLETE', async () => {
    expect(await failureOf(new TestLock({ after: NukiCommand.publicKey, reply: 'bad_crc' }))).toMatchObject({ reason: 'protocol' });
    expect(await failureOf(new TestLock({ after: NukiCommand.requestData, reply: 'unexpected' }))).toMatchObject({
      reason: 'protocol',
      message: expect.stringContaining('Expected Public Key') as unknown as string,
    });
    expect(await failureOf(new TestLock({ after: NukiCommand.authorizationIdConfirmation, reply: 'status_accepted' }))).toMatchObject({ reason: 'protocol' });
  });

  it('is a timeout when the lock does not answer', async () => {
    expect(await failureOf(new TestLock({ after: NukiCommand.authorizationAuthenticator, reply: 'silence' }))).toMatchObject({ reason: 'timeout' });
  });

  it('lets a failing send propagate unchanged', async () => {
    const lock = new TestLock();
    lock.send = () => Promise.reject(new Error('link lost'));
    await expect(pairNukiLock(lock, OPTIONS)).rejects.toThrow('link lost');
  });

  it('refuses an app id that is not a u32 and a pairing nonce that is not 32 bytes', async () => {
    await expect(pairNukiLock(new TestLock(), { ...OPTIONS, appId: -1 })).rejects.toThrow(RangeError);
    await expect(pairNukiLock(new TestLock(), { ...OPTIONS, nonce: () => Buffer.alloc(16) })).rejects.toThrow(RangeError);
  });
});
