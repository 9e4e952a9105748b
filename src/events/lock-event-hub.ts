import type { StoredEvent } from '../store/event-repository.js';

/** Receives every event recorded for one lock, after it is committed. */
export type LockEventListener = (event: StoredEvent) => void;

/**
 * In-process fan-out of committed events to live streams, per lock. The recorder publishes after
 * its transaction commits, so a listener never sees an event that a crash could take back.
 */
export class LockEventHub {
  private readonly listeners = new Map<string, Set<LockEventListener>>();
  /** Listeners of every lock's events (the lock port's event feed, src/locks/lock-event-feed.ts). */
  private readonly everyLock = new Set<LockEventListener>();

  /** Starts delivering every lock's events to `listener`; returns the function that stops it. */
  subscribeAll(listener: LockEventListener): () => void {
    this.everyLock.add(listener);
    return () => {
      this.everyLock.delete(listener);
    };
  }

  /** Starts delivering the lock's events to `listener`; returns the function that stops it. */
  subscribe(lockId: string, listener: LockEventListener): () => void {
    let set = this.listeners.get(lockId);
    if (!set) {
      set = new Set();
      this.listeners.set(lockId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(lockId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(lockId);
    };
  }

  /** Delivers one committed event; a throwing listener does not stop the others. */
  publish(event: StoredEvent): void {
    const set = this.listeners.get(event.lockId);
    if (!set && this.everyLock.size === 0) return;
    for (const listener of [...(set ?? []), ...this.everyLock]) {
      try {
        listener(event);
      } catch {
        // A broken stream must not break recording; the stream tears itself down on write errors.
      }
    }
  }

  /** How many listeners are attached (to one lock, or in all): for leak checks. */
  listenerCount(lockId?: string): number {
    if (lockId !== undefined) return this.listeners.get(lockId)?.size ?? 0;
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}
