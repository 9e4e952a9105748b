import { createHmac, timingSafeEqual } from 'node:crypto';
import { LOCK_KEY_LENGTH, TAG_LENGTH } from './lock-profile.js';

/**
 * Parses a per-lock key given as 64 hex digits (32 bytes).
 * @throws Error when the text is not exactly 32 bytes of hex.
 */
export function parseLockKey(hex: string): Buffer {
  if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== LOCK_KEY_LENGTH * 2) {
    throw new Error(`A lock key must be ${LOCK_KEY_LENGTH * 2} hex digits.`);
  }
  return Buffer.from(hex, 'hex');
}

/** HMAC-SHA256 of `signedBytes` under the lock's key: the tag appended to every signed frame. */
export function computeTag(key: Buffer, signedBytes: Buffer): Buffer {
  return createHmac('sha256', key).update(signedBytes).digest();
}

/** Checks a tag in constant time, so a forger learns nothing from how fast a frame is refused. */
export function verifyTag(key: Buffer, signedBytes: Buffer, tag: Buffer): boolean {
  if (tag.length !== TAG_LENGTH) return false;
  return timingSafeEqual(computeTag(key, signedBytes), tag);
}
