/**
 * Keypad codes over the Nuki keyturner channel (docs/design.md §4c): Request Keypad Codes, Add,
 * Update and Remove Keypad Code, each with a fresh challenge and the security PIN. Every operation
 * resolves only on the lock's confirmation (Keypad Code ID, or Status COMPLETE); a lock error, a
 * lost link or silence is a {@link KeypadError}.
 */
import type { Deadline } from '../../../gateway/deadline.js';
import type { NukiMessage } from './nuki-keyturner-channel.js';
import { KeypadError, type KeypadAccess, type KeypadCode, type KeypadCodeWrite } from '../../../gateway/keypad-access.js';
import { NukiCommand, NukiErrorCode, NukiStatusCode } from '../protocol/nuki-commands.js';
import { decodeStatus } from '../protocol/nuki-messages.js';
import {
  decodeKeypadCode,
  decodeKeypadCodeCount,
  decodeKeypadCodeId,
  encodeAddKeypadCode,
  encodeRemoveKeypadCode,
  encodeRequestKeypadCodes,
  encodeUpdateKeypadCode,
} from '../protocol/nuki-keypad-messages.js';
import { keypadLimitsOfWindow, windowOfKeypadLimits } from '../protocol/nuki-keypad-window.js';

/** What the driver lends a keypad session: its channel's exchanges, errors already as KeypadErrors. */
export interface NukiKeypadExchange {
  /** The lock's security PIN; null when none is stored (keypad commands then fail `no_security_pin`). */
  readonly securityPin: number | null;
  /** A fresh challenge nK. @throws KeypadError */
  challenge(deadline: Deadline): Promise<Buffer>;
  /** @throws KeypadError */
  send(command: number, payload: Buffer): Promise<void>;
  /** The next message; an Error Report, silence or a lost link is thrown. @throws KeypadError */
  receive(deadline: Deadline): Promise<NukiMessage>;
}

/** Codes asked for per Request Keypad Codes (the lock sends its count first). */
const PAGE_SIZE = 100;

/** The KeypadAccess of one Nuki connection. */
export class NukiKeypadAccess implements KeypadAccess {
  constructor(
    private readonly exchange: NukiKeypadExchange,
    private readonly deadline: Deadline,
  ) {}

  async listCodes(): Promise<KeypadCode[]> {
    const codes: KeypadCode[] = [];
    for (let offset = 0; ; offset += PAGE_SIZE) {
      const securityPin = this.pin();
      const nonce = await this.exchange.challenge(this.deadline);
      await this.exchange.send(NukiCommand.requestKeypadCodes, encodeRequestKeypadCodes({ offset, count: PAGE_SIZE, nonce, securityPin }));
      let total: number | null = null;
      let received = 0;
      for (;;) {
        const message = await this.exchange.receive(this.deadline);
        if (message.command === NukiCommand.keypadCodeCount) {
          total = decodeKeypadCodeCount(message.payload).count;
          if (Math.min(PAGE_SIZE, Math.max(0, total - offset)) === received) break;
          continue;
        }
        if (message.command === NukiCommand.keypadCode) {
          const code = decodeKeypadCode(message.payload);
          codes.push({ codeId: code.codeId, code: String(code.code), name: code.name, enabled: code.enabled, window: windowOfKeypadLimits(code.limits) });
          received += 1;
          if (total !== null && Math.min(PAGE_SIZE, Math.max(0, total - offset)) === received) break;
          continue;
        }
        if (message.command === NukiCommand.status && decodeStatus(message.payload).status === NukiStatusCode.COMPLETE) break;
      }
      if (total === null || offset + PAGE_SIZE >= total) return codes;
    }
  }

  async addCode(code: KeypadCodeWrite): Promise<number> {
    const securityPin = this.pin();
    const nonce = await this.exchange.challenge(this.deadline);
    await this.exchange.send(
      NukiCommand.addKeypadCode,
      encodeAddKeypadCode({ code: Number(code.code), name: code.name, limits: keypadLimitsOfWindow(code.window), nonce, securityPin }),
    );
    const id = decodeKeypadCodeId((await this.expect(NukiCommand.keypadCodeId)).payload).codeId;
    // A new code is enabled; one added disabled is switched off at once (Add has no enabled flag).
    if (!code.enabled) await this.updateCode(id, code);
    return id;
  }

  async updateCode(codeId: number, code: KeypadCodeWrite): Promise<void> {
    const securityPin = this.pin();
    const nonce = await this.exchange.challenge(this.deadline);
    await this.exchange.send(
      NukiCommand.updateKeypadCode,
      encodeUpdateKeypadCode({ codeId, code: Number(code.code), name: code.name, enabled: code.enabled, limits: keypadLimitsOfWindow(code.window), nonce, securityPin }),
    );
    await this.complete();
  }

  async removeCode(codeId: number): Promise<void> {
    const securityPin = this.pin();
    const nonce = await this.exchange.challenge(this.deadline);
    await this.exchange.send(NukiCommand.removeKeypadCode, encodeRemoveKeypadCode({ codeId, nonce, securityPin }));
    await this.complete();
  }

  private pin(): number {
    const pin = this.exchange.securityPin;
    if (pin === null) throw new KeypadError('no_security_pin', 'no security PIN is stored for this lock; pair it again with "ekey-locks nuki pair --pin"');
    return pin;
  }

  private async expect(command: number): Promise<NukiMessage> {
    for (;;) {
      const message = await this.exchange.receive(this.deadline);
      if (message.command === command) return message;
    }
  }

  private async complete(): Promise<void> {
    for (;;) {
      const message = await this.exchange.receive(this.deadline);
      if (message.command === NukiCommand.status && decodeStatus(message.payload).status === NukiStatusCode.COMPLETE) return;
    }
  }
}

/** The KeypadFailure of a Nuki error code (§6). */
export function keypadFailureOfNukiError(code: number): KeypadError['failure'] {
  switch (code & 0xff) {
    case NukiErrorCode.K_ERROR_TOO_MANY_ENTRIES:
      return 'keypad_full';
    case NukiErrorCode.K_ERROR_CODE_ALREADY_EXISTS:
      return 'code_exists';
    case NukiErrorCode.K_ERROR_BAD_PIN:
      return 'bad_security_pin';
    default:
      return 'refused_by_lock';
  }
}
