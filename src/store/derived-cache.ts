import type { SqliteDatabase } from './database.js';
import { ReadCache } from './read-cache.js';

/** A repository whose writes change what a derived cache holds. */
export interface WriteVersioned {
  /** Grows with every write through this process's instance (a counter, never reset). */
  readonly writeVersion: number;
}

export interface DerivedCacheOptions {
  /** Most entries kept (oldest go first); 0 turns the cache off. */
  limit: number;
  /** Monotonic milliseconds, for the foreign-commit check (default `performance.now`). */
  monotonicNow?: (() => number) | undefined;
}

/**
 * A bounded cache of values computed from several tables: event pages from the events and the
 * performers' names, a caller's role inputs from the locks and the eKeys. A value stays only
 * while nothing it was computed from has changed:
 * - a write through one of the `sources` (their write versions move): the next lookup empties the
 *   cache;
 * - a commit by another process (a CLI on the same database): ReadCache's data_version check
 *   empties it within 250 ms;
 * - nothing read inside a transaction is kept (ReadCache), so a rolled-back write leaves no trace.
 * Keys must name everything else the value depends on (who asks, what they asked).
 */
export class DerivedCache<V> {
  private readonly entries: ReadCache<V> | undefined;
  private seenVersion: number;

  constructor(
    db: SqliteDatabase,
    private readonly sources: readonly WriteVersioned[],
    options: DerivedCacheOptions,
  ) {
    this.entries = options.limit > 0 ? new ReadCache<V>(db, { limit: options.limit, monotonicNow: options.monotonicNow }) : undefined;
    this.seenVersion = this.version();
  }

  /** The cached value for `key`, if nothing it depends on was written since it was stored. */
  get(key: string): V | undefined {
    if (!this.entries) return undefined;
    this.dropIfStale();
    return this.entries.get(key);
  }

  /** Keeps a value that was computed from the store as it is now. */
  set(key: string, value: V): void {
    if (!this.entries) return;
    this.dropIfStale();
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  private dropIfStale(): void {
    const version = this.version();
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.entries?.clear();
    }
  }

  private version(): number {
    // Each source only grows, so the sum moves exactly when one of them does.
    let sum = 0;
    for (const source of this.sources) sum += source.writeVersion;
    return sum;
  }
}
