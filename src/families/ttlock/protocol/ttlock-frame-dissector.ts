import { TtlockCipherError } from './ttlock-crypto.js';
import { decryptTtlockFrame, parseTtlockFrame, TTLOCK_ENCRYPT_FLAG, TtlockFrameError } from './ttlock-frame.js';

/**
 * `ekey-locks ttlock decode [--key HEX32] FRAME_HEX` (docs/design.md §4f): one frame dissected
 * into one JSON line, for support and tests. Hex out is lower case; `command` is two hex digits;
 * `encrypted` is the frame's encrypt flag (0xAA, "app command", in every V3 frame); `length` the
 * length byte; `payload_hex` the payload as sent, or its plaintext when a key is given.
 */
export interface TtlockFrameDissection {
  protocol_type: number;
  protocol_version: number;
  scene: number;
  group: number;
  org: number;
  command: string;
  encrypted: boolean;
  length: number;
  crc_ok: boolean;
  payload_hex: string;
}

/** Frame hex as typed (spaces, colons and a 0x prefix allowed). @throws TtlockFrameError when it is not hex. */
export function parseTtlockHex(text: string, what = 'FRAME_HEX'): Buffer {
  const compact = text.trim().replace(/^0x/i, '').replace(/[\s:]/g, '');
  if (compact.length === 0 || !/^[0-9a-fA-F]*$/.test(compact) || compact.length % 2 !== 0) throw new TtlockFrameError(`${what} is not an even number of hex digits`);
  return Buffer.from(compact, 'hex');
}

/**
 * Dissects one frame; with a key, the payload is decrypted.
 * @throws TtlockFrameError when the bytes are not one frame, or the payload does not decrypt under the key.
 */
export function dissectTtlockFrame(bytes: Buffer, key?: Buffer): TtlockFrameDissection {
  const frame = parseTtlockFrame(bytes);
  let payload = frame.payload;
  if (key !== undefined) {
    try {
      payload = decryptTtlockFrame(frame, key);
    } catch (error) {
      if (error instanceof TtlockCipherError) throw new TtlockFrameError(`${error.message}; is it the lock's key?`);
      throw error;
    }
  }
  return {
    protocol_type: frame.version.protocolType,
    protocol_version: frame.version.protocolVersion,
    scene: frame.version.scene,
    group: frame.version.group,
    org: frame.version.org,
    command: frame.command.toString(16).padStart(2, '0'),
    encrypted: frame.encryptFlag === TTLOCK_ENCRYPT_FLAG,
    length: frame.payload.length,
    crc_ok: frame.crcOk,
    payload_hex: payload.toString('hex'),
  };
}
