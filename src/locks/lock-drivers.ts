import type { LockFamily } from '../domain/lock-family.js';
import { EKeyDriver } from '../gateway/drivers/ekey/ekey-driver.js';
import type { LockDriver } from '../gateway/drivers/lock-driver.js';
import { NukiDriver, type NukiDriverOptions } from '../gateway/drivers/nuki/nuki-driver.js';
import type { Logger } from '../logger.js';
import type { LockRecord } from '../store/lock-repository.js';
import type { StoredNukiCredentials } from '../store/nuki-credential-file.js';
import { describeError } from '../domain/errors.js';

/** Where each family's secrets come from. */
export interface LockDriverSources {
  /** A paired Nuki lock's credentials by address (the data folder's file, or the demo's). */
  nukiCredentials: (address: string) => StoredNukiCredentials | undefined;
  /** Settings of every Nuki driver (the demo releases links sooner). */
  nuki?: NukiDriverOptions;
  logger: Logger;
}

type DriverBuilder = (lock: LockRecord & { bleAddress: string }, sources: LockDriverSources) => LockDriver | null;

/**
 * One builder per family: adding a family means adding its driver and one line here. A builder
 * answers null when the lock cannot have a driver at all (our profile without a key); a lock
 * that could work but is not ready (a Nuki lock never paired) gets a driver that says why, so
 * it is listed, shown offline and explained once in the log.
 */
const BUILDERS: Record<LockFamily, DriverBuilder> = {
  ekey: (lock) => (lock.lockKey === null ? null : new EKeyDriver(lock.lockKey)),
  nuki: (lock, sources) => {
    const pairCommand = `"ekey-locks nuki pair --address ${lock.bleAddress}"`;
    let stored: StoredNukiCredentials | undefined;
    try {
      stored = sources.nukiCredentials(lock.bleAddress);
    } catch (error) {
      // The message names the file, never its content (src/store/nuki-credential-file.ts).
      const reason = describeError(error);
      return new NukiDriver(null, {
        ...sources.nuki,
        unpairedReason: `this Nuki's credentials cannot be read (${reason}), so it stays offline. Restore that file from a backup, or move it aside and pair every Nuki again (${pairCommand}); then restart Homebridge (docs/nuki.md).`,
      });
    }
    if (stored === undefined) {
      return new NukiDriver(null, {
        ...sources.nuki,
        unpairedReason: `this Nuki is not paired yet, so it stays offline. Hold its button for 5 s, run ${pairCommand} and restart Homebridge (docs/nuki.md).`,
      });
    }
    return new NukiDriver(
      { sharedKey: stored.sharedKey, authorizationId: stored.authorizationId, appId: stored.appId, securityPin: stored.securityPin },
      sources.nuki ?? {},
    );
  },
};

/** The driver factory the lock runtime uses: a driver for each stored lock with an address. */
export function lockDriverFactory(sources: LockDriverSources): (lock: LockRecord) => LockDriver | null {
  return (lock) => {
    const address = lock.bleAddress;
    if (address === null) return null;
    return BUILDERS[lock.family]({ ...lock, bleAddress: address }, sources);
  };
}
