/** Marker a {@link Deadline} race returns when time ran out first. */
export const EXPIRED: unique symbol = Symbol('expired');

/**
 * A real-time budget for one operation. Racing a promise against it never leaves the loser
 * unhandled (Promise.race subscribes to both), so a late rejection cannot crash the process.
 */
export class Deadline {
  private readonly endsAt: number;
  private readonly timer: NodeJS.Timeout;
  private readonly expiredPromise: Promise<typeof EXPIRED>;
  private isExpired = false;

  constructor(readonly budgetMs: number) {
    this.endsAt = performance.now() + budgetMs;
    let fire: (value: typeof EXPIRED) => void = () => undefined;
    this.expiredPromise = new Promise((resolve) => {
      fire = resolve;
    });
    this.timer = setTimeout(() => {
      this.isExpired = true;
      fire(EXPIRED);
    }, budgetMs);
  }

  /** True once the budget is spent. */
  get expired(): boolean {
    return this.isExpired;
  }

  /** Milliseconds left (0 when expired). */
  remaining(): number {
    return Math.max(0, Math.round(this.endsAt - performance.now()));
  }

  /** Settles with the promise's value, or EXPIRED if the budget runs out first. */
  race<T>(promise: Promise<T>): Promise<T | typeof EXPIRED> {
    return Promise.race([promise, this.expiredPromise]);
  }

  /** Stops the timer; call when the operation is over. */
  cancel(): void {
    clearTimeout(this.timer);
  }
}

/**
 * Rejects with `error()` when `promise` does not settle within `ms`; the timer is always cleared.
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  const deadline = new Deadline(ms);
  try {
    const result = await deadline.race(promise);
    if (result === EXPIRED) throw error();
    return result;
  } finally {
    deadline.cancel();
  }
}
