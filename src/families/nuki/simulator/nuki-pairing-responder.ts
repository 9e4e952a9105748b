import { NukiCommand, NukiErrorCode, NukiIdType, NukiStatusCode } from '../protocol/nuki-commands.js';
import { deriveNukiSharedKey, nukiAuthenticator, verifyNukiAuthenticator, type NukiKeyPair } from '../protocol/nuki-crypto.js';
import { decodeUnencryptedFrame } from '../protocol/nuki-frame.js';
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
  encodeAuthorizationAuthenticator,
  encodeAuthorizationData,
  encodeAuthorizationId,
  encodeAuthorizationIdConfirmation,
  encodeChallenge,
  encodeErrorReport,
  encodePublicKey,
  encodeStatus,
} from '../protocol/nuki-messages.js';
import type { NukiAuthorization, NukiAuthorizationTable, NukiAuthorizationType } from './nuki-authorization-table.js';
import { NukiCommandRefusal, errorCodeOf, exactLength } from './nuki-command-refusal.js';

/** What the pairing side needs from the lock. */
export interface NukiPairingContext {
  /** True while the lock is in pairing mode (button held 5 s, not yet timed out or used). */
  inPairingMode(): boolean;
  readonly keyPair: NukiKeyPair;
  /** The lock's 16-byte UUID, sent in Authorization-ID. */
  readonly lockUuid: Buffer;
  readonly authorizations: NukiAuthorizationTable;
  /** A fresh 32-byte nonce. */
  nonce32(): Buffer;
  /** Stores the new authorization and ends pairing mode. */
  completePairing(entry: NukiAuthorization): void;
  /** Sends one unencrypted reply on the pairing GDIO. */
  reply(command: number, payload: Buffer): void;
}

/** Where one central is in "Authorize App" (§9). */
type PairingStep =
  | { step: 'idle' }
  | { step: 'public_key_sent' }
  | { step: 'challenge_sent'; clientPublicKey: Buffer; sharedKey: Buffer; lockNonce: Buffer }
  | { step: 'second_challenge_sent'; sharedKey: Buffer; lockNonce: Buffer }
  | { step: 'authorization_id_sent'; sharedKey: Buffer; lockNonce: Buffer; entry: NukiAuthorization };

const TYPE_BY_ID = new Map<number, NukiAuthorizationType>(Object.entries(NukiIdType).map(([name, id]) => [id, name as NukiAuthorizationType]));

/**
 * The lock side of "Authorize App" (§9) for one central, on the pairing GDIO. Every error is
 * answered with an unencrypted Error Report naming the received command, and resets the exchange.
 */
export class NukiPairingResponder {
  private state: PairingStep = { step: 'idle' };

  constructor(private readonly context: NukiPairingContext) {}

  handle(frame: Buffer): void {
    let command = 0;
    try {
      const decoded = decodeUnencryptedFrame(frame);
      command = decoded.command;
      if (!decoded.crcOk) throw new NukiCommandRefusal(NukiErrorCode.ERROR_BAD_CRC);
      this.state = this.advance(decoded.command, decoded.payload);
    } catch (error) {
      this.state = { step: 'idle' };
      this.context.reply(NukiCommand.errorReport, encodeErrorReport({ errorCode: errorCodeOf(error), command }));
    }
  }

  private advance(command: number, payload: Buffer): PairingStep {
    // P_ERROR_NOT_PAIRING (§6) answers a public key request outside pairing mode; a pairing mode
    // that ends half-way (timeout, or another central paired) refuses the later steps the same way.
    if (!this.context.inPairingMode()) throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_NOT_PAIRING);
    const { state, context } = this;
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
        if (state.step !== 'challenge_sent') throw new NukiCommandRefusal(NukiErrorCode.ERROR_UNKNOWN);
        const { authenticator } = exactLength(decodeAuthorizationAuthenticator(payload), encodeAuthorizationAuthenticator, payload);
        const covered = authorizationAuthenticatorBytes(state.clientPublicKey, context.keyPair.publicKey, state.lockNonce);
        if (!verifyNukiAuthenticator(state.sharedKey, authenticator, covered)) throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_BAD_AUTHENTICATOR);
        const lockNonce = context.nonce32();
        context.reply(NukiCommand.challenge, encodeChallenge({ nonce: lockNonce }));
        return { step: 'second_challenge_sent', sharedKey: state.sharedKey, lockNonce };
      }
      case NukiCommand.authorizationData: {
        if (state.step !== 'second_challenge_sent') throw new NukiCommandRefusal(NukiErrorCode.ERROR_UNKNOWN);
        const data = exactLength(decodeAuthorizationData(payload), encodeAuthorizationData, payload);
        if (!verifyNukiAuthenticator(state.sharedKey, data.authenticator, authorizationDataAuthenticatedBytes(data, state.lockNonce))) {
          throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_BAD_AUTHENTICATOR);
        }
        const type = TYPE_BY_ID.get(data.idType);
        if (type === undefined) throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_BAD_PARAMETER);
        // §9 step 18: the lock stores the new user here, so this is where a full list refuses.
        if (context.authorizations.full) throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_MAX_USER);
        const entry: NukiAuthorization = { id: context.authorizations.nextId(), name: data.name, type, sharedKey: state.sharedKey, appId: data.appId };
        const lockNonce = context.nonce32();
        const fields = { authorizationId: entry.id, lockUuid: context.lockUuid, nonce: lockNonce };
        const authenticator = nukiAuthenticator(state.sharedKey, authorizationIdAuthenticatedBytes(fields, data.nonce));
        context.reply(NukiCommand.authorizationId, encodeAuthorizationId({ ...fields, authenticator }));
        return { step: 'authorization_id_sent', sharedKey: state.sharedKey, lockNonce, entry };
      }
      case NukiCommand.authorizationIdConfirmation: {
        if (state.step !== 'authorization_id_sent') throw new NukiCommandRefusal(NukiErrorCode.ERROR_UNKNOWN);
        const confirmation = exactLength(decodeAuthorizationIdConfirmation(payload), encodeAuthorizationIdConfirmation, payload);
        const covered = authorizationIdConfirmationAuthenticatedBytes(confirmation.authorizationId, state.lockNonce);
        if (confirmation.authorizationId !== state.entry.id || !verifyNukiAuthenticator(state.sharedKey, confirmation.authenticator, covered)) {
          throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_BAD_AUTHENTICATOR);
        }
        // Another central may have filled the list (or taken the id) since Authorization-ID.
        if (context.authorizations.full || context.authorizations.byId(state.entry.id) !== undefined) throw new NukiCommandRefusal(NukiErrorCode.P_ERROR_MAX_USER);
        context.completePairing(state.entry);
        context.reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.COMPLETE }));
        return { step: 'idle' };
      }
      default:
        throw new NukiCommandRefusal(NukiErrorCode.ERROR_UNKNOWN);
    }
  }
}
