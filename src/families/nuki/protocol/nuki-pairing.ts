/**
 * The client side of "Authorize App" (Nuki Smart Lock API V2.1 §9) over a message channel, so the
 * same code pairs with the simulated lock, through the fake BlueZ and with a real lock:
 *
 *   CL → Request Data(Public Key)         SL → Public Key (pkK)
 *   CL → Public Key (pkA)                 both: s = kdf1(dh1(…))
 *                                         SL → Challenge (nK)
 *   CL → Authorization Authenticator h1(pkA | pkK | nK)
 *                                         SL → Challenge (nK')
 *   CL → Authorization Data h1(type | id | name | nA | nK'), type, id, name, nA
 *                                         SL → Authorization-ID h1(auth id | uuid | nK'' | nA), …
 *   CL verifies, → Authorization-ID Confirmation h1(auth id | nK''), auth id
 *                                         SL → Status COMPLETE
 */
import { NukiCommand, NukiErrorCode, NukiIdType, NukiStatusCode, nukiCommandName, nukiErrorName } from './nuki-commands.js';
import { createNukiKeyPair, deriveNukiSharedKey, nukiAuthenticator, randomNukiNonce, verifyNukiAuthenticator, type NukiKeyPair } from './nuki-crypto.js';
import { NukiFrameError, decodeUnencryptedFrame, encodeUnencryptedFrame } from './nuki-frame.js';
import {
  authorizationAuthenticatorBytes,
  authorizationDataAuthenticatedBytes,
  authorizationIdAuthenticatedBytes,
  authorizationIdConfirmationAuthenticatedBytes,
  decodeAuthorizationId,
  decodeChallenge,
  decodeErrorReport,
  decodePublicKey,
  decodeStatus,
  encodeAuthorizationAuthenticator,
  encodeAuthorizationData,
  encodeAuthorizationIdConfirmation,
  encodePublicKey,
  encodeRequestData,
} from './nuki-messages.js';

/** The pairing GDIO as the pairing client sees it. */
export interface NukiPairingChannel {
  /** Writes one whole unencrypted frame (the transport splits it as the MTU requires). */
  send(frame: Buffer): Promise<void>;
  /** Resolves with one whole reassembled unencrypted frame; rejects when none arrives in time. */
  receive(timeoutMs: number): Promise<Buffer>;
}

/** How to pair. */
export interface NukiPairingOptions {
  /** Shown in the lock's list of authorizations; at most 32 bytes of UTF-8 (longer is cut). */
  name: string;
  /** Pair as an app (default choice) or as a bridge (replaces the lock's existing Nuki Bridge). */
  idType: 'app' | 'bridge';
  /** Our App-ID / Bridge-ID, u32; sent again in every Lock Action. */
  appId: number;
  /** Our X25519 key pair; a fresh one by default (injectable to replay the spec's example). */
  keyPair?: NukiKeyPair;
  /** Our 32-byte pairing nonce nA; random by default (injectable to replay the spec's example). */
  nonce?: () => Buffer;
  /** How long to wait for each message of the lock; default 10 s. */
  stepTimeoutMs?: number;
}

/** What pairing yields: everything needed to talk to the lock later. Secret: store with mode 0600. */
export interface NukiCredentials {
  sharedKey: Buffer;
  authorizationId: number;
  appId: number;
  idType: 'app' | 'bridge';
  /** The lock's UUID from Authorization-ID (stable until a factory reset). */
  lockUuid: Buffer;
  lockPublicKey: Buffer;
}

/** Why pairing failed. */
export type NukiPairingFailure =
  /** The lock is not in pairing mode (hold its button for 5 s). */
  | 'not_pairing_mode'
  /** An authenticator did not match: the lock refused ours, or the lock's failed our check. */
  | 'bad_authenticator'
  /** The lock has no room for another authorization. */
  | 'max_users'
  /** The lock did not answer in time (or the channel failed while waiting). */
  | 'timeout'
  /** An API 2.3 lock refused the security PIN sent with Authorization Data. */
  | 'bad_pin'
  /** Anything else: a bad CRC, an unexpected message, another Error Report. */
  | 'protocol';

/** Pairing did not complete; `reason` says why. */
export class NukiPairingError extends Error {
  constructor(
    readonly reason: NukiPairingFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NukiPairingError';
  }
}

const NONCE_LENGTH = 32;

/**
 * Pairs with a lock in pairing mode, as §9 "Authorize App" describes; verifies the lock's
 * authenticator before confirming.
 *
 * @throws NukiPairingError (an Error Report of the lock is mapped: P_ERROR_NOT_PAIRING →
 *   not_pairing_mode, P_ERROR_BAD_AUTHENTICATOR → bad_authenticator, P_ERROR_MAX_USER → max_users,
 *   anything else → protocol). Errors of `channel.send` propagate unchanged.
 */
export async function pairNukiLock(channel: NukiPairingChannel, options: NukiPairingOptions): Promise<NukiCredentials> {
  if (!Number.isInteger(options.appId) || options.appId < 0 || options.appId > 0xffffffff) {
    throw new RangeError(`A Nuki app id is a u32, not ${options.appId}.`);
  }
  const steps = new NukiPairingSteps(channel, options.stepTimeoutMs);
  const { sharedKey, lockPublicKey } = await steps.authenticateKeys(options.keyPair ?? createNukiKeyPair());

  // Steps 15–16: introduce ourselves with the second challenge.
  const secondChallenge = (await steps.receive(NukiCommand.challenge, decodeChallenge)).nonce;
  const clientNonce = options.nonce?.() ?? randomNukiNonce(NONCE_LENGTH);
  if (clientNonce.length !== NONCE_LENGTH) throw new RangeError(`The pairing nonce has ${NONCE_LENGTH} bytes.`);
  const fields = { idType: NukiIdType[options.idType], appId: options.appId, name: options.name, nonce: clientNonce };
  const dataAuthenticator = nukiAuthenticator(sharedKey, authorizationDataAuthenticatedBytes(fields, secondChallenge));
  await steps.send(NukiCommand.authorizationData, encodeAuthorizationData({ ...fields, authenticator: dataAuthenticator }));

  // Steps 19–21: check the lock's authenticator before confirming the id it assigned.
  const assigned = await steps.receive(NukiCommand.authorizationId, decodeAuthorizationId);
  if (!verifyNukiAuthenticator(sharedKey, assigned.authenticator, authorizationIdAuthenticatedBytes(assigned, clientNonce))) {
    throw new NukiPairingError('bad_authenticator', "The lock's Authorization-ID authenticator does not match; not confirming the pairing.");
  }
  const confirmation = nukiAuthenticator(sharedKey, authorizationIdConfirmationAuthenticatedBytes(assigned.authorizationId, assigned.nonce));
  await steps.send(NukiCommand.authorizationIdConfirmation, encodeAuthorizationIdConfirmation({ authenticator: confirmation, authorizationId: assigned.authorizationId }));

  // Step 22: Status COMPLETE.
  const { status } = await steps.receive(NukiCommand.status, decodeStatus);
  if (status !== NukiStatusCode.COMPLETE) {
    throw new NukiPairingError('protocol', `The lock ended the pairing with status 0x${hex2(status)} instead of COMPLETE.`);
  }
  return {
    sharedKey,
    authorizationId: assigned.authorizationId,
    appId: options.appId,
    idType: options.idType,
    lockUuid: assigned.lockUuid,
    lockPublicKey,
  };
}

/** A frame as a decoder of either kind (unencrypted, or encrypted under the new shared key) gives it. */
interface ReceivedFrame {
  command: number;
  payload: Buffer;
  crcOk: boolean;
}

const DEFAULT_STEP_TIMEOUT_MS = 10_000;

/**
 * The framing every pairing shares (API 2.1/2.2 and 2.3): messages out as unencrypted frames, the
 * expected message in (a timeout, an Error Report, a bad CRC or another message is a
 * NukiPairingError), and the start both API levels have in common.
 */
export class NukiPairingSteps {
  /** How long to wait for each message of the lock. */
  readonly timeoutMs: number;

  constructor(
    private readonly channel: NukiPairingChannel,
    stepTimeoutMs: number | undefined,
  ) {
    this.timeoutMs = stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  }

  /** Sends one message as an unencrypted frame. */
  send(command: number, payload: Buffer): Promise<void> {
    return this.channel.send(encodeUnencryptedFrame(command, payload));
  }

  /**
   * Receives the next frame (unencrypted unless `decodeFrame` says otherwise) and decodes its
   * payload with `decode` if it is the expected command.
   */
  async receive<T>(expected: number, decode: (payload: Buffer) => T, decodeFrame: (bytes: Buffer) => ReceivedFrame = decodeUnencryptedFrame): Promise<T> {
    let bytes: Buffer;
    try {
      bytes = await this.channel.receive(this.timeoutMs);
    } catch (error) {
      throw new NukiPairingError('timeout', `No ${nukiCommandName(expected)} from the lock within ${this.timeoutMs} ms.`, { cause: error });
    }
    const frame = decodeOrFail(decodeFrame, bytes);
    if (!frame.crcOk) throw new NukiPairingError('protocol', `Bad CRC on a ${nukiCommandName(frame.command)} frame from the lock.`);
    if (frame.command === NukiCommand.errorReport) throw errorReportFailure(frame.payload);
    if (frame.command !== expected) {
      throw new NukiPairingError('protocol', `Expected ${nukiCommandName(expected)} from the lock, got ${nukiCommandName(frame.command)} (0x${hex4(frame.command)}).`);
    }
    return decodeOrFail(decode, frame.payload);
  }

  /**
   * §9 steps 3–13, the same on every API level: ask for the lock's public key, send ours, derive
   * the shared key, and authenticate both public keys with the lock's first challenge.
   */
  async authenticateKeys(keyPair: NukiKeyPair): Promise<{ sharedKey: Buffer; lockPublicKey: Buffer }> {
    // Steps 3–4: ask for the lock's public key.
    await this.send(NukiCommand.requestData, encodeRequestData({ command: NukiCommand.publicKey, additionalData: Buffer.alloc(0) }));
    const lockPublicKey = (await this.receive(NukiCommand.publicKey, decodePublicKey)).publicKey;

    // Steps 5–8: send ours; both sides derive the shared key.
    await this.send(NukiCommand.publicKey, encodePublicKey({ publicKey: keyPair.publicKey }));
    const sharedKey = deriveOrFail(keyPair, lockPublicKey);

    // Steps 9–13: authenticate both public keys with the first challenge.
    const challenge = (await this.receive(NukiCommand.challenge, decodeChallenge)).nonce;
    const authenticator = nukiAuthenticator(sharedKey, authorizationAuthenticatorBytes(keyPair.publicKey, lockPublicKey, challenge));
    await this.send(NukiCommand.authorizationAuthenticator, encodeAuthorizationAuthenticator({ authenticator }));
    return { sharedKey, lockPublicKey };
  }
}

function errorReportFailure(payload: Buffer): NukiPairingError {
  const report = decodeOrFail(decodeErrorReport, payload);
  const code = `${nukiErrorName(report.errorCode)} (0x${hex2(report.errorCode)})`;
  switch (report.errorCode) {
    case NukiErrorCode.P_ERROR_NOT_PAIRING:
      return new NukiPairingError('not_pairing_mode', `The lock is not in pairing mode: ${code}. Hold its button for 5 seconds, then retry.`);
    case NukiErrorCode.P_ERROR_BAD_AUTHENTICATOR:
      return new NukiPairingError('bad_authenticator', `The lock refused our authenticator: ${code}.`);
    case NukiErrorCode.P_ERROR_MAX_USER:
      return new NukiPairingError('max_users', `The lock has no room for another authorization: ${code}.`);
    case NukiErrorCode.K_ERROR_BAD_PIN:
      // Only an API 2.3 lock checks a PIN while pairing.
      return new NukiPairingError('bad_pin', `The lock refused the security PIN: ${code}.`);
    default:
      return new NukiPairingError('protocol', `The lock reported ${code} for ${nukiCommandName(report.command)}.`);
  }
}

/** Runs a decoder; an unreadable frame or payload is a protocol failure. */
function decodeOrFail<T>(decode: (bytes: Buffer) => T, bytes: Buffer): T {
  try {
    return decode(bytes);
  } catch (error) {
    if (error instanceof NukiFrameError) throw new NukiPairingError('protocol', `Unreadable message from the lock: ${error.message}.`, { cause: error });
    throw error;
  }
}

function deriveOrFail(keyPair: NukiKeyPair, lockPublicKey: Buffer): Buffer {
  try {
    return deriveNukiSharedKey(keyPair.secretKey, lockPublicKey);
  } catch (error) {
    throw new NukiPairingError('protocol', 'The lock sent an unusable public key.', { cause: error });
  }
}

function hex2(value: number): string {
  return value.toString(16).padStart(2, '0');
}

function hex4(value: number): string {
  return value.toString(16).padStart(4, '0');
}
