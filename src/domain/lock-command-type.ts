/**
 * Remote command types (docs/design.md §3 Commands, §4d): `lock` and `unlock` for every lock;
 * `unlatch` (pull the latch so the door swings open) for locks that can; the Ring to Open and
 * Continuous Mode switches of an intercom's door opener. Each family lists the ones its locks run
 * (src/families/registry.ts `commandTypesOf`); a command a lock cannot run is refused with 400
 * `unsupported_command`.
 */
export const LOCK_COMMAND_TYPES = ['lock', 'unlock', 'unlatch', 'ring_to_open_on', 'ring_to_open_off', 'continuous_mode_on', 'continuous_mode_off'] as const;

/** One of {@link LOCK_COMMAND_TYPES}. */
export type LockCommandType = (typeof LOCK_COMMAND_TYPES)[number];

/** The mode an Opener command switches (docs/design.md §4d). */
export type OpenerMode = 'ring_to_open' | 'continuous_mode';

/** What a completed command is recorded as: a lock or unlock event, with what distinguishes it. */
export interface CommandEventShape {
  type: 'lock' | 'unlock';
  /** `unlatch`: the door was unlatched. */
  unlatched?: true;
  /** The Opener mode switched on (unlock) or off (lock). */
  mode?: OpenerMode;
}

/**
 * docs/design.md §4d: `unlatch` → `unlock` with `"unlatched": true`; `ring_to_open_on` /
 * `continuous_mode_on` → `unlock` with the mode; their `_off` → `lock` with the mode.
 */
export function eventShapeOfCommand(type: LockCommandType): CommandEventShape {
  switch (type) {
    case 'lock':
    case 'unlock':
      return { type };
    case 'unlatch':
      return { type: 'unlock', unlatched: true };
    case 'ring_to_open_on':
      return { type: 'unlock', mode: 'ring_to_open' };
    case 'ring_to_open_off':
      return { type: 'lock', mode: 'ring_to_open' };
    case 'continuous_mode_on':
      return { type: 'unlock', mode: 'continuous_mode' };
    case 'continuous_mode_off':
      return { type: 'lock', mode: 'continuous_mode' };
  }
}

/** The bolt state a completed command leaves (docs/design.md §4d: the Opener's "bolt"). */
export function boltAfterCommand(type: LockCommandType): 'locked' | 'unlocked' {
  return eventShapeOfCommand(type).type === 'lock' ? 'locked' : 'unlocked';
}
