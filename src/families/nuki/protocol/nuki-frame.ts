/**
 * The two transfer formats of the Nuki Smart Lock API V2.1 (§3), as pure functions:
 *
 * - unencrypted (pairing GDIO): `command u16 LE | payload | CRC u16 LE`, the CRC over command and
 *   payload;
 * - encrypted (USDIO): `nonce 24 | authorization id u32 LE | length u16 LE | secretbox(authorization
 *   id u32 LE | command u16 LE | payload | CRC u16 LE)`, where the length counts the ciphertext
 *   including its 16-byte MAC and the CRC covers the plaintext before it (authorization id, command
 *   and payload — the §9 examples reproduce only so).
 *
 * A wrong CRC is reported, not thrown (`crcOk`), so a caller decides: the pairing client treats it
 * as a protocol error, the dissector prints an error, a log could still show the frame.
 */
import nacl from 'tweetnacl';
import { crc16CcittFalse } from './nuki-crc.js';
import { u16, u32 } from './nuki-bytes.js';

/** Why a Nuki frame (or its payload) could not be read. */
export type NukiFrameErrorReason =
  /** Fewer bytes than the smallest frame (or payload) of its kind. */
  | 'too_short'
  /** The CRC does not match (callers that refuse such frames use this reason). */
  | 'bad_crc'
  /** secretbox.open failed: wrong shared key, or a corrupted frame. */
  | 'bad_mac'
  /** A length in the frame disagrees with the bytes present, or a payload has a wrong size. */
  | 'bad_length'
  /** Text that should be hex is not (the dissector). */
  | 'bad_hex'
  /** The authorization id inside the ciphertext differs from the one in the clear header. */
  | 'auth_mismatch';

/** A frame or payload that cannot be read; `reason` says why. */
export class NukiFrameError extends Error {
  constructor(
    readonly reason: NukiFrameErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'NukiFrameError';
  }
}

/** Command id and CRC around every payload. */
const COMMAND_LENGTH = 2;
const CRC_LENGTH = 2;
/** Nonce, authorization id and length: the clear header of an encrypted frame. */
export const NUKI_ENCRYPTED_HEADER_LENGTH = 24 + 4 + 2;
/** Nonce length of the encrypted format (crypto_secretbox, XSalsa20). */
export const NUKI_FRAME_NONCE_LENGTH = 24;
/** MAC (Poly1305 tag) that secretbox puts in front of the ciphertext. */
const MAC_LENGTH = 16;
/** Authorization id, command id and CRC: the plaintext of an empty payload. */
const MIN_PLAINTEXT_LENGTH = 4 + COMMAND_LENGTH + CRC_LENGTH;
const SHARED_KEY_LENGTH = 32;

/** A decoded unencrypted frame. */
export interface UnencryptedFrame {
  command: number;
  /** The bytes between the command id and the CRC. */
  payload: Buffer;
  crcOk: boolean;
}

/** A decoded encrypted frame. */
export interface EncryptedFrame {
  nonce: Buffer;
  authorizationId: number;
  command: number;
  /** The bytes between the command id and the CRC. */
  payload: Buffer;
  crcOk: boolean;
}

/** What {@link encodeEncryptedFrame} needs. */
export interface EncryptedFrameInput {
  sharedKey: Buffer;
  authorizationId: number;
  /** 24 bytes, never reused with the same key (use randomNukiNonce(24)). */
  nonce: Buffer;
  command: number;
  payload: Buffer;
}

/** `command u16 LE | payload | CRC u16 LE` (§3.3). */
export function encodeUnencryptedFrame(command: number, payload: Buffer): Buffer {
  return withCrc(Buffer.concat([u16(command), payload]));
}

/**
 * Splits an unencrypted frame and checks its CRC.
 * @throws NukiFrameError `too_short` below 4 bytes (command id and CRC).
 */
export function decodeUnencryptedFrame(frame: Buffer): UnencryptedFrame {
  if (frame.length < COMMAND_LENGTH + CRC_LENGTH) {
    throw new NukiFrameError('too_short', `frame too short: ${frame.length} bytes, an unencrypted frame has at least 4`);
  }
  const body = frame.subarray(0, frame.length - CRC_LENGTH);
  return {
    command: frame.readUInt16LE(0),
    payload: Buffer.from(frame.subarray(COMMAND_LENGTH, frame.length - CRC_LENGTH)),
    crcOk: crc16CcittFalse(body) === frame.readUInt16LE(frame.length - CRC_LENGTH),
  };
}

/** Encrypts and frames one message for the USDIO (§3.2). */
export function encodeEncryptedFrame(input: EncryptedFrameInput): Buffer {
  if (input.sharedKey.length !== SHARED_KEY_LENGTH) throw new RangeError(`A Nuki shared key has ${SHARED_KEY_LENGTH} bytes.`);
  if (input.nonce.length !== NUKI_FRAME_NONCE_LENGTH) throw new RangeError(`An encrypted Nuki frame needs a ${NUKI_FRAME_NONCE_LENGTH}-byte nonce.`);
  const plaintext = withCrc(Buffer.concat([u32(input.authorizationId), u16(input.command), input.payload]));
  const ciphertext = nacl.secretbox(plaintext, input.nonce, input.sharedKey);
  if (ciphertext.length > 0xffff) throw new RangeError('An encrypted Nuki frame carries at most 65535 bytes of ciphertext.');
  return Buffer.concat([input.nonce, u32(input.authorizationId), u16(ciphertext.length), ciphertext]);
}

/**
 * Authenticates, decrypts and splits an encrypted frame.
 * @throws NukiFrameError `too_short` (shorter than header, MAC and an empty message), `bad_length`
 *   (the header's length differs from the bytes present), `bad_mac` (secretbox.open fails),
 *   `auth_mismatch` (the authorization id inside differs from the one in the header).
 */
export function decodeEncryptedFrame(frame: Buffer, sharedKey: Buffer): EncryptedFrame {
  if (frame.length < NUKI_ENCRYPTED_HEADER_LENGTH + MAC_LENGTH + MIN_PLAINTEXT_LENGTH) {
    throw new NukiFrameError(
      'too_short',
      `frame too short: ${frame.length} bytes, an encrypted frame has at least ${NUKI_ENCRYPTED_HEADER_LENGTH + MAC_LENGTH + MIN_PLAINTEXT_LENGTH}`,
    );
  }
  if (sharedKey.length !== SHARED_KEY_LENGTH) throw new RangeError(`A Nuki shared key has ${SHARED_KEY_LENGTH} bytes.`);
  const declared = frame.readUInt16LE(28);
  const present = frame.length - NUKI_ENCRYPTED_HEADER_LENGTH;
  if (declared !== present) {
    throw new NukiFrameError('bad_length', `length field says ${declared} bytes of ciphertext, ${present} are present`);
  }
  const nonce = Buffer.from(frame.subarray(0, NUKI_FRAME_NONCE_LENGTH));
  const authorizationId = frame.readUInt32LE(24);
  const opened = nacl.secretbox.open(frame.subarray(NUKI_ENCRYPTED_HEADER_LENGTH), nonce, sharedKey);
  if (opened === null) throw new NukiFrameError('bad_mac', 'bad MAC: wrong shared key or a corrupted frame');
  const plaintext = Buffer.from(opened);
  if (plaintext.length < MIN_PLAINTEXT_LENGTH) {
    throw new NukiFrameError('bad_length', `decrypted message too short: ${plaintext.length} bytes, at least ${MIN_PLAINTEXT_LENGTH} expected`);
  }
  const innerAuthorizationId = plaintext.readUInt32LE(0);
  if (innerAuthorizationId !== authorizationId) {
    throw new NukiFrameError('auth_mismatch', `authorization id ${innerAuthorizationId} inside the ciphertext differs from ${authorizationId} in the header`);
  }
  const body = plaintext.subarray(0, plaintext.length - CRC_LENGTH);
  return {
    nonce,
    authorizationId,
    command: plaintext.readUInt16LE(4),
    payload: Buffer.from(plaintext.subarray(4 + COMMAND_LENGTH, plaintext.length - CRC_LENGTH)),
    crcOk: crc16CcittFalse(body) === plaintext.readUInt16LE(plaintext.length - CRC_LENGTH),
  };
}

/**
 * Total length of an encrypted frame (header + ciphertext) once its 30-byte header is known, so
 * a reassembler knows when the frame is complete; null while fewer than 30 bytes are there.
 */
export function encryptedFrameLength(prefix: Buffer): number | null {
  if (prefix.length < NUKI_ENCRYPTED_HEADER_LENGTH) return null;
  return NUKI_ENCRYPTED_HEADER_LENGTH + prefix.readUInt16LE(28);
}

function withCrc(body: Buffer): Buffer {
  return Buffer.concat([body, u16(crc16CcittFalse(body))]);
}

