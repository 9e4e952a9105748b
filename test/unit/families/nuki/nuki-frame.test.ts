import { describe, expect, it } from '@jest/globals';
import { crc16CcittFalse } from '../../../../src/families/nuki/protocol/nuki-crc.js';
import {
  NukiFrameError,
  decodeEncryptedFrame,
  decodeUnencryptedFrame,
  encodeEncryptedFrame,
  encodeUnencryptedFrame,
  encryptedFrameLength,
  type NukiFrameErrorReason,
} from '../../../../src/families/nuki/protocol/nuki-frame.js';

const KEY = Buffer.alloc(32, 0x42);
const OTHER_KEY = Buffer.alloc(32, 0x43);
const NONCE = Buffer.from('000102030405060708090a0b0c0d0e0f1011121314151617', 'hex');

function reasonOf(run: () => unknown): NukiFrameErrorReason | 'no error' | 'other error' {
  try {
    run();
    return 'no error';
  } catch (error) {
    return error instanceof NukiFrameError ? error.reason : 'other error';
  }
}

describe('CRC-16/CCITT-FALSE', () => {
  it('has the check value 0x29B1 for "123456789"', () => {
    expect(crc16CcittFalse(Buffer.from('123456789', 'ascii'))).toBe(0x29b1);
  });

  it('is 0xFFFF (the initial value) for no bytes', () => {
    expect(crc16CcittFalse(new Uint8Array(0))).toBe(0xffff);
  });
});

describe('unencrypted frames', () => {
  it('are command u16 LE | payload | CRC u16 LE over command and payload', () => {
    const frame = encodeUnencryptedFrame(0x000e, Buffer.from([0x00]));
    expect(frame).toEqual(Buffer.from('0e00009dd7', 'hex'));
    expect(decodeUnencryptedFrame(frame)).toEqual({ command: 0x000e, payload: Buffer.from([0x00]), crcOk: true });
  });

  it('round-trip an empty and a long payload', () => {
    for (const payload of [Buffer.alloc(0), Buffer.alloc(200, 0xab)]) {
      expect(decodeUnencryptedFrame(encodeUnencryptedFrame(0x1234, payload))).toEqual({ command: 0x1234, payload, crcOk: true });
    }
  });

  it('report a CRC mismatch as crcOk false rather than throwing', () => {
    const frame = encodeUnencryptedFrame(0x000e, Buffer.from([0x01]));
    frame[2] = 0x00;
    expect(decodeUnencryptedFrame(frame).crcOk).toBe(false);
  });

  it('throw too_short below 4 bytes', () => {
    expect(reasonOf(() => decodeUnencryptedFrame(Buffer.from('0e0000', 'hex')))).toBe('too_short');
    expect(reasonOf(() => decodeUnencryptedFrame(Buffer.alloc(0)))).toBe('too_short');
    expect(reasonOf(() => decodeUnencryptedFrame(Buffer.from('0100ffff', 'hex')))).toBe('no error');
  });
});

describe('encrypted frames', () => {
  const input = { sharedKey: KEY, authorizationId: 0x01020304, nonce: NONCE, command: 0x000d, payload: Buffer.from('c0ffee', 'hex') };

  it('have the clear header nonce | authorization id | ciphertext length incl. the 16-byte MAC', () => {
    const frame = encodeEncryptedFrame(input);
    expect(frame.subarray(0, 24)).toEqual(NONCE);
    expect(frame.readUInt32LE(24)).toBe(0x01020304);
    // MAC 16 + authorization id 4 + command 2 + payload 3 + CRC 2
    expect(frame.readUInt16LE(28)).toBe(27);
    expect(frame.length).toBe(30 + 27);
    expect(encryptedFrameLength(frame)).toBe(frame.length);
  });

  it('round-trip', () => {
    const frame = encodeEncryptedFrame(input);
    expect(decodeEncryptedFrame(frame, KEY)).toEqual({ nonce: NONCE, authorizationId: 0x01020304, command: 0x000d, payload: input.payload, crcOk: true });
  });

  it('throw bad_mac under another key or with a flipped ciphertext bit', () => {
    const frame = encodeEncryptedFrame(input);
    expect(reasonOf(() => decodeEncryptedFrame(frame, OTHER_KEY))).toBe('bad_mac');
    const tampered = Buffer.from(frame);
    tampered[40] = (tampered[40] ?? 0) ^ 0x01;
    expect(reasonOf(() => decodeEncryptedFrame(tampered, KEY))).toBe('bad_mac');
  });

  it('throw bad_length when the header length differs from the bytes present', () => {
    const frame = encodeEncryptedFrame(input);
    expect(reasonOf(() => decodeEncryptedFrame(Buffer.concat([frame, Buffer.from([0])]), KEY))).toBe('bad_length');
    expect(reasonOf(() => decodeEncryptedFrame(frame.subarray(0, frame.length - 1), KEY))).toBe('bad_length');
  });

  it('throw too_short below header, MAC and an empty message (54 bytes)', () => {
    const frame = encodeEncryptedFrame({ ...input, payload: Buffer.alloc(0) });
    expect(frame.length).toBe(54);
    expect(reasonOf(() => decodeEncryptedFrame(frame, KEY))).toBe('no error');
    expect(reasonOf(() => decodeEncryptedFrame(frame.subarray(0, 53), KEY))).toBe('too_short');
    expect(reasonOf(() => decodeEncryptedFrame(Buffer.alloc(10), KEY))).toBe('too_short');
  });

  it('throw auth_mismatch when the clear authorization id differs from the encrypted one', () => {
    const frame = encodeEncryptedFrame(input);
    frame.writeUInt32LE(7, 24);
    expect(reasonOf(() => decodeEncryptedFrame(frame, KEY))).toBe('auth_mismatch');
  });

  it('report a wrong inner CRC as crcOk false', async () => {
    const nacl = (await import('tweetnacl')).default;
    const plaintext = Buffer.from('040302010d00c0ffee0000', 'hex');
    const ciphertext = Buffer.from(nacl.secretbox(plaintext, NONCE, KEY));
    const header = Buffer.alloc(6);
    header.writeUInt32LE(0x01020304, 0);
    header.writeUInt16LE(ciphertext.length, 4);
    const frame = Buffer.concat([NONCE, header, ciphertext]);
    expect(decodeEncryptedFrame(frame, KEY).crcOk).toBe(false);
  });

  it('refuse a nonce or key of the wrong size when encoding', () => {
    expect(() => encodeEncryptedFrame({ ...input, nonce: Buffer.alloc(32) })).toThrow(RangeError);
    expect(() => encodeEncryptedFrame({ ...input, sharedKey: Buffer.alloc(16) })).toThrow(RangeError);
  });

  it('know their total length once 30 bytes of header are there', () => {
    const frame = encodeEncryptedFrame(input);
    expect(encryptedFrameLength(frame.subarray(0, 29))).toBeNull();
    expect(encryptedFrameLength(frame.subarray(0, 30))).toBe(57);
  });
});
