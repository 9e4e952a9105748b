/**
 * The Nuki Opener's modes as the service governs them (docs/design.md §4d; issue #32, finding 2:
 * a guest could leave the building door opening on every ring). Pure: which commands are mode
 * switches, what the lock list calls a mode, and when the service owes a switch-off — because the
 * key of whoever switched the mode on no longer makes them an owner or admin (revoked, expired,
 * downgraded), or because Continuous Mode ran past the owner's cap.
 */
import { eventShapeOfCommand, type LockCommandType } from './lock-command-type.js';
import type { EKeyRole } from './ekey-permissions.js';
import type { OpenerModes } from './lock-vocabulary.js';

/** An Opener's mode as the API names it (`opener_mode`). */
export type OpenerModeName = 'none' | 'ring_to_open' | 'continuous';

/** Why the service switches a mode off. */
export type SwitchOffReason = 'key_ended' | 'time_limit';

/** The longest cap an owner may set on Continuous Mode: a week, in minutes. */
export const MAX_CONTINUOUS_LIMIT_MINUTES = 7 * 24 * 60;

/** Whether `type` switches an Opener mode on or off — for owners and admins only. */
export function isModeSwitch(type: LockCommandType): boolean {
  return eventShapeOfCommand(type).mode !== undefined;
}

/** Whether `role` may switch an Opener's modes. */
export function maySwitchModes(role: EKeyRole | null): boolean {
  return role === 'owner' || role === 'admin';
}

/** The mode an Opener reports, as one name: Continuous Mode wins (every ring opens), then Ring to Open. */
export function openerModeName(modes: OpenerModes): OpenerModeName {
  if (modes.continuousMode) return 'continuous';
  return modes.ringToOpen ? 'ring_to_open' : 'none';
}

/** The mode a completed command left on, or null when it switched nothing on. */
export function modeSwitchedOnBy(type: LockCommandType): OpenerModeName | null {
  if (type === 'ring_to_open_on') return 'ring_to_open';
  if (type === 'continuous_mode_on') return 'continuous';
  return null;
}

/** The command that switches `mode` off. */
export function switchOffCommand(mode: Exclude<OpenerModeName, 'none'>): LockCommandType {
  return mode === 'continuous' ? 'continuous_mode_off' : 'ring_to_open_off';
}

/** What decides whether a mode must go off now. */
export interface ModeState {
  mode: OpenerModeName;
  /** Who switched it on through the service; null: nobody known (the vendor's app, the Opener's button). */
  setBy: string | null;
  /** When it was first seen on. */
  onSince: number | null;
  continuousLimitMinutes: number | null;
}

/** When Continuous Mode reaches the owner's cap (epoch ms), or null without one. */
export function continuousModeEndsAt(state: ModeState): number | null {
  if (state.mode !== 'continuous' || state.continuousLimitMinutes === null || state.onSince === null) return null;
  return state.onSince + state.continuousLimitMinutes * 60_000;
}

/**
 * Whether the service owes a switch-off at `now`, and why: the setter's role on the lock now
 * (`setterRole`, null without a usable key) is no longer owner or admin, or Continuous Mode ran
 * past its cap. A mode nobody known switched on is left alone, except for the cap.
 */
export function switchOffDue(state: ModeState, setterRole: EKeyRole | null, now: number): SwitchOffReason | null {
  if (state.mode === 'none') return null;
  if (state.setBy !== null && !maySwitchModes(setterRole)) return 'key_ended';
  const endsAt = continuousModeEndsAt(state);
  return endsAt !== null && now >= endsAt ? 'time_limit' : null;
}
