import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new opaque token: 256 random bits, base64url (43 characters). */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** Tokens, codes and client secrets are stored only as SHA-256 hashes (hex). */
export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Compare equal-length digests so the length of a secret is not leaked either.
  return timingSafeEqual(createHash('sha256').update(left).digest(), createHash('sha256').update(right).digest()) && left.length === right.length;
}
