import type { RateLimiterMemory } from 'rate-limiter-flexible';
import RateLimiterMemoryClass from 'rate-limiter-flexible/lib/RateLimiterMemory.js';

/** Password attempts allowed per account in a window, and the window (docs/security.md, docs/architecture.md). */
export interface PasswordAttemptThrottleOptions {
  maxFailures?: number;
  windowS?: number;
}

export const DEFAULT_PASSWORD_FAILURES = 10;
export const DEFAULT_PASSWORD_WINDOW_S = 15 * 60;

/**
 * Per-account throttling of password guesses — a sign-in and the current password of
 * `PUT /me/password` count against the same budget — beside the per-address rate limits of the
 * routes: attempts from many addresses (or with a stolen token) against one account are counted
 * together. Keyed by the e-mail as typed (trimmed, lower case) whether or not an account has it,
 * so being throttled reveals nothing about who has an account.
 *
 * An attempt is **reserved before** its password is checked (issue #32, finding 3): the check
 * is an asynchronous scrypt, so counting a failure only after it let a burst of parallel guesses
 * all pass a check that ran before any of them had failed. The reservation is one synchronous
 * increment in the limiter's memory, so parallel attempts never see the same count. A right
 * password forgets the account's attempts; a wrong one keeps its reservation as the failure.
 */
export class PasswordAttemptThrottle {
  private readonly limiter: RateLimiterMemory;

  constructor(options: PasswordAttemptThrottleOptions = {}) {
    this.limiter = new RateLimiterMemoryClass({ points: options.maxFailures ?? DEFAULT_PASSWORD_FAILURES, duration: options.windowS ?? DEFAULT_PASSWORD_WINDOW_S });
  }

  /**
   * Reserves one attempt for the account: 0 when it may check a password now, else the seconds to
   * wait (nothing may be checked then: a throttled account costs no scrypt).
   */
  async reserve(email: string): Promise<number> {
    try {
      await this.limiter.consume(key(email));
      return 0;
    } catch (state: unknown) {
      // The limiter rejects with its state once the account is over its budget.
      const msBeforeNext = typeof state === 'object' && state !== null && 'msBeforeNext' in state ? Number(state.msBeforeNext) : 1000;
      return Math.max(1, Math.ceil(msBeforeNext / 1000));
    }
  }

  /** The reserved attempt had the right password: the account's attempts are forgotten. */
  async succeeded(email: string): Promise<void> {
    await this.limiter.delete(key(email));
  }
}

const key = (email: string): string => email.trim().toLowerCase();
