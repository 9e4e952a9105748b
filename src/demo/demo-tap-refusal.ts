import type { Clock } from '../domain/clock.js';
import { usabilityAt } from '../domain/ekey-validity.js';
import type { CommandRepository } from '../store/command-repository.js';
import type { LockRepository } from '../store/lock-repository.js';

/** What the demo's tap check reads. */
export interface DemoTapRefusalSources {
  locks: Pick<LockRepository, 'findById'>;
  commands: Pick<CommandRepository, 'keyById'>;
  clock: Clock;
}

/**
 * Why a simulated lock without a gateway connection refuses a tap by `ekeyId` now (docs/design.md §3: taps
 * are checked when they happen), or null. Locks the gateway reaches decide by themselves, from the
 * allow-list it keeps in sync (also while out of reach, with their last list); only a lock the
 * gateway never reaches gets no list, so the demo checks for it here.
 */
export function demoTapRefusal(sources: DemoTapRefusalSources, lockId: string, ekeyId: string): string | null {
  const lock = sources.locks.findById(lockId);
  if (lock?.overBluetooth) return null;
  const key = sources.commands.keyById(ekeyId);
  if (key === undefined || lock === undefined || key.lock_id !== lock.id) return 'unknown eKey for this lock';
  const usability = usabilityAt(key, sources.clock.now(), lock.timeZone);
  return usability === 'usable' ? null : usability;
}
