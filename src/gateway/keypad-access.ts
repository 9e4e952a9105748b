/**
 * The keypad codes a lock stores (a Nuki with a paired Nuki Keypad, docs/design.md §4c), as the
 * gateway core offers them to the service: a family driver that has a keypad implements
 * {@link KeypadCapability}; the core runs a {@link KeypadAccess} session on a prepared
 * connection, queued with the lock's commands. Codes are six-digit strings; they are secrets and
 * never go into a log line.
 */
import type { KeypadWindow } from '../domain/door-code-window.js';
import type { Deadline } from './deadline.js';
import type { GattConnection } from './gatt-transport.js';

/** One code as the lock holds it. */
export interface KeypadCode {
  /** The lock's id of the code. */
  codeId: number;
  /** Six digits. */
  code: string;
  name: string;
  enabled: boolean;
  window: KeypadWindow;
}

/** A code to write: everything but the id. */
export type KeypadCodeWrite = Omit<KeypadCode, 'codeId'>;

/**
 * Why a keypad exchange ended without the lock's confirmation:
 * - `keypad_full`: the lock holds as many codes as it can (K_ERROR_TOO_MANY_ENTRIES);
 * - `code_exists`: the lock already holds that code (K_ERROR_CODE_ALREADY_EXISTS);
 * - `refused_by_lock`: any other refusal (a bad parameter, an unknown code id, …);
 * - `no_security_pin` / `bad_security_pin`: keypad commands need the lock's security PIN;
 * - `link_lost`: the link dropped (or a reply was unreadable) before the lock confirmed;
 * - `timeout`: no answer in time.
 */
export type KeypadFailure = 'keypad_full' | 'code_exists' | 'refused_by_lock' | 'no_security_pin' | 'bad_security_pin' | 'link_lost' | 'timeout';

/** A keypad exchange ended without the lock's confirmation; whether the lock applied it is unknown for `link_lost` and `timeout`. */
export class KeypadError extends Error {
  constructor(
    readonly failure: KeypadFailure,
    message: string,
  ) {
    super(message);
    this.name = 'KeypadError';
  }
}

/** Keypad operations on one prepared connection. Each resolves only on the lock's confirmation. @throws KeypadError */
export interface KeypadAccess {
  /** Every code the lock holds (ours and others'). */
  listCodes(): Promise<KeypadCode[]>;
  /** Adds a code; resolves with the id the lock gave it. */
  addCode(code: KeypadCodeWrite): Promise<number>;
  /** Rewrites code `codeId`. */
  updateCode(codeId: number, code: KeypadCodeWrite): Promise<void>;
  /** Removes code `codeId`. */
  removeCode(codeId: number): Promise<void>;
}

/** A driver whose lock has a keypad. */
export interface KeypadCapability {
  /** Keypad operations on a prepared connection, each exchange within `deadline`. */
  access(connection: GattConnection, deadline: Deadline): KeypadAccess;
}

/** How a keypad session ended: the work's value, or why it never ran. */
export type KeypadSessionResult<T> = { status: 'done'; value: T } | { status: 'lock_offline' } | { status: 'no_keypad' };
