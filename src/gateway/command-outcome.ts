/** Why a command did not complete (docs/design.md §3 "Commands" terminal reasons the gateway can know). */
export type CommandFailureReason =
  /** The lock answered that the bolt jammed. */
  | 'jammed'
  /** The command was sent but no confirmation arrived within its timeout. */
  | 'timeout'
  /** The frame could not be written, the link dropped before the answer, or the lock refused it. */
  | 'delivery_failed'
  /** The lock could not be reached (not found, connect failed) or is not registered. */
  | 'lock_offline';

/**
 * What became of a lock/unlock command. A value, never a thrown error: `completed` only when the
 * lock confirmed the bolt reached the requested position.
 */
export type CommandOutcome =
  | { status: 'completed'; bolt: 'locked' | 'unlocked' }
  | { status: 'failed'; reason: CommandFailureReason };

/** Shorthand for a failed outcome. */
export function failed(reason: CommandFailureReason): CommandOutcome {
  return { status: 'failed', reason };
}
