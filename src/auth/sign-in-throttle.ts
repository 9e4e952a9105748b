import type { RateLimiterMemory } from 'rate-limiter-flexible';
import RateLimiterMemoryClass from 'rate-limiter-flexible/lib/RateLimiterMemory.js';

/** Failed sign-ins allowed per account in a window, and the window (docs/design.md §9, docs/architecture.md). */
export interface SignInThrottleOptions {
  maxFailures?: number;
  windowS?: number;
}

export const DEFAULT_SIGN_IN_FAILURES = 10;
export const DEFAULT_SIGN_IN_WINDOW_S = 15 * 60;

/**
 * Per-account throttling of failed sign-ins, beside the per-address rate limit of the OAuth
 * routes: attempts from many addresses against one account are counted together. Keyed by the
 * e-mail as typed (trimmed, lower case) whether or not an account has it, so being throttled
 * reveals nothing about who has an account. A success forgets the account's failures.
 */
export class SignInThrottle {
  private readonly limiter: RateLimiterMemory;
  private readonly maxFailures: number;

  constructor(options: SignInThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? DEFAULT_SIGN_IN_FAILURES;
    this.limiter = new RateLimiterMemoryClass({ points: this.maxFailures, duration: options.windowS ?? DEFAULT_SIGN_IN_WINDOW_S });
  }

  /** Seconds to wait before this account may try again; 0 when it may try now. */
  async retryAfterS(email: string): Promise<number> {
    const state = await this.limiter.get(key(email));
    if (state === null || state.consumedPoints < this.maxFailures) return 0;
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  }

  /** Counts one failed sign-in against the account. */
  async failed(email: string): Promise<void> {
    // Rejects (with the limiter's state) once the account is over its budget: that is expected here.
    await this.limiter.consume(key(email)).catch(() => undefined);
  }

  /** Forgets the account's failures after a successful sign-in. */
  async succeeded(email: string): Promise<void> {
    await this.limiter.delete(key(email));
  }
}

const key = (email: string): string => email.trim().toLowerCase();
