/** Exponential reconnect backoff settings. */
export interface BackoffPolicy {
  /** Delay before the first retry, ms. */
  initialMs: number;
  /** Upper bound of any delay, ms. */
  maxMs: number;
  /** Growth per failed attempt. */
  factor: number;
}

/** Default: 1 s, doubling, capped at 60 s. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 60_000, factor: 2 };

/**
 * Delay before retry number `attempt` (0-based). No jitter: each lock has its own timer and the
 * adapter serialises connects anyway, and a deterministic schedule keeps tests exact.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy): number {
  return Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt));
}
