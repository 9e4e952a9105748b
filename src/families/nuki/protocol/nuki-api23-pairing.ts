/**
 * The client side of API 2.3 pairing (Smart Lock Ultra, Go, Pro 5th generation; docs/nuki.md
 * "API 2.3 pairing"), over the pairing GDIO `a92ee301-…`:
 *
 *   CL → Request Data(Public Key)          SL → Public Key (pkK)
 *   CL → Public Key (pkA)                  both: s = kdf1(dh1(…)); SL → Challenge (nK)
 *   CL → Authorization Authenticator h1(pkA | pkK | nK)
 *                                          SL → Authorization Info
 *   CL → Authorization Data, encrypted under s with our app id in the header:
 *        app id | name | security PIN (u32)
 *                                          SL → Authorization-ID, encrypted: auth id | lock UUID
 */
import { NukiCommand, NukiErrorCode, nukiCommandName, nukiErrorName } from './nuki-commands.js';
import { createNukiKeyPair, deriveNukiSharedKey, nukiAuthenticator, randomNukiNonce } from './nuki-crypto.js';
import { NukiFrameError, decodeEncryptedFrame, decodeUnencryptedFrame, encodeEncryptedFrame, encodeUnencryptedFrame } from './nuki-frame.js';
import {
  authorizationAuthenticatorBytes,
  decodeChallenge,
  decodeErrorReport,
  decodePublicKey,
  encodeAuthorizationAuthenticator,
  encodePublicKey,
  encodeRequestData,
} from './nuki-messages.js';
import { NukiPairingError, type NukiCredentials, type NukiPairingChannel, type NukiPairingOptions } from './nuki-pairing.js';
import { MAX_SECURITY_PIN } from '../nuki-api-level.js';
import { NUKI_AUTHORIZATION_INFO_COMMAND, decodeApi23AuthorizationId, encodeApi23AuthorizationData } from './nuki-api23-messages.js';

/** The pairing GDIO of an API 2.3 lock: unencrypted frames first, encrypted ones after Authorization Data. */
export interface NukiApi23PairingChannel extends NukiPairingChannel {
  /** From now on, whole frames are cut as encrypted frames (their length is in their header). */
  expectEncrypted(): void;
}

const DEFAULT_STEP_TIMEOUT_MS = 10_000;

/**
 * Pairs with an API 2.3 lock in pairing mode. `securityPin` is the lock's 6-digit PIN.
 * @throws NukiPairingError (`bad_pin` for a wrong PIN; otherwise as pairNukiLock).
 */
export async function pairNukiApi23(channel: NukiApi23PairingChannel, options: NukiPairingOptions & { securityPin: number }): Promise<NukiCredentials> {
  if (!Number.isInteger(options.securityPin) || options.securityPin < 0 || options.securityPin > MAX_SECURITY_PIN['2.3']) {
    throw new RangeError('The security PIN of an API 2.3 lock has six digits.');
  }
  const timeoutMs = options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  const send = (command: number, payload: Buffer): Promise<void> => channel.send(encodeUnencryptedFrame(command, payload));
  const receive = (expected: number): Promise<Buffer> => receivePlain(channel, timeoutMs, expected);

  await send(NukiCommand.requestData, encodeRequestData({ command: NukiCommand.publicKey, additionalData: Buffer.alloc(0) }));
  const lockPublicKey = decodeOrFail(decodePublicKey, await receive(NukiCommand.publicKey)).publicKey;
  const keyPair = options.keyPair ?? createNukiKeyPair();
  await send(NukiCommand.publicKey, encodePublicKey({ publicKey: keyPair.publicKey }));
  let sharedKey: Buffer;
  try {
    sharedKey = deriveNukiSharedKey(keyPair.secretKey, lockPublicKey);
  } catch (error) {
    throw new NukiPairingError('protocol', 'The lock sent an unusable public key.', { cause: error });
  }
  const challenge = decodeOrFail(decodeChallenge, await receive(NukiCommand.challenge)).nonce;
  const authenticator = nukiAuthenticator(sharedKey, authorizationAuthenticatorBytes(keyPair.publicKey, lockPublicKey, challenge));
  await send(NukiCommand.authorizationAuthenticator, encodeAuthorizationAuthenticator({ authenticator }));
  await receive(NUKI_AUTHORIZATION_INFO_COMMAND);

  channel.expectEncrypted();
  const payload = encodeApi23AuthorizationData({ appId: options.appId, name: options.name, securityPin: options.securityPin });
  await channel.send(encodeEncryptedFrame({ sharedKey, authorizationId: options.appId, nonce: randomNukiNonce(24), command: NukiCommand.authorizationData, payload }));
  let bytes: Buffer;
  try {
    bytes = await channel.receive(timeoutMs);
  } catch (error) {
    throw new NukiPairingError('timeout', `No Authorization-ID from the lock within ${timeoutMs} ms.`, { cause: error });
  }
  const frame = decodeOrFail((raw) => decodeEncryptedFrame(raw, sharedKey), bytes);
  if (!frame.crcOk) throw new NukiPairingError('protocol', 'Bad CRC on an encrypted frame from the lock.');
  if (frame.command === NukiCommand.errorReport) throw errorFailure(frame.payload);
  if (frame.command !== NukiCommand.authorizationId) throw new NukiPairingError('protocol', `Expected Authorization-ID from the lock, got ${nukiCommandName(frame.command)}.`);
  const assigned = decodeOrFail(decodeApi23AuthorizationId, frame.payload);
  return { sharedKey, authorizationId: assigned.authorizationId, appId: options.appId, idType: 'app', lockUuid: assigned.lockUuid, lockPublicKey };
}

async function receivePlain(channel: NukiPairingChannel, timeoutMs: number, expected: number): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await channel.receive(timeoutMs);
  } catch (error) {
    throw new NukiPairingError('timeout', `No ${nukiCommandName(expected)} from the lock within ${timeoutMs} ms.`, { cause: error });
  }
  const frame = decodeOrFail(decodeUnencryptedFrame, bytes);
  if (!frame.crcOk) throw new NukiPairingError('protocol', `Bad CRC on a ${nukiCommandName(frame.command)} frame from the lock.`);
  if (frame.command === NukiCommand.errorReport) throw errorFailure(frame.payload);
  if (frame.command !== expected) throw new NukiPairingError('protocol', `Expected ${nukiCommandName(expected)} from the lock, got ${nukiCommandName(frame.command)}.`);
  return frame.payload;
}

function errorFailure(payload: Buffer): NukiPairingError {
  const report = decodeOrFail(decodeErrorReport, payload);
  const code = `${nukiErrorName(report.errorCode)} (0x${report.errorCode.toString(16).padStart(2, '0')})`;
  switch (report.errorCode) {
    case NukiErrorCode.P_ERROR_NOT_PAIRING:
      return new NukiPairingError('not_pairing_mode', `The lock is not in pairing mode: ${code}.`);
    case NukiErrorCode.P_ERROR_BAD_AUTHENTICATOR:
      return new NukiPairingError('bad_authenticator', `The lock refused our authenticator: ${code}.`);
    case NukiErrorCode.P_ERROR_MAX_USER:
      return new NukiPairingError('max_users', `The lock has no room for another authorization: ${code}.`);
    case NukiErrorCode.K_ERROR_BAD_PIN:
      return new NukiPairingError('bad_pin', `The lock refused the security PIN: ${code}.`);
    default:
      return new NukiPairingError('protocol', `The lock reported ${code} for ${nukiCommandName(report.command)}.`);
  }
}

function decodeOrFail<T>(decode: (bytes: Buffer) => T, bytes: Buffer): T {
  try {
    return decode(bytes);
  } catch (error) {
    if (error instanceof NukiFrameError) throw new NukiPairingError('protocol', `Unreadable message from the lock: ${error.message}.`, { cause: error });
    throw error;
  }
}
