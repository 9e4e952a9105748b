/**
 * Payloads of the Nuki Keypad commands (Nuki Smart Lock API V2.1 §5: Add Keypad Code 0x0041,
 * Keypad Code ID 0x0042, Request Keypad Codes 0x0043, Keypad Code Count 0x0044, Keypad Code
 * 0x0045, Update Keypad Code 0x0046, Remove Keypad Code 0x0047), Update Time 0x0021 and the data
 * of a keypad action's log entry (type 0x05). Conventions as in nuki-messages.ts: little-endian,
 * names zero-padded UTF-8 (20 bytes here), dates as the spec's 7-byte timestamps. Every decoder is
 * the exact inverse of its encoder and throws NukiFrameError `bad_length` on a short payload.
 *
 * Time: the lock's clock runs in UTC, so the allowed-from and allowed-until dates are UTC
 * instants; the daily window (hour, minute) and the weekday mask are read on the lock's local
 * clock, in the time zone configured on the lock (docs/door-codes.md "How the lock holds a code").
 */
import { u8, u16, u32 } from './nuki-bytes.js';
import { NukiFrameError } from './nuki-frame.js';
import { encodeNukiTimestamp, flag, nameField, PayloadReader } from './nuki-messages.js';

const NONCE_LENGTH = 32;
/** Keypad code names are 20 bytes (not 32 as authorization names). */
export const KEYPAD_NAME_LENGTH = 20;
const TIMESTAMP_LENGTH = 7;

/** A time of day on the lock's local clock. */
export interface NukiTimeOfDay {
  hour: number;
  minute: number;
}

/**
 * When a keypad code works, as the lock stores it. With `timeLimited` false the lock ignores the
 * rest (it still carries them on the wire).
 */
export interface NukiKeypadTimeLimits {
  timeLimited: boolean;
  /** UTC ms; null is sent as seven zero bytes (no lower bound). */
  allowedFrom: number | null;
  /** UTC ms; null is sent as seven zero bytes (no upper bound). */
  allowedUntil: number | null;
  /** The spec's mask: bit 6 Monday … bit 1 Saturday, bit 0 Sunday; 0 = every day. */
  allowedWeekdays: number;
  allowedFromTime: NukiTimeOfDay;
  allowedUntilTime: NukiTimeOfDay;
}

/** No time limits: the code works whenever it is enabled. */
export const UNLIMITED_KEYPAD_TIME: NukiKeypadTimeLimits = {
  timeLimited: false,
  allowedFrom: null,
  allowedUntil: null,
  allowedWeekdays: 0,
  allowedFromTime: { hour: 0, minute: 0 },
  allowedUntilTime: { hour: 0, minute: 0 },
};

const TIME_LIMITS_LENGTH = 1 + TIMESTAMP_LENGTH * 2 + 1 + 2 + 2;

/**
 * The weekday mask of a list of weekdays (0–6, Sunday = 0), as the spec draws it:
 * `- MO TU WE TH FR SA SU` from bit 7 to bit 0. An empty list is 0 (every day).
 *
 * @example weekdayMask([1, 2, 3, 4, 5]) // 0b0111_1100 (Monday to Friday)
 */
export function weekdayMask(weekdays: readonly number[]): number {
  let mask = 0;
  for (const day of weekdays) {
    if (!Number.isInteger(day) || day < 0 || day > 6) throw new RangeError(`A weekday is 0–6 (Sunday = 0), not ${day}.`);
    mask |= 1 << (day === 0 ? 0 : 7 - day);
  }
  return mask;
}

/** The weekdays (0–6, Sunday = 0, ascending) of a mask; 0 gives an empty list (every day). */
export function weekdaysOfMask(mask: number): number[] {
  const days: number[] = [];
  for (let day = 0; day <= 6; day += 1) {
    if ((mask & (1 << (day === 0 ? 0 : 7 - day))) !== 0) days.push(day);
  }
  return days;
}

// ---------------------------------------------------------------------------------------------
// Add Keypad Code (0x0041)

/** Add Keypad Code: a new code with its limits, the challenge nK and the security PIN. */
export interface NukiAddKeypadCode {
  /** Six digits 1–9, as a number (e.g. 482913). */
  code: number;
  name: string;
  limits: NukiKeypadTimeLimits;
  nonce: Buffer;
  securityPin: number;
}

export function encodeAddKeypadCode(message: NukiAddKeypadCode): Buffer {
  return Buffer.concat([
    u32(message.code),
    nameField(message.name, KEYPAD_NAME_LENGTH),
    encodeTimeLimits(message.limits),
    fixed(message.nonce, NONCE_LENGTH, 'nonce'),
    u16(message.securityPin),
  ]);
}

export function decodeAddKeypadCode(payload: Buffer): NukiAddKeypadCode {
  const reader = new PayloadReader(payload, 4 + KEYPAD_NAME_LENGTH + TIME_LIMITS_LENGTH + NONCE_LENGTH + 2, 'Add Keypad Code');
  return {
    code: reader.u32(),
    name: reader.name(KEYPAD_NAME_LENGTH),
    limits: readTimeLimits(reader),
    nonce: reader.bytes(NONCE_LENGTH),
    securityPin: reader.u16(),
  };
}

// ---------------------------------------------------------------------------------------------
// Keypad Code ID (0x0042)

/** Keypad Code ID: the id the lock gave a new code, and when it created it. */
export interface NukiKeypadCodeId {
  codeId: number;
  /** UTC ms; null for an impossible date. */
  dateCreated: number | null;
}

export function encodeKeypadCodeId(message: NukiKeypadCodeId): Buffer {
  return Buffer.concat([u16(message.codeId), encodeNukiTimestamp(message.dateCreated)]);
}

export function decodeKeypadCodeId(payload: Buffer): NukiKeypadCodeId {
  const reader = new PayloadReader(payload, 2 + TIMESTAMP_LENGTH, 'Keypad Code ID');
  return { codeId: reader.u16(), dateCreated: reader.timestamp() };
}

// ---------------------------------------------------------------------------------------------
// Request Keypad Codes (0x0043), Keypad Code Count (0x0044)

/** Request Keypad Codes: `count` codes from `offset` on. */
export interface NukiRequestKeypadCodes {
  offset: number;
  count: number;
  nonce: Buffer;
  securityPin: number;
}

export function encodeRequestKeypadCodes(message: NukiRequestKeypadCodes): Buffer {
  return Buffer.concat([u16(message.offset), u16(message.count), fixed(message.nonce, NONCE_LENGTH, 'nonce'), u16(message.securityPin)]);
}

export function decodeRequestKeypadCodes(payload: Buffer): NukiRequestKeypadCodes {
  const reader = new PayloadReader(payload, 2 + 2 + NONCE_LENGTH + 2, 'Request Keypad Codes');
  return { offset: reader.u16(), count: reader.u16(), nonce: reader.bytes(NONCE_LENGTH), securityPin: reader.u16() };
}

/** Keypad Code Count: the total number of codes on the lock. */
export interface NukiKeypadCodeCount {
  count: number;
}

export function encodeKeypadCodeCount(message: NukiKeypadCodeCount): Buffer {
  return u16(message.count);
}

export function decodeKeypadCodeCount(payload: Buffer): NukiKeypadCodeCount {
  return { count: new PayloadReader(payload, 2, 'Keypad Code Count').u16() };
}

// ---------------------------------------------------------------------------------------------
// Keypad Code (0x0045)

/** Keypad Code: one code as the lock holds it. */
export interface NukiKeypadCode {
  codeId: number;
  code: number;
  name: string;
  enabled: boolean;
  dateCreated: number | null;
  dateLastActive: number | null;
  lockCount: number;
  limits: NukiKeypadTimeLimits;
}

const KEYPAD_CODE_HEADER_LENGTH = 2 + 4 + KEYPAD_NAME_LENGTH + 1 + TIMESTAMP_LENGTH * 2 + 2 + 1;

export function encodeKeypadCode(message: NukiKeypadCode): Buffer {
  return Buffer.concat([
    u16(message.codeId),
    u32(message.code),
    nameField(message.name, KEYPAD_NAME_LENGTH),
    flag(message.enabled),
    encodeNukiTimestamp(message.dateCreated),
    encodeNukiTimestamp(message.dateLastActive),
    u16(message.lockCount),
    encodeTimeLimits(message.limits),
  ]);
}

/**
 * Reads a Keypad Code. The spec appends the time fields "only if" the time-limited flag is set,
 * while firmwares send them always: both are read (absent fields are the unlimited defaults).
 */
export function decodeKeypadCode(payload: Buffer): NukiKeypadCode {
  const reader = new PayloadReader(payload, KEYPAD_CODE_HEADER_LENGTH, 'Keypad Code');
  const codeId = reader.u16();
  const code = reader.u32();
  const name = reader.name(KEYPAD_NAME_LENGTH);
  const enabled = reader.flag();
  const dateCreated = reader.timestamp();
  const dateLastActive = reader.timestamp();
  const lockCount = reader.u16();
  let limits: NukiKeypadTimeLimits;
  if (reader.remaining >= TIME_LIMITS_LENGTH - 1) {
    limits = readTimeLimits(reader);
  } else {
    const timeLimited = reader.flag();
    if (timeLimited) throw new NukiFrameError('bad_length', 'Keypad Code is time limited but carries no time fields');
    limits = UNLIMITED_KEYPAD_TIME;
  }
  return { codeId, code, name, enabled, dateCreated, dateLastActive, lockCount, limits };
}

// ---------------------------------------------------------------------------------------------
// Update Keypad Code (0x0046), Remove Keypad Code (0x0047)

/** Update Keypad Code: rewrites every field of code `codeId`. */
export interface NukiUpdateKeypadCode {
  codeId: number;
  code: number;
  name: string;
  enabled: boolean;
  limits: NukiKeypadTimeLimits;
  nonce: Buffer;
  securityPin: number;
}

export function encodeUpdateKeypadCode(message: NukiUpdateKeypadCode): Buffer {
  return Buffer.concat([
    u16(message.codeId),
    u32(message.code),
    nameField(message.name, KEYPAD_NAME_LENGTH),
    flag(message.enabled),
    encodeTimeLimits(message.limits),
    fixed(message.nonce, NONCE_LENGTH, 'nonce'),
    u16(message.securityPin),
  ]);
}

export function decodeUpdateKeypadCode(payload: Buffer): NukiUpdateKeypadCode {
  const reader = new PayloadReader(payload, 2 + 4 + KEYPAD_NAME_LENGTH + 1 + TIME_LIMITS_LENGTH + NONCE_LENGTH + 2, 'Update Keypad Code');
  return {
    codeId: reader.u16(),
    code: reader.u32(),
    name: reader.name(KEYPAD_NAME_LENGTH),
    enabled: reader.flag(),
    limits: readTimeLimits(reader),
    nonce: reader.bytes(NONCE_LENGTH),
    securityPin: reader.u16(),
  };
}

/** Remove Keypad Code: code `codeId`. */
export interface NukiRemoveKeypadCode {
  codeId: number;
  nonce: Buffer;
  securityPin: number;
}

export function encodeRemoveKeypadCode(message: NukiRemoveKeypadCode): Buffer {
  return Buffer.concat([u16(message.codeId), fixed(message.nonce, NONCE_LENGTH, 'nonce'), u16(message.securityPin)]);
}

export function decodeRemoveKeypadCode(payload: Buffer): NukiRemoveKeypadCode {
  const reader = new PayloadReader(payload, 2 + NONCE_LENGTH + 2, 'Remove Keypad Code');
  return { codeId: reader.u16(), nonce: reader.bytes(NONCE_LENGTH), securityPin: reader.u16() };
}

// ---------------------------------------------------------------------------------------------
// Update Time (0x0021)

/** Update Time: sets the lock's clock (UTC). */
export interface NukiUpdateTime {
  /** UTC ms (whole seconds are sent). */
  time: number;
  nonce: Buffer;
  securityPin: number;
}

export function encodeUpdateTime(message: NukiUpdateTime): Buffer {
  return Buffer.concat([encodeNukiTimestamp(message.time), fixed(message.nonce, NONCE_LENGTH, 'nonce'), u16(message.securityPin)]);
}

export function decodeUpdateTime(payload: Buffer): NukiUpdateTime {
  const reader = new PayloadReader(payload, TIMESTAMP_LENGTH + NONCE_LENGTH + 2, 'Update Time');
  const time = reader.timestamp();
  if (time === null) throw new NukiFrameError('bad_length', 'Update Time carries an impossible date');
  return { time, nonce: reader.bytes(NONCE_LENGTH), securityPin: reader.u16() };
}

// ---------------------------------------------------------------------------------------------
// Log entry data of a keypad action (log entry type 0x05)

/** The data of a keypad action's log entry: what was asked, from where, how it ended, which code. */
export interface NukiKeypadActionLogData {
  /** NukiLockAction. */
  action: number;
  /** 0x00 arrow key, 0x01 code. */
  source: number;
  /** NukiCompletionStatus (0xE0: invalid code). */
  completionStatus: number;
  /** The code's id on the lock (0 when no stored code matched). */
  codeId: number;
}

/** The keypad action sources of the spec (Keypad Action). */
export const NukiKeypadSource = {
  arrowKey: 0x00,
  code: 0x01,
} as const;

export function encodeKeypadActionLogData(data: NukiKeypadActionLogData): Buffer {
  return Buffer.concat([u8(data.action), u8(data.source), u8(data.completionStatus), u16(data.codeId)]);
}

export function decodeKeypadActionLogData(data: Buffer): NukiKeypadActionLogData {
  const reader = new PayloadReader(data, 5, 'keypad action log data');
  return { action: reader.u8(), source: reader.u8(), completionStatus: reader.u8(), codeId: reader.u16() };
}

// ---------------------------------------------------------------------------------------------
// Field helpers

function encodeTimeLimits(limits: NukiKeypadTimeLimits): Buffer {
  return Buffer.concat([
    flag(limits.timeLimited),
    encodeNukiTimestamp(limits.allowedFrom),
    encodeNukiTimestamp(limits.allowedUntil),
    u8(limits.allowedWeekdays),
    timeOfDay(limits.allowedFromTime),
    timeOfDay(limits.allowedUntilTime),
  ]);
}

function readTimeLimits(reader: PayloadReader): NukiKeypadTimeLimits {
  return {
    timeLimited: reader.flag(),
    allowedFrom: reader.timestamp(),
    allowedUntil: reader.timestamp(),
    allowedWeekdays: reader.u8(),
    allowedFromTime: { hour: reader.u8(), minute: reader.u8() },
    allowedUntilTime: { hour: reader.u8(), minute: reader.u8() },
  };
}

function timeOfDay(time: NukiTimeOfDay): Buffer {
  if (!Number.isInteger(time.hour) || time.hour < 0 || time.hour > 23 || !Number.isInteger(time.minute) || time.minute < 0 || time.minute > 59) {
    throw new RangeError(`A time of day is 00:00–23:59, not ${time.hour}:${time.minute}.`);
  }
  return Buffer.from([time.hour, time.minute]);
}

function fixed(bytes: Buffer, length: number, what: string): Buffer {
  if (bytes.length !== length) throw new RangeError(`A Nuki ${what} has ${length} bytes, not ${bytes.length}.`);
  return bytes;
}
