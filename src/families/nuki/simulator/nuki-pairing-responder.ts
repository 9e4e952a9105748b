import { NukiCommand, NukiErrorCode, NukiIdType, NukiStatusCode } from '../protocol/nuki-commands.js';
import { nukiAuthenticator, verifyNukiAuthenticator, type NukiKeyPair } from '../protocol/nuki-crypto.js';
import {
  authorizationDataAuthenticatedBytes,
  authorizationIdAuthenticatedBytes,
  authorizationIdConfirmationAuthenticatedBytes,
  decodeAuthorizationData,
  decodeAuthorizationIdConfirmation,
  encodeAuthorizationData,
  encodeAuthorizationId,
  encodeAuthorizationIdConfirmation,
  encodeChallenge,
  encodeStatus,
} from '../protocol/nuki-messages.js';
import type { NukiAuthorization, NukiAuthorizationTable, NukiAuthorizationType } from './nuki-authorization-table.js';
import { NukiCommandRefusal, exactLength } from './nuki-command-refusal.js';
import { advanceKeyExchange, answerPairingFrame, type NukiKeyExchangeStep } from './nuki-key-exchange.js';

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
  | NukiKeyExchangeStep
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
    this.state = answerPairingFrame(this.context, frame, (command, payload) => this.advance(command, payload));
  }

  private advance(command: number, payload: Buffer): PairingStep {
    const { state, context } = this;
    const keys = advanceKeyExchange(context, state, command, payload, (sharedKey): PairingStep => {
      const lockNonce = context.nonce32();
      context.reply(NukiCommand.challenge, encodeChallenge({ nonce: lockNonce }));
      return { step: 'second_challenge_sent', sharedKey, lockNonce };
    });
    if (keys !== null) return keys;
    switch (command) {
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
