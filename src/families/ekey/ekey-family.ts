import type { LockFamily } from '../lock-family.js';
import { EKeyDriver } from './driver/ekey-driver.js';

/** Our open profile (docs/ble-protocol.md): a lock that shares a 256-bit key with the service. */
export const ekeyFamily = {
  id: 'ekey',
  displayName: 'eKey open profile',
  formTitle: 'eKey open profile (docs/ble-protocol.md)',
  configProblems(lock) {
    if (lock.address !== undefined && lock.gateway !== false && lock.key === undefined) {
      return [{ field: '/key', message: 'is required for a lock of our profile reached over Bluetooth (64 hex characters shared with the lock)' }];
    }
    return [];
  },
  createDriver: (lock) => (lock.lockKey === null ? null : new EKeyDriver(lock.lockKey)),
  serialNumberOf: () => undefined,
  keepsOwnUsers: false,
  takesKeypad: false,
} as const satisfies LockFamily;
