import { createCipheriv, createDecipheriv, createHash, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * `Noise_NNpsk0_25519_ChaChaPoly_SHA256`, the handshake ESPHome's encrypted native API uses
 * (noiseprotocol.org/noise.html, revision 34), with ESPHome's prologue. Only the protocol's state
 * machine is here; every primitive is Node's own: X25519 (`diffieHellman`), ChaCha20-Poly1305,
 * SHA-256 and HKDF (`hkdfSync`, which with an empty info is exactly Noise's HKDF).
 *
 * NNpsk0 is two messages: the initiator (our client) sends `psk, e` (its ephemeral key and an
 * empty payload's tag), the responder (the proxy) answers `e, ee` (its ephemeral key and a tag).
 * A wrong pre-shared key shows as a failed tag on the responder's side, which answers with an
 * error text instead of message 2 (docs/gateways.md "Troubleshooting").
 */

const PROTOCOL_NAME = 'Noise_NNpsk0_25519_ChaChaPoly_SHA256';
/** ESPHome's prologue: "NoiseAPIInit" and two zero bytes. */
export const ESPHOME_NOISE_PROLOGUE = Buffer.concat([Buffer.from('NoiseAPIInit', 'ascii'), Buffer.from([0, 0])]);
const DH_LENGTH = 32;
const TAG_LENGTH = 16;
/** DER prefix of an X25519 SubjectPublicKeyInfo; the raw 32-byte key follows. */
const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

/** The Noise tag did not verify: a wrong key, or bytes changed on the way. */
export class NoiseDecryptError extends Error {
  constructor(message = 'Noise decryption failed') {
    super(message);
    this.name = 'NoiseDecryptError';
  }
}

/** One direction of the transport phase: ChaCha20-Poly1305 with a 64-bit counter nonce. */
export class CipherState {
  private nonce = 0n;

  constructor(private readonly key: Buffer | null = null) {}

  get hasKey(): boolean {
    return this.key !== null;
  }

  encrypt(plaintext: Buffer, associatedData: Buffer = Buffer.alloc(0)): Buffer {
    if (this.key === null) return plaintext;
    const cipher = createCipheriv('chacha20-poly1305', this.key, this.nextNonce(), { authTagLength: TAG_LENGTH });
    cipher.setAAD(associatedData, { plaintextLength: plaintext.length });
    return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }

  /** @throws NoiseDecryptError */
  decrypt(ciphertext: Buffer, associatedData: Buffer = Buffer.alloc(0)): Buffer {
    if (this.key === null) return ciphertext;
    if (ciphertext.length < TAG_LENGTH) throw new NoiseDecryptError('Noise message shorter than its tag');
    const body = ciphertext.subarray(0, ciphertext.length - TAG_LENGTH);
    const decipher = createDecipheriv('chacha20-poly1305', this.key, this.nextNonce(), { authTagLength: TAG_LENGTH });
    decipher.setAAD(associatedData, { plaintextLength: body.length });
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_LENGTH));
    try {
      return Buffer.concat([decipher.update(body), decipher.final()]);
    } catch (error) {
      throw new NoiseDecryptError(error instanceof Error ? `Noise decryption failed: ${error.message}` : undefined);
    }
  }

  /** 32 zero bits, then the counter as little-endian 64 bits (Noise's ChaChaPoly nonce). */
  private nextNonce(): Buffer {
    const nonce = Buffer.alloc(12);
    nonce.writeBigUInt64LE(this.nonce, 4);
    this.nonce += 1n;
    return nonce;
  }
}

/** The two cipher states after the handshake, from this side's point of view. */
export interface NoiseTransportKeys {
  send: CipherState;
  receive: CipherState;
}

function hkdf(chainingKey: Buffer, inputKeyMaterial: Buffer, outputs: 2 | 3): Buffer[] {
  const bytes = Buffer.from(hkdfSync('sha256', inputKeyMaterial, chainingKey, Buffer.alloc(0), DH_LENGTH * outputs));
  return Array.from({ length: outputs }, (_, index) => bytes.subarray(index * DH_LENGTH, (index + 1) * DH_LENGTH));
}

function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(X25519_SPKI_PREFIX.length);
}

function publicKeyFromRaw(raw: Buffer): KeyObject {
  return createPublicKey({ key: Buffer.concat([X25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/**
 * One side of an NNpsk0 handshake. The initiator calls `writeMessage()` then `readMessage()`;
 * the responder `readMessage()` then `writeMessage()`; both then take `split()`.
 */
export class NoiseHandshake {
  private chainingKey: Buffer;
  private hash: Buffer;
  private cipher = new CipherState();
  private readonly ephemeral = generateKeyPairSync('x25519');
  private remoteEphemeral: KeyObject | null = null;

  constructor(
    readonly role: 'initiator' | 'responder',
    private readonly psk: Buffer,
    prologue: Buffer = ESPHOME_NOISE_PROLOGUE,
  ) {
    if (psk.length !== 32) throw new RangeError('the Noise pre-shared key must be 32 bytes');
    // A protocol name longer than the hash is hashed (Noise §5.2 InitializeSymmetric).
    this.hash = createHash('sha256').update(PROTOCOL_NAME).digest();
    this.chainingKey = this.hash;
    this.mixHash(prologue);
  }

  /** The next handshake message of this side (message 1 for the initiator, 2 for the responder), with an empty payload. */
  writeMessage(): Buffer {
    if (this.role === 'initiator') this.mixKeyAndHash(this.psk);
    const ephemeralPublic = rawPublicKey(this.ephemeral.publicKey);
    this.mixHash(ephemeralPublic);
    this.mixKey(ephemeralPublic);
    if (this.role === 'responder') this.mixKey(this.dh());
    return Buffer.concat([ephemeralPublic, this.encryptAndHash(Buffer.alloc(0))]);
  }

  /** Reads the other side's handshake message. @throws NoiseDecryptError (wrong key) or RangeError (malformed). */
  readMessage(message: Buffer): void {
    if (message.length < DH_LENGTH + TAG_LENGTH) throw new RangeError('Noise handshake message too short');
    if (this.role === 'responder') this.mixKeyAndHash(this.psk);
    const remotePublic = message.subarray(0, DH_LENGTH);
    this.remoteEphemeral = publicKeyFromRaw(remotePublic);
    this.mixHash(remotePublic);
    this.mixKey(remotePublic);
    if (this.role === 'initiator') this.mixKey(this.dh());
    this.decryptAndHash(message.subarray(DH_LENGTH));
  }

  /** The transport keys: the initiator sends with the first, the responder with the second. */
  split(): NoiseTransportKeys {
    const [first, second] = hkdf(this.chainingKey, Buffer.alloc(0), 2);
    if (first === undefined || second === undefined) throw new Error('HKDF gave too few outputs');
    const initiatorToResponder = new CipherState(Buffer.from(first));
    const responderToInitiator = new CipherState(Buffer.from(second));
    return this.role === 'initiator' ? { send: initiatorToResponder, receive: responderToInitiator } : { send: responderToInitiator, receive: initiatorToResponder };
  }

  private dh(): Buffer {
    if (this.remoteEphemeral === null) throw new Error('no remote ephemeral key yet');
    return diffieHellman({ privateKey: this.ephemeral.privateKey, publicKey: this.remoteEphemeral });
  }

  private mixHash(data: Buffer): void {
    this.hash = createHash('sha256').update(this.hash).update(data).digest();
  }

  private mixKey(inputKeyMaterial: Buffer): void {
    const [chainingKey, key] = hkdf(this.chainingKey, inputKeyMaterial, 2);
    if (chainingKey === undefined || key === undefined) throw new Error('HKDF gave too few outputs');
    this.chainingKey = Buffer.from(chainingKey);
    this.cipher = new CipherState(Buffer.from(key));
  }

  private mixKeyAndHash(inputKeyMaterial: Buffer): void {
    const [chainingKey, hashInput, key] = hkdf(this.chainingKey, inputKeyMaterial, 3);
    if (chainingKey === undefined || hashInput === undefined || key === undefined) throw new Error('HKDF gave too few outputs');
    this.chainingKey = Buffer.from(chainingKey);
    this.mixHash(hashInput);
    this.cipher = new CipherState(Buffer.from(key));
  }

  private encryptAndHash(plaintext: Buffer): Buffer {
    const ciphertext = this.cipher.encrypt(plaintext, this.hash);
    this.mixHash(ciphertext);
    return ciphertext;
  }

  private decryptAndHash(ciphertext: Buffer): Buffer {
    const plaintext = this.cipher.decrypt(ciphertext, this.hash);
    this.mixHash(ciphertext);
    return plaintext;
  }
}
