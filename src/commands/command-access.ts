import type { EKeyRole } from '../domain/ekey-permissions.js';
import { usabilityReport, type UsabilityReport } from '../domain/ekey-usability-report.js';
import type { CommandRepository } from '../store/command-repository.js';
import type { LockRepository } from '../store/lock-repository.js';

/**
 * What the caller's keys allow on a lock at one instant (docs/design.md §3 Commands):
 * - `usable`: a key usable now — may send commands;
 * - `not_usable`: holds a key that is not usable now (pending, not yet valid, expired, outside
 *   its schedule) — knows the lock exists, so 403;
 * - `none`: holds no live key — the lock is not visible, so 404.
 */
export type CommandPermission = 'usable' | 'not_usable' | 'none';

/** The eKey questions the command engine asks. Small on purpose, so the eKey service can answer them. */
export interface CommandAccess {
  /** May `userId` command `lockId` at `atMs`? */
  permissionAt(userId: string, lockId: string, atMs: number): CommandPermission;
  /** The caller's role from their keys usable at `atMs` (owner, admin, guest), or null. */
  roleAt(userId: string, lockId: string, atMs: number): EKeyRole | null;
  /** Why the caller's live key on the lock is not usable at `atMs` (docs/design.md §7), or undefined without one. */
  explainAt?(userId: string, lockId: string, atMs: number): KeyExplanation | undefined;
}

/** The evaluation a refused command reports: the same as `GET /users/{user_id}/ekeys` gives. */
export interface KeyExplanation {
  ekeyId: string;
  zone: string;
  report: UsabilityReport;
}

/** The eKey service's answers (src/access/ekey-service.ts), as far as the engine needs them. */
export interface UsableKeySource {
  usableKeyFor(userId: string, lockId: string, atMs: number): unknown;
  roleOn(userId: string, lockId: string, atMs: number): EKeyRole | null;
}

function explainFromStore(commands: CommandRepository, locks: Pick<LockRepository, 'findById'>, userId: string, lockId: string, atMs: number): KeyExplanation | undefined {
  const lock = locks.findById(lockId);
  const key = lock ? commands.liveKeysOf(userId, lock.id)[0] : undefined;
  if (!lock || !key) return undefined;
  return { ekeyId: key.id, zone: lock.timeZone, report: usabilityReport(key, atMs, lock.timeZone) };
}

/**
 * {@link CommandAccess} on top of the eKey service; "holds a key that is not usable" still comes
 * from the store, since that service only answers for usable keys.
 */
export function accessFromKeyService(keys: UsableKeySource, commands: CommandRepository, locks: Pick<LockRepository, 'findById'>): CommandAccess {
  return {
    permissionAt(userId, lockId, atMs) {
      const usable = keys.usableKeyFor(userId, lockId, atMs);
      if (usable !== null && usable !== undefined) return 'usable';
      return commands.liveKeysOf(userId, lockId).length > 0 ? 'not_usable' : 'none';
    },
    roleAt: (userId, lockId, atMs) => keys.roleOn(userId, lockId, atMs),
    explainAt: (userId, lockId, atMs) => explainFromStore(commands, locks, userId, lockId, atMs),
  };
}
