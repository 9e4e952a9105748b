import { Deadline } from './deadline.js';

/**
 * Runs a lock's link work one job at a time, in call order: commands and other exchanges never
 * interleave on the link. A job's deadline starts at the call, so time spent waiting behind
 * earlier jobs counts against it (docs/design.md §3: the command timeout counts from the request).
 */
export class CommandQueue {
  private chain: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  /** Jobs queued or running. */
  get depth(): number {
    return this.waiting;
  }

  /** Queues a job with a budget; the deadline is cancelled when the job settles. */
  run<T>(timeoutMs: number, job: (deadline: Deadline) => Promise<T>): Promise<T> {
    const deadline = new Deadline(timeoutMs);
    this.waiting += 1;
    const result = this.chain.then(() => job(deadline)).finally(() => {
      deadline.cancel();
      this.waiting -= 1;
    });
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Queues a job without a budget of its own. */
  enqueue<T>(job: () => Promise<T>): Promise<T> {
    this.waiting += 1;
    const result = this.chain.then(job).finally(() => {
      this.waiting -= 1;
    });
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Resolves when every job queued so far has settled. */
  settled(): Promise<void> {
    return this.chain.then(() => undefined);
  }
}
