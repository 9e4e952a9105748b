import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readSecretJson, writeSecretJson } from '../secret-file.js';
import { MAX_SECURITY_PIN, type NukiApiLevel, type NukiDeviceKind } from './nuki-api-level.js';

/** The file, in the data folder, that holds what pairing with Nuki locks produced (docs/design.md §4b). */
export const NUKI_CREDENTIALS_FILE = 'nuki-credentials.json';

/** What pairing with one Nuki lock produced: secret, never in config.json, never logged. */
export interface StoredNukiCredentials {
  /** The lock's BLE address, upper case. */
  address: string;
  /** The 32-byte key shared with the lock (NaCl box.before of the pairing key exchange). */
  sharedKey: Buffer;
  /** The authorization id the lock gave us. */
  authorizationId: number;
  /** The app (or bridge) id we paired with; the lock logs our actions under it. */
  appId: number;
  /** Paired as an app (default) or as a bridge (`--as-bridge`). */
  idType: 'app' | 'bridge';
  /** The name our authorization has in the lock's list (what the Nuki app shows). */
  authorizationName: string;
  /** The lock's UUID from pairing, hex. */
  lockUuid: string;
  /** The lock's security PIN, needed to read its log; null when not given. */
  securityPin: number | null;
  /** When pairing succeeded, ms since the epoch. */
  pairedAt: number;
  /**
   * What pairing found (docs/design.md §4d): a Smart Lock or an Opener, and its Bluetooth API
   * level (2.3: Ultra, Go, Pro 5th generation; its PIN is a u32). Absent in files written before
   * models were told apart: a Smart Lock of API 2.2.
   */
  kind?: NukiDeviceKind;
  apiLevel?: NukiApiLevel;
}

interface FileShape {
  version: 1;
  locks: Record<string, {
    shared_key: string;
    authorization_id: number;
    app_id: number;
    id_type: 'app' | 'bridge';
    authorization_name: string;
    lock_uuid: string;
    security_pin: number | null;
    paired_at: string;
    kind?: NukiDeviceKind;
    api_level?: NukiApiLevel;
  }>;
}

/**
 * The Nuki credentials of a data folder: read once by the service at start, written only by
 * `ekey-locks nuki pair` (never on Homebridge's event loop). The file has mode 0600 and is
 * replaced atomically (temporary file, fsync, rename), so a crash leaves the old or the new file,
 * never half of one. Secrets never appear in errors or logs.
 */
export class NukiCredentialFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, NUKI_CREDENTIALS_FILE);
  }

  /**
   * Every stored lock by upper-case address; empty when the file does not exist.
   * @throws Error (naming the file, not its content) when it exists but cannot be read or parsed.
   */
  readAll(): Map<string, StoredNukiCredentials> {
    const parsed = readSecretJson(this.path);
    if (parsed === undefined) return new Map();
    return parseShape(parsed, this.path);
  }

  /** The credentials of one lock, or undefined. @throws as {@link readAll}. */
  read(address: string): StoredNukiCredentials | undefined {
    return this.readAll().get(address.toUpperCase());
  }

  /** Adds or replaces one lock's credentials. @throws Error when the file cannot be written. */
  write(credentials: StoredNukiCredentials): void {
    const all = this.readAll();
    all.set(credentials.address.toUpperCase(), credentials);
    this.replace(all);
  }

  /** Removes one lock's credentials; false when there were none. */
  remove(address: string): boolean {
    const all = this.readAll();
    if (!all.delete(address.toUpperCase())) return false;
    this.replace(all);
    return true;
  }

  /** The file's permission bits (e.g. 0o600), or null when it does not exist. */
  mode(): number | null {
    try {
      return statSync(this.path).mode & 0o777;
    } catch {
      return null;
    }
  }

  private replace(all: ReadonlyMap<string, StoredNukiCredentials>): void {
    const shape: FileShape = { version: 1, locks: {} };
    for (const [address, entry] of all) {
      shape.locks[address] = {
        shared_key: entry.sharedKey.toString('hex'),
        authorization_id: entry.authorizationId,
        app_id: entry.appId,
        id_type: entry.idType,
        authorization_name: entry.authorizationName,
        lock_uuid: entry.lockUuid,
        security_pin: entry.securityPin,
        paired_at: new Date(entry.pairedAt).toISOString(),
        ...(entry.kind === undefined ? {} : { kind: entry.kind }),
        ...(entry.apiLevel === undefined ? {} : { api_level: entry.apiLevel }),
      };
    }
    writeSecretJson(this.path, shape);
  }
}

function parseShape(parsed: unknown, path: string): Map<string, StoredNukiCredentials> {
  const invalid = (what: string): Error => new Error(`${path}: ${what}`);
  if (typeof parsed !== 'object' || parsed === null || (parsed as { version?: unknown }).version !== 1) throw invalid('unknown format (expected version 1)');
  const locks = (parsed as { locks?: unknown }).locks;
  if (typeof locks !== 'object' || locks === null) throw invalid('no "locks" object');
  const result = new Map<string, StoredNukiCredentials>();
  for (const [address, raw] of Object.entries(locks as Record<string, unknown>)) {
    if (typeof raw !== 'object' || raw === null) throw invalid(`entry ${address} is not an object`);
    const entry = raw as Record<string, unknown>;
    const sharedKey = typeof entry.shared_key === 'string' && /^[0-9a-f]{64}$/i.test(entry.shared_key) ? Buffer.from(entry.shared_key, 'hex') : null;
    const authorizationId = entry.authorization_id;
    const appId = entry.app_id;
    const pin = entry.security_pin;
    // Name the field, never its value: the value may be the key.
    if (sharedKey === null) throw invalid(`entry ${address} is incomplete: no valid shared_key (64 hex digits)`);
    if (!isUint32(authorizationId)) throw invalid(`entry ${address} is incomplete: no valid authorization_id`);
    if (!isUint32(appId)) throw invalid(`entry ${address} is incomplete: no valid app_id`);
    const apiLevel = entry.api_level === '2.3' ? '2.3' : entry.api_level === '2.2' ? '2.2' : undefined;
    const kind = entry.kind === 'opener' ? 'opener' : entry.kind === 'smart_lock' ? 'smart_lock' : undefined;
    if (pin !== null && pin !== undefined && !(Number.isInteger(pin) && (pin as number) >= 0 && (pin as number) <= MAX_SECURITY_PIN[apiLevel ?? '2.2'])) {
      throw invalid(`entry ${address} has an invalid security PIN`);
    }
    const upper = address.toUpperCase();
    result.set(upper, {
      address: upper,
      sharedKey,
      authorizationId,
      appId,
      idType: entry.id_type === 'bridge' ? 'bridge' : 'app',
      authorizationName: typeof entry.authorization_name === 'string' ? entry.authorization_name : '',
      lockUuid: typeof entry.lock_uuid === 'string' ? entry.lock_uuid : '',
      securityPin: typeof pin === 'number' ? pin : null,
      pairedAt: typeof entry.paired_at === 'string' && !Number.isNaN(Date.parse(entry.paired_at)) ? Date.parse(entry.paired_at) : 0,
      ...(kind === undefined ? {} : { kind }),
      ...(apiLevel === undefined ? {} : { apiLevel }),
    });
  }
  return result;
}

function isUint32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;
}
