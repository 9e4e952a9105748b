import type { SqliteDatabase } from './database.js';

/** How often a cache asks SQLite whether another connection committed (each ask is a read transaction). */
export const FOREIGN_COMMIT_CHECK_MS = 250;

export interface ReadCacheOptions {
  /** Most entries kept; the oldest go first. */
  limit: number;
  /** Monotonic milliseconds, for the foreign-commit check interval (default `performance.now`). */
  monotonicNow?: (() => number) | undefined;
}

/**
 * A bounded in-memory cache of rows for the hottest lookups (the bearer check of every request).
 * Why: each SQLite read outside a transaction costs two `fcntl` lock calls in WAL mode, the
 * largest part of a small request. Correctness rests on two rules:
 * - the owning repository calls `clear()` before every write that could change a cached row;
 * - a commit by another connection or process (SQLite's `data_version`) clears the cache at the
 *   first lookup after it, at most FOREIGN_COMMIT_CHECK_MS later;
 * - nothing is stored while a transaction is open, since it may still roll back.
 * Misses are not cached, so new rows are found at once. Keep one repository instance per
 * connection (service-root.ts does): a write through a second instance on the same connection would not
 * clear this one, and SQLite's `data_version` does not count a connection's own commits.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly dataVersionStatement;
  private readonly monotonicNow: () => number;
  private dataVersion: number;
  private nextCheck: number;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: ReadCacheOptions,
  ) {
    this.monotonicNow = options.monotonicNow ?? (() => performance.now());
    this.dataVersionStatement = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.dataVersion = this.readDataVersion();
    this.nextCheck = this.monotonicNow() + FOREIGN_COMMIT_CHECK_MS;
  }

  /** The cached value, after dropping everything if another connection has committed since. */
  get(key: string): V | undefined {
    if (this.entries.size === 0) return undefined;
    const now = this.monotonicNow();
    if (now >= this.nextCheck) {
      this.nextCheck = now + FOREIGN_COMMIT_CHECK_MS;
      const version = this.readDataVersion();
      if (version !== this.dataVersion) {
        this.dataVersion = version;
        this.entries.clear();
        return undefined;
      }
    }
    return this.entries.get(key);
  }

  /**
   * Keeps a value, except while a transaction is open on this connection: what it read may still
   * be rolled back (a key inserted and then undone must not stay usable from the cache).
   */
  set(key: string, value: V): void {
    if (this.db.inTransaction) return;
    if (this.entries.size >= this.options.limit) {
      // Oldest first (a Map keeps insertion order): bounded FIFO, enough for hot keys.
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  /** Forgets everything; call before any write through this connection. */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private readDataVersion(): number {
    return this.dataVersionStatement.get() ?? 0;
  }
}
