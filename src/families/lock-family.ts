import type { FieldError } from '../domain/errors.js';
import type { DeviceInformation } from '../domain/lock-vocabulary.js';
import type { LockDriver } from '../gateway/lock-driver.js';
import type { Logger } from '../logger.js';
import type { LockRecord } from '../store/lock-repository.js';
import type { NukiDriverOptions } from './nuki/driver/nuki-driver.js';
import type { StoredNukiCredentials } from './nuki/nuki-credential-file.js';

/** Where each family's secrets come from when its drivers are built. */
export interface LockDriverSources {
  /** A paired Nuki lock's credentials by address (the data folder's file, or the demo's). */
  nukiCredentials: (address: string) => StoredNukiCredentials | undefined;
  /** Settings of every Nuki driver (the demo releases links sooner). */
  nuki?: NukiDriverOptions;
  logger: Logger;
}

/** The fields of a config `locks[]` entry whose rules differ by family (src/config/plugin-config.ts). */
export interface FamilyLockConfig {
  address?: string;
  key?: string;
  gateway?: boolean;
}

/**
 * One lock family: everything shared code needs to know about a protocol, so that nothing outside
 * the family's folder asks which family a lock is. A family lives in `src/families/<id>/` and is
 * listed once, in src/families/registry.ts.
 */
export interface LockFamily {
  /** The id stored with each lock and written in config `locks[].family`. */
  readonly id: string;
  /** What people call a lock of this family ("Nuki Smart Lock"): the settings page says it. */
  readonly displayName: string;
  /** The family's choice in the config form's "Lock family" (config.schema.json). */
  readonly formTitle: string;
  /** What a `locks[]` entry of this family must or must not have, beyond the schema. */
  configProblems(lock: FamilyLockConfig): FieldError[];
  /**
   * The protocol driver of a stored lock with an address, or null when the lock cannot have one
   * at all (our profile without a key). A lock that could work but is not ready (a Nuki never
   * paired) gets a driver that says why, so it is listed, shown offline and explained once.
   */
  createDriver(lock: LockRecord & { bleAddress: string }, sources: LockDriverSources): LockDriver | null;
  /**
   * HomeKit's and Matter's serial number from the lock's Device Information, when the lock's own
   * serial is what its maker's app shows (a Nuki ID); undefined to use the Bluetooth address.
   */
  serialNumberOf(deviceInformation: DeviceInformation | undefined): string | undefined;
  /**
   * True when the lock keeps its own user list (a Nuki's app authorizations), so its activity
   * names a lock-side authorization that config links to one of our users.
   */
  readonly keepsOwnUsers: boolean;
  /** True when a keypad can be paired with the lock, so eKeys can carry door codes (docs/design.md §4c). */
  readonly takesKeypad: boolean;
}
