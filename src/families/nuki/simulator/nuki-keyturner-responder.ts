import { NukiCommand, NukiErrorCode, NukiLogSortOrder, NukiStatusCode } from '../protocol/nuki-commands.js';
import { NUKI_ENCRYPTED_HEADER_LENGTH, NukiFrameError, decodeEncryptedFrame } from '../protocol/nuki-frame.js';
import {
  decodeLockAction,
  decodeRequestConfig,
  decodeRequestData,
  decodeRequestLogEntries,
  decodeVerifySecurityPin,
  encodeChallenge,
  encodeErrorReport,
  encodeLogEntry,
  encodeLogEntryCount,
  encodeRequestConfig,
  encodeRequestLogEntries,
  encodeStatus,
  encodeVerifySecurityPin,
  type NukiLogEntry,
} from '../protocol/nuki-messages.js';
import { NukiUuids } from '../protocol/nuki-uuids.js';
import type { NukiAuthorization, NukiAuthorizationTable } from './nuki-authorization-table.js';
import { NukiCommandRefusal, errorCodeOf, exactLength } from './nuki-command-refusal.js';
import type { NukiIndicationLink } from './nuki-indication-link.js';
import { isSimulatedNukiAction, type NukiMoveOutcome, type NukiMoveRefusal } from './nuki-lock-mechanism.js';
import type { NukiReplySender } from './nuki-reply-sender.js';
import type { SimulatedNukiFaults } from './simulated-nuki-faults.js';
import type { NukiKeypadResponder } from '../../../families/nuki/simulator/nuki-keypad-responder.js';

/** What the keyturner side needs from the lock. */
export interface NukiKeyturnerContext {
  readonly authorizations: NukiAuthorizationTable;
  readonly faults: SimulatedNukiFaults;
  readonly sender: NukiReplySender;
  readonly securityPin: number;
  readonly hasDoorSensor: boolean;
  /** A fresh 32-byte challenge nonce. */
  nonce32(): Buffer;
  /** Keyturner States payload as the lock reports it now. */
  keyturnerStates(): Buffer;
  /** An authorized central asked for and got the Keyturner States (the beacon flag rule). */
  keyturnerStatesRead(): void;
  /** Config payload. */
  config(): Buffer;
  /** Battery Report payload. */
  batteryReport(): Buffer;
  /** Request Log Entries selection (every match; the caller takes `count`). */
  selectLog(startIndex: number, sortOrder: number): NukiLogEntry[];
  /** The User-Specific Data I/O the replies go out on (default: the Smart Lock's; the Opener has its own). */
  readonly usdio?: string;
  /** Whether the device knows a Lock Action code (default: the Smart Lock's actions). */
  isAction?(action: number): boolean;
  /** Keypad codes and Update Time (docs/design.md §4c); absent: those commands are unknown. */
  readonly keypad?: NukiKeypadResponder;
  /** Starts a motorised action for an authorization (a code `isAction` accepted); `settled` runs when the motor stops. */
  remoteAction(action: number, authorization: NukiAuthorization, nameSuffix: string | null, settled: (outcome: NukiMoveOutcome) => void): NukiMoveRefusal | 'started';
}

const SMART_LOCK_USDIO = NukiUuids.keyturnerUsdio;
/** Error Report of a frame whose command could not be read (unknown authorization, bad MAC). */
const UNREADABLE_COMMAND = 0x0000;

/**
 * The lock side of the encrypted keyturner channel (USDIO, §2.3.2, §3.2, §5). Challenges are
 * kept per authorization and are single use: every command that carries a nonce consumes the
 * current challenge, whether or not it matches (K_ERROR_BAD_NONCE when it does not).
 */
export class NukiKeyturnerResponder {
  private readonly challenges = new Map<number, Buffer>();

  constructor(private readonly context: NukiKeyturnerContext) {}

  handle(link: NukiIndicationLink, frame: Buffer): void {
    const { context } = this;
    if (frame.length < NUKI_ENCRYPTED_HEADER_LENGTH) {
      this.unencryptedError(link, NukiErrorCode.ERROR_BAD_LENGTH);
      return;
    }
    const authorization = context.faults.unknownAuthorization ? undefined : context.authorizations.byId(frame.readUInt32LE(24));
    const sharedKey = authorization?.sharedKey ?? null;
    if (authorization === undefined || sharedKey === null) {
      // K_ERROR_NOT_AUTHORIZED (§6): no key to encrypt the answer with, so it goes out unencrypted.
      this.unencryptedError(link, NukiErrorCode.K_ERROR_NOT_AUTHORIZED);
      return;
    }
    const reply = (command: number, payload: Buffer): void => {
      context.sender.encrypted(link, context.usdio ?? SMART_LOCK_USDIO, sharedKey, authorization.id, command, payload);
    };
    let command = UNREADABLE_COMMAND;
    try {
      const decoded = decodeEncryptedFrame(frame, sharedKey);
      command = decoded.command;
      if (!decoded.crcOk) throw new NukiCommandRefusal(NukiErrorCode.ERROR_BAD_CRC);
      this.dispatch(link, authorization, decoded.command, decoded.payload, reply);
    } catch (error) {
      if (error instanceof NukiFrameError && (error.reason === 'bad_mac' || error.reason === 'auth_mismatch')) {
        // §6: "the payload could not be decrypted using the shared key for this authorization id".
        this.unencryptedError(link, NukiErrorCode.K_ERROR_NOT_AUTHORIZED);
        return;
      }
      reply(NukiCommand.errorReport, encodeErrorReport({ errorCode: errorCodeOf(error), command }));
    }
  }

  private dispatch(link: NukiIndicationLink, authorization: NukiAuthorization, command: number, payload: Buffer, reply: (command: number, payload: Buffer) => void): void {
    const { context } = this;
    switch (command) {
      case NukiCommand.requestData: {
        const requested = decodeRequestData(payload).command;
        if (requested === NukiCommand.challenge) {
          const nonce = context.nonce32();
          this.challenges.set(authorization.id, nonce);
          reply(NukiCommand.challenge, encodeChallenge({ nonce }));
        } else if (requested === NukiCommand.keyturnerStates) {
          reply(NukiCommand.keyturnerStates, context.keyturnerStates());
          context.keyturnerStatesRead();
        } else if (requested === NukiCommand.batteryReport) {
          reply(NukiCommand.batteryReport, context.batteryReport());
        } else {
          throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
        }
        return;
      }
      case NukiCommand.lockAction: {
        const request = decodeLockAction(payload);
        this.takeChallenge(authorization, request.nonce);
        if (!(context.isAction ?? isSimulatedNukiAction)(request.action)) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
        if (context.faults.busy) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BUSY);
        const disconnect = context.faults.disconnectMidAction;
        const started = context.remoteAction(request.action, authorization, request.nameSuffix, (outcome) => {
          reply(NukiCommand.keyturnerStates, context.keyturnerStates());
          if (outcome === 'motor_blocked') reply(NukiCommand.errorReport, encodeErrorReport({ errorCode: NukiErrorCode.K_ERROR_MOTOR_BLOCKED, command }));
          else if (!context.faults.missingComplete) reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.COMPLETE }));
        });
        if (started === 'busy') throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BUSY);
        if (started === 'motor_blocked') throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_MOTOR_BLOCKED);
        reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.ACCEPTED }));
        if (disconnect) {
          context.faults.disconnectMidAction = false;
          link.dropAfterQueuedReplies();
          return;
        }
        reply(NukiCommand.keyturnerStates, context.keyturnerStates());
        return;
      }
      case NukiCommand.requestConfig: {
        this.takeChallenge(authorization, exactLength(decodeRequestConfig(payload), encodeRequestConfig, payload).nonce);
        reply(NukiCommand.config, context.config());
        return;
      }
      case NukiCommand.verifySecurityPin: {
        const request = exactLength(decodeVerifySecurityPin(payload), encodeVerifySecurityPin, payload);
        this.takeChallenge(authorization, request.nonce);
        if (request.securityPin !== context.securityPin) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PIN);
        reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.COMPLETE }));
        return;
      }
      case NukiCommand.requestLogEntries: {
        const request = exactLength(decodeRequestLogEntries(payload), encodeRequestLogEntries, payload);
        this.takeChallenge(authorization, request.nonce);
        if (request.securityPin !== context.securityPin) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PIN);
        if (request.sortOrder !== NukiLogSortOrder.ascending && request.sortOrder !== NukiLogSortOrder.descending) {
          throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
        }
        const selected = context.selectLog(request.startIndex, request.sortOrder);
        if (request.totalCount) {
          const hasSensor = context.hasDoorSensor;
          reply(NukiCommand.logEntryCount, encodeLogEntryCount({ loggingEnabled: true, count: selected.length, doorSensorEnabled: hasSensor, doorSensorLoggingEnabled: hasSensor }));
        }
        for (const entry of selected.slice(0, request.count)) reply(NukiCommand.logEntry, encodeLogEntry(entry));
        if (!context.faults.missingComplete) reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.COMPLETE }));
        return;
      }
      default:
        if (context.keypad?.handles(command) === true) {
          context.keypad.handle(link, command, payload, (nonce) => {
            this.takeChallenge(authorization, nonce);
          }, reply);
          return;
        }
        throw new NukiCommandRefusal(NukiErrorCode.ERROR_UNKNOWN);
    }
  }

  /** Consumes the authorization's current challenge; K_ERROR_BAD_NONCE unless `nonce` is it. */
  private takeChallenge(authorization: NukiAuthorization, nonce: Buffer): void {
    const current = this.challenges.get(authorization.id);
    this.challenges.delete(authorization.id);
    if (current === undefined || !current.equals(nonce)) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_NONCE);
  }

  private unencryptedError(link: NukiIndicationLink, errorCode: number): void {
    this.context.sender.unencrypted(link, this.context.usdio ?? SMART_LOCK_USDIO, NukiCommand.errorReport, encodeErrorReport({ errorCode, command: UNREADABLE_COMMAND }));
  }
}
