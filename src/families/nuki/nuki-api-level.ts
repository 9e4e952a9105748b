/**
 * Which Nuki a device is and which Bluetooth API level it speaks (docs/design.md §4d,
 * docs/nuki.md "Models"). Nuki Smart Lock 1.0–4.0 speak API 2.1/2.2; the Smart Lock Ultra, Go and
 * Pro (5th generation) speak API 2.3, whose pairing runs on another service (`a92ee300-…`, General
 * Data I/O `a92ee301-…`) and carries a 6-digit security PIN as u32 (API 2.1/2.2: u16). The
 * keyturner service (`a92ee200-…`) is the same for all of them. The Nuki Opener has its own
 * services (`a92ae1xx-…`, `a92ae2xx-…`) with the same frame and pairing layouts as API 2.1/2.2.
 *
 * Detection is by the pairing service the device offers (and advertises while in pairing mode),
 * never by guessing from a name.
 */

const NUKI_UUID_SUFFIX = '-5501-11e4-916c-0800200c9a66';

/** The Bluetooth API levels we speak. */
export type NukiApiLevel = '2.2' | '2.3';

/** What kind of Nuki a device is. */
export type NukiDeviceKind = 'smart_lock' | 'opener';

/** Services and characteristics that differ between API levels and device kinds. */
export const NukiFamilyUuids = {
  /** Smart Lock 1.0–4.0 pairing service (API 2.1/2.2). */
  lockPairingService: `a92ee100${NUKI_UUID_SUFFIX}`,
  /** Its pairing General Data I/O. */
  lockPairingGdio: `a92ee101${NUKI_UUID_SUFFIX}`,
  /** Smart Lock Ultra / Go / Pro 5th generation pairing service (API 2.3). */
  lockPairingServiceApi23: `a92ee300${NUKI_UUID_SUFFIX}`,
  /** Its pairing General Data I/O: unencrypted frames, then the encrypted Authorization Data. */
  lockPairingGdioApi23: `a92ee301${NUKI_UUID_SUFFIX}`,
  /** Keyturner service of every Smart Lock. */
  lockKeyturnerService: `a92ee200${NUKI_UUID_SUFFIX}`,
  /** Its User-Specific Data I/O. */
  lockKeyturnerUsdio: `a92ee202${NUKI_UUID_SUFFIX}`,
  /** Opener pairing service. */
  openerPairingService: `a92ae100${NUKI_UUID_SUFFIX}`,
  /** Opener pairing General Data I/O. */
  openerPairingGdio: `a92ae101${NUKI_UUID_SUFFIX}`,
  /** Opener keyturner service (also its iBeacon UUID once paired). */
  openerKeyturnerService: `a92ae200${NUKI_UUID_SUFFIX}`,
  /** Opener keyturner General Data I/O. */
  openerKeyturnerGdio: `a92ae201${NUKI_UUID_SUFFIX}`,
  /** Opener User-Specific Data I/O. */
  openerKeyturnerUsdio: `a92ae202${NUKI_UUID_SUFFIX}`,
} as const;

/** The models a simulated Nuki can be, and what `ekey-locks nuki scan` names. */
export const NUKI_MODELS = {
  smart_lock_1: { kind: 'smart_lock', apiLevel: '2.2', name: 'Nuki Smart Lock 1.0' },
  smart_lock_2: { kind: 'smart_lock', apiLevel: '2.2', name: 'Nuki Smart Lock 2.0' },
  smart_lock_3: { kind: 'smart_lock', apiLevel: '2.2', name: 'Nuki Smart Lock 3.0 / 3.0 Pro' },
  smart_lock_4: { kind: 'smart_lock', apiLevel: '2.2', name: 'Nuki Smart Lock 4.0 / 4.0 Pro' },
  smart_lock_ultra: { kind: 'smart_lock', apiLevel: '2.3', name: 'Nuki Smart Lock Ultra' },
  smart_lock_go: { kind: 'smart_lock', apiLevel: '2.3', name: 'Nuki Smart Lock Go' },
  smart_lock_pro_5: { kind: 'smart_lock', apiLevel: '2.3', name: 'Nuki Smart Lock Pro (5th generation)' },
  opener: { kind: 'opener', apiLevel: '2.2', name: 'Nuki Opener' },
} as const satisfies Record<string, { kind: NukiDeviceKind; apiLevel: NukiApiLevel; name: string }>;

/** A model id of {@link NUKI_MODELS}. */
export type NukiModel = keyof typeof NUKI_MODELS;

/** What a device's pairing service says about it: kind, API level and a name for people. */
export interface NukiPairingTarget {
  kind: NukiDeviceKind;
  apiLevel: NukiApiLevel;
  /** The pairing service UUID to connect to. */
  pairingService: string;
  /** Its General Data I/O characteristic. */
  pairingGdio: string;
  /** "Nuki Smart Lock 1.0–4.0", "Nuki Smart Lock Ultra / Go / Pro (5th generation)" or "Nuki Opener". */
  description: string;
}

const PAIRING_TARGETS: readonly NukiPairingTarget[] = [
  {
    kind: 'smart_lock',
    apiLevel: '2.2',
    pairingService: NukiFamilyUuids.lockPairingService,
    pairingGdio: NukiFamilyUuids.lockPairingGdio,
    description: 'Nuki Smart Lock 1.0–4.0',
  },
  {
    kind: 'smart_lock',
    apiLevel: '2.3',
    pairingService: NukiFamilyUuids.lockPairingServiceApi23,
    pairingGdio: NukiFamilyUuids.lockPairingGdioApi23,
    description: 'Nuki Smart Lock Ultra / Go / Pro (5th generation)',
  },
  {
    kind: 'opener',
    apiLevel: '2.2',
    pairingService: NukiFamilyUuids.openerPairingService,
    pairingGdio: NukiFamilyUuids.openerPairingGdio,
    description: 'Nuki Opener',
  },
];

/**
 * The pairing target of a device from the service UUIDs it offers (GATT) or advertises; null when
 * none is a Nuki pairing service.
 *
 * @example pairingTargetOf(['a92ee300-5501-11e4-916c-0800200c9a66'])?.apiLevel // "2.3"
 */
export function pairingTargetOf(serviceUuids: Iterable<string>): NukiPairingTarget | null {
  const offered = new Set([...serviceUuids].map((uuid) => uuid.toLowerCase()));
  return PAIRING_TARGETS.find((target) => offered.has(target.pairingService)) ?? null;
}

/** Every Nuki pairing target, in the order a pairing client probes them. */
export function allPairingTargets(): readonly NukiPairingTarget[] {
  return PAIRING_TARGETS;
}

/** The pairing target of a model (what a simulated Nuki of that model offers). */
export function pairingTargetOfModel(model: NukiModel): NukiPairingTarget {
  const { kind, apiLevel } = NUKI_MODELS[model];
  const target = PAIRING_TARGETS.find((candidate) => candidate.kind === kind && candidate.apiLevel === apiLevel);
  if (target === undefined) throw new Error(`no pairing target for ${model}`);
  return target;
}

/** The largest security PIN of each API level: u16 up to 2.2, six digits (in a u32) from 2.3. */
export const MAX_SECURITY_PIN: Record<NukiApiLevel, number> = { '2.2': 0xffff, '2.3': 999_999 };

/**
 * The security PIN field as the lock reads it in Request Log Entries, Verify Security PIN and the
 * other PIN-protected commands: u16 LE up to API 2.2, u32 LE from API 2.3.
 *
 * @throws RangeError when the PIN does not fit the API level.
 * @example encodeSecurityPin(123456, '2.3').toString('hex') // "40e20100"
 */
export function encodeSecurityPin(pin: number, apiLevel: NukiApiLevel): Buffer {
  if (!Number.isInteger(pin) || pin < 0 || pin > MAX_SECURITY_PIN[apiLevel]) {
    throw new RangeError(`A security PIN of API ${apiLevel} is a whole number from 0 to ${MAX_SECURITY_PIN[apiLevel]}.`);
  }
  const bytes = Buffer.alloc(apiLevel === '2.3' ? 4 : 2);
  if (apiLevel === '2.3') bytes.writeUInt32LE(pin, 0);
  else bytes.writeUInt16LE(pin, 0);
  return bytes;
}

/** Reads the security PIN field of an API level. @throws RangeError on a field of the wrong size. */
export function decodeSecurityPin(field: Buffer, apiLevel: NukiApiLevel): number {
  const size = apiLevel === '2.3' ? 4 : 2;
  if (field.length !== size) throw new RangeError(`A security PIN of API ${apiLevel} has ${size} bytes, not ${field.length}.`);
  return apiLevel === '2.3' ? field.readUInt32LE(0) : field.readUInt16LE(0);
}
