import type { ActivitySource, BoltPosition } from '../../../domain/lock-vocabulary.js';
import {
  ActivitySourceCode,
  BoltPositionCode,
  UNKNOWN_SOURCE_CODE,
  nameOfCode,
} from './lock-profile.js';
import type { DecodeResult } from './control-frame-codec.js';

/** The Bolt State value: where the bolt is and what moved it last. */
export interface BoltStateValue {
  bolt: BoltPosition;
  /** Source of the last change, or null when the lock does not know (e.g. after boot). */
  source: ActivitySource | null;
}

/** Bolt State: 2 bytes, position then source of the last change (0x00 = unknown). */
export function encodeBoltState(value: BoltStateValue): Buffer {
  return Buffer.from([BoltPositionCode[value.bolt], value.source === null ? UNKNOWN_SOURCE_CODE : ActivitySourceCode[value.source]]);
}

/** Decodes Bolt State; a 1-byte value (position only) is accepted for minimal firmware. */
export function decodeBoltState(value: Buffer): DecodeResult<BoltStateValue> {
  if (value.length < 1) return { ok: false, reason: 'truncated' };
  const bolt = nameOfCode(BoltPositionCode, value.readUInt8(0));
  if (bolt === undefined) return { ok: false, reason: 'bad_value' };
  const sourceCode = value.length >= 2 ? value.readUInt8(1) : UNKNOWN_SOURCE_CODE;
  const source = sourceCode === UNKNOWN_SOURCE_CODE ? null : (nameOfCode(ActivitySourceCode, sourceCode) ?? null);
  return { ok: true, value: { bolt, source } };
}

/** Battery Level (0x2A19): one byte, percent 0..100. */
export function encodeBatteryLevel(percent: number): Buffer {
  return Buffer.from([Math.max(0, Math.min(100, Math.round(percent)))]);
}

/** Decodes Battery Level to a 0..1 fraction (the service's scale). */
export function decodeBatteryLevel(value: Buffer): DecodeResult<number> {
  if (value.length < 1) return { ok: false, reason: 'truncated' };
  const percent = value.readUInt8(0);
  if (percent > 100) return { ok: false, reason: 'bad_value' };
  return { ok: true, value: percent / 100 };
}

/** Device Information strings (UTF-8, no terminator). */
export function decodeUtf8String(value: Buffer): string {
  // Some firmware pads with NULs; strip them.
  return value.toString('utf8').replace(/\0+$/, '');
}
