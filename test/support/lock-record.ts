import type { LockRecord } from '../../src/store/lock-repository.js';

/** What `LockRepository.upsert` takes: a lock record whose `keypad` may be left out (false). */
export type StoredLock = Omit<LockRecord, 'keypad'> & { keypad?: boolean };

/**
 * A lock as the tests store it (`LockRepository.upsert`): of our own family, on a gateway, in UTC,
 * without a BLE address or key, never seen yet — unless `fields` say otherwise.
 */
export function lockRecord(fields: Pick<LockRecord, 'id' | 'name' | 'ownerId' | 'createdAt'> & Partial<StoredLock>): StoredLock {
  return {
    family: 'ekey',
    bleAddress: null,
    lockKey: null,
    timeZone: 'UTC',
    overBluetooth: true,
    boltState: 'unknown',
    batteryLevel: null,
    lastSeenAt: null,
    lastActivitySequence: 0,
    ...fields,
  };
}
