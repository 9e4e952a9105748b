import type { Clock } from '../domain/clock.js';
import { isInsideSchedule, isUnrestrictedSchedule } from '../domain/ekey-schedule.js';
import { isUsableAt, type UsabilityFields } from '../domain/ekey-validity.js';
import type { CredentialEntry } from '../gateway/lock-gateway.js';
import type { Logger } from '../logger.js';
import type { LockRecord } from '../store/lock-repository.js';
import { describeError } from '../domain/errors.js';

/** "No expiry" on the wire: the largest valid_until the codec carries exactly. */
export const NO_EXPIRY = Number.MAX_SAFE_INTEGER;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** A key as far as the allow-list needs it. */
export type CredentialKey = UsabilityFields & { id: string };

/**
 * The credentials of a lock usable at `now` (docs/design.md §3 eKeys "usable", read on the lock's time
 * zone), each with `validUntil` = the earliest instant the key could stop being usable: its
 * `valid_to`, or the end of its current schedule window. Schedules change state only on minute
 * boundaries, so the window's end is found by checking the boundaries up to the end of the next
 * whole hour; a window still open then gets that hour as its `validUntil`, which the periodic
 * re-evaluation extends (one re-allow per key and hour, not per minute).
 *
 * @throws RangeError for an invalid zone or a corrupt stored schedule (as `usabilityAt`).
 */
export function usableCredentials(keys: readonly CredentialKey[], zone: string, now: number): CredentialEntry[] {
  const entries: CredentialEntry[] = [];
  for (const key of keys) {
    if (!isUsableAt(key, now, zone)) continue;
    let validUntil = key.valid_to ?? NO_EXPIRY;
    if (!(isUnrestrictedSchedule(key.schedule_start) && isUnrestrictedSchedule(key.schedule_end))) {
      const horizon = (Math.floor(now / HOUR_MS) + 2) * HOUR_MS;
      let windowEnd = horizon;
      for (let boundary = (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS; boundary < Math.min(horizon, validUntil); boundary += MINUTE_MS) {
        if (!isInsideSchedule(key.schedule_start, key.schedule_end, boundary, zone)) {
          windowEnd = boundary;
          break;
        }
      }
      validUntil = Math.min(validUntil, windowEnd);
    }
    entries.push({ credential: key.id.toLowerCase(), validUntil });
  }
  return entries;
}

/** What {@link LockCredentialSync} needs. */
export interface LockCredentialSyncDependencies {
  /** The gateway (or the runtime's): which locks it manages, and where their lists go. */
  gateway: {
    lockIds(): string[];
    setCredentials(lockId: string, entries: readonly CredentialEntry[]): Promise<void>;
  };
  locks: { findById(lockId: string): Pick<LockRecord, 'id' | 'timeZone'> | undefined };
  /** Every key of a lock, any status (the eKey repository). */
  keys: { listByLock(lockId: string): CredentialKey[] };
  /** The eKey service's change hook: called after each committed change to a lock's keys. */
  changes?: { onChange(listener: (lockId: string) => void): () => void };
  clock: Clock;
  logger: Logger;
  /** Longest time between re-evaluations, ms (default 60 000; runs are aligned to minute boundaries). */
  intervalMs?: number;
}

/**
 * Keeps every gateway lock's credential allow-list equal to the keys usable now
 * (docs/ble-protocol.md "Credentials"): pushes all lists on start, one lock's list whenever its
 * eKeys change, and all lists again at every minute boundary (and at the next `valid_from`), so
 * schedules and validity windows open and close on time. The gateway writes only differences.
 *
 * @example
 * const sync = new LockCredentialSync({ gateway: runtime.gateway, locks, keys: ekeyRepository, changes: ekeyService, clock, logger });
 * sync.start(); // before runtime.start(): the first connect then writes the list
 */
export class LockCredentialSync {
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private running = false;
  private readonly intervalMs: number;

  constructor(private readonly deps: LockCredentialSyncDependencies) {
    this.intervalMs = Math.max(1_000, deps.intervalMs ?? MINUTE_MS);
  }

  /** Pushes every lock's list, listens for eKey changes and starts the re-evaluation timer. Idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe =
      this.deps.changes?.onChange((lockId) => {
        this.syncLock(lockId).catch((error: unknown) => {
          this.deps.logger.error(`Could not push the credentials of lock ${lockId}: ${describeError(error)}`);
        });
      }) ?? null;
    this.reevaluateSafely();
  }

  /** {@link reevaluate} from a timer or start(): a store fault is logged; the next run tries again. */
  private reevaluateSafely(): void {
    this.reevaluate().catch((error: unknown) => {
      this.deps.logger.error(`Could not re-evaluate the locks' credentials: ${describeError(error)}`);
    });
  }

  /** Stops listening and clears the timer. Idempotent. */
  stop(): void {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Pushes every managed lock's list now and schedules the next run. Resolves when the pushes
   * are done; never rejects. The timer calls it; tests with a manual clock may too.
   */
  async reevaluate(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const now = this.deps.clock.now();
    let nextRun = (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS;
    nextRun = Math.min(nextRun, now + this.intervalMs);
    const pushes: Promise<void>[] = [];
    for (const lockId of this.deps.gateway.lockIds()) {
      const computed = this.compute(lockId, now);
      if (computed === undefined) continue;
      if (computed.nextValidFrom !== undefined) nextRun = Math.min(nextRun, computed.nextValidFrom);
      pushes.push(this.deps.gateway.setCredentials(lockId, computed.entries));
    }
    if (this.running) {
      this.timer = setTimeout(
        () => {
          this.reevaluateSafely();
        },
        Math.max(1, nextRun - now),
      );
      this.timer.unref();
    }
    await Promise.all(pushes);
  }

  /** Pushes one lock's list now (an unmanaged lock is ignored). Never rejects. */
  async syncLock(lockId: string): Promise<void> {
    const id = lockId.toLowerCase();
    if (!this.running || !this.deps.gateway.lockIds().includes(id)) return;
    const computed = this.compute(id, this.deps.clock.now());
    if (computed !== undefined) await this.deps.gateway.setCredentials(id, computed.entries);
  }

  private compute(lockId: string, now: number): { entries: CredentialEntry[]; nextValidFrom: number | undefined } | undefined {
    try {
      const lock = this.deps.locks.findById(lockId);
      if (lock === undefined) return { entries: [], nextValidFrom: undefined };
      const keys = this.deps.keys.listByLock(lock.id);
      let nextValidFrom: number | undefined;
      for (const key of keys) {
        if (key.status === 'accepted' && key.valid_from !== null && key.valid_from > now) {
          nextValidFrom = Math.min(nextValidFrom ?? key.valid_from, key.valid_from);
        }
      }
      return { entries: usableCredentials(keys, lock.timeZone, now), nextValidFrom };
    } catch (error) {
      // A store failure (or a corrupt key) must not stop the other locks; the next run retries.
      this.deps.logger.error(`Could not compute the credentials of lock ${lockId}: ${describeError(error)}`);
      return undefined;
    }
  }
}
