import { randomBytes } from 'node:crypto';
import type { LockFamilyModule } from '../lock-family-module.js';
import { EKeyDriver } from './driver/ekey-driver.js';
import { parseLockKey } from './protocol/frame-authentication.js';
import { EKeyDemoLock } from './simulator/ekey-demo-lock.js';

/** Our profile's heavy part (src/families/ekey/ekey-family.ts `load`). */
export const ekeyModule: LockFamilyModule = {
  // The key lives in the store (from config); a lock without one cannot be driven at all.
  driverFactory: () => (lock) => (lock.lockKey === null ? null : new EKeyDriver(lock.lockKey)),
  demo: {
    // docs/design.md §6: Front Door first; Garden Gate has no gateway connection.
    locks: [
      { name: 'Front Door', address: 'D0:E1:00:00:00:01', overBluetooth: true, keypad: false, order: 1 },
      { name: 'Garden Gate', address: 'D0:E1:00:00:00:02', overBluetooth: false, keypad: false, order: 2 },
    ],
    newSecrets: () => ({ key: randomBytes(32).toString('hex') }),
    storedKeyOf: (secrets) => (typeof secrets.key === 'string' && secrets.key !== '' ? secrets.key : null),
    simulate: ({ name, secrets, start, clock }) =>
      new EKeyDemoLock({
        address: secrets.address,
        key: parseLockKey(String(secrets.key)),
        name,
        clock,
        bolt: start.bolt,
        batteryPercent: start.batteryPercent,
        firstSequence: start.firstSequence,
      }),
  },
};
