/**
 * The cryptographic functions of the Nuki Smart Lock API V2.1 (§4), each delegated to a library:
 * dh1 (X25519) and kdf1 (HSalsa20 over the shared point) are together NaCl's `box.before`; h1 is
 * HMAC-SHA256 from node:crypto; e1 (`crypto_secretbox`) is used by nuki-frame.ts.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import nacl from 'tweetnacl';

/** Curve25519 public and secret keys are 32 bytes. */
const KEY_LENGTH = 32;
/** An HMAC-SHA256 authenticator is 32 bytes. */
export const NUKI_AUTHENTICATOR_LENGTH = 32;

/** An X25519 key pair. */
export interface NukiKeyPair {
  publicKey: Buffer;
  secretKey: Buffer;
}

/**
 * A fresh X25519 key pair, or the one belonging to `secretKey` (for replaying the spec's examples
 * and for a simulated lock with a fixed identity).
 */
export function createNukiKeyPair(secretKey?: Uint8Array): NukiKeyPair {
  if (secretKey !== undefined && secretKey.length !== KEY_LENGTH) throw new RangeError(`A Nuki secret key has ${KEY_LENGTH} bytes.`);
  const pair = nacl.box.keyPair.fromSecretKey(secretKey ?? randomBytes(KEY_LENGTH));
  return { publicKey: Buffer.from(pair.publicKey), secretKey: Buffer.from(pair.secretKey) };
}

/**
 * The long-term shared key s = kdf1(dh1(ourSecretKey, theirPublicKey)) (§4.1, §4.2).
 * @throws Error when their public key is a low-order point (the shared point would be all zeros,
 *   a key anyone can compute).
 */
export function deriveNukiSharedKey(ourSecretKey: Uint8Array, theirPublicKey: Uint8Array): Buffer {
  if (ourSecretKey.length !== KEY_LENGTH || theirPublicKey.length !== KEY_LENGTH) throw new RangeError(`Nuki keys have ${KEY_LENGTH} bytes.`);
  if (nacl.scalarMult(ourSecretKey, theirPublicKey).every((byte) => byte === 0)) {
    throw new Error('The peer public key is a low-order point; refusing the key agreement.');
  }
  return Buffer.from(nacl.box.before(theirPublicKey, ourSecretKey));
}

/** The authenticator h1 (§4.3): HMAC-SHA256 keyed with the shared key over the parts, concatenated. */
export function nukiAuthenticator(sharedKey: Buffer, ...parts: Buffer[]): Buffer {
  const hmac = createHmac('sha256', sharedKey);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** Checks an authenticator in constant time, so a forger learns nothing from how fast it is refused. */
export function verifyNukiAuthenticator(sharedKey: Buffer, authenticator: Buffer, ...parts: Buffer[]): boolean {
  if (authenticator.length !== NUKI_AUTHENTICATOR_LENGTH) return false;
  return timingSafeEqual(nukiAuthenticator(sharedKey, ...parts), authenticator);
}

/** A random nonce: 24 bytes for an encrypted frame, 32 bytes for a pairing or command nonce. */
export function randomNukiNonce(bytes: 24 | 32): Buffer {
  return randomBytes(bytes);
}
