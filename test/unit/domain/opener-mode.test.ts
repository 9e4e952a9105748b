import { describe, expect, it } from '@jest/globals';
import { continuousModeEndsAt, isModeSwitch, maySwitchModes, modeSwitchedOnBy, openerModeName, switchOffDue, type ModeState } from '../../../src/domain/opener-mode.js';

const on = (mode: ModeState['mode'], setBy: string | null, limit: number | null = null): ModeState => ({ mode, setBy, onSince: 1_000, continuousLimitMinutes: limit });

describe('the Opener’s modes (src/domain/opener-mode.ts)', () => {
  it('knows the mode switches, and who may use them', () => {
    expect(['ring_to_open_on', 'ring_to_open_off', 'continuous_mode_on', 'continuous_mode_off'].every((type) => isModeSwitch(type as never))).toBe(true);
    expect(['lock', 'unlock', 'unlatch'].some((type) => isModeSwitch(type as never))).toBe(false);
    expect([maySwitchModes('owner'), maySwitchModes('admin'), maySwitchModes('guest'), maySwitchModes(null)]).toEqual([true, true, false, false]);
    expect([modeSwitchedOnBy('continuous_mode_on'), modeSwitchedOnBy('ring_to_open_on'), modeSwitchedOnBy('lock')]).toEqual(['continuous', 'ring_to_open', null]);
  });

  it('names what the Opener reports: Continuous Mode wins over Ring to Open', () => {
    expect(openerModeName({ ringToOpen: true, continuousMode: true })).toBe('continuous');
    expect(openerModeName({ ringToOpen: true, continuousMode: false })).toBe('ring_to_open');
    expect(openerModeName({ ringToOpen: false, continuousMode: false })).toBe('none');
  });

  it.each([
    ['off: nothing owed', on('none', 'u'), null, 5_000, null],
    ['set by an admin who still is one', on('continuous', 'u'), 'admin', 5_000, null],
    ['set by someone whose key ended', on('continuous', 'u'), null, 5_000, 'key_ended'],
    ['set by someone downgraded to guest', on('ring_to_open', 'u'), 'guest', 5_000, 'key_ended'],
    ['switched on elsewhere (no setter known)', on('continuous', null), null, 5_000, null],
    ['inside the cap', on('continuous', null, 1), null, 1_000 + 59_999, null],
    ['at the cap', on('continuous', null, 1), null, 1_000 + 60_000, 'time_limit'],
    ['the cap is for Continuous Mode only', on('ring_to_open', null, 1), null, 1_000_000, null],
  ] as const)('%s', (_what, state, role, now, due) => {
    expect(switchOffDue(state, role, now)).toBe(due);
  });

  it('says when Continuous Mode reaches its cap', () => {
    expect(continuousModeEndsAt(on('continuous', null, 30))).toBe(1_000 + 30 * 60_000);
    expect(continuousModeEndsAt(on('continuous', null, null))).toBeNull();
    expect(continuousModeEndsAt(on('ring_to_open', null, 30))).toBeNull();
  });
});
