/**
 * The pure half of `ekey-locks nuki decode|encode` (docs/design.md §4b): hex in, a description or a
 * frame out, with the exact JSON shape and key order the CLI prints. Every reason a frame cannot
 * be read is a NukiFrameError.
 */
import { nukiCommandName } from './nuki-commands.js';
import { NukiFrameError, decodeEncryptedFrame, decodeUnencryptedFrame, encodeEncryptedFrame, encodeUnencryptedFrame } from './nuki-frame.js';

/** An unencrypted frame as the CLI prints it (keys in this order). */
export interface UnencryptedFrameDissection {
  encrypted: false;
  command: number;
  command_name: string;
  /** Lower-case hex of the bytes between command id and CRC. */
  payload: string;
  crc_ok: true;
}

/** An encrypted frame as the CLI prints it (keys in this order). */
export interface EncryptedFrameDissection {
  encrypted: true;
  nonce: string;
  auth_id: number;
  command: number;
  command_name: string;
  /** Lower-case hex of the bytes between command id and CRC. */
  payload: string;
  crc_ok: true;
}

export type NukiFrameDissection = UnencryptedFrameDissection | EncryptedFrameDissection;

/**
 * Parses hex text (upper or lower case, an even number of digits, nothing else).
 * @throws NukiFrameError `bad_hex`.
 */
export function parseNukiHex(text: string, what = 'frame'): Buffer {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw new NukiFrameError('bad_hex', `${what} is not valid hex (an even number of hex digits expected)`);
  return Buffer.from(text, 'hex');
}

/**
 * Describes a frame: read as encrypted when a shared key is given, else as unencrypted.
 * @throws NukiFrameError `too_short`, `bad_length`, `bad_mac`, `auth_mismatch`, or `bad_crc`
 *   (a frame whose CRC fails is refused, not described).
 */
export function dissectNukiFrame(frame: Buffer, sharedKey?: Buffer): NukiFrameDissection {
  if (sharedKey === undefined) {
    const decoded = decodeUnencryptedFrame(frame);
    if (!decoded.crcOk) throw new NukiFrameError('bad_crc', 'bad CRC: the checksum does not match the command and payload');
    return { encrypted: false, command: decoded.command, command_name: nukiCommandName(decoded.command), payload: decoded.payload.toString('hex'), crc_ok: true };
  }
  const decoded = decodeEncryptedFrame(frame, sharedKey);
  if (!decoded.crcOk) throw new NukiFrameError('bad_crc', 'bad CRC inside the decrypted message (the MAC was fine)');
  return {
    encrypted: true,
    nonce: decoded.nonce.toString('hex'),
    auth_id: decoded.authorizationId,
    command: decoded.command,
    command_name: nukiCommandName(decoded.command),
    payload: decoded.payload.toString('hex'),
    crc_ok: true,
  };
}

/** What {@link buildNukiFrame} needs: a command and payload, plus the encryption inputs for USDIO. */
export interface NukiFrameRecipe {
  command: number;
  payload: Buffer;
  encryption?: { sharedKey: Buffer; authorizationId: number; nonce: Buffer };
}

/** Builds an unencrypted frame, or an encrypted one when `encryption` is given. */
export function buildNukiFrame(recipe: NukiFrameRecipe): Buffer {
  if (recipe.encryption === undefined) return encodeUnencryptedFrame(recipe.command, recipe.payload);
  return encodeEncryptedFrame({ ...recipe.encryption, command: recipe.command, payload: recipe.payload });
}
