import type { LockFamilyDescriptor } from '../lock-family.js';
import { NUKI_USERS_FIELD, nukiConfigProblems, nukiSerialNumber } from '../nuki/nuki-family.js';

/**
 * The Nuki Opener (docs/design.md §4d, docs/nuki.md): the intercom's electric strike, Ring to Open
 * and Continuous Mode. Paired like a Nuki Smart Lock (its credentials in the same file, by the
 * same `ekey-locks nuki pair`), driven by the shared Nuki keyturner driver with the Opener's
 * variant (`nuki-opener-module.ts`).
 */
export const nukiOpenerFamily: LockFamilyDescriptor = {
  id: 'nuki-opener',
  displayName: 'Nuki Opener',
  formTitle: 'Nuki Opener, an intercom\'s door opener (pair it with "ekey-locks nuki pair")',
  configFields: NUKI_USERS_FIELD,
  configProblems: (lock) => nukiConfigProblems(lock, 'a Nuki Opener'),
  /** The Opener shows its Nuki ID, as the Nuki app does. */
  serialNumberOf: nukiSerialNumber,
  commandTypes: ['lock', 'unlock', 'ring_to_open_on', 'ring_to_open_off', 'continuous_mode_on', 'continuous_mode_off'],
  // A Nuki Keypad pairs with a Smart Lock; the Opener opens on the intercom's ring, not on a code.
  capabilities: { keypad: false, doorSensor: false, opener: true, ownUsers: true },
  load: () => import('./nuki-opener-module.js').then((module) => module.nukiOpenerModule),
};
