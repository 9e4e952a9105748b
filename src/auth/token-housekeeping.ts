import type { Clock } from '../domain/clock.js';
import type { Logger } from '../logger.js';
import type { OAuthTokenRepository } from '../store/oauth-token-repository.js';
import { describeError } from '../domain/errors.js';

/** How long an expired authorization code is kept, so a replay can still revoke its tokens. */
export const EXPIRED_CODE_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Deletes expired tokens and codes once at start and then hourly, so the token tables do not
 * grow for ever on a bridge that runs for years. Never throws into its timer.
 */
export class TokenHousekeeping {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly tokens: OAuthTokenRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalMs: number = DEFAULT_INTERVAL_MS,
  ) {}

  /** One pass; returns what was deleted. */
  runOnce(): { tokens: number; codes: number } {
    const now = this.clock.now();
    const removed = this.tokens.purgeExpired(now, now - EXPIRED_CODE_RETENTION_MS);
    if (removed.tokens + removed.codes > 0) {
      this.logger.debug(`OAuth housekeeping removed ${removed.tokens} expired tokens and ${removed.codes} expired codes.`);
    }
    return removed;
  }

  start(): void {
    if (this.timer) return;
    this.safeRun();
    this.timer = setInterval(() => {
      this.safeRun();
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private safeRun(): void {
    try {
      this.runOnce();
    } catch (error) {
      this.logger.warn(`OAuth housekeeping failed: ${describeError(error)}`);
    }
  }
}
