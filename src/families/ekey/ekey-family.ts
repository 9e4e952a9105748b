import type { LockFamilyDescriptor } from '../lock-family.js';

/**
 * Our open profile (docs/ble-protocol.md): a lock that shares a 256-bit key with the service. The
 * descriptor is light (Homebridge's main thread loads it); the driver, the protocol and the
 * simulator load with `ekey-module.ts`.
 */
export const ekeyFamily: LockFamilyDescriptor = {
  id: 'ekey',
  displayName: 'eKey open profile',
  formTitle: 'eKey open profile (docs/ble-protocol.md)',
  configFields: {
    key: {
      type: 'string',
      pattern: '^[0-9a-fA-F]{64}$',
      'x-hint': '64 hexadecimal characters',
      title: 'Lock key (64 hex characters, eKey profile only)',
      'x-schema-form': { type: 'password' },
    },
  },
  configProblems(lock) {
    if (lock.address !== undefined && lock.gateway !== false && lock.key === undefined) {
      return [{ field: '/key', message: 'is required for a lock of our profile reached over Bluetooth (64 hex characters shared with the lock)' }];
    }
    return [];
  },
  storedKey: (lock) => (typeof lock.key === 'string' ? lock.key : undefined),
  serialNumberOf: () => undefined,
  commandTypes: ['lock', 'unlock'],
  capabilities: { keypad: false, doorSensor: false, opener: false, ownUsers: false },
  load: () => import('./ekey-module.js').then((module) => module.ekeyModule),
};
