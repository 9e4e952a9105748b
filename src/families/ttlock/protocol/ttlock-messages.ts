import { decodeDate, encodeDate5, encodeDate6, type WallClock } from './ttlock-wall-clock.js';

/**
 * Payload builders and reply parsers of the TTLock V3 session (docs/ttlock.md "Commands"): the
 * layouts of the Android SDK's `CommandUtil_V3` (facts), checked against the plaintexts of the
 * DEF CON 34 capture. Numbers are big-endian. `adminPs` and `unlockKey` are the two secrets the
 * lock's admin holds (pairing makes them); `ps` is the lock's fresh challenge.
 */

/** The ASCII literal several requests and replies carry. */
export const SCIENER = Buffer.from('SCIENER', 'ascii');

function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes;
}

/** A reply's data too short for what it must hold. */
export class TtlockPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TtlockPayloadError';
  }
}

function need(data: Buffer, bytes: number, what: string): void {
  if (data.length < bytes) throw new TtlockPayloadError(`${what}: ${bytes} bytes expected, ${data.length} received`);
}

/** The answer to a challenge: `(ps + unlockKey) mod 2^32` (DEF CON 34 slides 36–44: 0x10E32AC3 + 0x0109FE80 = 0x11ED2943). */
export function challengeAnswer(ps: number, unlockKey: number): number {
  return (ps + unlockKey) >>> 0;
}

/** 0x41 CHECK_ADMIN: `adminPs u32 | lockFlagPos (its low 3 bytes) | uid u32` (11 bytes). */
export function encodeCheckAdmin(fields: { adminPs: number; lockFlagPos: number; uid: number }): Buffer {
  const flag = u32(fields.lockFlagPos).subarray(1);
  return Buffer.concat([u32(fields.adminPs), flag, u32(fields.uid)]);
}

export function decodeCheckAdmin(payload: Buffer): { adminPs: number; lockFlagPos: number; uid: number } {
  need(payload, 11, 'CHECK_ADMIN');
  return { adminPs: payload.readUInt32BE(0), lockFlagPos: payload.readUIntBE(4, 3), uid: payload.readUInt32BE(7) };
}

/** The data of a CHECK_ADMIN or CHECK_USER_TIME reply: the challenge `ps` (u32). */
export function decodeChallenge(data: Buffer): number {
  need(data, 4, 'challenge');
  return data.readUInt32BE(0);
}

/** 0x30 CHECK_RANDOM: the challenge answer (u32); the admin's login for admin operations. */
export function encodeCheckRandom(answer: number): Buffer {
  return u32(answer);
}

/**
 * 0x55 CHECK_USER_TIME: `start YYMMDDhhmm | end YYMMDDhhmm | lockFlagPos (3) | uid u32` (17 bytes),
 * dates as decimal bytes (the Android SDK; ttlock-ble writes BCD and still works, because the
 * lock checks only the end date: docs/ttlock.md "Where the sources disagree").
 */
export function encodeCheckUserTime(fields: { start: WallClock; end: WallClock; lockFlagPos: number; uid: number }): Buffer {
  return Buffer.concat([encodeDate5(fields.start), encodeDate5(fields.end), u32(fields.lockFlagPos).subarray(1), u32(fields.uid)]);
}

export function decodeCheckUserTime(payload: Buffer): { start: WallClock; end: WallClock; lockFlagPos: number; uid: number } {
  need(payload, 17, 'CHECK_USER_TIME');
  return { start: decodeDate(payload.subarray(0, 5)), end: decodeDate(payload.subarray(5, 10)), lockFlagPos: payload.readUIntBE(10, 3), uid: payload.readUInt32BE(13) };
}

/** 0x47 UNLOCK and 0x58 FUNCTION_LOCK: `answer u32 | unix seconds u32` (8 bytes; the seconds also mark the log record). */
export function encodeBoltCommand(fields: { answer: number; unixSeconds: number }): Buffer {
  return Buffer.concat([u32(fields.answer), u32(fields.unixSeconds)]);
}

export function decodeBoltCommand(payload: Buffer): { answer: number; unixSeconds: number } {
  need(payload, 8, 'UNLOCK/LOCK');
  return { answer: payload.readUInt32BE(0), unixSeconds: payload.readUInt32BE(4) };
}

/** An UNLOCK or LOCK reply's data: `battery | uid u32 | uniqueId u32 | YY MM DD hh mm ss` (the lock's clock). */
export interface BoltCommandReply {
  battery: number;
  uid: number;
  uniqueId: number;
  lockTime: WallClock;
}

export function encodeBoltCommandReply(reply: BoltCommandReply): Buffer {
  return Buffer.concat([Buffer.from([reply.battery]), u32(reply.uid), u32(reply.uniqueId), encodeDate6(reply.lockTime)]);
}

export function decodeBoltCommandReply(data: Buffer): BoltCommandReply {
  need(data, 15, 'UNLOCK/LOCK reply');
  return { battery: data[0] ?? 0, uid: data.readUInt32BE(1), uniqueId: data.readUInt32BE(5), lockTime: decodeDate(data.subarray(9, 15)) };
}

/** The battery byte that leads many replies' data (INITIALIZATION, CHECK_RANDOM, TIME_CALIBRATE, …): percent. */
export function decodeBattery(data: Buffer): number | null {
  const battery = data[0];
  return battery === undefined || battery > 100 ? null : battery;
}

/**
 * 0x14 SEARCH_BICYCLE_STATUS: `SCIENER` → `battery | state (0 locked, 1 unlocked) | …` (ttlock-ble's
 * captured `14012d0002`). The state is the lock's own idea of its bolt — the last position its
 * motor drove to (ttlock-rs found it constant on one lock): the driver reads only the battery.
 */
export function decodeStatus(data: Buffer): { battery: number; state: number } {
  need(data, 2, 'SEARCH_BICYCLE_STATUS reply');
  return { battery: data[0] ?? 0, state: data[1] ?? 0 };
}

/** 0x43 TIME_CALIBRATE: YY MM DD hh mm ss, the lock's local wall clock (DEF CON 34: `1A03050D3701`). */
export function encodeCalibrateTime(time: WallClock): Buffer {
  return encodeDate6(time);
}

/** 0x34 GET_LOCK_TIME reply data: YY MM DD hh mm ss. */
export function decodeLockTime(data: Buffer): WallClock {
  need(data, 6, 'GET_LOCK_TIME reply');
  return decodeDate(data.subarray(0, 6));
}

/** 0x19 GET_AES_KEY reply data: the lock's new 16-byte key (DEF CON 34 slide 26). */
export function decodeAesKey(data: Buffer): Buffer {
  need(data, 16, 'GET_AES_KEY reply');
  return Buffer.from(data.subarray(0, 16));
}

/** 0x56 ADD_ADMIN: `adminPs u32 | unlockKey u32 | "SCIENER"` (15 bytes; DEF CON 34 slide 43: `26D2FC7B0109FE80534349454E4552`). */
export function encodeAddAdmin(fields: { adminPs: number; unlockKey: number }): Buffer {
  return Buffer.concat([u32(fields.adminPs), u32(fields.unlockKey), SCIENER]);
}

export function decodeAddAdmin(payload: Buffer): { adminPs: number; unlockKey: number } {
  need(payload, 15, 'ADD_ADMIN');
  if (!payload.subarray(8, 15).equals(SCIENER)) throw new TtlockPayloadError('ADD_ADMIN: no "SCIENER" after the two secrets');
  return { adminPs: payload.readUInt32BE(0), unlockKey: payload.readUInt32BE(4) };
}

/** An ADD_ADMIN reply proves the new key: its data is `SCIENER` (the Android SDK checks it). */
export function isAddAdminConfirmation(data: Buffer): boolean {
  return data.subarray(0, 7).equals(SCIENER);
}

/** 0x53 SET_ADMIN_KEYBOARD_PWD: the admin's keypad code, one byte per digit (its value, not ASCII). */
export function encodeAdminKeypadCode(code: string): Buffer {
  if (!/^\d{4,9}$/.test(code)) throw new RangeError('an admin keypad code has 4 to 9 digits');
  return Buffer.from(Array.from({ length: code.length }, (_, index) => code.charCodeAt(index) - 0x30));
}

export function decodeAdminKeypadCode(payload: Buffer): string {
  return [...payload].map((digit) => String(digit)).join('');
}

/** 0x90 READ_DEVICE_INFO's item types (Android `DeviceInfoType`). */
export const TtlockDeviceInfo = { modelNumber: 1, hardwareRevision: 2, firmwareRevision: 3, manufactureDate: 4 } as const;

/** A READ_DEVICE_INFO reply's data: ASCII, ended by one byte the SDK drops (a NUL here). */
export function decodeDeviceInfoText(data: Buffer): string {
  const text = data.length > 0 ? data.subarray(0, data.length - 1) : data;
  return text.toString('ascii').replace(/\0+$/, '').trim();
}

export function encodeDeviceInfoText(text: string): Buffer {
  return Buffer.concat([Buffer.from(text, 'ascii'), Buffer.from([0])]);
}

/** 0x01 SEARCH_DEVICE_FEATURE reply data: `battery | feature bits u32 …`. */
export function decodeDeviceFeatures(data: Buffer): { battery: number; features: number } {
  need(data, 5, 'SEARCH_DEVICE_FEATURE reply');
  return { battery: data[0] ?? 0, features: data.readUInt32BE(1) };
}
