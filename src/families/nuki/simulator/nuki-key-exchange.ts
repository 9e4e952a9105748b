import { NukiCommand, NukiErrorCode } from '../protocol/nuki-commands.js';
import { deriveNukiSharedKey, verifyNukiAuthenticator } from '../protocol/nuki-crypto.js';
import { decodeUnencryptedFrame } from '../protocol/nuki-frame.js';
import {
  authorizationAuthenticatorBytes,
  decodeAuthorizationAuthenticator,
  decodePublicKey,
  decodeRequestData,
  encodeAuthorizationAuthenticator,
  encodeChallenge,
  encodeErrorReport,
  encodePublicKey,
} from '../protocol/nuki-messages.js';
import { NukiCommandRefusal, errorCodeOf, exactLength } from './nuki-command-refusal.js';
import type { NukiPairingContext } from './nuki-pairing-responder.js';

/** Where one central is in the key exchange every API level starts pairing with (§9 steps 3–13). */
export type NukiKeyExchangeStep =
  | { step: 'idle' }
  | { step: 'public_key_sent' }
  | { step: 'challenge_sent'; clientPublicKey: Buffer; sharedKey: Buffer; lockNonce: Buffer };

/**
 * Handles one unencrypted frame on the pairing GDIO with `advance` and returns the next step.
 * Every error is answered with an unencrypted Error Report naming the received command, and
 * resets the exchange.
 */
export function answerPairingFrame<Step>(context: NukiPairingContext, frame: Buffer, advance: (command: number, payload: Buffer) => Step): Step | { step: 'idle' } {
  let command = 0;
  try {
    const decoded = decodeUnencryptedFrame(frame);
    command = decoded.command;
    if (!decoded.crcOk) throw new NukiCommandRefusal(NukiErrorCode.ERROR_BAD_CRC);
    return advance(decoded.command, decoded.payload);
  } catch (error) {
    context.reply(NukiCommand.errorReport, encodeErrorReport({ errorCode: errorCodeOf(error), command }));
    return { step: 'idle' };
  }
}

/**
 * The lock side of the key exchange (§9 steps 3–13): answers Request Data(Public Key) with its
 * public key, the central's Public Key with a challenge, and checks the Authorization
 * Authenticator over both keys and that challenge, after which `keysAuthenticated` answers with
 * what the API level sends next. Returns null for a command after the key exchange.
 * @throws NukiCommandRefusal outside pairing mode (every step, P_ERROR_NOT_PAIRING), out of order
 *   (ERROR_UNKNOWN), for a bad length, an unusable key or a wrong authenticator.
 */
export function advanceKeyExchange<Step>(
  context: NukiPairingContext,
  state: { readonly step: string },
  command: number,
  payload: Buffer,
  keysAuthenticated: (sharedKey: Buffer) => Step,
): NukiKeyExchangeStep | Step | null {
  // P_ERROR_NOT_PAIRING (§6) answers a public key request outside pairing mode; a pairing mode
  // that ends half-way (timeout, or another central paired) refuses the later steps the same way.
  if (!context.inPairingMode()) throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_NOT_PAIRING);
  switch (command) {
    case NukiCommand.requestData: {
      const request = decodeRequestData(payload);
      if (request.command !== NukiCommand.publicKey) throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_BAD_PARAMETER);
      context.reply(NukiCommand.publicKey, encodePublicKey({ publicKey: context.keyPair.publicKey }));
      return { step: 'public_key_sent' };
    }
    case NukiCommand.publicKey: {
      if (state.step !== 'public_key_sent') throw new NukiCommandRefusal(NukiErrorCode.ERROR_UNKNOWN);
      const { publicKey } = exactLength(decodePublicKey(payload), encodePublicKey, payload);
      let sharedKey: Buffer;
      try {
        sharedKey = deriveNukiSharedKey(context.keyPair.secretKey, publicKey);
      } catch {
        throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_BAD_PARAMETER);
      }
      const lockNonce = context.nonce32();
      context.reply(NukiCommand.challenge, encodeChallenge({ nonce: lockNonce }));
      return { step: 'challenge_sent', clientPublicKey: publicKey, sharedKey, lockNonce };
    }
    case NukiCommand.authorizationAuthenticator: {
      if (!isChallengeSent(state)) throw new NukiCommandRefusal(NukiErrorCode.ERROR_UNKNOWN);
      const { authenticator } = exactLength(decodeAuthorizationAuthenticator(payload), encodeAuthorizationAuthenticator, payload);
      const covered = authorizationAuthenticatorBytes(state.clientPublicKey, context.keyPair.publicKey, state.lockNonce);
      if (!verifyNukiAuthenticator(state.sharedKey, authenticator, covered)) throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_BAD_AUTHENTICATOR);
      return keysAuthenticated(state.sharedKey);
    }
    default:
      return null;
  }
}

function isChallengeSent(state: { readonly step: string }): state is Extract<NukiKeyExchangeStep, { step: 'challenge_sent' }> {
  return state.step === 'challenge_sent';
}
