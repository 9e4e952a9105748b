import { TtlockPayloadError } from './ttlock-messages.js';
import { decodeDate, encodeDate6, type WallClock } from './ttlock-wall-clock.js';

/**
 * The lock's operation log, 0x25 GET_OPERATE_LOG (docs/ttlock.md "The operation log"). Request: a
 * sequence (u16); an explicit sequence is a repeatable read of the records after it (ttlock-rs
 * §7a; `0xFFFF` is a stateful "since last read" bookmark this family never sends). Reply data:
 * `totalLen u16 | nextReq u16 | {recLen, type, YY MM DD hh mm ss, battery, tail…}…`; `totalLen` 0
 * is the end of the log. A page usually holds one record, and `nextReq` is both that record's
 * number and what to ask for next. Tails by type follow the Android SDK's `parseOperateLog`.
 */

/** Record types this family reads or writes (Android `LogOperate`; ttlock-rs for 47). */
export const TtlockLogType = {
  appUnlock: 1,
  passcodeUnlock: 4,
  wrongPasscode: 7,
  passcodeExpired: 11,
  icUnlock: 17,
  fingerprintUnlock: 20,
  bluetoothLock: 26,
  keyUnlock: 27,
  gatewayUnlock: 28,
  fingerprintLock: 33,
  passcodeLock: 34,
  icLock: 35,
  keyLock: 36,
  /** Locked at the keypad without a code (ttlock-rs, inferred from a household's weekdays). */
  keypadLock: 47,
  keyFob: 55,
  adminCodeUnlock: 92,
} as const;

/** Types whose tail is `uid u32 | recordId u32` (app and Bluetooth operations). */
const APP_TYPES: ReadonlySet<number> = new Set([1, 26, 28, 41, 52, 75, 76, 77]);
/** Types whose tail is `len | code | len | code` (keypad passcodes; the code is in clear). */
const PASSCODE_TYPES: ReadonlySet<number> = new Set([4, 5, 6, 7, 9, 10, 11, 12, 13, 34, 38, 78, 92]);

/** One record. `passcode` is a secret: never logged. */
export interface TtlockLogRecord {
  type: number;
  time: WallClock;
  battery: number;
  /** App operations: the app user's uid. */
  uid?: number;
  recordId?: number;
  /** Passcode operations: the code typed. */
  passcode?: string;
  /** The bytes after the battery, as the lock sent them. */
  tail: Buffer;
}

/** One page: the number of its last record (what to ask for next), and its records; `end` when the log has no more. */
export interface TtlockLogPage {
  end: boolean;
  nextSequence: number;
  records: TtlockLogRecord[];
}

/** 0x25 request. */
export function encodeLogRequest(sequence: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(sequence & 0xffff);
  return bytes;
}

export function decodeLogRequest(payload: Buffer): number {
  if (payload.length < 2) throw new TtlockPayloadError('GET_OPERATE_LOG: no sequence');
  return payload.readUInt16BE(0);
}

function readPasscode(tail: Buffer): string | undefined {
  const first = tail[0] ?? 0;
  const typed = tail.subarray(1, 1 + first).toString('ascii');
  const secondLength = tail[1 + first] ?? 0;
  const second = tail.subarray(2 + first, 2 + first + secondLength).toString('ascii');
  // The SDK names the second string the code that opened; both are the same for a plain code.
  const code = second.length > 0 ? second : typed;
  return /^\d+$/.test(code) ? code : undefined;
}

/** Reads one page's data. @throws TtlockPayloadError, TtlockDateError */
export function decodeLogPage(data: Buffer): TtlockLogPage {
  if (data.length < 2 || data.readUInt16BE(0) === 0) return { end: true, nextSequence: 0, records: [] };
  if (data.length < 4) throw new TtlockPayloadError('GET_OPERATE_LOG reply: no sequence');
  const nextSequence = data.readUInt16BE(2);
  const records: TtlockLogRecord[] = [];
  let at = 4;
  while (at < data.length) {
    const recordLength = data[at] ?? 0;
    const record = data.subarray(at + 1, at + 1 + recordLength);
    if (record.length < recordLength || recordLength < 8) throw new TtlockPayloadError('GET_OPERATE_LOG reply: a record runs past the end');
    at += 1 + recordLength;
    const type = record[0] ?? 0;
    const tail = Buffer.from(record.subarray(8));
    const entry: TtlockLogRecord = { type, time: decodeDate(record.subarray(1, 7)), battery: record[7] ?? 0, tail };
    if (APP_TYPES.has(type) && tail.length >= 8) {
      entry.uid = tail.readUInt32BE(0);
      entry.recordId = tail.readUInt32BE(4);
    } else if (PASSCODE_TYPES.has(type)) {
      const passcode = readPasscode(tail);
      if (passcode !== undefined) entry.passcode = passcode;
    }
    records.push(entry);
  }
  return { end: false, nextSequence, records };
}

/** Builds a record's bytes for a page (the simulated lock's side). */
export function encodeLogRecord(record: { type: number; time: WallClock; battery: number; uid?: number; recordId?: number; passcode?: string }): Buffer {
  let tail = Buffer.alloc(0);
  if (record.uid !== undefined) {
    tail = Buffer.alloc(8);
    tail.writeUInt32BE(record.uid >>> 0, 0);
    tail.writeUInt32BE((record.recordId ?? 0) >>> 0, 4);
  } else if (record.passcode !== undefined) {
    const code = Buffer.from(record.passcode, 'ascii');
    // A wrong code carries what was typed and no second string; a code that opened carries it twice.
    const second = record.type === TtlockLogType.wrongPasscode ? Buffer.alloc(0) : code;
    tail = Buffer.concat([Buffer.from([code.length]), code, Buffer.from([second.length]), second]);
  }
  const body = Buffer.concat([Buffer.from([record.type]), encodeDate6(record.time), Buffer.from([record.battery]), tail]);
  return Buffer.concat([Buffer.from([body.length]), body]);
}

/** A page's data holding these encoded records, the last of which is number `lastSequence`. */
export function encodeLogPage(lastSequence: number, encodedRecords: readonly Buffer[]): Buffer {
  const body = Buffer.concat(encodedRecords);
  const head = Buffer.alloc(4);
  head.writeUInt16BE(body.length + 2, 0);
  head.writeUInt16BE(lastSequence & 0xffff, 2);
  return Buffer.concat([head, body]);
}

/** The data of the reply past the newest record: `totalLen` 0. */
export const END_OF_LOG = Buffer.from([0, 0]);
