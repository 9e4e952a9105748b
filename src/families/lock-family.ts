import type { FieldError } from '../domain/errors.js';
import type { DoorCodeRules } from '../domain/door-code.js';
import type { LockCommandType } from '../domain/lock-command-type.js';
import type { DeviceInformation } from '../domain/lock-vocabulary.js';
import type { LockFamilyModule } from './lock-family-module.js';

/**
 * What a lock of a family can do beyond lock and unlock, in neutral words every adapter and page
 * understands (docs/design.md §2 "The plug-in contract").
 */
export interface LockCapabilities {
  /** A keypad can be paired with it (config `locks[].keypad`): eKeys can carry door codes (docs/design.md §4c). */
  readonly keypad: boolean;
  /** It may report a door sensor (open/closed). */
  readonly doorSensor: boolean;
  /** An intercom's door opener: modes and a strike, no bolt (docs/design.md §4d). */
  readonly opener: boolean;
  /**
   * It keeps its own user list (app authorizations by name), which the config links to our users:
   * their actions are taps by those users (docs/design.md §4b).
   */
  readonly ownUsers: boolean;
  /**
   * It cannot sense its bolt: the state it reports is the last position its motor drove to (by a
   * command, its keypad, its app), and a turn by hand goes unseen. Lock lists say
   * `bolt_state_source: "assumed"` (docs/design.md §4f); absent: the bolt state is a reading.
   */
  readonly boltAssumed?: boolean;
}

/** The fields of a config `locks[]` entry whose rules differ by family (src/config/plugin-config.ts). */
export interface FamilyLockConfig {
  address?: string;
  key?: string;
  gateway?: boolean;
  keypad?: boolean;
}

/**
 * A family's own fields of a config `locks[]` entry, as JSON Schema (plain objects: no TypeBox on
 * Homebridge's main thread, which loads descriptors). The config schema, config.schema.json and
 * the generated validators are built from them (scripts/config-files.mjs); a field several
 * families declare must be declared alike.
 */
export type ConfigFieldSchemas = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** How the CLI and the settings page offer a family's pairing (the work is the module's). */
export interface PairingDescriptor {
  /** What people call the devices a scan finds: "Nuki lock" → "Pair a Nuki lock", "Scan for Nuki locks". */
  readonly noun: string;
  /** The steps the settings page shows before a scan, one sentence each. */
  readonly steps: readonly string[];
  /** What to do once a scan found devices ("Hold the lock's button for 5 s, then press “Pair the chosen lock”."). */
  readonly afterScan: string;
  /** The name we take in the device's own user list: its field's label, the default, at most this many bytes. */
  readonly ourName?: { readonly label: string; readonly default: string; readonly maxBytes: number };
  /** The device's PIN: labels while it is optional and once a device needs it (with the sentence that says why), its digits. */
  readonly pin?: { readonly optionalLabel: string; readonly neededLabel: string; readonly neededHint: string; readonly neededError: string; readonly digits: number };
}

/**
 * A lock family as the rest of the house sees it: light, so Homebridge's main thread can load every
 * descriptor without a driver, a protocol or its crypto (docs/architecture.md "Lock families").
 * Everything heavy is behind {@link load}. A family lives in `src/families/<id>/` and is listed
 * once, in src/families/registry.ts; nothing outside its folder names it.
 */
export interface LockFamilyDescriptor {
  /** The id stored with each lock and written in config `locks[].family`. */
  readonly id: string;
  /** What people call a lock of this family ("Nuki Smart Lock"): the settings page says it. */
  readonly displayName: string;
  /** The family's choice in the config form's "Lock family" (config.schema.json). */
  readonly formTitle: string;
  /** Its own fields of a `locks[]` entry, beyond the fields every lock has. */
  readonly configFields: ConfigFieldSchemas;
  /** What a `locks[]` entry of this family must or must not have, beyond the schema. */
  configProblems(lock: FamilyLockConfig): FieldError[];
  /**
   * A family whose locks share a key with the service (our profile): the key of a valid `locks[]`
   * entry, which the store keeps (it never leaves the service); undefined when the entry has none.
   */
  storedKey?(lock: Readonly<Record<string, unknown>>): string | undefined;
  /**
   * HomeKit's and Matter's serial number from the lock's Device Information, when the lock's own
   * serial is what its maker's app shows; undefined to use the Bluetooth address.
   */
  serialNumberOf(deviceInformation: DeviceInformation | undefined): string | undefined;
  /** The command types its locks run (`lock` and `unlock` at least; docs/design.md §4d). */
  readonly commandTypes: readonly LockCommandType[];
  readonly capabilities: LockCapabilities;
  /** The rules of the codes its keypad takes (families with `capabilities.keypad`). */
  readonly doorCodes?: DoorCodeRules;
  /** `ekey-locks <name> …`: its command-line tools (the module's `cli`). */
  readonly cli?: { readonly name: string; readonly usage: readonly string[] };
  /** Its locks are paired (the module's `pairing`): how the CLI and the settings page offer it. */
  readonly pairing?: PairingDescriptor;
  /** The heavy part: driver factory, credentials, pairing, CLI, demo simulator (a dynamic import). */
  load(): Promise<LockFamilyModule>;
}
