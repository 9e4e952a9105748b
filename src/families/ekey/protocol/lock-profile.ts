/**
 * The lock's open GATT profile (docs/ble-protocol.md): UUIDs, value enums and protocol
 * constants shared by the codecs, both transports, the simulated lock and the fake BlueZ.
 * Everything here mirrors a table in docs/ble-protocol.md; change both together.
 */
import type { ActivitySource, BoltPosition, LockAction } from '../../../domain/lock-vocabulary.js';

/** Expands a 16-bit SIG-assigned UUID to the full lower-case 128-bit form BlueZ reports. */
export function sigUuid(shortUuid: number): string {
  return `0000${shortUuid.toString(16).padStart(4, '0')}-0000-1000-8000-00805f9b34fb`;
}

/**
 * Service and characteristic UUIDs, always in the full lower-case 128-bit form because BlueZ and
 * node-ble compare UUIDs as exact strings.
 */
export const LockUuids = {
  /** Lock Service (ours). */
  lockService: '7a1c0001-5e6b-4f2e-9d8a-3c2b1e0f4a5d',
  /** Bolt State: read, notify. */
  boltState: '7a1c0002-5e6b-4f2e-9d8a-3c2b1e0f4a5d',
  /** Control Point: write (with response), notify. */
  controlPoint: '7a1c0003-5e6b-4f2e-9d8a-3c2b1e0f4a5d',
  /** Activity: write (with response, read-since request), notify. */
  activity: '7a1c0004-5e6b-4f2e-9d8a-3c2b1e0f4a5d',
  /** Credentials: write (with response; clear/allow/revoke requests), notify (responses). */
  credentials: '7a1c0005-5e6b-4f2e-9d8a-3c2b1e0f4a5d',
  /** Battery Service 0x180F. */
  batteryService: sigUuid(0x180f),
  /** Battery Level 0x2A19: read, notify, uint8 percent. */
  batteryLevel: sigUuid(0x2a19),
  /** Device Information Service 0x180A. */
  deviceInformationService: sigUuid(0x180a),
  /** Manufacturer Name String 0x2A29. */
  manufacturerName: sigUuid(0x2a29),
  /** Model Number String 0x2A24. */
  modelNumber: sigUuid(0x2a24),
  /** Serial Number String 0x2A25. */
  serialNumber: sigUuid(0x2a25),
  /** Firmware Revision String 0x2A26. */
  firmwareRevision: sigUuid(0x2a26),
} as const;

/** Wire values of the Bolt State characteristic (chosen to equal HomeKit's LockCurrentState). */
export const BoltPositionCode: Record<BoltPosition, number> = {
  /** The bolt is retracted. */
  unlocked: 0x00,
  /** The bolt is thrown. */
  locked: 0x01,
  /** A motorised move could not finish; stays so until a manual turn. */
  jammed: 0x02,
  /** The motor is moving, or the lock does not know (e.g. just booted). */
  moving: 0x03,
};

/** Wire values of actions. */
export const LockActionCode: Record<LockAction, number> = {
  /** Bolt thrown. */
  lock: 0x01,
  /** Bolt retracted. */
  unlock: 0x02,
};

/** Wire values of activity sources; 0x00 means "unknown" where a source field may be empty. */
export const ActivitySourceCode: Record<ActivitySource, number> = {
  /** An eKey holder's phone tapped the lock; the record carries the eKey id. */
  tap: 0x01,
  /** A Control Point command from the gateway. */
  remote: 0x02,
  /** Thumb turn or physical key. */
  manual: 0x03,
  /** The triple-tap lock feature on the lock body. */
  triple_tap: 0x04,
  /** A paired key fob. */
  fob: 0x05,
  /** The lock's own auto-lock timer. */
  auto: 0x06,
};

/** Wire value of "no/unknown source" in Bolt State. */
export const UNKNOWN_SOURCE_CODE = 0x00;

/** Control Point opcodes. */
export type ControlOpcode = LockAction;

/** Wire values of Control Point opcodes (same numbers as the actions). */
export const ControlOpcodeCode: Record<ControlOpcode, number> = {
  /** Throw the bolt. */
  lock: 0x01,
  /** Retract the bolt. */
  unlock: 0x02,
};

/** Results a lock answers to a Control Point request. */
export type ControlResult =
  | 'ok'
  | 'jammed'
  | 'bad_tag'
  | 'stale_counter'
  | 'unknown_opcode'
  | 'malformed'
  | 'busy'
  | 'internal_error';

/** Wire values of Control Point result codes. */
export const ControlResultCode: Record<ControlResult, number> = {
  /** The bolt reached the requested position (or already was there). */
  ok: 0x00,
  /** The motor could not finish the move; the bolt is jammed. */
  jammed: 0x01,
  /** The HMAC tag did not verify under the lock's key: forged or wrong key. */
  bad_tag: 0x02,
  /** The counter was not above the highest counter the lock accepted: a replay or a gateway restart. */
  stale_counter: 0x03,
  /** The opcode is not known to this firmware. */
  unknown_opcode: 0x04,
  /** Wrong length or frame type. */
  malformed: 0x05,
  /** The motor is already moving for an earlier request. */
  busy: 0x06,
  /** Anything else on the lock's side. */
  internal_error: 0x07,
};

/** Frame type bytes; the first byte of every Control Point and Activity frame. */
export const FrameType = {
  /** Gateway → lock, Control Point request. */
  controlRequest: 0x01,
  /** Lock → gateway, Control Point response (notification). */
  controlResponse: 0x81,
  /** Gateway → lock, Activity read-since request. */
  activityReadSince: 0x10,
  /** Lock → gateway, one activity record (notification). */
  activityRecord: 0x90,
  /** Lock → gateway, end of a read-since backlog (notification). */
  activityBacklogEnd: 0x91,
  /** Gateway → lock, Credentials request (clear, allow, revoke). */
  credentialRequest: 0x20,
  /** Lock → gateway, Credentials response (notification). */
  credentialResponse: 0xa0,
} as const;

/** Credentials opcodes (docs/ble-protocol.md "Credentials"). */
export type CredentialOpcode = 'clear' | 'allow' | 'revoke';

/** Wire values of Credentials opcodes. */
export const CredentialOpcodeCode: Record<CredentialOpcode, number> = {
  /** Empty the allow-list. */
  clear: 0x01,
  /** Add a credential (or replace its expiry). */
  allow: 0x02,
  /** Remove a credential (no error when it is not on the list). */
  revoke: 0x03,
};

/** Results a lock answers to a Credentials request. */
export type CredentialResult = 'ok' | 'bad_tag' | 'stale_counter' | 'unknown_opcode' | 'malformed' | 'internal_error' | 'list_full';

/** Wire values of Credentials result codes (shared codes have the Control Point's numbers). */
export const CredentialResultCode: Record<CredentialResult, number> = {
  /** Done; the list is as requested. */
  ok: 0x00,
  /** The HMAC tag did not verify under the lock's key. */
  bad_tag: 0x02,
  /** The counter was not above the highest counter the lock accepted. */
  stale_counter: 0x03,
  /** The opcode is not known to this firmware. */
  unknown_opcode: 0x04,
  /** Wrong length, frame type or version. */
  malformed: 0x05,
  /** Anything else on the lock's side. */
  internal_error: 0x07,
  /** `allow` of a new credential while the list is at the lock's capacity. */
  list_full: 0x08,
};

/** Protocol version carried in byte 1 of every Control Point and Activity frame. */
export const PROTOCOL_VERSION = 0x01;

/** Length in bytes of the per-lock key. */
export const LOCK_KEY_LENGTH = 32;

/** Length in bytes of an HMAC-SHA256 tag (not truncated). */
export const TAG_LENGTH = 32;

/**
 * Smallest ATT_MTU the profile works with: the largest frame (a Credentials request, 71 bytes)
 * must fit in one ATT Write Request and the largest notification (an activity record, 64 bytes)
 * in one ATT_HANDLE_VALUE_NTF (MTU − 3).
 */
export const MINIMUM_ATT_MTU = 74;

/** Reverses a lookup table built with `Record<Name, number>`. */
export function nameOfCode<Name extends string>(table: Record<Name, number>, code: number): Name | undefined {
  for (const [name, value] of Object.entries(table) as [Name, number][]) {
    if (value === code) return name;
  }
  return undefined;
}
