import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readSecretJson, writeSecretJson } from '../secret-file.js';
import type { TtlockLockVersion } from './protocol/ttlock-frame.js';

/** The file, in the data folder, that holds the admin secrets of paired and imported TTLocks (docs/design.md §4f). */
export const TTLOCK_CREDENTIALS_FILE = 'ttlock-credentials.json';

/** How the service came to hold a lock's secrets. */
export type TtlockCredentialOrigin = 'paired' | 'imported';

/** One TTLock's secrets: never in config.json, never logged. */
export interface StoredTtlockCredentials {
  /** The lock's BLE address, upper case. */
  address: string;
  aesKey: Buffer;
  adminPs: number;
  unlockKey: number;
  /** The uid the service acts under on this lock. */
  uid: number;
  lockFlagPos: number;
  version: TtlockLockVersion;
  /** The admin keypad code pairing set (7 digits), or null (an import does not know it). */
  adminKeypadCode: string | null;
  origin: TtlockCredentialOrigin;
  /** When the lock joined the service, ms since the epoch. */
  addedAt: number;
}

interface StoredEntry {
  aes_key: string;
  admin_ps: number;
  unlock_key: number;
  uid: number;
  lock_flag_pos: number;
  version: { protocol_type: number; protocol_version: number; scene: number; group: number; org: number };
  admin_keypad_code: string | null;
  origin: TtlockCredentialOrigin;
  added_at: string;
}

interface FileShape {
  version: 1;
  locks: Record<string, StoredEntry>;
}

/**
 * The TTLock credentials of a data folder: read once by the service at start, written only by
 * `ekey-locks ttlock pair|import` and the settings page's pairing (never on Homebridge's event
 * loop). Mode 0600, replaced atomically (temporary file, fsync, rename). Errors name the file and
 * the field, never a value.
 */
export class TtlockCredentialFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, TTLOCK_CREDENTIALS_FILE);
  }

  /** Every stored lock by upper-case address; empty when the file does not exist. @throws Error when it cannot be read or parsed. */
  readAll(): Map<string, StoredTtlockCredentials> {
    const parsed = readSecretJson(this.path);
    if (parsed === undefined) return new Map();
    return parseShape(parsed, this.path);
  }

  read(address: string): StoredTtlockCredentials | undefined {
    return this.readAll().get(address.toUpperCase());
  }

  /** Adds or replaces one lock's credentials. @throws Error when the file cannot be written. */
  write(credentials: StoredTtlockCredentials): void {
    const all = this.readAll();
    all.set(credentials.address.toUpperCase(), credentials);
    this.replace(all);
  }

  /** The file's permission bits, or null when it does not exist. */
  mode(): number | null {
    try {
      return statSync(this.path).mode & 0o777;
    } catch {
      return null;
    }
  }

  private replace(all: ReadonlyMap<string, StoredTtlockCredentials>): void {
    const shape: FileShape = { version: 1, locks: {} };
    for (const [address, entry] of all) {
      shape.locks[address] = {
        aes_key: entry.aesKey.toString('hex'),
        admin_ps: entry.adminPs,
        unlock_key: entry.unlockKey,
        uid: entry.uid,
        lock_flag_pos: entry.lockFlagPos,
        version: { protocol_type: entry.version.protocolType, protocol_version: entry.version.protocolVersion, scene: entry.version.scene, group: entry.version.group, org: entry.version.org },
        admin_keypad_code: entry.adminKeypadCode,
        origin: entry.origin,
        added_at: new Date(entry.addedAt).toISOString(),
      };
    }
    writeSecretJson(this.path, shape);
  }
}

const isUint = (value: unknown, max: number): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;

function parseShape(parsed: unknown, path: string): Map<string, StoredTtlockCredentials> {
  const invalid = (what: string): Error => new Error(`${path}: ${what}`);
  if (typeof parsed !== 'object' || parsed === null || (parsed as { version?: unknown }).version !== 1) throw invalid('unknown format (expected version 1)');
  const locks = (parsed as { locks?: unknown }).locks;
  if (typeof locks !== 'object' || locks === null) throw invalid('no "locks" object');
  const result = new Map<string, StoredTtlockCredentials>();
  for (const [address, raw] of Object.entries(locks as Record<string, unknown>)) {
    if (typeof raw !== 'object' || raw === null) throw invalid(`entry ${address} is not an object`);
    const entry = raw as Partial<Record<keyof StoredEntry, unknown>>;
    // Name the field, never its value.
    if (typeof entry.aes_key !== 'string' || !/^[0-9a-f]{32}$/i.test(entry.aes_key)) throw invalid(`entry ${address} has no valid aes_key (32 hex digits)`);
    for (const field of ['admin_ps', 'unlock_key', 'uid'] as const) if (!isUint(entry[field], 0xffff_ffff)) throw invalid(`entry ${address} has no valid ${field}`);
    const version = entry.version as Partial<StoredEntry['version']> | undefined;
    if (typeof version !== 'object' || !isUint(version.protocol_type, 255) || !isUint(version.protocol_version, 255) || !isUint(version.scene, 255) || !isUint(version.group, 0xffff) || !isUint(version.org, 0xffff)) {
      throw invalid(`entry ${address} has no valid version`);
    }
    const upper = address.toUpperCase();
    result.set(upper, {
      address: upper,
      aesKey: Buffer.from(entry.aes_key, 'hex'),
      adminPs: entry.admin_ps as number,
      unlockKey: entry.unlock_key as number,
      uid: entry.uid as number,
      lockFlagPos: isUint(entry.lock_flag_pos, 0xff_ffff) ? entry.lock_flag_pos : 0,
      version: { protocolType: version.protocol_type, protocolVersion: version.protocol_version, scene: version.scene, group: version.group, org: version.org },
      adminKeypadCode: typeof entry.admin_keypad_code === 'string' && /^\d{4,9}$/.test(entry.admin_keypad_code) ? entry.admin_keypad_code : null,
      origin: entry.origin === 'imported' ? 'imported' : 'paired',
      addedAt: typeof entry.added_at === 'string' && !Number.isNaN(Date.parse(entry.added_at)) ? Date.parse(entry.added_at) : 0,
    });
  }
  return result;
}
