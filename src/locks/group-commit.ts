/** What {@link GroupCommit} needs: how to store one item, the transaction, and what to do after. */
export interface GroupCommitOptions<T, R> {
  /** Stores one item; runs inside the batch's transaction (throwing rolls the whole batch back). */
  store: (item: T) => R;
  /**
   * Runs work in one SQLite transaction (one commit, one fsync). Without it every item is stored
   * and acknowledged on its own, as it comes.
   */
  transaction?: <X>(work: () => X) => X;
  /** Called for each item, in arrival order, once the transaction that stored it has committed. */
  acknowledge: (item: T, result: R) => void;
  /** An item whose own transaction failed (it was rolled back: nothing of it is stored). */
  failed: (item: T, error: unknown) => void;
  /** Runs the flush later (default: `setImmediate`, after the I/O callbacks of this loop turn). */
  schedule?: (flush: () => void) => void;
  /** At most this many items per transaction (default 1 000). */
  maxBatch?: number;
}

/**
 * Group commit for writes that arrive as separate callbacks (BLE notifications from several
 * locks): an item is queued, and every item that arrives before the scheduled flush — in the
 * same turn of the event loop, or while the previous commit blocked the thread, since
 * better-sqlite3 commits synchronously and those callbacks then run together in the next turn —
 * is stored in one transaction, with one fsync. Durability is unchanged: an item is acknowledged
 * only after its transaction committed (WAL, synchronous=FULL), in arrival order. A batch that
 * fails is rolled back and retried one item per transaction, so one bad item never costs its
 * neighbours. docs/architecture.md "Group commit of lock activity".
 */
export class GroupCommit<T, R> {
  private queue: T[] = [];
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly schedule: (flush: () => void) => void;

  constructor(private readonly options: GroupCommitOptions<T, R>) {
    this.maxBatch = options.maxBatch ?? 1_000;
    this.schedule =
      options.schedule ??
      ((flush) => {
        setImmediate(flush);
      });
  }

  /** Items queued and not yet committed. */
  get pending(): number {
    return this.queue.length;
  }

  /** Queues an item; it is stored and acknowledged by the next flush. */
  submit(item: T): void {
    if (this.options.transaction === undefined) {
      this.storeAlone(item);
      return;
    }
    this.queue.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Commits everything queued now (also before a read of what it stores, and before closing). Never throws. */
  flush(): void {
    const transaction = this.options.transaction;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      if (transaction === undefined || batch.length === 1) {
        for (const item of batch) this.storeAlone(item);
        continue;
      }
      let results: R[];
      try {
        results = transaction(() => batch.map((item) => this.options.store(item)));
      } catch {
        // Rolled back whole: store one by one, so only the item at fault is lost (and reported).
        for (const item of batch) this.storeAlone(item);
        continue;
      }
      batch.forEach((item, index) => {
        this.options.acknowledge(item, results[index] as R);
      });
    }
  }

  private storeAlone(item: T): void {
    const transaction = this.options.transaction ?? (<X>(work: () => X): X => work());
    let result: R;
    try {
      result = transaction(() => this.options.store(item));
    } catch (error) {
      this.options.failed(item, error);
      return;
    }
    this.options.acknowledge(item, result);
  }
}
