import { createHash, randomUUID } from 'node:crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new random (v4) UUID, lower case. */
export const newId = (): string => randomUUID();

/** Whether a string is a UUID in canonical 8-4-4-4-12 form, any case. */
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/** IDs are compared case-insensitively (locks may be reported upper case): store lower case. */
export const normalizeId = (value: string): string => value.toLowerCase();

/**
 * A UUID derived from a name (SHA-1, RFC 9562 version 5 layout), so that a lock configured
 * without an id keeps the same id across restarts and hosts.
 */
export function stableId(namespace: string, name: string): string {
  const hash = createHash('sha1').update(`${namespace}\u0000${name}`).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
