import { ttlockCrc } from './ttlock-crc.js';
import { decryptTtlockPayload, encryptTtlockPayload } from './ttlock-crypto.js';

/**
 * A TTLock V3 frame (docs/ttlock.md "Frames"), both directions:
 *
 * ```
 * 7F 5A | protocol type | protocol version | scene | group u16 BE | org u16 BE | command | AA | length | payload | CRC | 0D 0A
 * ```
 *
 * The payload is AES-128-CBC (ttlock-crypto.ts), `length` counts its encrypted bytes (≤ 255), the
 * CRC (ttlock-crc.ts) covers every byte before it. A lock answers with its own header whatever the
 * app sent, and with command 0x54 (a response) in all but its GET_AES_KEY reply; the real command
 * is the first byte of the plaintext.
 */

/** The bytes every frame starts with. */
export const TTLOCK_MAGIC = Buffer.from([0x7f, 0x5a]);
/** The frame terminator; never used to split frames (ciphertext may hold it): the length byte does. */
export const TTLOCK_TRAILER = Buffer.from([0x0d, 0x0a]);
/** The byte after the command in every observed frame, both directions ("app command"). */
export const TTLOCK_ENCRYPT_FLAG = 0xaa;
/** Header bytes before the payload. */
export const TTLOCK_HEADER_LENGTH = 12;

/** The version a lock speaks, as its frames carry it (and the lock's data from the app stores it). */
export interface TtlockLockVersion {
  protocolType: number;
  protocolVersion: number;
  scene: number;
  /** "groupId" (organization), u16. */
  group: number;
  /** "orgId" (sub-organization), u16. */
  org: number;
}

/** The header of a V3 lock when nothing better is known (ttlock-rs `LockVersion::default()`). */
export const DEFAULT_TTLOCK_VERSION: TtlockLockVersion = { protocolType: 5, protocolVersion: 3, scene: 2, group: 1, org: 1 };

/** A frame split into its fields; the payload as on the wire (encrypted). */
export interface TtlockFrame {
  version: TtlockLockVersion;
  command: number;
  encryptFlag: number;
  payload: Buffer;
  /** The CRC byte the frame carries. */
  crc: number;
  /** It equals the CRC computed here (vendor table). */
  crcOk: boolean;
  /** The frame ended in 0D 0A. */
  terminated: boolean;
}

/** Why bytes are not a frame. */
export class TtlockFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TtlockFrameError';
  }
}

/** Builds a frame: encrypts `plaintext` under `key`, computes the CRC, appends 0D 0A. */
export function encodeTtlockFrame(version: TtlockLockVersion, command: number, plaintext: Buffer, key: Buffer): Buffer {
  const payload = encryptTtlockPayload(plaintext, key);
  if (payload.length > 255) throw new RangeError(`a TTLock payload holds at most 255 bytes, not ${payload.length}`);
  const body = Buffer.concat([
    TTLOCK_MAGIC,
    Buffer.from([version.protocolType & 0xff, version.protocolVersion & 0xff, version.scene & 0xff, (version.group >> 8) & 0xff, version.group & 0xff, (version.org >> 8) & 0xff, version.org & 0xff, command & 0xff, TTLOCK_ENCRYPT_FLAG, payload.length]),
    payload,
  ]);
  return Buffer.concat([body, Buffer.from([ttlockCrc(body)]), TTLOCK_TRAILER]);
}

/**
 * Splits one whole frame (with or without its 0D 0A) into its fields. The CRC is compared, not
 * enforced: `crcOk` says. @throws TtlockFrameError when the bytes are not one frame.
 */
export function parseTtlockFrame(bytes: Buffer): TtlockFrame {
  if (bytes.length < TTLOCK_HEADER_LENGTH + 1) throw new TtlockFrameError(`too short for a frame: ${bytes.length} bytes, at least ${TTLOCK_HEADER_LENGTH + 1}`);
  if (bytes[0] !== 0x7f || bytes[1] !== 0x5a) throw new TtlockFrameError('does not start with 7f5a');
  const length = bytes[11] ?? 0;
  const end = TTLOCK_HEADER_LENGTH + length;
  const withTrailer = end + 1 + TTLOCK_TRAILER.length;
  let terminated: boolean;
  if (bytes.length === end + 1) terminated = false;
  else if (bytes.length === withTrailer && bytes[end + 1] === 0x0d && bytes[end + 2] === 0x0a) terminated = true;
  else if (bytes.length < end + 1) throw new TtlockFrameError(`the length byte says ${length} payload bytes, but only ${Math.max(0, bytes.length - TTLOCK_HEADER_LENGTH - 1)} follow before the CRC`);
  else throw new TtlockFrameError(`the length byte says ${length} payload bytes, but ${bytes.length - end - 1} bytes follow the CRC (expected none or 0d0a)`);
  const crc = bytes[end] ?? 0;
  return {
    version: {
      protocolType: bytes[2] ?? 0,
      protocolVersion: bytes[3] ?? 0,
      scene: bytes[4] ?? 0,
      group: bytes.readUInt16BE(5),
      org: bytes.readUInt16BE(7),
    },
    command: bytes[9] ?? 0,
    encryptFlag: bytes[10] ?? 0,
    payload: Buffer.from(bytes.subarray(TTLOCK_HEADER_LENGTH, end)),
    crc,
    crcOk: ttlockCrc(bytes.subarray(0, end)) === crc,
    terminated,
  };
}

/** The frame's plaintext. @throws TtlockCipherError when it does not decrypt under the key. */
export function decryptTtlockFrame(frame: TtlockFrame, key: Buffer): Buffer {
  return decryptTtlockPayload(frame.payload, key);
}
