import { NukiErrorCode } from '../protocol/nuki-commands.js';
import { NukiFrameError } from '../protocol/nuki-frame.js';

/** A command the lock answers with an Error Report carrying `errorCode` (§6). */
export class NukiCommandRefusal extends Error {
  constructor(readonly errorCode: number) {
    super(`command refused with error 0x${errorCode.toString(16)}`);
    this.name = 'NukiCommandRefusal';
  }
}

/** A fixed-layout payload must have exactly its layout's length (ERROR_BAD_LENGTH otherwise). */
export function exactLength<T>(decoded: T, encode: (message: T) => Buffer, payload: Buffer): T {
  if (encode(decoded).length !== payload.length) throw new NukiCommandRefusal(NukiErrorCode.ERROR_BAD_LENGTH);
  return decoded;
}

/**
 * The §6 error code that answers a failure while handling a command: a refusal's own code, a
 * payload the codec could not read → ERROR_BAD_LENGTH, anything else → ERROR_UNKNOWN.
 */
export function errorCodeOf(error: unknown): number {
  if (error instanceof NukiCommandRefusal) return error.errorCode;
  if (error instanceof NukiFrameError) return error.reason === 'bad_crc' ? NukiErrorCode.ERROR_BAD_CRC : NukiErrorCode.ERROR_BAD_LENGTH;
  return NukiErrorCode.ERROR_UNKNOWN;
}
