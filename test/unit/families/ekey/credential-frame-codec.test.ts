import { describe, expect, it } from '@jest/globals';
import {
  CREDENTIAL_REQUEST_LENGTH,
  CREDENTIAL_RESPONSE_LENGTH,
  NO_CREDENTIAL_UUID,
  decodeCredentialRequest,
  decodeCredentialResponse,
  encodeCredentialRequest,
  encodeCredentialResponse,
  type CredentialRequest,
  type CredentialResponse,
} from '../../../../src/families/ekey/protocol/credential-frame-codec.js';
import { computeTag, parseLockKey } from '../../../../src/families/ekey/protocol/frame-authentication.js';
import { MINIMUM_ATT_MTU } from '../../../../src/families/ekey/protocol/lock-profile.js';
import { ReplayGuard } from '../../../../src/families/ekey/protocol/replay-guard.js';

const KEY = parseLockKey('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
const OTHER_KEY = parseLockKey('f'.repeat(64));
const EKEY = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0ff';

describe('Credentials request frames', () => {
  const allow: CredentialRequest = { opcode: 'allow', requestId: 0xdeadbeef, counter: 1_767_225_600_000n, credential: EKEY, validUntil: 1_767_229_200_000 };

  it('has the documented layout: type, version, opcode, request id, counter, credential, valid until, tag', () => {
    const frame = encodeCredentialRequest(allow, KEY);
    expect(frame.length).toBe(CREDENTIAL_REQUEST_LENGTH);
    expect(frame.length).toBe(71);
    expect(frame.length).toBeLessThanOrEqual(MINIMUM_ATT_MTU - 3);
    expect(frame.subarray(0, 3)).toEqual(Buffer.from([0x20, 0x01, 0x02]));
    expect(frame.readUInt32LE(3)).toBe(0xdeadbeef);
    expect(frame.readBigUInt64LE(7)).toBe(1_767_225_600_000n);
    expect(frame.subarray(15, 31).toString('hex')).toBe(EKEY.replace(/-/g, ''));
    expect(frame.readBigUInt64LE(31)).toBe(1_767_229_200_000n);
    expect(frame.subarray(39)).toEqual(computeTag(KEY, frame.subarray(0, 39)));
  });

  it('round-trips allow, revoke and clear (upper-case credentials come back lower-case)', () => {
    expect(decodeCredentialRequest(encodeCredentialRequest(allow, KEY), KEY)).toEqual({ ok: true, value: allow });
    const revoke: CredentialRequest = { ...allow, opcode: 'revoke', credential: EKEY.toUpperCase(), validUntil: 0 };
    expect(decodeCredentialRequest(encodeCredentialRequest(revoke, KEY), KEY)).toEqual({ ok: true, value: { ...revoke, credential: EKEY } });
    const clear: CredentialRequest = { ...allow, opcode: 'clear', credential: NO_CREDENTIAL_UUID, validUntil: 0 };
    const frame = encodeCredentialRequest(clear, KEY);
    expect(frame.readUInt8(2)).toBe(0x01);
    expect(decodeCredentialRequest(frame, KEY)).toEqual({ ok: true, value: clear });
  });

  it('refuses a credential that is not a UUID', () => {
    expect(() => encodeCredentialRequest({ ...allow, credential: 'alex' }, KEY)).toThrow(RangeError);
  });

  it('rejects a truncated or over-long frame', () => {
    const frame = encodeCredentialRequest(allow, KEY);
    expect(decodeCredentialRequest(frame.subarray(0, 70), KEY)).toEqual({ ok: false, reason: 'truncated' });
    expect(decodeCredentialRequest(Buffer.alloc(0), KEY)).toEqual({ ok: false, reason: 'truncated' });
    expect(decodeCredentialRequest(Buffer.concat([frame, Buffer.alloc(1)]), KEY)).toEqual({ ok: false, reason: 'bad_value' });
  });

  it('rejects a tampered frame, a frame under another key, and a forged unknown opcode (bad tag first)', () => {
    const tampered = encodeCredentialRequest(allow, KEY);
    tampered[31] = (tampered[31] ?? 0) ^ 0xff; // a later expiry without re-signing
    expect(decodeCredentialRequest(tampered, KEY)).toEqual({ ok: false, reason: 'bad_tag' });
    expect(decodeCredentialRequest(encodeCredentialRequest(allow, OTHER_KEY), KEY)).toEqual({ ok: false, reason: 'bad_tag' });
    const body = encodeCredentialRequest(allow, KEY).subarray(0, 39);
    body[2] = 0x7f;
    expect(decodeCredentialRequest(Buffer.concat([body, Buffer.alloc(32)]), KEY)).toEqual({ ok: false, reason: 'bad_tag' });
    expect(decodeCredentialRequest(Buffer.concat([body, computeTag(KEY, body)]), KEY)).toEqual({ ok: false, reason: 'unknown_opcode' });
  });

  it('rejects the wrong frame type and version', () => {
    const frame = encodeCredentialRequest(allow, KEY);
    frame[0] = 0x01;
    expect(decodeCredentialRequest(frame, KEY)).toEqual({ ok: false, reason: 'wrong_frame_type' });
    const version = encodeCredentialRequest(allow, KEY);
    version[1] = 0x02;
    expect(decodeCredentialRequest(version, KEY)).toEqual({ ok: false, reason: 'unsupported_version' });
  });

  it('a captured frame is accepted at most once by the lock’s replay guard', () => {
    const guard = new ReplayGuard();
    const decoded = decodeCredentialRequest(encodeCredentialRequest(allow, KEY), KEY);
    if (!decoded.ok) throw new Error('did not decode');
    expect(guard.accept(decoded.value.counter)).toBe(true);
    expect(guard.accept(decoded.value.counter)).toBe(false);
  });
});

describe('Credentials response frames', () => {
  const response: CredentialResponse = { opcodeByte: 0x02, requestId: 7, requestCounter: 99n, result: 'list_full', listSize: 256, highestCounter: 98n };

  it('has the documented layout and round-trips', () => {
    const frame = encodeCredentialResponse(response, KEY);
    expect(frame.length).toBe(CREDENTIAL_RESPONSE_LENGTH);
    expect(frame.length).toBe(58);
    expect(frame.subarray(0, 3)).toEqual(Buffer.from([0xa0, 0x01, 0x02]));
    expect(frame.readUInt8(15)).toBe(0x08);
    expect(frame.readUInt16LE(16)).toBe(256);
    expect(frame.readBigUInt64LE(18)).toBe(98n);
    expect(frame.subarray(26)).toEqual(computeTag(KEY, frame.subarray(0, 26)));
    expect(decodeCredentialResponse(frame, KEY)).toEqual({ ok: true, value: response });
  });

  it('rejects a bad tag, truncation, an unknown result code and a Control Point response', () => {
    const frame = encodeCredentialResponse(response, KEY);
    expect(decodeCredentialResponse(frame.subarray(0, 57), KEY)).toEqual({ ok: false, reason: 'truncated' });
    expect(decodeCredentialResponse(encodeCredentialResponse(response, OTHER_KEY), KEY)).toEqual({ ok: false, reason: 'bad_tag' });
    const forgedOk = encodeCredentialResponse(response, KEY);
    forgedOk[15] = 0x00;
    expect(decodeCredentialResponse(forgedOk, KEY)).toEqual({ ok: false, reason: 'bad_tag' });
    const body = frame.subarray(0, 26);
    body[15] = 0x55;
    expect(decodeCredentialResponse(Buffer.concat([body, computeTag(KEY, body)]), KEY)).toEqual({ ok: false, reason: 'bad_value' });
    const wrongType = encodeCredentialResponse(response, KEY);
    wrongType[0] = 0x81;
    expect(decodeCredentialResponse(wrongType, KEY)).toEqual({ ok: false, reason: 'wrong_frame_type' });
  });
});
