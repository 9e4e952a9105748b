import { NukiCommand, NukiErrorCode } from '../protocol/nuki-commands.js';
import { NUKI_ENCRYPTED_HEADER_LENGTH, decodeEncryptedFrame } from '../protocol/nuki-frame.js';
import { encodeErrorReport } from '../protocol/nuki-messages.js';
import type { NukiPairingContext } from './nuki-pairing-responder.js';
import { NukiCommandRefusal } from './nuki-command-refusal.js';
import { advanceKeyExchange, answerPairingFrame, type NukiKeyExchangeStep } from './nuki-key-exchange.js';
import { NUKI_AUTHORIZATION_INFO_COMMAND, decodeApi23AuthorizationData, encodeApi23AuthorizationId } from '../protocol/nuki-api23-messages.js';

/** What the API 2.3 pairing side needs beyond the API 2.2 one. */
export interface NukiApi23PairingContext extends NukiPairingContext {
  /** The lock's 6-digit security PIN, which Authorization Data must carry. */
  readonly securityPin: number;
  /** Sends one encrypted reply on the pairing GDIO. */
  replyEncrypted(sharedKey: Buffer, authorizationId: number, command: number, payload: Buffer): void;
}

type Step = NukiKeyExchangeStep | { step: 'info_sent'; sharedKey: Buffer };

/**
 * The lock side of API 2.3 pairing (docs/nuki.md "API 2.3 pairing") for one central, on the
 * pairing GDIO `a92ee301-…`: key exchange and authenticator as in API 2.2, then Authorization
 * Info, then the encrypted Authorization Data with the security PIN, answered by an encrypted
 * Authorization-ID (a wrong PIN: encrypted Error Report K_ERROR_BAD_PIN).
 */
export class NukiApi23PairingResponder {
  private state: Step = { step: 'idle' };

  constructor(private readonly context: NukiApi23PairingContext) {}

  handle(frame: Buffer): void {
    if (this.state.step === 'info_sent' && frame.length >= NUKI_ENCRYPTED_HEADER_LENGTH) {
      this.authorizationData(frame, this.state.sharedKey);
      return;
    }
    this.state = answerPairingFrame(this.context, frame, (command, payload) => this.advance(command, payload));
  }

  private advance(command: number, payload: Buffer): Step {
    const { context } = this;
    const keys = advanceKeyExchange(context, this.state, command, payload, (sharedKey): Step => {
      // Its content is not needed by the app; the simulated lock sends none.
      context.reply(NUKI_AUTHORIZATION_INFO_COMMAND, Buffer.alloc(0));
      return { step: 'info_sent', sharedKey };
    });
    if (keys === null) throw new NukiCommandRefusal(NukiErrorCode.ERROR_UNKNOWN);
    return keys;
  }

  private authorizationData(frame: Buffer, sharedKey: Buffer): void {
    const { context } = this;
    const appId = frame.readUInt32LE(24);
    this.state = { step: 'idle' };
    const refuse = (errorCode: number, command: number): void => {
      context.replyEncrypted(sharedKey, appId, NukiCommand.errorReport, encodeErrorReport({ errorCode, command }));
    };
    let decoded;
    try {
      decoded = decodeEncryptedFrame(frame, sharedKey);
    } catch {
      context.reply(NukiCommand.errorReport, encodeErrorReport({ errorCode: NukiErrorCode.P_ERROR_BAD_AUTHENTICATOR, command: NukiCommand.authorizationData }));
      return;
    }
    if (!decoded.crcOk) { refuse(NukiErrorCode.ERROR_BAD_CRC, decoded.command); return; }
    if (decoded.command !== NukiCommand.authorizationData) { refuse(NukiErrorCode.ERROR_UNKNOWN, decoded.command); return; }
    if (!context.inPairingMode()) { refuse(NukiErrorCode.P_ERROR_NOT_PAIRING, decoded.command); return; }
    let data;
    try {
      data = decodeApi23AuthorizationData(decoded.payload);
    } catch {
      refuse(NukiErrorCode.ERROR_BAD_LENGTH, decoded.command); return;
    }
    if (data.securityPin !== context.securityPin) { refuse(NukiErrorCode.K_ERROR_BAD_PIN, decoded.command); return; }
    if (context.authorizations.full) { refuse(NukiErrorCode.P_ERROR_MAX_USER, decoded.command); return; }
    const entry = { id: context.authorizations.nextId(), name: data.name, type: 'app' as const, sharedKey, appId: data.appId };
    context.completePairing(entry);
    context.replyEncrypted(sharedKey, entry.id, NukiCommand.authorizationId, encodeApi23AuthorizationId({ authorizationId: entry.id, lockUuid: context.lockUuid, trailing: Buffer.alloc(0) }));
  }
}
