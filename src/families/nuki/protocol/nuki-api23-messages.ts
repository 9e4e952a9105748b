/**
 * The messages in which API 2.3 pairing (Smart Lock Ultra, Go, Pro 5th generation) differs from
 * API 2.1/2.2 (docs/nuki.md "API 2.3 pairing"). Key exchange and the authenticator over both
 * public keys and the first challenge are as in API 2.2; then:
 *
 *   SL → Authorization Info (0x004C, unencrypted; its content is not needed and is ignored)
 *   CL → Authorization Data (0x0006), ENCRYPTED under the new shared key, the frame's
 *        authorization id being our app id: `app id u32 | name[32] | security PIN u32` (40 bytes)
 *   SL → Authorization-ID (0x0007), encrypted: `authorization id u32 | lock UUID[16]` (20 bytes,
 *        later bytes kept as trailing)
 *
 * Pairing needs the lock's 6-digit security PIN (set in the Nuki app at setup); a wrong PIN is
 * answered with Error Report K_ERROR_BAD_PIN (0x21). No Authorization-ID Confirmation follows.
 */
import { NukiFrameError } from './nuki-frame.js';
import { encodeSecurityPin } from '../nuki-api-level.js';

/** Authorization Info (0x004C): what an API 2.3 lock sends after accepting our authenticator. */
export const NUKI_AUTHORIZATION_INFO_COMMAND = 0x004c;

const NAME_LENGTH = 32;
const UUID_LENGTH = 16;
const AUTHORIZATION_DATA_LENGTH = 4 + NAME_LENGTH + 4;
const AUTHORIZATION_ID_LENGTH = 4 + UUID_LENGTH;

/** Authorization Data of API 2.3. */
export interface NukiApi23AuthorizationData {
  /** Our app id, u32 (also the authorization id in the encrypted frame's header). */
  appId: number;
  /** Shown in the lock's list of authorizations; at most 32 bytes of UTF-8 (longer is cut). */
  name: string;
  /** The lock's 6-digit security PIN. */
  securityPin: number;
}

/** @example encodeApi23AuthorizationData({ appId: 1, name: 'x', securityPin: 123456 }).length // 40 */
export function encodeApi23AuthorizationData(message: NukiApi23AuthorizationData): Buffer {
  const bytes = Buffer.alloc(AUTHORIZATION_DATA_LENGTH);
  bytes.writeUInt32LE(message.appId, 0);
  nameInto(bytes, 4, message.name);
  encodeSecurityPin(message.securityPin, '2.3').copy(bytes, 4 + NAME_LENGTH);
  return bytes;
}

/** @throws NukiFrameError `bad_length` unless the payload has exactly 40 bytes. */
export function decodeApi23AuthorizationData(payload: Buffer): NukiApi23AuthorizationData {
  if (payload.length !== AUTHORIZATION_DATA_LENGTH) {
    throw new NukiFrameError('bad_length', `API 2.3 Authorization Data has ${payload.length} bytes, ${AUTHORIZATION_DATA_LENGTH} expected`);
  }
  const name = payload.subarray(4, 4 + NAME_LENGTH);
  const end = name.indexOf(0);
  return {
    appId: payload.readUInt32LE(0),
    name: name.subarray(0, end === -1 ? NAME_LENGTH : end).toString('utf8'),
    securityPin: payload.readUInt32LE(4 + NAME_LENGTH),
  };
}

/** Authorization-ID of API 2.3 (encrypted, no authenticator: the secretbox MAC authenticates it). */
export interface NukiApi23AuthorizationId {
  authorizationId: number;
  /** The lock's UUID (16 bytes), stable until a factory reset. */
  lockUuid: Buffer;
  /** Bytes after the UUID, raw (newer firmwares may send more). */
  trailing: Buffer;
}

export function encodeApi23AuthorizationId(message: NukiApi23AuthorizationId): Buffer {
  if (message.lockUuid.length !== UUID_LENGTH) throw new RangeError(`A Nuki lock UUID has ${UUID_LENGTH} bytes.`);
  const head = Buffer.alloc(4);
  head.writeUInt32LE(message.authorizationId, 0);
  return Buffer.concat([head, message.lockUuid, message.trailing]);
}

/** @throws NukiFrameError `bad_length` below 20 bytes. */
export function decodeApi23AuthorizationId(payload: Buffer): NukiApi23AuthorizationId {
  if (payload.length < AUTHORIZATION_ID_LENGTH) {
    throw new NukiFrameError('bad_length', `API 2.3 Authorization-ID has ${payload.length} bytes, at least ${AUTHORIZATION_ID_LENGTH} expected`);
  }
  return {
    authorizationId: payload.readUInt32LE(0),
    lockUuid: Buffer.from(payload.subarray(4, AUTHORIZATION_ID_LENGTH)),
    trailing: Buffer.from(payload.subarray(AUTHORIZATION_ID_LENGTH)),
  };
}

/** Zero-padded UTF-8, cut at a character boundary. */
function nameInto(target: Buffer, offset: number, name: string): void {
  let used = 0;
  for (const character of name) {
    const encoded = Buffer.from(character, 'utf8');
    if (used + encoded.length > NAME_LENGTH) break;
    encoded.copy(target, offset + used);
    used += encoded.length;
  }
}
