import type { KeypadWindow } from '../../../domain/door-code-window.js';
import type { Deadline } from '../../../gateway/deadline.js';
import { KeypadError, type KeypadAccess, type KeypadCode, type KeypadCodeWrite, type KeypadFailure } from '../../../gateway/keypad-access.js';
import { TtlockCommand, TtlockError } from '../protocol/ttlock-commands.js';
import { decodePasscodePage, encodePasscodeListRequest, encodePasscodeRequest, OPEN_END, OPEN_START, TtlockPasscodeType, type TtlockPasscode } from '../protocol/ttlock-passcodes.js';
import { instantOf, wallClockAt, wallClockMs, type WallClock } from '../protocol/ttlock-wall-clock.js';
import { TtlockExchangeError } from './ttlock-channel.js';
import { codeOfKeypadCodeId, keypadCodeIdOf } from './ttlock-keypad-code-id.js';

/** What the keypad access needs from the driver on one connection. */
export interface TtlockAdminExchange {
  /** The lock's admin login (CHECK_ADMIN, CHECK_RANDOM). @throws TtlockExchangeError */
  login(deadline: Deadline): Promise<void>;
  /** One request and the data of its successful reply. @throws TtlockExchangeError */
  request(command: number, payload: Buffer, deadline: Deadline): Promise<Buffer>;
}

/** At most this many pages are read from PWD_LIST (a lock holds a few hundred codes at most). */
const MAX_LIST_PAGES = 400;

const MINUTE_MS = 60_000;

/**
 * Window bounds as the lock can hold them, in whole minutes: both round down. The end never comes
 * later than the key's; a start inside a minute opens the code at that minute's beginning, so a
 * key sent now has a code that works now (docs/ttlock.md "Door codes").
 */
function lockMinutes(window: KeypadWindow, zone: string): { start: WallClock; end: WallClock | null } {
  const start = window.allowedFrom === null ? OPEN_START : wallClockAt(Math.floor(window.allowedFrom / MINUTE_MS) * MINUTE_MS, zone);
  const end = window.allowedUntil === null ? null : wallClockAt(Math.floor(window.allowedUntil / MINUTE_MS) * MINUTE_MS, zone);
  return { start, end };
}

const isOpenStart = (time: WallClock): boolean => wallClockMs(time) <= wallClockMs(OPEN_START);
const isOpenEnd = (time: WallClock | null): boolean => time === null || wallClockMs(time) >= wallClockMs(OPEN_END);

/** A passcode as the service's keypad vocabulary holds it: no names, always on, no weekly window. */
export function keypadCodeOfPasscode(passcode: TtlockPasscode, zone: string): KeypadCode {
  return {
    codeId: keypadCodeIdOf(passcode.code),
    code: passcode.code,
    name: '',
    enabled: true,
    window: {
      allowedFrom: isOpenStart(passcode.start) ? null : instantOf(passcode.start, zone),
      allowedUntil: isOpenEnd(passcode.end) || passcode.end === null ? null : instantOf(passcode.end, zone),
      weekdays: [],
      fromTime: null,
      untilTime: null,
    },
  };
}

/**
 * The keypad codes of a TTLock (docs/design.md §4c, §4f) on one prepared connection: passcodes
 * with one validity window at minute resolution on the lock's local clock (the lock's zone), no
 * names, no off switch, no weekly window — the door-code engine knows that from the family's
 * rules and never asks for them. Admin operations: the session logs in once.
 */
export class TtlockKeypadAccess implements KeypadAccess {
  private loggedIn = false;
  /** The type of each code the last listing saw (REMOVE_ONE names it). */
  private readonly types = new Map<number, number>();

  constructor(
    private readonly exchange: TtlockAdminExchange,
    private readonly zone: string,
    private readonly deadline: Deadline,
  ) {}

  async listCodes(): Promise<KeypadCode[]> {
    return this.guarded(async () => {
      await this.login();
      const codes: KeypadCode[] = [];
      let sequence = 0;
      for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
        const read = decodePasscodePage(await this.exchange.request(TtlockCommand.passcodeList, encodePasscodeListRequest(sequence), this.deadline));
        if (read.end) break;
        for (const passcode of read.passcodes) {
          const code = keypadCodeOfPasscode(passcode, this.zone);
          this.types.set(code.codeId, passcode.type);
          codes.push(code);
        }
        if (read.nextSequence === 0 || read.nextSequence === sequence) break;
        sequence = read.nextSequence;
      }
      return codes;
    });
  }

  async addCode(code: KeypadCodeWrite): Promise<number> {
    const passcode = this.passcodeOf(code);
    return this.guarded(async () => {
      await this.login();
      await this.exchange.request(TtlockCommand.managePasscode, encodePasscodeRequest({ op: 'add', passcode }), this.deadline);
      const codeId = keypadCodeIdOf(passcode.code);
      this.types.set(codeId, passcode.type);
      return codeId;
    });
  }

  async updateCode(codeId: number, code: KeypadCodeWrite): Promise<void> {
    if (codeOfKeypadCodeId(codeId) !== code.code) throw new KeypadError('refused_by_lock', 'a TTLock passcode keeps its digits: a new code is added instead');
    const passcode = this.passcodeOf(code);
    const end = passcode.end ?? OPEN_END;
    await this.guarded(async () => {
      await this.login();
      // MODIFY rewrites the window; a permanent window is written as the SDK's far period.
      await this.exchange.request(TtlockCommand.managePasscode, encodePasscodeRequest({ op: 'modify', type: TtlockPasscodeType.period, code: passcode.code, start: passcode.start, end }), this.deadline);
      this.types.set(codeId, TtlockPasscodeType.period);
    });
  }

  async removeCode(codeId: number): Promise<void> {
    const code = codeOfKeypadCodeId(codeId);
    if (code === null) throw new KeypadError('refused_by_lock', 'not a TTLock passcode id');
    await this.guarded(async () => {
      await this.login();
      await this.exchange.request(TtlockCommand.managePasscode, encodePasscodeRequest({ op: 'remove', type: this.types.get(codeId) ?? TtlockPasscodeType.period, code }), this.deadline);
      this.types.delete(codeId);
    });
  }

  private passcodeOf(code: KeypadCodeWrite): TtlockPasscode {
    if (!code.enabled) throw new KeypadError('refused_by_lock', 'a TTLock passcode cannot be switched off; it is taken off the lock instead');
    if (code.window.weekdays.length > 0 || code.window.fromTime !== null || code.window.untilTime !== null) {
      throw new KeypadError('refused_by_lock', 'a TTLock passcode holds one date range, no weekly window');
    }
    const { start, end } = lockMinutes(code.window, this.zone);
    if (code.window.allowedFrom === null && code.window.allowedUntil === null) return { type: TtlockPasscodeType.permanent, code: code.code, start, end: null };
    return { type: TtlockPasscodeType.period, code: code.code, start, end: end ?? OPEN_END };
  }

  private async login(): Promise<void> {
    if (this.loggedIn) return;
    await this.exchange.login(this.deadline);
    this.loggedIn = true;
  }

  /** Runs an exchange; its failures become KeypadErrors (docs/design.md §4c failure reasons). */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof KeypadError) throw error;
      if (!(error instanceof TtlockExchangeError)) throw error;
      throw new KeypadError(keypadFailureOf(error), error.message);
    }
  }
}

function keypadFailureOf(error: TtlockExchangeError): KeypadFailure {
  const failure = error.failure;
  switch (failure.kind) {
    case 'expired':
      return 'timeout';
    case 'link_lost':
    case 'write_failed':
    case 'unreadable':
      return 'link_lost';
    case 'refused':
      if (failure.code === TtlockError.noFreeMemory) return 'keypad_full';
      if (failure.code === TtlockError.passcodeExists) return 'code_exists';
      return 'refused_by_lock';
  }
}
