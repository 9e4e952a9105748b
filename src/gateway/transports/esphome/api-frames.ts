import { encodeVarint, readVarint } from './protobuf-fields.js';
import type { ApiMessage } from './esphome-messages.js';

/**
 * The two framings of ESPHome's native API on its TCP stream (docs/gateways.md "How it works"):
 *
 * - plaintext: `0x00 | varint(length) | varint(type) | protobuf`;
 * - Noise: `0x01 | u16be(length) | payload`, where a payload is a handshake step before the
 *   handshake ends and afterwards `encrypt(u16be type | u16be length | protobuf)`.
 *
 * A reader is fed the stream's bytes as they come and hands out whole frames. The first byte of a
 * frame tells which framing the other side speaks, so a client of the wrong kind learns it at once.
 */

export const PLAINTEXT_INDICATOR = 0x00;
export const NOISE_INDICATOR = 0x01;
/** A frame larger than this is a broken stream, not a message (ESPHome's own messages stay far below). */
const MAX_FRAME = 0xffff;

/** The stream did not follow the framing; the connection cannot go on. */
export class FrameError extends Error {
  constructor(
    message: string,
    /** The indicator byte that came instead of the expected one, when that was the fault. */
    readonly unexpectedIndicator?: number,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

export function encodePlaintextFrame(message: ApiMessage): Buffer {
  return Buffer.concat([Buffer.from([PLAINTEXT_INDICATOR]), encodeVarint(message.body.length), encodeVarint(message.type), message.body]);
}

export function encodeNoiseFrame(payload: Buffer): Buffer {
  if (payload.length > MAX_FRAME) throw new FrameError('Noise frame too long');
  const header = Buffer.alloc(3);
  header[0] = NOISE_INDICATOR;
  header.writeUInt16BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** The plaintext of an encrypted frame's payload: type and length, then the message. */
export function encodeNoiseMessage(message: ApiMessage): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(message.type, 0);
  header.writeUInt16BE(message.body.length, 2);
  return Buffer.concat([header, message.body]);
}

export function decodeNoiseMessage(plaintext: Buffer): ApiMessage {
  if (plaintext.length < 4) throw new FrameError('encrypted message shorter than its header');
  const type = plaintext.readUInt16BE(0);
  const length = plaintext.readUInt16BE(2);
  if (4 + length > plaintext.length) throw new FrameError('encrypted message shorter than it says');
  return { type, body: plaintext.subarray(4, 4 + length) };
}

/** Splits a stream into frames of one framing. */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly framing: 'plaintext' | 'noise') {}

  /** Bytes from the stream; returns every frame they completed (plaintext: messages; Noise: payloads). @throws FrameError */
  push(data: Buffer): (ApiMessage | Buffer)[] {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
    const frames: (ApiMessage | Buffer)[] = [];
    for (;;) {
      const frame = this.framing === 'plaintext' ? this.nextPlaintext() : this.nextNoise();
      if (frame === null) return frames;
      frames.push(frame);
    }
  }

  private nextPlaintext(): ApiMessage | null {
    if (this.buffer.length === 0) return null;
    const indicator = this.buffer[0];
    if (indicator !== PLAINTEXT_INDICATOR) throw new FrameError(`expected a plaintext frame, got indicator ${indicator}`, indicator);
    let length: bigint;
    let type: bigint;
    let offset: number;
    try {
      [length, offset] = readVarint(this.buffer, 1);
      [type, offset] = readVarint(this.buffer, offset);
    } catch {
      // The header itself is not complete yet (a varint can be cut by the stream).
      if (this.buffer.length > 21) throw new FrameError('malformed plaintext frame header');
      return null;
    }
    if (length > BigInt(MAX_FRAME) * 16n) throw new FrameError('plaintext frame too long');
    const end = offset + Number(length);
    if (this.buffer.length < end) return null;
    const body = Buffer.from(this.buffer.subarray(offset, end));
    this.buffer = this.buffer.subarray(end);
    return { type: Number(type), body };
  }

  private nextNoise(): Buffer | null {
    if (this.buffer.length === 0) return null;
    const indicator = this.buffer[0];
    if (indicator !== NOISE_INDICATOR) throw new FrameError(`expected a Noise frame, got indicator ${indicator}`, indicator);
    if (this.buffer.length < 3) return null;
    const end = 3 + this.buffer.readUInt16BE(1);
    if (this.buffer.length < end) return null;
    const payload = Buffer.from(this.buffer.subarray(3, end));
    this.buffer = this.buffer.subarray(end);
    return payload;
  }
}
