import { createCipheriv, createDecipheriv } from 'node:crypto';

/**
 * TTLock's payload cipher (docs/ttlock.md "Frames"): AES-128-CBC with the key also used as the IV,
 * PKCS#7 padding; an empty plaintext is an empty payload (no padding block). There is no key
 * derivation: the key is the lock's own, given to its admin at pairing (GET_AES_KEY), or the
 * factory key every unpaired lock answers to.
 */

/** The factory key: the same in every lock that was never paired (published by the vendor's SDKs and the DEF CON 34 talk). */
export const TTLOCK_FACTORY_KEY: Buffer = Buffer.from('987623e8a923a1bb3d9e7d0378124588', 'hex');

/** A payload that cannot be decrypted under the key (wrong key, bad padding, not whole blocks). */
export class TtlockCipherError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TtlockCipherError';
  }
}

function checkKey(key: Buffer): void {
  if (key.length !== 16) throw new RangeError('a TTLock key has 16 bytes');
}

/** Encrypts a plaintext payload. */
export function encryptTtlockPayload(plaintext: Buffer, key: Buffer): Buffer {
  checkKey(key);
  if (plaintext.length === 0) return Buffer.alloc(0);
  const cipher = createCipheriv('aes-128-cbc', key, key);
  return Buffer.concat([cipher.update(plaintext), cipher.final()]);
}

/** Decrypts a payload. @throws TtlockCipherError when it does not decrypt under the key. */
export function decryptTtlockPayload(ciphertext: Buffer, key: Buffer): Buffer {
  checkKey(key);
  if (ciphertext.length === 0) return Buffer.alloc(0);
  if (ciphertext.length % 16 !== 0) throw new TtlockCipherError(`the payload (${ciphertext.length} bytes) is not whole AES blocks`);
  try {
    const decipher = createDecipheriv('aes-128-cbc', key, key);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new TtlockCipherError('the payload does not decrypt under this key (bad padding)');
  }
}
