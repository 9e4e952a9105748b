import type { LockDriver } from '../gateway/lock-driver.js';
import type { LockDriverSources } from '../families/lock-family.js';
import { lockFamily } from '../families/registry.js';
import type { LockRecord } from '../store/lock-repository.js';

/**
 * The driver factory the lock runtime uses: a driver for each stored lock with an address, built
 * by the lock's family (src/families/registry.ts); adding a family changes nothing here.
 */
export function lockDriverFactory(sources: LockDriverSources): (lock: LockRecord) => LockDriver | null {
  return (lock) => {
    const address = lock.bleAddress;
    if (address === null) return null;
    return lockFamily(lock.family).createDriver({ ...lock, bleAddress: address }, sources);
  };
}
