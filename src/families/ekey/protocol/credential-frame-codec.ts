import type { DecodeResult } from './control-frame-codec.js';
import { computeTag, verifyTag } from './frame-authentication.js';
import {
  CredentialOpcodeCode,
  CredentialResultCode,
  FrameType,
  PROTOCOL_VERSION,
  TAG_LENGTH,
  nameOfCode,
  type CredentialOpcode,
  type CredentialResult,
} from './lock-profile.js';

/**
 * A Credentials request, gateway → lock (docs/ble-protocol.md "Credentials"). Every request has
 * the same length; `clear` carries no credential (all zeros) and `clear`/`revoke` no expiry (0).
 */
export interface CredentialRequest {
  opcode: CredentialOpcode;
  /** Chosen by the gateway to match the response; 0..2^32−1. */
  requestId: number;
  /** Shares the Control Point's counter space: strictly increasing per lock. */
  counter: bigint;
  /** The eKey UUID, lower-case with hyphens; the all-zero UUID for `clear`. */
  credential: string;
  /** For `allow`: ms since the Unix epoch after which the lock drops the credential by its own clock; 0 otherwise. */
  validUntil: number;
}

/** A Credentials response, lock → gateway. */
export interface CredentialResponse {
  /** The opcode byte of the request, echoed. */
  opcodeByte: number;
  requestId: number;
  /** The counter of the request this answers. */
  requestCounter: bigint;
  result: CredentialResult;
  /** How many credentials are on the lock's list after the request (expired ones excluded). */
  listSize: number;
  /** Highest request counter the lock has accepted, so a gateway can resynchronise. */
  highestCounter: bigint;
}

/** The credential field of `clear` requests. */
export const NO_CREDENTIAL_UUID = '00000000-0000-0000-0000-000000000000';

const REQUEST_BODY_LENGTH = 39;
const RESPONSE_BODY_LENGTH = 26;
/** Request: type, version, opcode, request id, counter, credential (16), valid until (u64), tag. */
export const CREDENTIAL_REQUEST_LENGTH = REQUEST_BODY_LENGTH + TAG_LENGTH;
/** Response: type, version, opcode, request id, request counter, result, list size (u16), highest counter, tag. */
export const CREDENTIAL_RESPONSE_LENGTH = RESPONSE_BODY_LENGTH + TAG_LENGTH;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_U64 = 0xffff_ffff_ffff_ffffn;

/** The 16 bytes of a UUID in RFC 4122 order (the 32 hex digits in order). @throws RangeError when not a UUID. */
export function credentialBytes(uuid: string): Buffer {
  if (!UUID.test(uuid)) throw new RangeError(`Not a UUID: ${uuid}`);
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/** The lower-case hyphenated UUID of 16 credential bytes. */
export function credentialUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Encodes and signs a Credentials request.
 * @throws RangeError when the credential is not a UUID or `validUntil` is not a u64.
 */
export function encodeCredentialRequest(request: CredentialRequest, key: Buffer): Buffer {
  const validUntil = BigInt(Math.floor(request.validUntil));
  if (validUntil < 0n || validUntil > MAX_U64) throw new RangeError(`validUntil out of range: ${request.validUntil}`);
  const body = Buffer.alloc(REQUEST_BODY_LENGTH);
  body.writeUInt8(FrameType.credentialRequest, 0);
  body.writeUInt8(PROTOCOL_VERSION, 1);
  body.writeUInt8(CredentialOpcodeCode[request.opcode], 2);
  body.writeUInt32LE(request.requestId >>> 0, 3);
  body.writeBigUInt64LE(request.counter, 7);
  credentialBytes(request.credential).copy(body, 15);
  body.writeBigUInt64LE(validUntil, 31);
  return Buffer.concat([body, computeTag(key, body)]);
}

/**
 * Decodes and authenticates a Credentials request (the lock's side). The tag is checked before
 * the opcode; replay (counter) is checked by the caller, which owns the lock's counter state.
 */
export function decodeCredentialRequest(frame: Buffer, key: Buffer): DecodeResult<CredentialRequest> {
  if (frame.length < CREDENTIAL_REQUEST_LENGTH) return { ok: false, reason: 'truncated' };
  if (frame.length > CREDENTIAL_REQUEST_LENGTH) return { ok: false, reason: 'bad_value' };
  if (frame.readUInt8(0) !== FrameType.credentialRequest) return { ok: false, reason: 'wrong_frame_type' };
  if (frame.readUInt8(1) !== PROTOCOL_VERSION) return { ok: false, reason: 'unsupported_version' };
  const body = frame.subarray(0, REQUEST_BODY_LENGTH);
  if (!verifyTag(key, body, frame.subarray(REQUEST_BODY_LENGTH))) return { ok: false, reason: 'bad_tag' };
  const opcode = nameOfCode(CredentialOpcodeCode, frame.readUInt8(2));
  if (opcode === undefined) return { ok: false, reason: 'unknown_opcode' };
  const validUntil = frame.readBigUInt64LE(31);
  if (validUntil > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, reason: 'bad_value' };
  return {
    ok: true,
    value: {
      opcode,
      requestId: frame.readUInt32LE(3),
      counter: frame.readBigUInt64LE(7),
      credential: credentialUuid(frame.subarray(15, 31)),
      validUntil: Number(validUntil),
    },
  };
}

/** Encodes and signs a Credentials response. */
export function encodeCredentialResponse(response: CredentialResponse, key: Buffer): Buffer {
  const body = Buffer.alloc(RESPONSE_BODY_LENGTH);
  body.writeUInt8(FrameType.credentialResponse, 0);
  body.writeUInt8(PROTOCOL_VERSION, 1);
  body.writeUInt8(response.opcodeByte, 2);
  body.writeUInt32LE(response.requestId >>> 0, 3);
  body.writeBigUInt64LE(response.requestCounter, 7);
  body.writeUInt8(CredentialResultCode[response.result], 15);
  body.writeUInt16LE(Math.min(0xffff, Math.max(0, response.listSize)), 16);
  body.writeBigUInt64LE(response.highestCounter, 18);
  return Buffer.concat([body, computeTag(key, body)]);
}

/**
 * Decodes and authenticates a Credentials response (the gateway's side). The caller matches it
 * to its request by request id and request counter; an unknown result code is `bad_value`.
 */
export function decodeCredentialResponse(frame: Buffer, key: Buffer): DecodeResult<CredentialResponse> {
  if (frame.length < CREDENTIAL_RESPONSE_LENGTH) return { ok: false, reason: 'truncated' };
  if (frame.length > CREDENTIAL_RESPONSE_LENGTH) return { ok: false, reason: 'bad_value' };
  if (frame.readUInt8(0) !== FrameType.credentialResponse) return { ok: false, reason: 'wrong_frame_type' };
  if (frame.readUInt8(1) !== PROTOCOL_VERSION) return { ok: false, reason: 'unsupported_version' };
  const body = frame.subarray(0, RESPONSE_BODY_LENGTH);
  if (!verifyTag(key, body, frame.subarray(RESPONSE_BODY_LENGTH))) return { ok: false, reason: 'bad_tag' };
  const result = nameOfCode(CredentialResultCode, frame.readUInt8(15));
  if (result === undefined) return { ok: false, reason: 'bad_value' };
  return {
    ok: true,
    value: {
      opcodeByte: frame.readUInt8(2),
      requestId: frame.readUInt32LE(3),
      requestCounter: frame.readBigUInt64LE(7),
      result,
      listSize: frame.readUInt16LE(16),
      highestCounter: frame.readBigUInt64LE(18),
    },
  };
}
