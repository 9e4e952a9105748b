import { describe, expect, it } from '@jest/globals';
import { activityOfNukiLogEntry } from '../../../../../src/families/nuki/driver/nuki-state-mapping.js';
import { NukiCompletionStatus, NukiLockAction, NukiLogEntryType } from '../../../../../src/families/nuki/protocol/nuki-commands.js';
import { NukiKeypadSource, encodeKeypadActionLogData } from '../../../../../src/families/nuki/protocol/nuki-keypad-messages.js';
import type { NukiLogEntry } from '../../../../../src/families/nuki/protocol/nuki-messages.js';
import { KEYPAD_LOCKOUT_MS, NukiKeypadLockout } from '../../../../../src/families/nuki/simulator/nuki-keypad-lockout.js';

const keypadEntry = (completionStatus: number, codeId: number): NukiLogEntry => ({
  index: 41,
  timestamp: 1_000,
  authorizationId: 3,
  name: 'Nuki Keypad',
  detail: { kind: 'other', type: NukiLogEntryType.keypadAction, data: encodeKeypadActionLogData({ action: NukiLockAction.unlock, source: NukiKeypadSource.code, completionStatus, codeId }) },
});

describe('keypad log entries (docs/design.md §4c)', () => {
  it('maps an entry with a code the lock took to an unlock naming the code id', () => {
    expect(activityOfNukiLogEntry(keypadEntry(NukiCompletionStatus.success, 7), 1, 0)).toEqual({ sequence: 41, action: 'unlock', source: 'fob', credential: null, timestamp: 1_000, keypadCodeId: 7 });
  });

  it('maps an invalid code to a refusal that carries no code (issue #32, finding 6: it was dropped)', () => {
    expect(activityOfNukiLogEntry(keypadEntry(NukiCompletionStatus.invalidCode, 0), 1, 0)).toEqual({ sequence: 41, action: 'unlock', source: 'fob', credential: null, timestamp: 1_000, keypadRefused: true });
  });

  it('still drops other failures (a blocked motor)', () => {
    expect(activityOfNukiLogEntry(keypadEntry(NukiCompletionStatus.motorBlocked, 7), 1, 0)).toBeNull();
  });
});

describe('the simulated keypad lockout (nuki-keypad-lockout.ts)', () => {
  it('waits 30 s from the 5th wrong code in a row and after every further one; a right code starts afresh', () => {
    const lockout = new NukiKeypadLockout();
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      lockout.wrong(0);
      expect(lockout.accepts(0)).toBe(true);
    }
    lockout.wrong(0);
    expect(lockout.accepts(KEYPAD_LOCKOUT_MS - 1)).toBe(false);
    expect(lockout.accepts(KEYPAD_LOCKOUT_MS)).toBe(true);
    lockout.wrong(KEYPAD_LOCKOUT_MS);
    expect(lockout.accepts(2 * KEYPAD_LOCKOUT_MS - 1)).toBe(false);
    lockout.right();
    lockout.wrong(3 * KEYPAD_LOCKOUT_MS);
    expect(lockout.accepts(3 * KEYPAD_LOCKOUT_MS)).toBe(true);
  });
});
