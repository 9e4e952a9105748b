/**
 * Payloads of the Nuki messages the gateway and the simulated lock exchange (Nuki Smart Lock API
 * V2.1 §5): the bytes between the command id and the CRC. Every decoder is the exact inverse of its
 * encoder; a decoder throws NukiFrameError `bad_length` on a payload too short for its layout and
 * keeps bytes beyond the layout it knows (`trailing`), so newer firmwares do not break it.
 *
 * Conventions: integers little-endian; names are zero-padded UTF-8 (cut at a character boundary
 * when too long, read up to the first zero byte); the spec's 7-byte timestamps are read as UTC
 * (the spec names no zone; other readings assume UTC) and given as ms since the epoch, null for an
 * impossible date such as an all-zero field; flag bytes are booleans (non-zero = true).
 */
import { NukiFrameError } from './nuki-frame.js';
import { u8, i8, u16, i16, u32, f32 } from './nuki-bytes.js';

const NONCE_LENGTH = 32;
const KEY_LENGTH = 32;
const AUTHENTICATOR_LENGTH = 32;
const NAME_LENGTH = 32;
const NAME_SUFFIX_LENGTH = 20;
const UUID_LENGTH = 16;
const TIMESTAMP_LENGTH = 7;

// ---------------------------------------------------------------------------------------------
// Request Data (0x0001)

/** Request Data: asks the lock to send `command`. */
export interface NukiRequestData {
  command: number;
  /** Additional data the requested command defines (e.g. a nonce); usually empty. */
  additionalData: Buffer;
}

export function encodeRequestData(message: NukiRequestData): Buffer {
  return Buffer.concat([u16(message.command), message.additionalData]);
}

export function decodeRequestData(payload: Buffer): NukiRequestData {
  const reader = new PayloadReader(payload, 2, 'Request Data');
  return { command: reader.u16(), additionalData: reader.rest() };
}

// ---------------------------------------------------------------------------------------------
// Pairing: Public Key (0x0003), Challenge (0x0004), Authorization Authenticator (0x0005),
// Authorization Data (0x0006), Authorization-ID (0x0007), Authorization-ID Confirmation (0x001E)

/** Public Key: the sender's X25519 public key. */
export interface NukiPublicKey {
  publicKey: Buffer;
}

export function encodePublicKey(message: NukiPublicKey): Buffer {
  return fixed(message.publicKey, KEY_LENGTH, 'public key');
}

export function decodePublicKey(payload: Buffer): NukiPublicKey {
  return { publicKey: new PayloadReader(payload, KEY_LENGTH, 'Public Key').bytes(KEY_LENGTH) };
}

/** Challenge: the lock's single-use nonce nK. */
export interface NukiChallenge {
  nonce: Buffer;
}

export function encodeChallenge(message: NukiChallenge): Buffer {
  return fixed(message.nonce, NONCE_LENGTH, 'nonce');
}

export function decodeChallenge(payload: Buffer): NukiChallenge {
  return { nonce: new PayloadReader(payload, NONCE_LENGTH, 'Challenge').bytes(NONCE_LENGTH) };
}

/** Authorization Authenticator: only the authenticator travels (see {@link authorizationAuthenticatorBytes}). */
export interface NukiAuthorizationAuthenticator {
  authenticator: Buffer;
}

export function encodeAuthorizationAuthenticator(message: NukiAuthorizationAuthenticator): Buffer {
  return fixed(message.authenticator, AUTHENTICATOR_LENGTH, 'authenticator');
}

export function decodeAuthorizationAuthenticator(payload: Buffer): NukiAuthorizationAuthenticator {
  return { authenticator: new PayloadReader(payload, AUTHENTICATOR_LENGTH, 'Authorization Authenticator').bytes(AUTHENTICATOR_LENGTH) };
}

/**
 * What the Authorization Authenticator covers: public key A/B/F, public key K and the challenge nK
 * (the dashed rows of §5; h1 over them with the shared key).
 */
export function authorizationAuthenticatorBytes(clientPublicKey: Buffer, lockPublicKey: Buffer, lockNonce: Buffer): Buffer {
  return Buffer.concat([fixed(clientPublicKey, KEY_LENGTH, 'public key'), fixed(lockPublicKey, KEY_LENGTH, 'public key'), fixed(lockNonce, NONCE_LENGTH, 'nonce')]);
}

/** The authenticated fields of Authorization Data. */
export interface NukiAuthorizationDataFields {
  /** NukiIdType: 0 app, 1 bridge, 2 fob, 3 keypad. */
  idType: number;
  /** App-ID/Bridge-ID/Fob-ID, u32. */
  appId: number;
  /** Shown in the lock's authorization list; at most 32 bytes of UTF-8. */
  name: string;
  /** The client's nonce nA/B/F (32 bytes). */
  nonce: Buffer;
}

/** Authorization Data: the client introduces itself, authenticated. */
export interface NukiAuthorizationData extends NukiAuthorizationDataFields {
  authenticator: Buffer;
}

export function encodeAuthorizationData(message: NukiAuthorizationData): Buffer {
  return Buffer.concat([fixed(message.authenticator, AUTHENTICATOR_LENGTH, 'authenticator'), authorizationDataFields(message)]);
}

export function decodeAuthorizationData(payload: Buffer): NukiAuthorizationData {
  const reader = new PayloadReader(payload, AUTHENTICATOR_LENGTH + 1 + 4 + NAME_LENGTH + NONCE_LENGTH, 'Authorization Data');
  return {
    authenticator: reader.bytes(AUTHENTICATOR_LENGTH),
    idType: reader.u8(),
    appId: reader.u32(),
    name: reader.name(NAME_LENGTH),
    nonce: reader.bytes(NONCE_LENGTH),
  };
}

/** What the Authorization Data authenticator covers: the fields sent, then the lock's challenge nK. */
export function authorizationDataAuthenticatedBytes(fields: NukiAuthorizationDataFields, lockNonce: Buffer): Buffer {
  return Buffer.concat([authorizationDataFields(fields), fixed(lockNonce, NONCE_LENGTH, 'nonce')]);
}

function authorizationDataFields(fields: NukiAuthorizationDataFields): Buffer {
  return Buffer.concat([u8(fields.idType), u32(fields.appId), nameField(fields.name, NAME_LENGTH), fixed(fields.nonce, NONCE_LENGTH, 'nonce')]);
}

/** The authenticated fields of Authorization-ID. */
export interface NukiAuthorizationIdFields {
  /** The id the lock assigned to the new authorization. */
  authorizationId: number;
  /** The lock's UUID (16 bytes), stable until a factory reset. */
  lockUuid: Buffer;
  /** The lock's nonce nK (32 bytes), for the confirmation. */
  nonce: Buffer;
}

/** Authorization-ID: the lock's answer to Authorization Data, authenticated. */
export interface NukiAuthorizationId extends NukiAuthorizationIdFields {
  authenticator: Buffer;
}

export function encodeAuthorizationId(message: NukiAuthorizationId): Buffer {
  return Buffer.concat([fixed(message.authenticator, AUTHENTICATOR_LENGTH, 'authenticator'), authorizationIdFields(message)]);
}

export function decodeAuthorizationId(payload: Buffer): NukiAuthorizationId {
  const reader = new PayloadReader(payload, AUTHENTICATOR_LENGTH + 4 + UUID_LENGTH + NONCE_LENGTH, 'Authorization-ID');
  return {
    authenticator: reader.bytes(AUTHENTICATOR_LENGTH),
    authorizationId: reader.u32(),
    lockUuid: reader.bytes(UUID_LENGTH),
    nonce: reader.bytes(NONCE_LENGTH),
  };
}

/** What the Authorization-ID authenticator covers: the fields sent, then the client's nonce nA/B/F. */
export function authorizationIdAuthenticatedBytes(fields: NukiAuthorizationIdFields, clientNonce: Buffer): Buffer {
  return Buffer.concat([authorizationIdFields(fields), fixed(clientNonce, NONCE_LENGTH, 'nonce')]);
}

function authorizationIdFields(fields: NukiAuthorizationIdFields): Buffer {
  return Buffer.concat([u32(fields.authorizationId), fixed(fields.lockUuid, UUID_LENGTH, 'UUID'), fixed(fields.nonce, NONCE_LENGTH, 'nonce')]);
}

/** Authorization-ID Confirmation: the client confirms the id, authenticated. */
export interface NukiAuthorizationIdConfirmation {
  authenticator: Buffer;
  authorizationId: number;
}

export function encodeAuthorizationIdConfirmation(message: NukiAuthorizationIdConfirmation): Buffer {
  return Buffer.concat([fixed(message.authenticator, AUTHENTICATOR_LENGTH, 'authenticator'), u32(message.authorizationId)]);
}

export function decodeAuthorizationIdConfirmation(payload: Buffer): NukiAuthorizationIdConfirmation {
  const reader = new PayloadReader(payload, AUTHENTICATOR_LENGTH + 4, 'Authorization-ID Confirmation');
  return { authenticator: reader.bytes(AUTHENTICATOR_LENGTH), authorizationId: reader.u32() };
}

/** What the Authorization-ID Confirmation authenticator covers: the id, then the nK of Authorization-ID. */
export function authorizationIdConfirmationAuthenticatedBytes(authorizationId: number, lockNonce: Buffer): Buffer {
  return Buffer.concat([u32(authorizationId), fixed(lockNonce, NONCE_LENGTH, 'nonce')]);
}

// ---------------------------------------------------------------------------------------------
// Keyturner States (0x000C)

/**
 * The battery byte of Keyturner States. The spec knows only bit 0 (critical); firmwares since
 * put "charging" in bit 1 and the charge in percent / 2 in bits 2..7. Old firmwares leave bits
 * 1..7 zero, so: `percent` only when bits 2..7 are non-zero, `charging` only when any of bits 1..7
 * is set; otherwise null ("not reported"), never a guessed 0 %.
 */
export interface NukiBatteryState {
  critical: boolean;
  charging: boolean | null;
  /** 2..126 in steps of 2, as reported (not clamped to 100). */
  percent: number | null;
}

export function decodeNukiBatteryByte(byte: number): NukiBatteryState {
  const extended = (byte & 0xfe) !== 0;
  const level = byte >> 2;
  return {
    critical: (byte & 0x01) !== 0,
    charging: extended ? (byte & 0x02) !== 0 : null,
    percent: level === 0 ? null : level * 2,
  };
}

export function encodeNukiBatteryByte(state: NukiBatteryState): number {
  const level = state.percent === null ? 0 : Math.min(63, Math.max(0, Math.round(state.percent / 2)));
  return (state.critical ? 0x01 : 0) | (state.charging === true ? 0x02 : 0) | (level << 2);
}

/**
 * Keyturner States. The payload comes in several lengths (15, 20 and 27 bytes are seen in the
 * field); it is parsed by length: the first 13 bytes always, each later field when present, null
 * when not. Bytes beyond the accessory battery state (byte 21 on) are kept raw in `trailing`
 * (newer firmwares put remote-access and radio status there).
 */
export interface NukiKeyturnerStates {
  /** NukiState. */
  nukiState: number;
  /** NukiLockState. */
  lockState: number;
  /** NukiTrigger of the last state change. */
  trigger: number;
  /** The lock's clock, ms since the epoch read as UTC; null when unset. */
  currentTime: number | null;
  /** Timezone offset in minutes (sint16). */
  timezoneOffsetMinutes: number;
  battery: NukiBatteryState;
  configUpdateCount: number | null;
  /** Lock 'n' go timer, 0 when inactive. */
  lockNGoTimer: number | null;
  /** NukiLockAction of the most recent lock action. */
  lastLockAction: number | null;
  /** NukiTrigger of the most recent lock action. */
  lastLockActionTrigger: number | null;
  /** NukiCompletionStatus of the most recent lock action. */
  lastLockActionCompletionStatus: number | null;
  /** NukiDoorSensorState. */
  doorSensorState: number | null;
  /** Night mode active (byte 19, 20-byte variant and longer). */
  nightModeActive: boolean | null;
  /** Accessory (keypad, door sensor) battery bits (byte 20), raw. */
  accessoryBatteryState: number | null;
  /** Bytes from 21 on, raw. */
  trailing: Buffer;
}

/** The 13 bytes every Keyturner States variant has (up to the battery byte). */
const KEYTURNER_STATES_MIN_LENGTH = 13;
const KEYTURNER_OPTIONAL_FIELDS = [
  'configUpdateCount',
  'lockNGoTimer',
  'lastLockAction',
  'lastLockActionTrigger',
  'lastLockActionCompletionStatus',
  'doorSensorState',
  'nightModeActive',
  'accessoryBatteryState',
] as const;

export function decodeKeyturnerStates(payload: Buffer): NukiKeyturnerStates {
  const reader = new PayloadReader(payload, KEYTURNER_STATES_MIN_LENGTH, 'Keyturner States');
  const states: NukiKeyturnerStates = {
    nukiState: reader.u8(),
    lockState: reader.u8(),
    trigger: reader.u8(),
    currentTime: reader.timestamp(),
    timezoneOffsetMinutes: reader.i16(),
    battery: decodeNukiBatteryByte(reader.u8()),
    configUpdateCount: null,
    lockNGoTimer: null,
    lastLockAction: null,
    lastLockActionTrigger: null,
    lastLockActionCompletionStatus: null,
    doorSensorState: null,
    nightModeActive: null,
    accessoryBatteryState: null,
    trailing: Buffer.alloc(0),
  };
  for (const field of KEYTURNER_OPTIONAL_FIELDS) {
    if (reader.remaining === 0) break;
    const byte = reader.u8();
    if (field === 'nightModeActive') states.nightModeActive = byte !== 0;
    else states[field] = byte;
  }
  states.trailing = reader.rest();
  return states;
}

/**
 * Encodes Keyturner States up to the last field that is not null (a null before it is written
 * as 0), plus `trailing`; so a decoded 15-, 20- or 27-byte payload encodes back to itself.
 */
export function encodeKeyturnerStates(states: NukiKeyturnerStates): Buffer {
  const optional = KEYTURNER_OPTIONAL_FIELDS.map((field) => {
    const value = states[field];
    return typeof value === 'boolean' ? (value ? 1 : 0) : value;
  });
  let present = states.trailing.length > 0 ? optional.length : 0;
  if (present === 0) {
    for (let index = optional.length - 1; index >= 0; index--) {
      if (optional[index] !== null) {
        present = index + 1;
        break;
      }
    }
  }
  return Buffer.concat([
    u8(states.nukiState),
    u8(states.lockState),
    u8(states.trigger),
    timestampField(states.currentTime),
    i16(states.timezoneOffsetMinutes),
    u8(encodeNukiBatteryByte(states.battery)),
    Buffer.from(optional.slice(0, present).map((value) => value ?? 0)),
    states.trailing,
  ]);
}

// ---------------------------------------------------------------------------------------------
// Lock Action (0x000D), Status (0x000E), Error Report (0x0012), Battery Report (0x0011)

/** Lock Action: asks the lock to act; the nonce is the last challenge. */
export interface NukiLockActionRequest {
  /** NukiLockAction. */
  action: number;
  /** App-ID/Bridge-ID/Fob-ID of the sender, u32. */
  appId: number;
  /** NukiLockActionFlag bits. */
  flags: number;
  /** Appended to the log entry's name; at most 20 bytes of UTF-8; null to leave the field out. */
  nameSuffix: string | null;
  /** The challenge nK (32 bytes). */
  nonce: Buffer;
}

const LOCK_ACTION_LENGTH = 1 + 4 + 1 + NONCE_LENGTH;

export function encodeLockAction(message: NukiLockActionRequest): Buffer {
  return Buffer.concat([
    u8(message.action),
    u32(message.appId),
    u8(message.flags),
    message.nameSuffix === null ? Buffer.alloc(0) : nameField(message.nameSuffix, NAME_SUFFIX_LENGTH),
    fixed(message.nonce, NONCE_LENGTH, 'nonce'),
  ]);
}

/** @throws NukiFrameError `bad_length` unless the payload has 38 bytes (no suffix) or 58 (with). */
export function decodeLockAction(payload: Buffer): NukiLockActionRequest {
  const withSuffix = payload.length === LOCK_ACTION_LENGTH + NAME_SUFFIX_LENGTH;
  if (payload.length !== LOCK_ACTION_LENGTH && !withSuffix) {
    throw new NukiFrameError('bad_length', `Lock Action payload has ${payload.length} bytes, ${LOCK_ACTION_LENGTH} or ${LOCK_ACTION_LENGTH + NAME_SUFFIX_LENGTH} expected`);
  }
  const reader = new PayloadReader(payload, LOCK_ACTION_LENGTH, 'Lock Action');
  return {
    action: reader.u8(),
    appId: reader.u32(),
    flags: reader.u8(),
    nameSuffix: withSuffix ? reader.name(NAME_SUFFIX_LENGTH) : null,
    nonce: reader.bytes(NONCE_LENGTH),
  };
}

/** Status: NukiStatusCode (COMPLETE, ACCEPTED). */
export interface NukiStatus {
  status: number;
}

export function encodeStatus(message: NukiStatus): Buffer {
  return u8(message.status);
}

export function decodeStatus(payload: Buffer): NukiStatus {
  return { status: new PayloadReader(payload, 1, 'Status').u8() };
}

/** Error Report: an error code and the command it refers to. */
export interface NukiErrorReport {
  /** The code as an unsigned byte (0xFD, not −3), to compare with NukiErrorCode; the spec says sint8. */
  errorCode: number;
  /** The command the error refers to. */
  command: number;
}

export function encodeErrorReport(message: NukiErrorReport): Buffer {
  return Buffer.concat([u8(message.errorCode & 0xff), u16(message.command)]);
}

export function decodeErrorReport(payload: Buffer): NukiErrorReport {
  const reader = new PayloadReader(payload, 3, 'Error Report');
  return { errorCode: reader.u8(), command: reader.u16() };
}

/** Battery Report: measurements of the last lock action. */
export interface NukiBatteryReport {
  /** Drain of the last lock action, mWs. */
  batteryDrain: number;
  /** Current battery voltage, mV. */
  batteryVoltage: number;
  /** Critical battery state byte, raw (0x00 ok, 0x01 critical). */
  criticalBatteryState: number;
  /** NukiLockAction of the last action, 0 if none. */
  lockAction: number;
  /** Voltage at the start of the last lock action, mV. */
  startVoltage: number;
  /** Lowest voltage during the last lock action, mV. */
  lowestVoltage: number;
  /** Total distance of the last lock action, degrees. */
  lockDistance: number;
  /** Die temperature at the start of the last lock action, °C (sint8). */
  startTemperature: number;
  /** Highest turn motor current during the last lock action. */
  maxTurnCurrent: number;
  /** Resistance of the batteries. */
  batteryResistance: number;
  trailing: Buffer;
}

const BATTERY_REPORT_LENGTH = 17;

export function encodeBatteryReport(report: NukiBatteryReport): Buffer {
  return Buffer.concat([
    u16(report.batteryDrain),
    u16(report.batteryVoltage),
    u8(report.criticalBatteryState),
    u8(report.lockAction),
    u16(report.startVoltage),
    u16(report.lowestVoltage),
    u16(report.lockDistance),
    i8(report.startTemperature),
    u16(report.maxTurnCurrent),
    u16(report.batteryResistance),
    report.trailing,
  ]);
}

export function decodeBatteryReport(payload: Buffer): NukiBatteryReport {
  const reader = new PayloadReader(payload, BATTERY_REPORT_LENGTH, 'Battery Report');
  return {
    batteryDrain: reader.u16(),
    batteryVoltage: reader.u16(),
    criticalBatteryState: reader.u8(),
    lockAction: reader.u8(),
    startVoltage: reader.u16(),
    lowestVoltage: reader.u16(),
    lockDistance: reader.u16(),
    startTemperature: reader.i8(),
    maxTurnCurrent: reader.u16(),
    batteryResistance: reader.u16(),
    trailing: reader.rest(),
  };
}

// ---------------------------------------------------------------------------------------------
// Request Config (0x0014), Config (0x0015), Verify Security PIN (0x0020)

/** Request Config: the challenge nK. */
export interface NukiRequestConfig {
  nonce: Buffer;
}

export function encodeRequestConfig(message: NukiRequestConfig): Buffer {
  return fixed(message.nonce, NONCE_LENGTH, 'nonce');
}

export function decodeRequestConfig(payload: Buffer): NukiRequestConfig {
  return { nonce: new PayloadReader(payload, NONCE_LENGTH, 'Request Config').bytes(NONCE_LENGTH) };
}

/** Config: the lock's configuration, as far as V2.1 lists it; longer payloads keep the rest raw. */
export interface NukiConfig {
  /** The lock's unique id (u32). */
  nukiId: number;
  name: string;
  /** float32. */
  latitude: number;
  /** float32. */
  longitude: number;
  autoUnlatch: boolean;
  pairingEnabled: boolean;
  buttonEnabled: boolean;
  ledEnabled: boolean;
  /** 0 (off) … 5 (max). */
  ledBrightness: number;
  /** ms since the epoch, read as UTC; null when unset. */
  currentTime: number | null;
  timezoneOffsetMinutes: number;
  /** 0 disabled, 1 European. */
  dstMode: number;
  hasFob: boolean;
  fobAction1: number;
  fobAction2: number;
  fobAction3: number;
  singleLock: boolean;
  /** 0 automatic, 1 normal, 2 slow, 3 slowest. */
  advertisingMode: number;
  hasKeypad: boolean;
  /** Three bytes, e.g. [2, 8, 15]. */
  firmwareVersion: [number, number, number];
  /** Two bytes. */
  hardwareRevision: [number, number];
  /** 0 not available, 1 disabled, 2 enabled, 3 enabled & paired. */
  homeKitStatus: number;
  /** Index into the spec's timezone list (§8), 0xFFFF when unsupported. */
  timezoneId: number;
  trailing: Buffer;
}

const CONFIG_LENGTH = 74;

export function encodeConfig(config: NukiConfig): Buffer {
  return Buffer.concat([
    u32(config.nukiId),
    nameField(config.name, NAME_LENGTH),
    f32(config.latitude),
    f32(config.longitude),
    flag(config.autoUnlatch),
    flag(config.pairingEnabled),
    flag(config.buttonEnabled),
    flag(config.ledEnabled),
    u8(config.ledBrightness),
    timestampField(config.currentTime),
    i16(config.timezoneOffsetMinutes),
    u8(config.dstMode),
    flag(config.hasFob),
    u8(config.fobAction1),
    u8(config.fobAction2),
    u8(config.fobAction3),
    flag(config.singleLock),
    u8(config.advertisingMode),
    flag(config.hasKeypad),
    Buffer.from(config.firmwareVersion),
    Buffer.from(config.hardwareRevision),
    u8(config.homeKitStatus),
    u16(config.timezoneId),
    config.trailing,
  ]);
}

export function decodeConfig(payload: Buffer): NukiConfig {
  const reader = new PayloadReader(payload, CONFIG_LENGTH, 'Config');
  return {
    nukiId: reader.u32(),
    name: reader.name(NAME_LENGTH),
    latitude: reader.f32(),
    longitude: reader.f32(),
    autoUnlatch: reader.flag(),
    pairingEnabled: reader.flag(),
    buttonEnabled: reader.flag(),
    ledEnabled: reader.flag(),
    ledBrightness: reader.u8(),
    currentTime: reader.timestamp(),
    timezoneOffsetMinutes: reader.i16(),
    dstMode: reader.u8(),
    hasFob: reader.flag(),
    fobAction1: reader.u8(),
    fobAction2: reader.u8(),
    fobAction3: reader.u8(),
    singleLock: reader.flag(),
    advertisingMode: reader.u8(),
    hasKeypad: reader.flag(),
    firmwareVersion: [reader.u8(), reader.u8(), reader.u8()],
    hardwareRevision: [reader.u8(), reader.u8()],
    homeKitStatus: reader.u8(),
    timezoneId: reader.u16(),
    trailing: reader.rest(),
  };
}

/** Verify Security PIN: the challenge nK and the PIN (u16). */
export interface NukiVerifySecurityPin {
  nonce: Buffer;
  securityPin: number;
}

export function encodeVerifySecurityPin(message: NukiVerifySecurityPin): Buffer {
  return Buffer.concat([fixed(message.nonce, NONCE_LENGTH, 'nonce'), u16(message.securityPin)]);
}

export function decodeVerifySecurityPin(payload: Buffer): NukiVerifySecurityPin {
  const reader = new PayloadReader(payload, NONCE_LENGTH + 2, 'Verify Security PIN');
  return { nonce: reader.bytes(NONCE_LENGTH), securityPin: reader.u16() };
}

// ---------------------------------------------------------------------------------------------
// Request Log Entries (0x0031), Log Entry (0x0032), Log Entry Count (0x0033)

/** Request Log Entries (needs the security PIN). */
export interface NukiRequestLogEntries {
  /** Entries after (or before, descending) this index; 0 = from the oldest (newest). */
  startIndex: number;
  count: number;
  /** NukiLogSortOrder. */
  sortOrder: number;
  /** Send a Log Entry Count before the entries. */
  totalCount: boolean;
  /** The challenge nK. */
  nonce: Buffer;
  securityPin: number;
  /** Bytes of the PIN field: 2 (u16, API 2.1/2.2, the default) or 4 (u32, API 2.3; docs/nuki.md "Models"). */
  pinSize?: 2 | 4;
}

export function encodeRequestLogEntries(message: NukiRequestLogEntries): Buffer {
  return Buffer.concat([
    u32(message.startIndex),
    u16(message.count),
    u8(message.sortOrder),
    flag(message.totalCount),
    fixed(message.nonce, NONCE_LENGTH, 'nonce'),
    message.pinSize === 4 ? u32(message.securityPin) : u16(message.securityPin),
  ]);
}

/** Reads the PIN field as u16, or as u32 when the payload has the two bytes more of API 2.3. */
export function decodeRequestLogEntries(payload: Buffer): NukiRequestLogEntries {
  const reader = new PayloadReader(payload, 4 + 2 + 1 + 1 + NONCE_LENGTH + 2, 'Request Log Entries');
  const wide = payload.length === 4 + 2 + 1 + 1 + NONCE_LENGTH + 4;
  return {
    startIndex: reader.u32(),
    count: reader.u16(),
    sortOrder: reader.u8(),
    totalCount: reader.flag(),
    nonce: reader.bytes(NONCE_LENGTH),
    securityPin: wide ? reader.u32() : reader.u16(),
    ...(wide ? { pinSize: 4 as const } : {}),
  };
}

/** Log Entry Count. The two door sensor flags are absent in older firmwares (null). */
export interface NukiLogEntryCount {
  loggingEnabled: boolean;
  /** Entries available for the requested start index and sort order. */
  count: number;
  doorSensorEnabled: boolean | null;
  doorSensorLoggingEnabled: boolean | null;
}

export function encodeLogEntryCount(message: NukiLogEntryCount): Buffer {
  const doorSensor =
    message.doorSensorEnabled === null || message.doorSensorLoggingEnabled === null
      ? Buffer.alloc(0)
      : Buffer.concat([flag(message.doorSensorEnabled), flag(message.doorSensorLoggingEnabled)]);
  return Buffer.concat([flag(message.loggingEnabled), u16(message.count), doorSensor]);
}

export function decodeLogEntryCount(payload: Buffer): NukiLogEntryCount {
  const reader = new PayloadReader(payload, 3, 'Log Entry Count');
  const loggingEnabled = reader.flag();
  const count = reader.u16();
  const doorSensor = reader.remaining >= 2;
  return {
    loggingEnabled,
    count,
    doorSensorEnabled: doorSensor ? reader.flag() : null,
    doorSensorLoggingEnabled: doorSensor ? reader.flag() : null,
  };
}

/** The type-specific part of a log entry: lock actions decoded, every other type raw. */
export type NukiLogEntryDetail =
  | {
      kind: 'lock_action';
      /** NukiLockAction. */
      action: number;
      /** NukiTrigger. */
      trigger: number;
      /** NukiLockActionFlag bits. */
      flags: number;
      /** NukiCompletionStatus. */
      completionStatus: number;
      /** Bytes after the four the spec lists, raw. */
      trailing: Buffer;
    }
  | {
      kind: 'other';
      /** NukiLogEntryType. */
      type: number;
      data: Buffer;
    };

/** Log Entry. */
export interface NukiLogEntry {
  /** The entry's index: the activity sequence. */
  index: number;
  /** ms since the epoch; the spec names no zone: read as UTC. Null when the date is impossible. */
  timestamp: number | null;
  /** Authorization that caused it (0 for none). */
  authorizationId: number;
  /** The authorization's name (with a Lock Action's name suffix, if one was sent). */
  name: string;
  detail: NukiLogEntryDetail;
}

const LOG_ENTRY_HEADER_LENGTH = 4 + TIMESTAMP_LENGTH + 4 + NAME_LENGTH + 1;
const LOCK_ACTION_LOG_DATA_LENGTH = 4;

export function encodeLogEntry(entry: NukiLogEntry): Buffer {
  const detail = entry.detail;
  const typeAndData =
    detail.kind === 'lock_action'
      ? Buffer.concat([u8(0x02), u8(detail.action), u8(detail.trigger), u8(detail.flags), u8(detail.completionStatus), detail.trailing])
      : Buffer.concat([u8(detail.type), detail.data]);
  return Buffer.concat([u32(entry.index), timestampField(entry.timestamp), u32(entry.authorizationId), nameField(entry.name, NAME_LENGTH), typeAndData]);
}

export function decodeLogEntry(payload: Buffer): NukiLogEntry {
  const reader = new PayloadReader(payload, LOG_ENTRY_HEADER_LENGTH, 'Log Entry');
  const index = reader.u32();
  const timestamp = reader.timestamp();
  const authorizationId = reader.u32();
  const name = reader.name(NAME_LENGTH);
  const type = reader.u8();
  let detail: NukiLogEntryDetail;
  if (type === 0x02) {
    if (reader.remaining < LOCK_ACTION_LOG_DATA_LENGTH) {
      throw new NukiFrameError('bad_length', `Log Entry of a lock action has ${reader.remaining} data bytes, ${LOCK_ACTION_LOG_DATA_LENGTH} expected`);
    }
    detail = { kind: 'lock_action', action: reader.u8(), trigger: reader.u8(), flags: reader.u8(), completionStatus: reader.u8(), trailing: reader.rest() };
  } else {
    detail = { kind: 'other', type, data: reader.rest() };
  }
  return { index, timestamp, authorizationId, name, detail };
}

// ---------------------------------------------------------------------------------------------
// Timestamps: year u16 LE, month, day, hour, minute, second (§5, e.g. Keyturner States).

/** Reads a 7-byte Nuki timestamp as UTC: ms since the epoch, or null for an impossible date. */
export function decodeNukiTimestamp(bytes: Buffer): number | null {
  if (bytes.length < TIMESTAMP_LENGTH) throw new NukiFrameError('bad_length', `a timestamp has ${TIMESTAMP_LENGTH} bytes`);
  const year = bytes.readUInt16LE(0);
  const [month, day, hour, minute, second] = [bytes.readUInt8(2), bytes.readUInt8(3), bytes.readUInt8(4), bytes.readUInt8(5), bytes.readUInt8(6)];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(ms);
  const exact =
    year >= 1970 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return exact ? ms : null;
}

/** Writes ms since the epoch as a 7-byte Nuki timestamp in UTC (whole seconds); null as zeros. */
export function encodeNukiTimestamp(ms: number | null): Buffer {
  return timestampField(ms);
}

// ---------------------------------------------------------------------------------------------
// Field helpers

export class PayloadReader {
  private offset = 0;

  constructor(
    private readonly payload: Buffer,
    minimumLength: number,
    what: string,
  ) {
    if (payload.length < minimumLength) {
      throw new NukiFrameError('bad_length', `${what} payload too short: ${payload.length} bytes, at least ${minimumLength} expected`);
    }
  }

  get remaining(): number {
    return this.payload.length - this.offset;
  }

  u8(): number {
    return this.payload.readUInt8(this.advance(1));
  }

  i8(): number {
    return this.payload.readInt8(this.advance(1));
  }

  u16(): number {
    return this.payload.readUInt16LE(this.advance(2));
  }

  i16(): number {
    return this.payload.readInt16LE(this.advance(2));
  }

  u32(): number {
    return this.payload.readUInt32LE(this.advance(4));
  }

  f32(): number {
    return this.payload.readFloatLE(this.advance(4));
  }

  flag(): boolean {
    return this.u8() !== 0;
  }

  bytes(length: number): Buffer {
    const start = this.advance(length);
    return Buffer.from(this.payload.subarray(start, start + length));
  }

  name(length: number): string {
    const field = this.bytes(length);
    const end = field.indexOf(0);
    return field.subarray(0, end === -1 ? length : end).toString('utf8');
  }

  timestamp(): number | null {
    return decodeNukiTimestamp(this.bytes(TIMESTAMP_LENGTH));
  }

  rest(): Buffer {
    return this.bytes(this.remaining);
  }

  private advance(length: number): number {
    const start = this.offset;
    if (start + length > this.payload.length) throw new NukiFrameError('bad_length', 'payload ends inside a field');
    this.offset += length;
    return start;
  }
}

export function flag(value: boolean): Buffer {
  return u8(value ? 1 : 0);
}

function fixed(bytes: Buffer, length: number, what: string): Buffer {
  if (bytes.length !== length) throw new RangeError(`A Nuki ${what} has ${length} bytes, not ${bytes.length}.`);
  return bytes;
}

/** Zero-padded UTF-8, cut at a character boundary so no half character is sent. */
export function nameField(name: string, length: number): Buffer {
  const field = Buffer.alloc(length);
  let used = 0;
  for (const character of name) {
    const encoded = Buffer.from(character, 'utf8');
    if (used + encoded.length > length) break;
    encoded.copy(field, used);
    used += encoded.length;
  }
  return field;
}

function timestampField(ms: number | null): Buffer {
  const bytes = Buffer.alloc(TIMESTAMP_LENGTH);
  if (ms === null) return bytes;
  const date = new Date(ms);
  bytes.writeUInt16LE(date.getUTCFullYear(), 0);
  bytes.writeUInt8(date.getUTCMonth() + 1, 2);
  bytes.writeUInt8(date.getUTCDate(), 3);
  bytes.writeUInt8(date.getUTCHours(), 4);
  bytes.writeUInt8(date.getUTCMinutes(), 5);
  bytes.writeUInt8(date.getUTCSeconds(), 6);
  return bytes;
}
