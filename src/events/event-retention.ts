import type { Clock } from '../domain/clock.js';
import type { Logger } from '../logger.js';
import type { EventRepository } from '../store/event-repository.js';
import { describeError } from '../domain/errors.js';

/** How long events are kept (plugin config `events`); both limits optional, both may apply. */
export interface RetentionPolicy {
  /** Events recorded longer ago than this many days are removed (recording time, not the lock's clock). */
  maxAgeDays?: number | undefined;
  /** Only the newest this-many events of each lock are kept. */
  maxPerLock?: number | undefined;
}

export interface EventRetentionDependencies {
  events: EventRepository;
  clock: Clock;
  logger: Logger;
  transaction: <T>(work: () => T) => T;
  policy: RetentionPolicy;
  /** Events deleted per transaction (default 500): small, so a request never waits long. */
  batchSize?: number;
  /** Pause between prune rounds when there was nothing to do (default 10 minutes). */
  idleMs?: number;
}

const DAY_MS = 86_400_000;

/**
 * Background pruning of old events. Each step deletes at most one small batch in its own
 * transaction (the repository takes the deleted events off the counters in it, so `count` stays exact) and then
 * yields to the event loop, so HTTP requests interleave with a large prune.
 */
export class EventRetention {
  private readonly batchSize: number;
  private readonly idleMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly deps: EventRetentionDependencies) {
    this.batchSize = deps.batchSize ?? 500;
    this.idleMs = deps.idleMs ?? 10 * 60_000;
  }

  /** Whether any limit is configured. */
  get enabled(): boolean {
    return this.deps.policy.maxAgeDays !== undefined || this.deps.policy.maxPerLock !== undefined;
  }

  /** Deletes at most one batch of events beyond the policy; returns how many it deleted. */
  pruneStep(): number {
    const { events, policy } = this.deps;
    return this.deps.transaction(() => {
      if (policy.maxAgeDays !== undefined) {
        const cutoff = this.deps.clock.now() - policy.maxAgeDays * DAY_MS;
        const deleted = events.deleteSeqs(events.seqsRecordedBefore(cutoff, this.batchSize));
        if (deleted > 0) return deleted;
      }
      if (policy.maxPerLock !== undefined) {
        for (const { lockId, total } of events.totalsByLock()) {
          const excess = total - policy.maxPerLock;
          if (excess > 0) return events.deleteSeqs(events.oldestSeqs(lockId, Math.min(excess, this.batchSize)));
        }
      }
      return 0;
    });
  }

  /** Runs steps until nothing is left to prune (tests, CLI); returns the total deleted. */
  pruneAll(): number {
    let total = 0;
    for (let deleted = this.pruneStep(); deleted > 0; deleted = this.pruneStep()) total += deleted;
    return total;
  }

  /** Starts pruning in the background: batches back to back while there is work, then idles. */
  start(): void {
    if (!this.enabled || this.running) return;
    this.running = true;
    const round = (): void => {
      if (!this.running) return;
      let deleted = 0;
      try {
        deleted = this.pruneStep();
      } catch (error) {
        this.deps.logger.error(`event retention: ${describeError(error)}`);
      }
      if (deleted > 0) {
        this.timer = setTimeout(round, 0);
      } else {
        this.timer = setTimeout(round, this.idleMs);
      }
      this.timer.unref();
    };
    this.timer = setTimeout(round, 0);
    this.timer.unref();
  }

  /** Stops the background pruning (service shutdown). */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
