import { ttlockCrcTableValue } from './protocol/ttlock-crc.js';
import { DEFAULT_TTLOCK_VERSION, type TtlockLockVersion } from './protocol/ttlock-frame.js';

/**
 * `ekey-locks ttlock import --lock-data FILE` (docs/design.md §4f): a lock's secrets as the TTLock
 * app and its cloud keep them, read from a JSON file — the lock record of the vendor's cloud or
 * Open API (`lockMac`, `aesKeyStr`, `adminPwd`/`adminPs`, `lockKey`, `lockFlagPos`, `lockVersion`),
 * ttlock-rs's `lockData.json` (`address`, `private_data`) or the kind3r add-on's export
 * (`address`, `privateData`), one object, a list, or `{"list": [...]}`. The app's obfuscated
 * numbers (base64 of a comma list of bytes whose last is a seed) are decoded as ttlock-rs
 * `credential.rs` and ttlock-ble document it. No source decodes the official SDK's opaque
 * `lockData` string: that one is refused with what to export instead.
 */

/** What an import gives the service. */
export interface ImportedTtlock {
  /** Upper case. */
  address: string;
  aesKey: Buffer;
  adminPs: number;
  unlockKey: number;
  lockFlagPos: number;
  version: TtlockLockVersion;
  /** The app user's uid when the file has one. */
  uid: number | null;
}

/** A file that cannot be imported: one sentence that names the field, never a value. */
export class LockDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LockDataError';
  }
}

/**
 * Decodes one of the app's obfuscated numbers: base64 of an ASCII comma list of byte values; the
 * last is a seed `s`; each other byte XOR `T[n] ^ s` (n = their count, T the vendor CRC table,
 * quirk included) is an ASCII digit. Stray whitespace and a trailing "." (copied from the app) are
 * tolerated. @throws LockDataError
 */
export function decodeObfuscatedNumber(text: string, field: string): number {
  const cleaned = text.trim().replace(/\.$/, '');
  const list = Buffer.from(cleaned, 'base64').toString('ascii');
  if (!/^\d{1,3}(,\d{1,3})+$/.test(list)) throw new LockDataError(`"${field}" is neither a number nor the app's encoded form`);
  const bytes = list.split(',').map(Number);
  const seed = bytes.pop() ?? 0;
  const mask = ttlockCrcTableValue(bytes.length) ^ seed;
  const digits = bytes.map((byte) => String.fromCharCode(byte ^ mask)).join('');
  if (!/^\d+$/.test(digits)) throw new LockDataError(`"${field}" does not decode to a number (is it from this lock's record?)`);
  const value = Number(digits);
  if (!Number.isSafeInteger(value) || value > 0xffff_ffff) throw new LockDataError(`"${field}" decodes to a number too large for the lock`);
  return value;
}

/** The app's `aesKeyStr` ("a1,b2,…", 16 comma-separated hex bytes) or 32 hex digits. @throws LockDataError */
export function decodeAesKeyText(value: unknown, field: string): Buffer {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (/^[0-9a-f]{32}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const parts = trimmed.split(',').map((part) => part.trim());
  if (parts.length === 16 && parts.every((part) => /^[0-9a-f]{1,2}$/i.test(part))) return Buffer.from(parts.map((part) => Number.parseInt(part, 16)));
  throw new LockDataError(`"${field}" is not a 16-byte key (32 hex digits, or 16 comma-separated hex bytes)`);
}

function numberField(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff) return value;
  if (typeof value === 'string' && /^\d+$/.test(value.trim()) && Number(value.trim()) <= 0xffff_ffff) return Number(value.trim());
  if (typeof value === 'string') return decodeObfuscatedNumber(value, field);
  throw new LockDataError(`"${field}" is missing or not a number`);
}

function addressOf(value: unknown, field: string): string {
  if (typeof value === 'string' && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(value.trim())) return value.trim().toUpperCase();
  throw new LockDataError(`"${field}" is missing or not a Bluetooth address (AA:BB:CC:DD:EE:FF)`);
}

function versionOf(value: unknown): TtlockLockVersion {
  if (typeof value === 'string') {
    try {
      return versionOf(JSON.parse(value));
    } catch {
      return DEFAULT_TTLOCK_VERSION;
    }
  }
  if (typeof value !== 'object' || value === null) return DEFAULT_TTLOCK_VERSION;
  const fields = value as Record<string, unknown>;
  const read = (names: string[], fallback: number, max: number): number => {
    for (const name of names) {
      const field = fields[name];
      if (typeof field === 'number' && Number.isInteger(field) && field >= 0 && field <= max) return field;
    }
    return fallback;
  };
  return {
    protocolType: read(['protocolType', 'protocol_type'], DEFAULT_TTLOCK_VERSION.protocolType, 255),
    protocolVersion: read(['protocolVersion', 'protocol_version'], DEFAULT_TTLOCK_VERSION.protocolVersion, 255),
    scene: read(['scene'], DEFAULT_TTLOCK_VERSION.scene, 255),
    group: read(['groupId', 'group_id', 'group'], DEFAULT_TTLOCK_VERSION.group, 0xffff),
    org: read(['orgId', 'org_id', 'org'], DEFAULT_TTLOCK_VERSION.org, 0xffff),
  };
}

/** One record of any of the accepted shapes. @throws LockDataError */
function importedOf(record: Record<string, unknown>): ImportedTtlock {
  const uid = typeof record.uid === 'number' && Number.isInteger(record.uid) && record.uid > 0 && record.uid <= 0xffff_ffff ? record.uid : null;
  const lockFlagPos = typeof record.lockFlagPos === 'number' && Number.isInteger(record.lockFlagPos) && record.lockFlagPos >= 0 ? record.lockFlagPos & 0xff_ffff : 0;
  const version = versionOf(record.lockVersion ?? record.lock_version);
  if (version.protocolType !== 5 || version.protocolVersion !== 3) throw new LockDataError(`this lock speaks TTLock protocol ${version.protocolType}.${version.protocolVersion}; only V3 locks (5.3) are supported`);
  if (typeof record.private_data === 'object' && record.private_data !== null) {
    const secrets = record.private_data as Record<string, unknown>;
    return {
      address: addressOf(record.address, 'address'),
      aesKey: decodeAesKeyText(secrets.aes_key, 'private_data.aes_key'),
      adminPs: numberField(secrets.admin_ps, 'private_data.admin_ps'),
      unlockKey: numberField(secrets.unlock_key, 'private_data.unlock_key'),
      lockFlagPos,
      version,
      uid,
    };
  }
  if (typeof record.privateData === 'object' && record.privateData !== null) {
    const secrets = record.privateData as Record<string, unknown>;
    const admin = (typeof secrets.admin === 'object' && secrets.admin !== null ? secrets.admin : {}) as Record<string, unknown>;
    return {
      address: addressOf(record.address, 'address'),
      aesKey: decodeAesKeyText(secrets.aesKey, 'privateData.aesKey'),
      adminPs: numberField(admin.adminPs, 'privateData.admin.adminPs'),
      unlockKey: numberField(admin.unlockKey, 'privateData.admin.unlockKey'),
      lockFlagPos,
      version,
      uid,
    };
  }
  if (record.lockMac !== undefined || record.aesKeyStr !== undefined) {
    const adminField = record.adminPwd !== undefined ? 'adminPwd' : 'adminPs';
    return {
      address: addressOf(record.lockMac, 'lockMac'),
      aesKey: decodeAesKeyText(record.aesKeyStr, 'aesKeyStr'),
      adminPs: numberField(record[adminField], adminField),
      unlockKey: numberField(record.lockKey, 'lockKey'),
      lockFlagPos,
      version,
      uid,
    };
  }
  throw new LockDataError('no lock record found (expected the lock record of the TTLock cloud or Open API with lockMac and aesKeyStr, or a lockData.json with address and private_data)');
}

/**
 * The locks in a lock-data file's text; `address` picks one when it holds several.
 * @throws LockDataError with one sentence
 */
export function parseLockData(text: string, address?: string): ImportedTtlock {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (/^[A-Za-z0-9+/=\s]{64,}$/.test(text.trim())) {
      throw new LockDataError("this looks like the official SDK's encoded lockData string, which nobody has published a way to read: export the lock's record from the TTLock Open API (lock detail) instead, or pair the lock anew");
    }
    throw new LockDataError('the file is not JSON');
  }
  const list = Array.isArray(parsed) ? parsed : typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { list?: unknown }).list) ? (parsed as { list: unknown[] }).list : [parsed];
  const records = list.filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null);
  if (records.length === 0) throw new LockDataError('the file holds no lock record');
  const locks = records.map(importedOf);
  if (address === undefined) {
    const [only] = locks;
    if (locks.length !== 1 || only === undefined) throw new LockDataError(`the file holds ${locks.length} locks: choose one with --address`);
    return only;
  }
  const wanted = address.toUpperCase();
  const found = locks.find((lock) => lock.address === wanted);
  if (found === undefined) throw new LockDataError(`the file holds no lock with the address ${wanted}`);
  return found;
}

/**
 * The honest warning of docs/design.md §4f, said before anything is stored: every TTLock app user
 * who holds an eKey of the lock holds this very key (DEF CON 34, 2026), so an import does not make
 * the service the lock's only key holder; pairing anew does.
 */
export const IMPORT_WARNING: readonly string[] = [
  'Warning: these are the secrets the TTLock app holds for this lock, and they are the same for everyone.',
  '         Every person who holds, or ever held, an eKey of this lock in the TTLock app has this very key',
  '         (published at DEF CON 34 in 2026): they can open the lock without the app, even after their eKey',
  '         was deleted or expired, and can set its clock back to revive expired passcodes. Importing does not',
  '         change that. The safe choice is to pair anew: reset the lock to factory settings, then run',
  '         "ekey-locks ttlock pair --address <address>" (the lock leaves the TTLock app; its eKeys, passcodes,',
  '         cards and fingerprints are erased).',
];
