import type { BoltTarget } from '../domain/lock-vocabulary.js';
import type { CommandResult } from '../lock-port/lock-port.js';

/**
 * The Matter status a LockDoor/UnlockDoor answers when the command did not end with the bolt
 * where it was asked to go (docs/design.md §5b): Busy (0x9C) when the lock's command queue is full — the
 * controller may retry later —, Failure (0x01) for every other refusal or failure.
 */
export type MatterCommandStatus = 'busy' | 'failure';

/** Why a Matter command is answered with an error status. */
export interface MatterCommandError {
  status: MatterCommandStatus;
  /** One line for the log and the status message (no secrets: reasons and lock names only). */
  message: string;
}

/** A command result → null when the lock confirmed the requested position, else the error to answer. */
export function matterCommandError(lockName: string, target: BoltTarget, result: CommandResult): MatterCommandError | null {
  const verb = target === 'locked' ? 'lock' : 'unlock';
  switch (result.status) {
    case 'completed':
      return result.bolt === target ? null : { status: 'failure', message: `${lockName}: ${verb} ended ${result.bolt}` };
    case 'failed':
      return { status: 'failure', message: `${lockName}: ${verb} failed: ${result.reason}` };
    case 'rejected':
      return { status: result.reason === 'queue_full' || result.reason === 'rate_limited' ? 'busy' : 'failure', message: `${lockName}: ${verb} refused: ${result.reason}` };
  }
}

/** The error to answer when no command could even be sent (the acting user does not exist, the lock is gone). */
export function matterRefusal(lockName: string, target: BoltTarget, why: string): MatterCommandError {
  return { status: 'failure', message: `${lockName}: ${target === 'locked' ? 'lock' : 'unlock'} refused: ${why}` };
}
