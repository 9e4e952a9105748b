import type { FamilyDriverContext } from '../families/lock-family-module.js';
import { familyModule } from '../families/registry.js';
import type { LockDriver } from '../gateway/lock-driver.js';
import type { LockRecord } from '../store/lock-repository.js';

/**
 * The driver factory the lock runtime uses: a driver for each stored lock with an address, built
 * by the lock's family (src/families/registry.ts; its module loaded before the runtime starts).
 * A lock whose family this version does not know (stored by a newer version, say) gets no driver:
 * it is listed, offline, and said once. Adding a family changes nothing here.
 */
export function lockDriverFactory(context: FamilyDriverContext): (lock: LockRecord) => LockDriver | null {
  const factories = new Map<string, (lock: LockRecord & { bleAddress: string }) => LockDriver | null>();
  const reported = new Set<string>();
  return (lock) => {
    const address = lock.bleAddress;
    if (address === null) return null;
    let factory = factories.get(lock.family);
    if (factory === undefined) {
      const module = familyModule(lock.family);
      if (module === undefined) {
        if (reported.has(lock.id)) return null;
        reported.add(lock.id);
        context.logger.error(`Lock ${lock.name}: its family "${lock.family}" is not one this version of the plugin knows, so it stays offline.`);
        return null;
      }
      factory = module.driverFactory(context);
      factories.set(lock.family, factory);
    }
    return factory({ ...lock, bleAddress: address });
  };
}
