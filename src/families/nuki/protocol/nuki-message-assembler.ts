/**
 * Rebuilds whole Nuki frames from GATT indications. A lock splits a message into indications of
 * whatever size the MTU allows (20 bytes on a small MTU, up to 185 on a large one), and one
 * indication may end one message and start the next; so fragments are appended to a buffer and
 * complete frames are cut from its front:
 *
 * - encrypted frames carry their length in the clear header (bytes 28..29);
 * - unencrypted frames carry none: the length is looked up by the command id at the front of the
 *   buffer, in a table of every unencrypted message a lock sends on the pairing channel. A command
 *   id outside that table makes the whole buffer one frame, and the CRC check decides; a lock that
 *   sent such a message in several indications would yield fragments that fail their CRC — no
 *   lock does, since the table is complete for the pairing flow.
 *
 * The buffer is bounded: bytes that cannot start a frame of plausible size are dropped and
 * reported, never kept to grow forever. Call reset() at every (re)connect.
 */
import { NukiCommand } from './nuki-commands.js';
import { NUKI_ENCRYPTED_HEADER_LENGTH, encryptedFrameLength } from './nuki-frame.js';

/** Whole-frame lengths (command id, payload, CRC) of what a lock sends on the pairing GDIO. */
export const NUKI_UNENCRYPTED_FRAME_LENGTHS: ReadonlyMap<number, number> = new Map([
  [NukiCommand.publicKey, 2 + 32 + 2],
  [NukiCommand.challenge, 2 + 32 + 2],
  [NukiCommand.authorizationId, 2 + 32 + 4 + 16 + 32 + 2],
  [NukiCommand.status, 2 + 1 + 2],
  [NukiCommand.errorReport, 2 + 1 + 2 + 2],
]);

/** secretbox MAC, authorization id, command id and CRC: the least an encrypted frame's length field may say. */
const MIN_CIPHERTEXT_LENGTH = 16 + 4 + 2 + 2;
/** Far above any message a lock sends (a Log Entry is about 110 bytes encrypted). */
const DEFAULT_MAX_BUFFERED_BYTES = 1024;

/** Options of {@link NukiMessageAssembler}. */
export interface NukiMessageAssemblerOptions {
  /** Frames announcing more than this many bytes are garbage; default 1024. */
  maxBufferedBytes?: number;
  /** Called with the bytes dropped and why (e.g. to log them); the assembler carries on. */
  onDiscard?: (bytes: Buffer, reason: string) => void;
}

/**
 * Reassembles frames of one characteristic: `'encrypted'` for the USDIO, `'unencrypted'` for the
 * pairing GDIO.
 *
 * @example
 * const assembler = new NukiMessageAssembler('encrypted');
 * for (const frame of assembler.push(indication)) handle(decodeEncryptedFrame(frame, key));
 */
export class NukiMessageAssembler {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly maxBufferedBytes: number;
  private readonly onDiscard: (bytes: Buffer, reason: string) => void;

  constructor(
    readonly mode: 'encrypted' | 'unencrypted',
    options: NukiMessageAssemblerOptions = {},
  ) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.onDiscard = options.onDiscard ?? (() => undefined);
  }

  /** Bytes received that are not yet part of a complete frame. */
  get bufferedBytes(): number {
    return this.buffer.length;
  }

  /** Adds one indication; returns the frames it completes, in order (often none, sometimes several). */
  push(fragment: Buffer): Buffer[] {
    this.buffer = Buffer.concat([this.buffer, fragment]);
    const frames: Buffer[] = [];
    for (;;) {
      const length = this.mode === 'encrypted' ? this.encryptedLength() : this.unencryptedLength();
      if (length === null || this.buffer.length < length) break;
      frames.push(Buffer.from(this.buffer.subarray(0, length)));
      this.buffer = this.buffer.subarray(length);
    }
    if (this.buffer.length > this.maxBufferedBytes) this.discard(`more than ${this.maxBufferedBytes} bytes without a complete frame`);
    return frames;
  }

  /** Drops whatever is buffered (a new connection starts clean). */
  reset(): void {
    this.buffer = Buffer.alloc(0);
  }

  /** Length of the encrypted frame at the front, or null until its header is complete. */
  private encryptedLength(): number | null {
    const total = encryptedFrameLength(this.buffer);
    if (total === null) return null;
    const ciphertext = total - NUKI_ENCRYPTED_HEADER_LENGTH;
    if (ciphertext < MIN_CIPHERTEXT_LENGTH || total > this.maxBufferedBytes) {
      this.discard(`an encrypted header announcing ${ciphertext} bytes of ciphertext`);
      return null;
    }
    return total;
  }

  /** Length of the unencrypted frame at the front, or null until its command id is there. */
  private unencryptedLength(): number | null {
    if (this.buffer.length < 2) return null;
    return NUKI_UNENCRYPTED_FRAME_LENGTHS.get(this.buffer.readUInt16LE(0)) ?? this.buffer.length;
  }

  private discard(reason: string): void {
    const dropped = this.buffer;
    this.buffer = Buffer.alloc(0);
    this.onDiscard(dropped, reason);
  }
}
