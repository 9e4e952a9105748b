import {
  ActivitySourceCode,
  FrameType,
  LockActionCode,
  PROTOCOL_VERSION,
  TAG_LENGTH,
  nameOfCode,
} from './lock-profile.js';
import type { ActivityRecord } from '../../../domain/lock-vocabulary.js';
import { computeTag, verifyTag } from './frame-authentication.js';
import type { DecodeResult } from './control-frame-codec.js';

/** End-of-backlog marker after a read-since request. */
export interface ActivityBacklogEnd {
  /** Highest sequence the lock has recorded (0 when its log is empty). */
  highestSequence: number;
  /** Lowest sequence still in the lock's log; records below it were overwritten. */
  oldestAvailable: number;
  /** How many records the lock sent for this request. */
  sent: number;
}

/** Anything the lock notifies on the Activity characteristic. */
export type ActivityNotification = { kind: 'record'; record: ActivityRecord } | { kind: 'backlog_end'; end: ActivityBacklogEnd };

/** Record: type, version, sequence u32, action, source, timestamp u64 ms, credential 16, tag. */
export const ACTIVITY_RECORD_LENGTH = 32 + TAG_LENGTH;
/** Backlog end: type, version, highest u32, oldest u32, sent u16. */
export const ACTIVITY_BACKLOG_END_LENGTH = 12;
/** Read-since request: type, version, since u32. */
export const ACTIVITY_READ_SINCE_LENGTH = 6;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function credentialToBytes(credential: string | null): Buffer {
  if (credential === null) return Buffer.alloc(16);
  if (!UUID_PATTERN.test(credential)) throw new Error(`Credential ${credential} is not a UUID.`);
  return Buffer.from(credential.replace(/-/g, ''), 'hex');
}

function bytesToCredential(bytes: Buffer): string | null {
  if (bytes.every((b) => b === 0)) return null;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Encodes and signs one activity record (lock side). */
export function encodeActivityRecord(record: ActivityRecord, key: Buffer): Buffer {
  const body = Buffer.alloc(32);
  body.writeUInt8(FrameType.activityRecord, 0);
  body.writeUInt8(PROTOCOL_VERSION, 1);
  body.writeUInt32LE(record.sequence >>> 0, 2);
  body.writeUInt8(LockActionCode[record.action], 6);
  body.writeUInt8(ActivitySourceCode[record.source], 7);
  body.writeBigUInt64LE(BigInt(record.timestamp), 8);
  credentialToBytes(record.credential).copy(body, 16);
  return Buffer.concat([body, computeTag(key, body)]);
}

/** Encodes the end-of-backlog marker (lock side). Not signed: it carries no event. */
export function encodeActivityBacklogEnd(end: ActivityBacklogEnd): Buffer {
  const frame = Buffer.alloc(ACTIVITY_BACKLOG_END_LENGTH);
  frame.writeUInt8(FrameType.activityBacklogEnd, 0);
  frame.writeUInt8(PROTOCOL_VERSION, 1);
  frame.writeUInt32LE(end.highestSequence >>> 0, 2);
  frame.writeUInt32LE(end.oldestAvailable >>> 0, 6);
  frame.writeUInt16LE(Math.min(end.sent, 0xffff), 10);
  return frame;
}

/**
 * Decodes an Activity notification (gateway side). Records are authenticated, so a device that
 * is not the lock cannot inject tap events.
 */
export function decodeActivityNotification(frame: Buffer, key: Buffer): DecodeResult<ActivityNotification> {
  if (frame.length < 2) return { ok: false, reason: 'truncated' };
  const type = frame.readUInt8(0);
  if (frame.readUInt8(1) !== PROTOCOL_VERSION) return { ok: false, reason: 'unsupported_version' };
  if (type === FrameType.activityBacklogEnd) {
    if (frame.length < ACTIVITY_BACKLOG_END_LENGTH) return { ok: false, reason: 'truncated' };
    return {
      ok: true,
      value: {
        kind: 'backlog_end',
        end: { highestSequence: frame.readUInt32LE(2), oldestAvailable: frame.readUInt32LE(6), sent: frame.readUInt16LE(10) },
      },
    };
  }
  if (type !== FrameType.activityRecord) return { ok: false, reason: 'wrong_frame_type' };
  if (frame.length < ACTIVITY_RECORD_LENGTH) return { ok: false, reason: 'truncated' };
  if (frame.length > ACTIVITY_RECORD_LENGTH) return { ok: false, reason: 'bad_value' };
  const body = frame.subarray(0, 32);
  if (!verifyTag(key, body, frame.subarray(32))) return { ok: false, reason: 'bad_tag' };
  const action = nameOfCode(LockActionCode, frame.readUInt8(6));
  const source = nameOfCode(ActivitySourceCode, frame.readUInt8(7));
  if (action === undefined || source === undefined) return { ok: false, reason: 'bad_value' };
  return {
    ok: true,
    value: {
      kind: 'record',
      record: {
        sequence: frame.readUInt32LE(2),
        action,
        source,
        timestamp: Number(frame.readBigUInt64LE(8)),
        credential: bytesToCredential(frame.subarray(16, 32)),
      },
    },
  };
}

/** Encodes a read-since request (gateway side): "send me every record with sequence > since". */
export function encodeActivityReadSince(since: number): Buffer {
  const frame = Buffer.alloc(ACTIVITY_READ_SINCE_LENGTH);
  frame.writeUInt8(FrameType.activityReadSince, 0);
  frame.writeUInt8(PROTOCOL_VERSION, 1);
  frame.writeUInt32LE(since >>> 0, 2);
  return frame;
}

/** Decodes a read-since request (lock side). */
export function decodeActivityReadSince(frame: Buffer): DecodeResult<{ since: number }> {
  if (frame.length < ACTIVITY_READ_SINCE_LENGTH) return { ok: false, reason: 'truncated' };
  if (frame.readUInt8(0) !== FrameType.activityReadSince) return { ok: false, reason: 'wrong_frame_type' };
  if (frame.readUInt8(1) !== PROTOCOL_VERSION) return { ok: false, reason: 'unsupported_version' };
  return { ok: true, value: { since: frame.readUInt32LE(2) } };
}
