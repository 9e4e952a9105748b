/**
 * Commands per user and lock, for everyone but the lock's owners (issue #32, finding 10;
 * docs/commands.md "Limits"; the engine decides whom it asks): a token bucket of
 * {@link COMMAND_BURST} commands that refills one every {@link COMMAND_REFILL_MS} — a person
 * pressing Lock and Unlock, or an automation, never meets it; a script queueing thousands of
 * commands (and, through them, events) meets it within a second. Times come from the service's
 * clock, so tests move time instead of sleeping. Per user *and* lock: one user's burst on one
 * door neither slows another user nor another door. The table is bounded: past
 * {@link MAX_TRACKED} pairs the least recently used are forgotten (a forgotten pair starts full).
 */

/** Commands a user may send to one lock at once. */
export const COMMAND_BURST = 10;
/** One more command every this many ms (10 a minute, sustained). */
export const COMMAND_REFILL_MS = 6_000;
/** (user, lock) pairs remembered at most. */
const MAX_TRACKED = 10_000;

/** A bucket counted in milliseconds of credit (one command costs `refillMs`): whole numbers, no drift. */
interface Bucket {
  credit: number;
  /** When `credit` was last brought up to date (epoch ms). */
  at: number;
}

export interface CommandRateLimitOptions {
  burst?: number;
  refillMs?: number;
}

export class CommandRateLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillMs: number;
  private readonly fullCredit: number;

  constructor(options: CommandRateLimitOptions = {}) {
    this.refillMs = options.refillMs ?? COMMAND_REFILL_MS;
    this.fullCredit = (options.burst ?? COMMAND_BURST) * this.refillMs;
  }

  /** Takes one command for `userId` on `lockId` at `now`: 0 when allowed, else ms until the next one is. */
  take(userId: string, lockId: string, now: number): number {
    const key = `${userId} ${lockId}`;
    const bucket = this.refilled(this.buckets.get(key), now);
    if (bucket.credit < this.refillMs) return this.refillMs - bucket.credit;
    bucket.credit -= this.refillMs;
    // Re-inserted, so the map's order is least recently used first.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    this.forgetOldest();
    return 0;
  }

  /** The bucket brought up to `now`; a clock that went back adds nothing. */
  private refilled(bucket: Bucket | undefined, now: number): Bucket {
    if (bucket === undefined) return { credit: this.fullCredit, at: now };
    return { credit: Math.min(this.fullCredit, bucket.credit + Math.max(0, now - bucket.at)), at: Math.max(bucket.at, now) };
  }

  private forgetOldest(): void {
    while (this.buckets.size > MAX_TRACKED) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) return;
      this.buckets.delete(oldest);
    }
  }
}
