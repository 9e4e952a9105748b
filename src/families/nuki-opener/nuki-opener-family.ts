import { describeError } from '../../domain/errors.js';
import type { LockFamily } from '../lock-family.js';
import { NukiDriver } from '../nuki/driver/nuki-driver.js';
import { nukiFamily } from '../nuki/nuki-family.js';
import type { StoredNukiCredentials } from '../nuki/nuki-credential-file.js';
import { openerVariant } from './opener-variant.js';

/**
 * The Nuki Opener (docs/design.md §4d, docs/nuki.md): the intercom's electric strike, Ring to Open
 * and Continuous Mode. Paired like a Nuki Smart Lock (its credentials in the same file), driven by
 * the shared Nuki keyturner driver with the Opener's variant.
 */
export const nukiOpenerFamily = {
  id: 'nuki-opener',
  displayName: 'Nuki Opener',
  formTitle: 'Nuki Opener, an intercom\'s door opener (pair it with "ekey-locks nuki pair")',
  configProblems(lock) {
    return nukiFamily.configProblems(lock).map((problem) => ({ ...problem, message: problem.message.replace('a Nuki lock', 'a Nuki Opener') }));
  },
  createDriver(lock, sources) {
    const pairCommand = `"ekey-locks nuki pair --address ${lock.bleAddress}"`;
    const options = { ...sources.nuki, variant: openerVariant() };
    let stored: StoredNukiCredentials | undefined;
    try {
      stored = sources.nukiCredentials(lock.bleAddress);
    } catch (error) {
      // The message names the file, never its content (src/families/nuki/nuki-credential-file.ts).
      return new NukiDriver(null, {
        ...options,
        unpairedReason: `this Nuki Opener's credentials cannot be read (${describeError(error)}), so it stays offline. Restore that file from a backup, or move it aside and pair every Nuki again (${pairCommand}); then restart Homebridge (docs/nuki.md).`,
      });
    }
    if (stored === undefined) {
      return new NukiDriver(null, {
        ...options,
        unpairedReason: `this Nuki Opener is not paired yet, so it stays offline. Press its button for 5 s, run ${pairCommand} and restart Homebridge (docs/nuki.md).`,
      });
    }
    return new NukiDriver({ sharedKey: stored.sharedKey, authorizationId: stored.authorizationId, appId: stored.appId, securityPin: stored.securityPin }, options);
  },
  /** The Opener shows its Nuki ID, as the Nuki app does. */
  serialNumberOf: (deviceInformation) => nukiFamily.serialNumberOf(deviceInformation),
  keepsOwnUsers: true,
  /** A Nuki Keypad pairs with a Smart Lock; the Opener opens on the intercom's ring, not on a code. */
  takesKeypad: false,
} as const satisfies LockFamily;
