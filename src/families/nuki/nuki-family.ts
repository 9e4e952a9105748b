import type { FieldError } from '../../domain/errors.js';
import { describeError } from '../../domain/errors.js';
import type { LockFamily } from '../lock-family.js';
import { NukiDriver } from './driver/nuki-driver.js';
import type { StoredNukiCredentials } from './nuki-credential-file.js';
import { smartLockVariant } from './smart-lock-variant.js';

/** The Nuki Smart Lock (docs/nuki.md): paired over Bluetooth, its credentials kept in a file of their own. */
export const nukiFamily = {
  id: 'nuki',
  displayName: 'Nuki Smart Lock',
  formTitle: 'Nuki Smart Lock (pair it with "ekey-locks nuki pair")',
  configProblems(lock) {
    const problems: FieldError[] = [];
    if (lock.key !== undefined) problems.push({ field: '/key', message: 'is not used by a Nuki lock (it is paired: ekey-locks nuki pair)' });
    if (lock.address === undefined) problems.push({ field: '/address', message: 'is required for a Nuki lock' });
    return problems;
  },
  createDriver(lock, sources) {
    const pairCommand = `"ekey-locks nuki pair --address ${lock.bleAddress}"`;
    let stored: StoredNukiCredentials | undefined;
    try {
      stored = sources.nukiCredentials(lock.bleAddress);
    } catch (error) {
      // The message names the file, never its content (src/families/nuki/nuki-credential-file.ts).
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
    // An API 2.3 lock (Ultra, Go, Pro 5th generation) reads its PIN as a u32 (docs/design.md §4d).
    return new NukiDriver(
      { sharedKey: stored.sharedKey, authorizationId: stored.authorizationId, appId: stored.appId, securityPin: stored.securityPin },
      { ...sources.nuki, ...(stored.apiLevel === '2.3' ? { variant: smartLockVariant('2.3') } : {}) },
    );
  },
  /** A Nuki shows its Nuki ID, as the Nuki app does (read from the lock's Config, docs/design.md §4b). */
  serialNumberOf(deviceInformation) {
    const nukiId = deviceInformation?.serial.trim();
    return nukiId === undefined || nukiId === '' ? undefined : nukiId;
  },
  keepsOwnUsers: true,
  takesKeypad: true,
} as const satisfies LockFamily;
