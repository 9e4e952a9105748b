/** A LockEvent type (spec: lock, unlock or battery). */
export type LockEventType = 'lock' | 'unlock' | 'battery';
