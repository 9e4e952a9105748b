/**
 * The lock side of the keypad commands and Update Time (Nuki Smart Lock API V2.1 §5), for the
 * simulated Nuki: each needs the current challenge and the security PIN. Replies as the lock
 * does: Add → Keypad Code ID, then Status COMPLETE; Request → Keypad Code Count, one Keypad Code
 * per code, Status COMPLETE; Update, Remove, Update Time → Status COMPLETE. A lock without a
 * keypad answers keypad commands K_ERROR_BAD_PARAMETER.
 */
import { NukiCommand, NukiErrorCode, NukiStatusCode } from '../protocol/nuki-commands.js';
import { encodeStatus } from '../protocol/nuki-messages.js';
import { NukiCommandRefusal, exactLength } from './nuki-command-refusal.js';
import {
  decodeAddKeypadCode,
  decodeRemoveKeypadCode,
  decodeRequestKeypadCodes,
  decodeUpdateKeypadCode,
  decodeUpdateTime,
  encodeAddKeypadCode,
  encodeKeypadCode,
  encodeKeypadCodeCount,
  encodeKeypadCodeId,
  encodeRemoveKeypadCode,
  encodeRequestKeypadCodes,
  encodeUpdateKeypadCode,
  encodeUpdateTime,
} from '../protocol/nuki-keypad-messages.js';
import type { NukiKeypadStore } from './nuki-keypad-store.js';

/** How a keypad write is cut short by the link (one-shot fault of the simulated Nuki). */
export type NukiKeypadWriteDrop = 'none' | 'before_applying' | 'after_applying';

/** What the keypad side needs from the lock. */
export interface NukiKeypadContext {
  /** The keypad's codes; null for a lock without a keypad. */
  readonly store: NukiKeypadStore | null;
  readonly securityPin: number;
  /** The lock's own clock (ms). */
  lockNow(): number;
  /** Update Time: the lock's clock now reads `time`. */
  setLockTime(time: number): void;
  /** Reads and resets the one-shot write-drop fault. */
  takeWriteDrop(): NukiKeypadWriteDrop;
  /** The lock's stored codes changed. */
  changed(): void;
}

/** A link the responder can cut after the replies queued so far. */
export interface NukiDroppableLink {
  dropAfterQueuedReplies(): void;
}

const KEYPAD_WRITES: ReadonlySet<number> = new Set([NukiCommand.addKeypadCode, NukiCommand.updateKeypadCode, NukiCommand.removeKeypadCode]);

export class NukiKeypadResponder {
  constructor(private readonly context: NukiKeypadContext) {}

  /** True for the commands this responder answers. */
  handles(command: number): boolean {
    return KEYPAD_WRITES.has(command) || command === NukiCommand.requestKeypadCodes || command === NukiCommand.updateTime;
  }

  /**
   * Answers one command. `takeChallenge` consumes the authorization's challenge (throws
   * K_ERROR_BAD_NONCE when the nonce is not it). @throws NukiCommandRefusal
   */
  handle(link: NukiDroppableLink, command: number, payload: Buffer, takeChallenge: (nonce: Buffer) => void, reply: (command: number, payload: Buffer) => void): void {
    const { context } = this;
    const complete = (): void => {
      reply(NukiCommand.status, encodeStatus({ status: NukiStatusCode.COMPLETE }));
    };
    if (command === NukiCommand.updateTime) {
      const request = exactLength(decodeUpdateTime(payload), encodeUpdateTime, payload);
      this.authorize(request.nonce, request.securityPin, takeChallenge);
      context.setLockTime(request.time);
      complete();
      return;
    }
    const store = context.store;
    if (command === NukiCommand.requestKeypadCodes) {
      const request = exactLength(decodeRequestKeypadCodes(payload), encodeRequestKeypadCodes, payload);
      this.authorize(request.nonce, request.securityPin, takeChallenge);
      if (store === null) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
      const codes = store.list();
      reply(NukiCommand.keypadCodeCount, encodeKeypadCodeCount({ count: codes.length }));
      for (const code of codes.slice(request.offset, request.offset + request.count)) reply(NukiCommand.keypadCode, encodeKeypadCode(code));
      complete();
      return;
    }
    // A write: the link may be cut before the lock applies it or after (before it answers).
    const drop = KEYPAD_WRITES.has(command) ? context.takeWriteDrop() : 'none';
    const apply = (): (() => void) => {
      if (command === NukiCommand.addKeypadCode) {
        const request = exactLength(decodeAddKeypadCode(payload), encodeAddKeypadCode, payload);
        this.authorize(request.nonce, request.securityPin, takeChallenge);
        if (store === null) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
        if (drop === 'before_applying') return () => undefined;
        const added = store.add(request.code, request.name, request.limits, context.lockNow());
        context.changed();
        return () => {
          reply(NukiCommand.keypadCodeId, encodeKeypadCodeId({ codeId: added.codeId, dateCreated: added.dateCreated }));
          complete();
        };
      }
      if (command === NukiCommand.updateKeypadCode) {
        const request = exactLength(decodeUpdateKeypadCode(payload), encodeUpdateKeypadCode, payload);
        this.authorize(request.nonce, request.securityPin, takeChallenge);
        if (store === null) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
        if (drop === 'before_applying') return () => undefined;
        store.update(request.codeId, request.code, request.name, request.enabled, request.limits);
        context.changed();
        return complete;
      }
      const request = exactLength(decodeRemoveKeypadCode(payload), encodeRemoveKeypadCode, payload);
      this.authorize(request.nonce, request.securityPin, takeChallenge);
      if (store === null) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
      if (drop === 'before_applying') return () => undefined;
      store.remove(request.codeId);
      context.changed();
      return complete;
    };
    const answer = apply();
    if (drop !== 'none') {
      link.dropAfterQueuedReplies();
      return;
    }
    answer();
  }

  private authorize(nonce: Buffer, securityPin: number, takeChallenge: (nonce: Buffer) => void): void {
    takeChallenge(nonce);
    if (securityPin !== this.context.securityPin) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PIN);
  }
}
