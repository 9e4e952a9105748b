import type { ConfigFieldSchemas, LockFamilyDescriptor } from '../lock-family.js';

/**
 * `locks[].nuki_users` (docs/design.md §4b): the lock's own app authorizations (by the name the
 * Nuki app shows) linked to our users (by e-mail); their actions become taps by those users. A map,
 * or the same links as a list — the shape the Homebridge UI's form can edit (and keeps on Save).
 * The Smart Lock and the Opener declare it alike.
 */
export const NUKI_USERS_FIELD: ConfigFieldSchemas = {
  nuki_users: {
    anyOf: [
      { type: 'object', patternProperties: { '^.*$': { type: 'string', format: 'email' } } },
      {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            authorization: { type: 'string', minLength: 1, maxLength: 32, title: 'Nuki user (as the Nuki app names it)' },
            email: { type: 'string', format: 'email', title: 'E-mail of their account' },
          },
          required: ['authorization', 'email'],
          additionalProperties: false,
        },
      },
    ],
    title: 'Nuki users linked to accounts (Nuki only)',
    description: "Each Nuki user (by the name the Nuki app shows) and the e-mail of that person's account: their unlocks become their events and arrival triggers (docs/nuki.md).",
    'x-form-choice': 1,
    'x-add-button': 'Link a Nuki user',
  },
};

/** What a Nuki entry must have beyond the schema: an address, and no key (it is paired). */
export function nukiConfigProblems(lock: { key?: string; address?: string }, what: string): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  if (lock.key !== undefined) problems.push({ field: '/key', message: `is not used by ${what} (it is paired: ekey-locks nuki pair)` });
  if (lock.address === undefined) problems.push({ field: '/address', message: `is required for ${what}` });
  return problems;
}

/** A Nuki shows its Nuki ID, as the Nuki app does (read from the lock's Config, docs/design.md §4b). */
export function nukiSerialNumber(deviceInformation: { serial: string } | undefined): string | undefined {
  const nukiId = deviceInformation?.serial.trim();
  return nukiId === undefined || nukiId === '' ? undefined : nukiId;
}

/**
 * The Nuki Smart Lock (docs/nuki.md): paired over Bluetooth, its credentials in a file of their
 * own. Light: the driver, the protocol and its crypto, pairing and the simulator load with
 * `nuki-module.ts`.
 */
export const nukiFamily: LockFamilyDescriptor = {
  id: 'nuki',
  displayName: 'Nuki Smart Lock',
  formTitle: 'Nuki Smart Lock (pair it with "ekey-locks nuki pair")',
  configFields: NUKI_USERS_FIELD,
  configProblems: (lock) => nukiConfigProblems(lock, 'a Nuki lock'),
  serialNumberOf: nukiSerialNumber,
  commandTypes: ['lock', 'unlock', 'unlatch'],
  capabilities: { keypad: true, doorSensor: true, opener: false, ownUsers: true },
  // docs/design.md §4c: the Nuki Keypad takes six digits 1–9, refuses codes that start with 12, holds 100.
  doorCodes: { length: 6, digits: '123456789', forbiddenPrefixes: ['12'], capacity: 100, weeklyWindow: true, canDisableCodes: true },
  cli: {
    name: 'nuki',
    usage: [
      '  nuki scan [--seconds N] [--adapter hciX | --via PROXY [--config FILE]]',
      "                                 List the Nuki Smart Locks and Openers nearby, with each one's",
      '                                 model and Bluetooth API level (--via: heard by that ESPHome',
      '                                 Bluetooth proxy of the config, docs/gateways.md)',
      '  nuki pair --address AA:BB:CC:DD:EE:FF [--name N] [--pin PIN] [--as-bridge] [--data DIR]',
      '            [--adapter hciX | --via PROXY [--config FILE]] [--timeout-s N]',
      '                                 Pair with a Nuki Smart Lock or Opener in pairing mode (button',
      '                                 held 5 s; an Ultra, Go or Pro 5th generation needs its 6-digit',
      '                                 --pin); stores its credentials in the data folder and prints',
      '                                 the config block',
      '  nuki decode [--shared-key HEX64] FRAME_HEX',
      '                                 Dissect a Nuki Bluetooth frame (read as encrypted when a shared',
      '                                 key is given); prints one JSON line',
      '  nuki encode --command N [--payload HEX] [--shared-key HEX64 --auth-id N --nonce HEX48]',
      '                                 Build a Nuki frame (encrypted with the three crypto options);',
      '                                 prints it as hex',
    ],
  },
  pairing: {
    noun: 'Nuki lock',
    steps: [
      "Scan: the Homebridge host listens for Nuki Smart Locks and Openers nearby (up to 10 s) and names each one's model.",
      'Choose your lock, then hold its button for 5 s until the LED ring lights up, and press “Pair the chosen lock”. A Smart Lock Ultra, Go or Pro (5th generation) also needs its 6-digit security PIN.',
      'Add the paired lock to the config below, set its owner, save and restart Homebridge.',
    ],
    afterScan: "Hold the lock's button for 5 s, then press “Pair the chosen lock”.",
    ourName: { label: "Name of this Homebridge in the lock's user list", default: 'ekey-locks (Homebridge)', maxBytes: 32 },
    pin: {
      optionalLabel: 'Security PIN (optional; needed to read who opened the door)',
      neededLabel: 'Security PIN (6 digits; this lock needs it to pair)',
      neededHint: "This lock speaks Nuki's newer Bluetooth API: it pairs only with the 6-digit security PIN set in the Nuki app.",
      neededError: "This lock pairs only with its 6-digit security PIN: enter it first (the Nuki app shows it under the lock's settings).",
      digits: 6,
    },
  },
  load: () => import('./nuki-module.js').then((module) => module.nukiModule),
};
