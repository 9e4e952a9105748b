import { TtlockError } from '../protocol/ttlock-commands.js';
import { TtlockPasscodeType, type TtlockPasscode } from '../protocol/ttlock-passcodes.js';
import { wallClockMs, type WallClock } from '../protocol/ttlock-wall-clock.js';

/** How many passcodes the simulated lock holds (the family's door-code capacity; docs/ttlock.md). */
export const TTLOCK_PASSCODE_CAPACITY = 150;

/** A passcode operation the lock refuses, with the error code it answers. */
export class TtlockRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'TtlockRefusal';
  }
}

/**
 * The passcodes a simulated TTLock holds, as a real one holds them: digits and one window at
 * minute resolution on the lock's own wall clock (a permanent code from its start on), no names,
 * no weekday mask. A full store answers 0x16 "no free memory", an existing code 0x14, a missing
 * one 0x15 (Android `LockError`).
 */
export class TtlockPasscodeStore {
  private readonly codes = new Map<string, TtlockPasscode>();

  constructor(readonly capacity: number = TTLOCK_PASSCODE_CAPACITY) {}

  /** Every passcode, in the order they were added. */
  list(): TtlockPasscode[] {
    return [...this.codes.values()].map((passcode) => ({ ...passcode }));
  }

  get size(): number {
    return this.codes.size;
  }

  add(passcode: TtlockPasscode): void {
    if (!/^\d{4,9}$/.test(passcode.code)) throw new TtlockRefusal(0x0f, 'passcode length invalid');
    if (this.codes.has(passcode.code)) throw new TtlockRefusal(TtlockError.passcodeExists, 'passcode exists');
    if (this.codes.size >= this.capacity) throw new TtlockRefusal(TtlockError.noFreeMemory, 'no free memory');
    this.codes.set(passcode.code, { ...passcode });
  }

  modify(code: string, type: number, start: WallClock, end: WallClock): void {
    const held = this.codes.get(code);
    if (held === undefined) throw new TtlockRefusal(TtlockError.passcodeNotFound, 'passcode does not exist');
    this.codes.set(code, { ...held, type, start, end: type === TtlockPasscodeType.permanent ? null : end });
  }

  remove(code: string): void {
    if (!this.codes.delete(code)) throw new TtlockRefusal(TtlockError.passcodeNotFound, 'passcode does not exist');
  }

  clear(): void {
    this.codes.clear();
  }

  /** What typing `code` at the keypad meets on the lock's clock: it opens, it exists but is outside its window, or it is unknown. */
  judge(code: string, now: WallClock): 'valid' | 'outside_window' | 'unknown' {
    const held = this.codes.get(code);
    if (held === undefined) return 'unknown';
    const at = wallClockMs(now);
    // Minutes: a window starts at its first minute and ends before its last.
    if (at < wallClockMs(held.start)) return 'outside_window';
    if (held.end !== null && at >= wallClockMs(held.end)) return 'outside_window';
    return 'valid';
  }
}
