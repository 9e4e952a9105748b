import { TTLOCK_HEADER_LENGTH } from './ttlock-frame.js';

/**
 * Cuts a stream of notification chunks (20 bytes each on the wire) into whole frames by the length
 * byte at offset 11 — never by 0D 0A, which ciphertext can contain (ttlock-ble's fix for issue
 * #55, ttlock-rs `framing.rs`). A frame is `7f5a`, 10 more header bytes, `length` payload bytes, the
 * CRC and 0D 0A; bytes that cannot start or end one are dropped until the next `7f5a`, so one
 * garbled chunk cannot wedge the link.
 */
export class TtlockFrameReassembler {
  private buffer: Buffer = Buffer.alloc(0);
  /** Bytes dropped while looking for a frame (garbage, a frame cut off by a lost chunk). */
  dropped = 0;

  /** Adds a chunk; answers the frames it completed (each with its 0D 0A), in order. */
  push(chunk: Buffer): Buffer[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const frames: Buffer[] = [];
    for (;;) {
      const start = this.buffer.indexOf(MAGIC);
      if (start < 0) {
        // Keep a trailing 7f: it may be the first half of the next frame's magic.
        const keep = this.buffer.length > 0 && this.buffer[this.buffer.length - 1] === 0x7f ? 1 : 0;
        this.dropped += this.buffer.length - keep;
        this.buffer = this.buffer.subarray(this.buffer.length - keep);
        return frames;
      }
      if (start > 0) {
        this.dropped += start;
        this.buffer = this.buffer.subarray(start);
      }
      if (this.buffer.length < TTLOCK_HEADER_LENGTH) return frames;
      const total = TTLOCK_HEADER_LENGTH + (this.buffer[11] ?? 0) + 1 + 2;
      if (this.buffer.length < total) return frames;
      if (this.buffer[total - 2] !== 0x0d || this.buffer[total - 1] !== 0x0a) {
        // Not a frame after all (a 7f5a inside garbage): look for the next start.
        this.dropped += 1;
        this.buffer = this.buffer.subarray(1);
        continue;
      }
      frames.push(Buffer.from(this.buffer.subarray(0, total)));
      this.buffer = this.buffer.subarray(total);
    }
  }

  /** Forgets a partial frame (a new link starts clean). */
  reset(): void {
    this.buffer = Buffer.alloc(0);
  }
}

const MAGIC = Buffer.from([0x7f, 0x5a]);
