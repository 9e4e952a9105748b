import { TtlockPayloadError } from './ttlock-messages.js';
import { decodeDate, encodeDate5, type WallClock } from './ttlock-wall-clock.js';

/**
 * Keypad passcodes (docs/ttlock.md "Passcodes"): 0x03 MANAGE_KEYBOARD_PASSWORD and 0x07 PWD_LIST,
 * as the Android SDK lays them out (`CommandUtil_V3.manageKeyboardPassword`; facts). A passcode is
 * 4 to 9 ASCII digits with one validity window at minute resolution on the lock's local clock; no
 * weekday mask. Where the sources disagree, the Android SDK wins: a PERMANENT add carries the start
 * date only (ttlock-ble agrees; kind3r's SDK sends an end as well).
 */

/** The passcode types (Android `KeyboardPwdType`). */
export const TtlockPasscodeType = { permanent: 1, count: 2, period: 3, circle: 4 } as const;

/** MANAGE_KEYBOARD_PASSWORD operations (Android `PwdOperateType`). */
export const TtlockPasscodeOperation = { clear: 1, add: 2, remove: 3, modify: 5 } as const;

/** The start a permanent code is added with, and what a window without a start is written as. */
export const OPEN_START: WallClock = { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
/** What a window without an end is written as (the SDK's far end). */
export const OPEN_END: WallClock = { year: 2099, month: 12, day: 31, hour: 23, minute: 59, second: 0 };

/** One passcode as the lock holds it. */
export interface TtlockPasscode {
  type: number;
  code: string;
  /** Minutes on the lock's local clock; `end` null for a permanent code. */
  start: WallClock;
  end: WallClock | null;
}

/** An operation on the lock's passcodes. */
export type TtlockPasscodeRequest =
  | { op: 'clear' }
  | { op: 'add'; passcode: TtlockPasscode }
  | { op: 'remove'; type: number; code: string }
  /** Rewrites a code's window (and type); the digits stay. */
  | { op: 'modify'; type: number; code: string; start: WallClock; end: WallClock };

function digits(code: string): Buffer {
  if (!/^\d{4,9}$/.test(code)) throw new RangeError('a TTLock passcode has 4 to 9 digits');
  return Buffer.from([code.length, ...Buffer.from(code, 'ascii')]);
}

/** Builds the payload of 0x03. */
export function encodePasscodeRequest(request: TtlockPasscodeRequest): Buffer {
  switch (request.op) {
    case 'clear':
      return Buffer.from([TtlockPasscodeOperation.clear]);
    case 'add': {
      const { type, code, start, end } = request.passcode;
      const head = Buffer.concat([Buffer.from([TtlockPasscodeOperation.add, type]), digits(code), encodeDate5(start)]);
      if (type === TtlockPasscodeType.permanent) return head;
      if (end === null) throw new RangeError('a passcode other than permanent needs an end');
      return Buffer.concat([head, encodeDate5(end)]);
    }
    case 'remove':
      return Buffer.concat([Buffer.from([TtlockPasscodeOperation.remove, request.type]), digits(request.code)]);
    case 'modify':
      // `newLen 0`: the digits stay; the window is rewritten.
      return Buffer.concat([Buffer.from([TtlockPasscodeOperation.modify, request.type]), digits(request.code), Buffer.from([0]), encodeDate5(request.start), encodeDate5(request.end)]);
  }
}

/** Reads the payload of 0x03 (the simulated lock's side). @throws TtlockPayloadError, RangeError */
export function decodePasscodeRequest(payload: Buffer): TtlockPasscodeRequest {
  const op = payload[0];
  const type = payload[1] ?? 0;
  const readCode = (at: number): { code: string; next: number } => {
    const length = payload[at] ?? 0;
    if (length < 4 || length > 9 || payload.length < at + 1 + length) throw new TtlockPayloadError('passcode: bad code length');
    const code = payload.subarray(at + 1, at + 1 + length).toString('ascii');
    if (!/^\d+$/.test(code)) throw new TtlockPayloadError('passcode: not digits');
    return { code, next: at + 1 + length };
  };
  switch (op) {
    case TtlockPasscodeOperation.clear:
      return { op: 'clear' };
    case TtlockPasscodeOperation.add: {
      const { code, next } = readCode(2);
      const start = decodeDate(payload.subarray(next, next + 5));
      const end = type === TtlockPasscodeType.permanent ? null : decodeDate(payload.subarray(next + 5, next + 10));
      return { op: 'add', passcode: { type, code, start, end } };
    }
    case TtlockPasscodeOperation.remove:
      return { op: 'remove', type, code: readCode(2).code };
    case TtlockPasscodeOperation.modify: {
      const { code, next } = readCode(2);
      const newLength = payload[next] ?? 0;
      const at = next + 1 + newLength;
      return { op: 'modify', type, code, start: decodeDate(payload.subarray(at, at + 5)), end: decodeDate(payload.subarray(at + 5, at + 10)) };
    }
    default:
      throw new TtlockPayloadError(`passcode: unknown operation ${String(op)}`);
  }
}

/** 0x07 PWD_LIST request: the page's sequence (u16). */
export function encodePasscodeListRequest(sequence: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(sequence & 0xffff);
  return bytes;
}

export function decodePasscodeListRequest(payload: Buffer): number {
  if (payload.length < 2) throw new TtlockPayloadError('PWD_LIST: no sequence');
  return payload.readUInt16BE(0);
}

/** One page of 0x07: the sequence of the next page and the passcodes on this one (empty at the end). */
export interface TtlockPasscodePage {
  /** `totalLen` was 0: there is nothing (more) to read. */
  end: boolean;
  nextSequence: number;
  passcodes: TtlockPasscode[];
}

/**
 * Reads a PWD_LIST reply's data: `totalLen u16 | nextSeq u16 | {recLen, type, newLen, new, origLen,
 * orig, start5, [end5 for COUNT and PERIOD] …}…` (kind3r's published capture `001700b4140106313233…`
 * is one PERMANENT "123456"). The code a person types is the first (`new`) string. Records of a type
 * this family never writes (CIRCLE) are skipped by their length.
 */
export function decodePasscodePage(data: Buffer): TtlockPasscodePage {
  if (data.length < 2 || data.readUInt16BE(0) === 0) return { end: true, nextSequence: 0, passcodes: [] };
  if (data.length < 4) throw new TtlockPayloadError('PWD_LIST reply: no sequence');
  const nextSequence = data.readUInt16BE(2);
  const passcodes: TtlockPasscode[] = [];
  let at = 4;
  while (at < data.length) {
    const recordLength = data[at] ?? 0;
    const record = data.subarray(at + 1, at + 1 + recordLength);
    if (record.length < recordLength || recordLength < 3) throw new TtlockPayloadError('PWD_LIST reply: a record runs past the end');
    at += 1 + recordLength;
    const type = record[0] ?? 0;
    const newLength = record[1] ?? 0;
    const code = record.subarray(2, 2 + newLength).toString('ascii');
    const originalLength = record[2 + newLength] ?? 0;
    const dates = 3 + newLength + originalLength;
    if (type === TtlockPasscodeType.circle) continue;
    const start = decodeDate(record.subarray(dates, dates + 5));
    const end = type === TtlockPasscodeType.permanent ? null : decodeDate(record.subarray(dates + 5, dates + 10));
    passcodes.push({ type, code, start, end });
  }
  return { end: false, nextSequence, passcodes };
}

/** Builds one PWD_LIST page's data (the simulated lock's side), each passcode with `orig` = `new`. */
export function encodePasscodePage(nextSequence: number, passcodes: readonly TtlockPasscode[]): Buffer {
  const records = passcodes.map((passcode) => {
    const code = Buffer.from(passcode.code, 'ascii');
    const body = Buffer.concat([
      Buffer.from([passcode.type, code.length]),
      code,
      Buffer.from([code.length]),
      code,
      encodeDate5(passcode.start),
      passcode.type === TtlockPasscodeType.permanent || passcode.end === null ? Buffer.alloc(0) : encodeDate5(passcode.end),
    ]);
    return Buffer.concat([Buffer.from([body.length]), body]);
  });
  const body = Buffer.concat(records);
  const head = Buffer.alloc(4);
  head.writeUInt16BE(body.length + 2, 0);
  head.writeUInt16BE(nextSequence & 0xffff, 2);
  return Buffer.concat([head, body]);
}

/** The data of the last page: `totalLen` 0. */
export const END_OF_LIST = Buffer.from([0, 0]);
