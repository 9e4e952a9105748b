import { NukiLogSortOrder } from '../protocol/nuki-commands.js';
import type { NukiLogEntry } from '../protocol/nuki-messages.js';

/**
 * The lock's log: entries with increasing indexes, the oldest dropped beyond `capacity`. Indexes
 * are never reused, so a reader that stored the highest index it saw can ask for what came after.
 */
export class NukiLockLog {
  private readonly entries: NukiLogEntry[] = [];
  private nextIndex: number;

  constructor(
    readonly capacity: number,
    firstIndex: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`log capacity must be a positive integer, not ${capacity}`);
    if (!Number.isInteger(firstIndex) || firstIndex < 1 || firstIndex > 0xffffffff) throw new RangeError(`the first log index must be a u32 above 0, not ${firstIndex}`);
    this.nextIndex = firstIndex;
  }

  /** Oldest first. */
  get all(): readonly NukiLogEntry[] {
    return [...this.entries];
  }

  append(entry: Omit<NukiLogEntry, 'index'>): NukiLogEntry {
    const stored: NukiLogEntry = { ...entry, index: this.nextIndex++ };
    this.entries.push(stored);
    if (this.entries.length > this.capacity) this.entries.shift();
    return stored;
  }

  /**
   * Request Log Entries (§5): every entry after `startIndex` (ascending) or before it
   * (descending), not the entry at `startIndex` itself; from the oldest or the newest when
   * `startIndex` is 0. The caller takes the first `count`.
   */
  select(startIndex: number, sortOrder: number): NukiLogEntry[] {
    if (sortOrder === NukiLogSortOrder.descending) {
      return this.entries.filter((entry) => startIndex === 0 || entry.index < startIndex).reverse();
    }
    return this.entries.filter((entry) => entry.index > startIndex);
  }
}
