import { describe, expect, it } from '@jest/globals';
import {
  CONTROL_REQUEST_LENGTH,
  CONTROL_RESPONSE_LENGTH,
  decodeControlRequest,
  decodeControlResponse,
  encodeControlRequest,
  encodeControlResponse,
  type ControlResponse,
} from '../../../../src/families/ekey/protocol/control-frame-codec.js';
import { computeTag, parseLockKey } from '../../../../src/families/ekey/protocol/frame-authentication.js';
import { ReplayGuard } from '../../../../src/families/ekey/protocol/replay-guard.js';

const KEY = parseLockKey('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
const OTHER_KEY = parseLockKey('f'.repeat(64));

describe('Control Point request frames', () => {
  const request = { opcode: 'unlock' as const, requestId: 0xdeadbeef, counter: 1_767_225_600_000n };

  it('has the documented layout: type, version, opcode, request id LE, counter LE, HMAC-SHA256 tag', () => {
    const frame = encodeControlRequest(request, KEY);
    expect(frame.length).toBe(CONTROL_REQUEST_LENGTH);
    expect(frame.length).toBe(47);
    expect(frame.subarray(0, 3)).toEqual(Buffer.from([0x01, 0x01, 0x02]));
    expect(frame.readUInt32LE(3)).toBe(0xdeadbeef);
    expect(frame.readBigUInt64LE(7)).toBe(1_767_225_600_000n);
    expect(frame.subarray(15)).toEqual(computeTag(KEY, frame.subarray(0, 15)));
  });

  it('round-trips', () => {
    expect(decodeControlRequest(encodeControlRequest(request, KEY), KEY)).toEqual({ ok: true, value: request });
    const lock = { ...request, opcode: 'lock' as const, requestId: 0 };
    expect(decodeControlRequest(encodeControlRequest(lock, KEY), KEY)).toEqual({ ok: true, value: lock });
  });

  it('rejects a truncated frame', () => {
    const frame = encodeControlRequest(request, KEY);
    expect(decodeControlRequest(frame.subarray(0, 46), KEY)).toEqual({ ok: false, reason: 'truncated' });
    expect(decodeControlRequest(Buffer.alloc(0), KEY)).toEqual({ ok: false, reason: 'truncated' });
  });

  it('rejects a frame with a tampered byte (bad tag)', () => {
    const frame = encodeControlRequest(request, KEY);
    frame[2] = 0x01; // unlock → lock without re-signing
    expect(decodeControlRequest(frame, KEY)).toEqual({ ok: false, reason: 'bad_tag' });
    const tagFlipped = encodeControlRequest(request, KEY);
    tagFlipped[46] = (tagFlipped[46] ?? 0) ^ 0x01;
    expect(decodeControlRequest(tagFlipped, KEY)).toEqual({ ok: false, reason: 'bad_tag' });
  });

  it('rejects a frame signed under another key', () => {
    expect(decodeControlRequest(encodeControlRequest(request, OTHER_KEY), KEY)).toEqual({ ok: false, reason: 'bad_tag' });
  });

  it('rejects an unknown opcode only after the tag verified', () => {
    const body = encodeControlRequest(request, KEY).subarray(0, 15);
    body[2] = 0x7f;
    const signed = Buffer.concat([body, computeTag(KEY, body)]);
    expect(decodeControlRequest(signed, KEY)).toEqual({ ok: false, reason: 'unknown_opcode' });
    const forged = Buffer.concat([body, Buffer.alloc(32)]);
    expect(decodeControlRequest(forged, KEY)).toEqual({ ok: false, reason: 'bad_tag' });
  });

  it('rejects the wrong frame type and version', () => {
    const response = encodeControlResponse(
      { opcodeByte: 2, requestId: 1, requestCounter: 1n, result: 'ok', bolt: 'unlocked', highestCounter: 1n },
      KEY,
    ).subarray(0, 47);
    expect(decodeControlRequest(response, KEY)).toEqual({ ok: false, reason: 'wrong_frame_type' });
    const frame = encodeControlRequest(request, KEY);
    frame[1] = 0x02;
    expect(decodeControlRequest(frame, KEY)).toEqual({ ok: false, reason: 'unsupported_version' });
  });
});

describe('replay protection', () => {
  it('accepts each counter once and only above the highest accepted', () => {
    const guard = new ReplayGuard();
    expect(guard.accept(10n)).toBe(true);
    expect(guard.accept(10n)).toBe(false); // the same captured frame again
    expect(guard.accept(9n)).toBe(false); // an older captured frame
    expect(guard.accept(11n)).toBe(true);
    expect(guard.highestAccepted).toBe(11n);
  });
});

describe('Control Point response frames', () => {
  const response: ControlResponse = {
    opcodeByte: 0x01,
    requestId: 42,
    requestCounter: 99n,
    result: 'jammed',
    bolt: 'jammed',
    highestCounter: 99n,
  };

  it('has the documented layout and round-trips', () => {
    const frame = encodeControlResponse(response, KEY);
    expect(frame.length).toBe(CONTROL_RESPONSE_LENGTH);
    expect(frame.length).toBe(57);
    expect(frame.subarray(0, 3)).toEqual(Buffer.from([0x81, 0x01, 0x01]));
    expect(frame.readUInt8(15)).toBe(0x01);
    expect(frame.readUInt8(16)).toBe(0x02);
    expect(frame.readBigUInt64LE(17)).toBe(99n);
    expect(decodeControlResponse(frame, KEY)).toEqual({ ok: true, value: response });
  });

  it('rejects truncation, wrong key, tampering and unknown result codes', () => {
    const frame = encodeControlResponse(response, KEY);
    expect(decodeControlResponse(frame.subarray(0, 56), KEY)).toEqual({ ok: false, reason: 'truncated' });
    expect(decodeControlResponse(frame, OTHER_KEY)).toEqual({ ok: false, reason: 'bad_tag' });
    const tampered = Buffer.from(frame);
    tampered[15] = 0x00; // jammed → ok
    expect(decodeControlResponse(tampered, KEY)).toEqual({ ok: false, reason: 'bad_tag' });
    const body = Buffer.from(frame.subarray(0, 25));
    body[15] = 0x55;
    expect(decodeControlResponse(Buffer.concat([body, computeTag(KEY, body)]), KEY)).toEqual({ ok: false, reason: 'bad_value' });
  });

  it('does not accept a request as a response (direction is part of the signed bytes)', () => {
    const request = encodeControlRequest({ opcode: 'lock', requestId: 1, counter: 1n }, KEY);
    expect(decodeControlResponse(Buffer.concat([request, Buffer.alloc(10)]), KEY)).toEqual({ ok: false, reason: 'wrong_frame_type' });
  });
});

describe('lock keys', () => {
  it('accepts 64 hex digits and refuses anything else', () => {
    expect(parseLockKey('AB'.repeat(32))).toEqual(Buffer.alloc(32, 0xab));
    expect(() => parseLockKey('ab'.repeat(31))).toThrow('64 hex digits');
    expect(() => parseLockKey('zz'.repeat(32))).toThrow('64 hex digits');
  });
});
