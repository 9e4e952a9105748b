import type { DoorCodeRules } from '../domain/door-code.js';
import type { LockCommandType } from '../domain/lock-command-type.js';
import type { DeviceInformation } from '../domain/lock-vocabulary.js';
import { ekeyFamily } from './ekey/ekey-family.js';
import type { LockCapabilities, LockFamilyDescriptor } from './lock-family.js';
import type { LockFamilyModule } from './lock-family-module.js';
import { nukiFamily } from './nuki/nuki-family.js';
import { nukiOpenerFamily } from './nuki-opener/nuki-opener-family.js';
import { ttlockFamily } from './ttlock/ttlock-family.js';

/**
 * Every lock family the gateway drives (docs/design.md §2, §4b, §4d), each in its folder under
 * src/families/, listed here by its light descriptor. The first is the family of a
 * lock configured without one. Shared code asks this registry, never "is this a Nuki?"; a family's
 * heavy part (driver, protocol, pairing, simulator) loads only when {@link loadFamilyModules} asks
 * for it, so Homebridge's main thread, which checks the config and shows the locks, loads none.
 * Adding a family = its folder, and here its descriptor's import and its entry in this list
 * (docs/architecture.md "Adding a lock family"; test/integration/families/add-a-family.test.ts does it).
 */
export const LOCK_FAMILIES: readonly LockFamilyDescriptor[] = [ekeyFamily, nukiFamily, nukiOpenerFamily, ttlockFamily];

/** The id of one of {@link LOCK_FAMILIES}: what a lock stores in `family` (plain text). */
export type LockFamilyId = string;

/** Every family id, in registry order. */
export const LOCK_FAMILY_IDS: readonly string[] = LOCK_FAMILIES.map((family) => family.id);

/** The family of a lock configured without one: the first of the registry (our profile). */
export const DEFAULT_LOCK_FAMILY: string = LOCK_FAMILIES[0]?.id ?? '';

/** Whether a stored or configured string names a family of this registry. */
export function isLockFamilyId(value: unknown): value is string {
  return typeof value === 'string' && LOCK_FAMILY_IDS.includes(value);
}

/** The family with this id, or undefined (a lock stored by a newer version, a typo). */
export function familyDescriptor(id: string): LockFamilyDescriptor | undefined {
  return LOCK_FAMILIES.find((family) => family.id === id);
}

/** What a family without a descriptor can do: nothing beyond what no lock needs. */
const NO_CAPABILITIES: LockCapabilities = { keypad: false, doorSensor: false, opener: false, ownUsers: false };

/** The command types a family's locks run; a family this version does not know runs lock and unlock only (and has no driver). */
export function commandTypesOf(id: string): readonly LockCommandType[] {
  return familyDescriptor(id)?.commandTypes ?? ['lock', 'unlock'];
}

/** What a family's locks can do (none of it for an unknown family). */
export function capabilitiesOf(id: string): LockCapabilities {
  return familyDescriptor(id)?.capabilities ?? NO_CAPABILITIES;
}

/** The rules of the door codes a family's keypad takes; undefined for a family without one. */
export function doorCodeRulesOf(id: string): DoorCodeRules | undefined {
  return familyDescriptor(id)?.doorCodes;
}

/** The serial number a lock's family names from its Device Information, or undefined (then the Bluetooth address is shown). */
export function familySerialNumber(id: string, deviceInformation: DeviceInformation | undefined): string | undefined {
  return familyDescriptor(id)?.serialNumberOf(deviceInformation);
}

/** The display name of a family, or its id when this version does not know it. */
export function familyDisplayName(id: string): string {
  return familyDescriptor(id)?.displayName ?? id;
}

const loaded = new Map<string, LockFamilyModule>();

/**
 * Loads the heavy part of the families with these ids (every family by default); ids the registry
 * does not know are skipped. After it, {@link familyModule} answers them synchronously.
 */
export async function loadFamilyModules(ids: Iterable<string> = LOCK_FAMILY_IDS): Promise<void> {
  const wanted = [...new Set(ids)].flatMap((id) => {
    const descriptor = familyDescriptor(id);
    return descriptor === undefined || loaded.has(id) ? [] : [descriptor];
  });
  // One after the other: the families share modules, and Jest's ES module loader fails on parallel
  // dynamic imports of a shared module ("module not been linked").
  for (const descriptor of wanted) {
    const module = await descriptor.load();
    loaded.set(descriptor.id, module);
  }
}

/** The loaded heavy part of a family; undefined when it is not loaded ({@link loadFamilyModules}) or unknown. */
export function familyModule(id: string): LockFamilyModule | undefined {
  return loaded.get(id);
}
