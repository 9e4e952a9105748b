import type { Clock } from '../domain/clock.js';

/**
 * Whether a lock is reachable (docs/design.md §3 "online"): connected now, or heard from — a connection,
 * a notification, an advertisement — within `offlineAfterMs`. Reports each change once.
 */
export class LockPresence {
  /** Last time anything was heard from the lock, ms since the epoch (the injected clock). */
  lastSeenAt: number | null = null;
  private reported = false;

  constructor(
    private readonly clock: Clock,
    private readonly offlineAfterMs: number,
    private readonly isConnected: () => boolean,
    private readonly report: (online: boolean) => void,
  ) {}

  /** Something was heard from the lock now. */
  seen(): void {
    this.lastSeenAt = this.clock.now();
  }

  isReachable(): boolean {
    if (this.isConnected()) return true;
    return this.lastSeenAt !== null && this.clock.now() - this.lastSeenAt < this.offlineAfterMs;
  }

  /** Re-evaluates reachability and reports it when it changed. */
  refresh(): void {
    const online = this.isReachable();
    if (online === this.reported) return;
    this.reported = online;
    this.report(online);
  }
}
