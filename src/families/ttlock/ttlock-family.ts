import type { LockFamilyDescriptor } from '../lock-family.js';

/**
 * TTLock (docs/design.md §4f, docs/ttlock.md): the Bluetooth protocol of the TTLock app's locks,
 * sold under many brands, driven locally. Paired (or imported) as the lock's admin; its secrets
 * live in a file of their own. Light: the driver, the protocol and its crypto, pairing and the
 * simulator load with `ttlock-module.ts`.
 */
export const ttlockFamily: LockFamilyDescriptor = {
  id: 'ttlock',
  displayName: 'TTLock',
  formTitle: 'TTLock (pair it with "ekey-locks ttlock pair")',
  configFields: {},
  configProblems(lock) {
    const problems: { field: string; message: string }[] = [];
    if (lock.key !== undefined) problems.push({ field: '/key', message: 'is not used by a TTLock (it is paired: ekey-locks ttlock pair)' });
    if (lock.address === undefined) problems.push({ field: '/address', message: 'is required for a TTLock' });
    return problems;
  },
  // HomeKit and Matter show its Bluetooth address, as the TTLock app names a lock by it.
  serialNumberOf: () => undefined,
  commandTypes: ['lock', 'unlock'],
  // No door sensor read; the bolt state is the lock's last move, not a reading (§4f: `bolt_state_source: "assumed"`).
  capabilities: { keypad: true, doorSensor: false, opener: false, ownUsers: false, boltAssumed: true },
  // §4f: six digits, 0 allowed (the lock takes 4–9); one date range per code, no weekly window and
  // no off switch; 150 codes (the simulated lock holds as many; a real one answers "no free memory" when full).
  doorCodes: { length: 6, digits: '0123456789', forbiddenPrefixes: [], capacity: 150, weeklyWindow: false, canDisableCodes: false },
  cli: {
    name: 'ttlock',
    usage: [
      '  ttlock scan [--seconds N] [--adapter hciX | --via PROXY [--config FILE]]',
      '                                 List the TTLocks nearby and which are in setting mode (--via:',
      '                                 heard by that ESPHome Bluetooth proxy of the config, docs/gateways.md)',
      '  ttlock pair --address AA:BB:CC:DD:EE:FF [--data DIR] [--timeout-s N]',
      '              [--adapter hciX | --via PROXY [--config FILE]]',
      '                                 Become the admin of a TTLock in setting mode (reset, then',
      '                                 woken by a touch of its keypad); stores its credentials in the',
      '                                 data folder and prints the config block',
      '  ttlock import --lock-data FILE [--address AA:BB:CC:DD:EE:FF] [--data DIR]',
      "                                 Take a lock's secrets from the TTLock app's record of it (shared",
      '                                 with every eKey holder of the app: pairing anew is the safe choice)',
      '  ttlock decode [--key HEX32] FRAME_HEX',
      '                                 Dissect a TTLock Bluetooth frame (its payload decrypted when a',
      '                                 key is given); prints one JSON line',
    ],
  },
  pairing: {
    noun: 'TTLock',
    steps: [
      'Reset the lock if the TTLock app paired it (it leaves the app: its eKeys, passcodes, cards and fingerprints are erased).',
      'Scan: the Homebridge host listens for TTLocks nearby (up to 10 s) and says which are in setting mode.',
      'Choose your lock, touch its keypad to wake it (setting mode lasts about 15 s), then press “Pair the chosen lock”.',
      'Add the paired lock to the config below, set its owner, save and restart Homebridge.',
    ],
    afterScan: 'Touch the lock’s keypad to wake it, then press “Pair the chosen lock” within 15 s.',
  },
  load: () => import('./ttlock-module.js').then((module) => module.ttlockModule),
};
