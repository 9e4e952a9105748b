/**
 * Tells listeners that the eKeys of a lock changed (created, updated, revoked, deleted,
 * accepted through an invitation), after the change committed. The lock runtime listens to
 * push the lock's credential allow-list at once (docs/ble-protocol.md "Credentials").
 */
export class EKeyChangeNotifier {
  private readonly listeners = new Set<(lockId: string) => void>();

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
