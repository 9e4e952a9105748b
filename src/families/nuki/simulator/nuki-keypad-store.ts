/**
 * The codes a simulated Nuki with a paired Nuki Keypad stores, kept as the real lock keeps them
 * (docs/design.md §4c): at most {@link NUKI_KEYPAD_CAPACITY} codes (K_ERROR_TOO_MANY_ENTRIES
 * beyond), six digits 1–9 not starting with `12` (K_ERROR_BAD_PARAMETER otherwise), each code once
 * (K_ERROR_CODE_ALREADY_EXISTS), ids the lock assigns and never reuses. A typed code is judged
 * by the lock itself, on its own clock and in its own time zone ({@link keypadLimitsAllow}).
 */
import { NukiErrorCode } from '../protocol/nuki-commands.js';
import { NukiCommandRefusal } from './nuki-command-refusal.js';
import { keypadLimitsAllow } from '../protocol/nuki-keypad-window.js';
import type { NukiKeypadCode, NukiKeypadTimeLimits } from '../protocol/nuki-keypad-messages.js';

/** How many codes a Nuki Keypad holds (the vendor's figure for the Keypad: 100 entries). */
export const NUKI_KEYPAD_CAPACITY = 100;

/** What a typed code did: the lock's judgement. */
export type NukiKeypadJudgement = { accepted: true; code: NukiKeypadCode } | { accepted: false };

export class NukiKeypadStore {
  private readonly codes = new Map<number, NukiKeypadCode>();
  private nextId = 1;

  constructor(readonly capacity: number = NUKI_KEYPAD_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`keypad capacity must be a positive integer, not ${capacity}`);
  }

  /** Every code, by id. */
  list(): NukiKeypadCode[] {
    return [...this.codes.values()].sort((a, b) => a.codeId - b.codeId).map((code) => ({ ...code }));
  }

  /** Add Keypad Code; returns the new code (enabled). @throws NukiCommandRefusal */
  add(code: number, name: string, limits: NukiKeypadTimeLimits, now: number): NukiKeypadCode {
    assertValidCode(code);
    if (this.byCode(code) !== undefined) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_CODE_ALREADY_EXISTS);
    if (this.codes.size >= this.capacity) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_TOO_MANY_ENTRIES);
    const stored: NukiKeypadCode = { codeId: this.nextId++, code, name, enabled: true, dateCreated: wholeSeconds(now), dateLastActive: null, lockCount: 0, limits };
    this.codes.set(stored.codeId, stored);
    return { ...stored };
  }

  /** Update Keypad Code. @throws NukiCommandRefusal (unknown id: K_ERROR_BAD_PARAMETER) */
  update(codeId: number, code: number, name: string, enabled: boolean, limits: NukiKeypadTimeLimits): void {
    const stored = this.codes.get(codeId);
    if (stored === undefined) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
    assertValidCode(code);
    const holder = this.byCode(code);
    if (holder !== undefined && holder.codeId !== codeId) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_CODE_ALREADY_EXISTS);
    this.codes.set(codeId, { ...stored, code, name, enabled, limits });
  }

  /** Remove Keypad Code. @throws NukiCommandRefusal (unknown id: K_ERROR_BAD_PARAMETER) */
  remove(codeId: number): void {
    if (!this.codes.delete(codeId)) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
  }

  /**
   * A code typed on the keypad at `lockNow` (the lock's clock), judged in the lock's `zone`: it
   * opens when a stored code matches, is enabled and is inside its limits.
   */
  judge(typed: string, lockNow: number, zone: string): NukiKeypadJudgement {
    if (!/^\d{6}$/.test(typed)) return { accepted: false };
    const stored = this.byCode(Number(typed));
    if (stored === undefined || !stored.enabled || !keypadLimitsAllow(stored.limits, lockNow, zone)) return { accepted: false };
    const used = { ...stored, dateLastActive: wholeSeconds(lockNow), lockCount: stored.lockCount + 1 };
    this.codes.set(stored.codeId, used);
    return { accepted: true, code: { ...used } };
  }

  private byCode(code: number): NukiKeypadCode | undefined {
    for (const stored of this.codes.values()) if (stored.code === code) return stored;
    return undefined;
  }
}

function assertValidCode(code: number): void {
  const text = String(code);
  if (!/^[1-9]{6}$/.test(text) || text.startsWith('12')) throw new NukiCommandRefusal(NukiErrorCode.K_ERROR_BAD_PARAMETER);
}

function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
