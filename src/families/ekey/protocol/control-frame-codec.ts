import type { BoltPosition } from '../../../domain/lock-vocabulary.js';
import {
  BoltPositionCode,
  ControlOpcodeCode,
  ControlResultCode,
  FrameType,
  PROTOCOL_VERSION,
  TAG_LENGTH,
  nameOfCode,
  type ControlOpcode,
  type ControlResult,
} from './lock-profile.js';
import { computeTag, verifyTag } from './frame-authentication.js';

/** A Control Point request, gateway → lock (docs/ble-protocol.md "Control Point"). */
export interface ControlRequest {
  opcode: ControlOpcode;
  /** Chosen by the gateway to match the response; 0..2^32−1. */
  requestId: number;
  /** Strictly increasing per lock; the lock refuses any counter ≤ the highest it accepted. */
  counter: bigint;
}

/** A Control Point response, lock → gateway. */
export interface ControlResponse {
  /** The opcode byte of the request, echoed (may be one this gateway has no name for). */
  opcodeByte: number;
  requestId: number;
  /** The counter of the request this answers (binds the response to exactly one request). */
  requestCounter: bigint;
  result: ControlResult;
  /** Bolt position when the lock sent the response. */
  bolt: BoltPosition;
  /** Highest request counter the lock has accepted, so a gateway can resynchronise. */
  highestCounter: bigint;
}

/** Why a frame could not be decoded. */
export type FrameRejection = 'truncated' | 'wrong_frame_type' | 'unsupported_version' | 'unknown_opcode' | 'bad_tag' | 'bad_value';

/** Either a decoded value or the reason it was refused; decoding never throws. */
export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: FrameRejection };

/** Request: type, version, opcode, request id (u32 LE), counter (u64 LE), tag. */
export const CONTROL_REQUEST_LENGTH = 15 + TAG_LENGTH;
/** Response: type, version, opcode, request id, request counter, result, bolt, highest counter, tag. */
export const CONTROL_RESPONSE_LENGTH = 25 + TAG_LENGTH;

/** Encodes and signs a Control Point request. */
export function encodeControlRequest(request: ControlRequest, key: Buffer): Buffer {
  const body = Buffer.alloc(15);
  body.writeUInt8(FrameType.controlRequest, 0);
  body.writeUInt8(PROTOCOL_VERSION, 1);
  body.writeUInt8(ControlOpcodeCode[request.opcode], 2);
  body.writeUInt32LE(request.requestId >>> 0, 3);
  body.writeBigUInt64LE(request.counter, 7);
  return Buffer.concat([body, computeTag(key, body)]);
}

/**
 * Decodes and authenticates a Control Point request (the lock's side). The tag is checked before
 * the opcode so an unauthenticated sender cannot probe which opcodes exist. Replay (counter) is
 * checked by the caller, which owns the lock's counter state.
 */
export function decodeControlRequest(frame: Buffer, key: Buffer): DecodeResult<ControlRequest> {
  if (frame.length < CONTROL_REQUEST_LENGTH) return { ok: false, reason: 'truncated' };
  if (frame.length > CONTROL_REQUEST_LENGTH) return { ok: false, reason: 'bad_value' };
  if (frame.readUInt8(0) !== FrameType.controlRequest) return { ok: false, reason: 'wrong_frame_type' };
  if (frame.readUInt8(1) !== PROTOCOL_VERSION) return { ok: false, reason: 'unsupported_version' };
  const body = frame.subarray(0, 15);
  if (!verifyTag(key, body, frame.subarray(15))) return { ok: false, reason: 'bad_tag' };
  const opcode = nameOfCode(ControlOpcodeCode, frame.readUInt8(2));
  if (opcode === undefined) return { ok: false, reason: 'unknown_opcode' };
  return { ok: true, value: { opcode, requestId: frame.readUInt32LE(3), counter: frame.readBigUInt64LE(7) } };
}

/** Encodes and signs a Control Point response. */
export function encodeControlResponse(response: ControlResponse, key: Buffer): Buffer {
  const body = Buffer.alloc(25);
  body.writeUInt8(FrameType.controlResponse, 0);
  body.writeUInt8(PROTOCOL_VERSION, 1);
  body.writeUInt8(response.opcodeByte, 2);
  body.writeUInt32LE(response.requestId >>> 0, 3);
  body.writeBigUInt64LE(response.requestCounter, 7);
  body.writeUInt8(ControlResultCode[response.result], 15);
  body.writeUInt8(BoltPositionCode[response.bolt], 16);
  body.writeBigUInt64LE(response.highestCounter, 17);
  return Buffer.concat([body, computeTag(key, body)]);
}

/**
 * Decodes and authenticates a Control Point response (the gateway's side). The caller matches
 * it to its request by request id and request counter; an unknown result code is `bad_value`.
 */
export function decodeControlResponse(frame: Buffer, key: Buffer): DecodeResult<ControlResponse> {
  if (frame.length < CONTROL_RESPONSE_LENGTH) return { ok: false, reason: 'truncated' };
  if (frame.length > CONTROL_RESPONSE_LENGTH) return { ok: false, reason: 'bad_value' };
  if (frame.readUInt8(0) !== FrameType.controlResponse) return { ok: false, reason: 'wrong_frame_type' };
  if (frame.readUInt8(1) !== PROTOCOL_VERSION) return { ok: false, reason: 'unsupported_version' };
  const body = frame.subarray(0, 25);
  if (!verifyTag(key, body, frame.subarray(25))) return { ok: false, reason: 'bad_tag' };
  const opcodeByte = frame.readUInt8(2);
  const result = nameOfCode(ControlResultCode, frame.readUInt8(15));
  const bolt = nameOfCode(BoltPositionCode, frame.readUInt8(16));
  if (result === undefined || bolt === undefined) return { ok: false, reason: 'bad_value' };
  return {
    ok: true,
    value: {
      opcodeByte,
      requestId: frame.readUInt32LE(3),
      requestCounter: frame.readBigUInt64LE(7),
      result,
      bolt,
      highestCounter: frame.readBigUInt64LE(17),
    },
  };
}

/**
 * Reads the request id of a frame without authenticating it, so a lock can address an error
 * response (bad tag, unknown opcode) to the request that caused it. Never trust it further.
 */
export function peekRequestHeader(frame: Buffer): { opcodeByte: number; requestId: number; counter: bigint } | undefined {
  if (frame.length < 15) return undefined;
  return { opcodeByte: frame.readUInt8(2), requestId: frame.readUInt32LE(3), counter: frame.readBigUInt64LE(7) };
}
