import { createHash } from 'node:crypto';
import { constantTimeEqual } from './secrets.js';

/** RFC 7636 §4.1: 43–128 characters of [A-Za-z0-9-._~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** An S256 challenge is a base64url SHA-256 digest without padding: exactly 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The only transform we accept; `plain` offers no protection against a leaked request (RFC 9700 §2.1.1). */
export const PKCE_METHOD = 'S256';

/** Whether a string is a syntactically valid code verifier. */
export const isValidCodeVerifier = (verifier: string): boolean => VERIFIER.test(verifier);

/** Whether a string can be an S256 code challenge. */
export const isValidS256Challenge = (challenge: string): boolean => S256_CHALLENGE.test(challenge);

/** BASE64URL(SHA256(ASCII(code_verifier))) — RFC 7636 §4.2. */
export const s256Challenge = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/**
 * Checks a token request's `code_verifier` against the challenge stored with the code.
 * A missing or malformed verifier fails, so does any method but S256.
 */
export function verifyPkce(challenge: string, method: string | null, verifier: string | undefined): boolean {
  if (method !== PKCE_METHOD || verifier === undefined || !isValidCodeVerifier(verifier)) return false;
  return constantTimeEqual(s256Challenge(verifier), challenge);
}
