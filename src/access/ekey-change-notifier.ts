import type { StoredEKey } from '../store/ekey-repository.js';

/** A key that became usable for its holder (`accepted`: sent to an account, or its invitation taken up) or was revoked. */
export interface EKeyLifecycleEvent {
  kind: 'accepted' | 'revoked';
  key: StoredEKey;
}

/**
 * Tells listeners that the eKeys of a lock changed (created, updated, revoked, deleted,
 * accepted through an invitation), after the change committed. The lock runtime listens to
 * push the lock's credential allow-list at once (docs/ble-protocol.md "Credentials").
 */
export class EKeyChangeNotifier {
  private readonly listeners = new Set<(lockId: string) => void>();
  private readonly lifecycleListeners = new Set<(event: EKeyLifecycleEvent) => void>();

  /** Adds a listener of keys accepted and revoked (after the commit); returns the function that removes it. */
  onLifecycle(listener: (event: EKeyLifecycleEvent) => void): () => void {
    this.lifecycleListeners.add(listener);
    return () => {
      this.lifecycleListeners.delete(listener);
    };
  }

  /** Calls every lifecycle listener; a listener's failure is swallowed (reported through `onError`), as for {@link notify}. */
  notifyLifecycle(event: EKeyLifecycleEvent, onError?: (error: unknown) => void): void {
    for (const listener of [...this.lifecycleListeners]) {
      try {
        listener(event);
      } catch (error) {
        onError?.(error);
      }
    }
  }

  /** Adds a listener; returns the function that removes it. */
  onChange(listener: (lockId: string) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Calls every listener with the lock id. A listener's failure is swallowed (reported through
   * `onError`) so that it never turns a committed change into an error for the caller.
   */
  notify(lockId: string, onError?: (error: unknown) => void): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(lockId);
      } catch (error) {
        onError?.(error);
      }
    }
  }
}
