/**
 * The Nuki Opener's protocol tables (docs/design.md §4d, docs/nuki.md "Opener"): the same frames,
 * pairing and message layouts as the Smart Lock (API 2.2), on its own services (see
 * NukiFamilyUuids), with its own states, actions and log entry types. Keyturner States has the
 * Smart Lock's layout; the byte where the lock keeps its lock 'n' go timer holds the Ring to Open
 * timer, there is no door sensor, and the battery byte carries only the critical flag (bit 0).
 */
import type { NukiKeyturnerStates } from '../../nuki/protocol/nuki-messages.js';

/** Nuki State of an Opener (Keyturner States byte 0). */
export const OpenerState = {
  uninitialized: 0x00,
  pairingMode: 0x01,
  /** Normal operation. */
  doorMode: 0x02,
  /** Continuous Mode: every ring opens the door. */
  continuousMode: 0x03,
  maintenanceMode: 0x04,
} as const;

/** Lock State of an Opener (Keyturner States byte 1). */
export const OpenerLockState = {
  uncalibrated: 0x00,
  /** Online: a ring does not open. */
  locked: 0x01,
  /** Ring to Open active: the next ring opens. */
  ringToOpenActive: 0x03,
  /** The electric strike is actuated (door buzzed open). */
  open: 0x05,
  /** Actuating the strike. */
  opening: 0x07,
  bootRun: 0xfd,
  undefined: 0xff,
} as const;

/** Lock Action of an Opener (Lock Action payload byte 0, Keyturner States, Log Entry). */
export const OpenerLockAction = {
  activateRingToOpen: 0x01,
  deactivateRingToOpen: 0x02,
  electricStrikeActuation: 0x03,
  activateContinuousMode: 0x04,
  deactivateContinuousMode: 0x05,
  fobAction1: 0x81,
  fobAction2: 0x82,
  fobAction3: 0x83,
} as const;

/** Trigger of an Opener's state change or log entry. */
export const OpenerTrigger = {
  system: 0x00,
  manual: 0x01,
  button: 0x02,
  /** By the Opener itself, e.g. opening on a ring under Ring to Open or Continuous Mode. */
  automatic: 0x03,
} as const;

/** Log entry types of an Opener. */
export const OpenerLogEntryType = {
  loggingEnabled: 0x01,
  lockAction: 0x02,
  calibration: 0x03,
  keypadAction: 0x05,
  /** A ring at the intercom. */
  doorbellRecognition: 0x06,
} as const;

/** The mode an Opener was in when it recognised a ring (bits 0–1 of the entry's first data byte). */
export type OpenerRingMode = 'none' | 'ring_to_open' | 'continuous_mode';

const RING_MODE_CODES: Record<OpenerRingMode, number> = { none: 0, ring_to_open: 1, continuous_mode: 2 };

/** The data of a Doorbell Recognition log entry. */
export interface OpenerDoorbellRecognition {
  /** Ring to Open or Continuous Mode: the Opener opened the door on this ring. */
  mode: OpenerRingMode;
  /** What rang (0 the doorbell; other values as the firmware reports). */
  source: number;
  /** Bytes after the two above, raw. */
  trailing: Buffer;
}

/**
 * Encodes the data bytes (after the type byte) of a Doorbell Recognition entry.
 * @example encodeDoorbellRecognition({ mode: 'ring_to_open', source: 0, trailing: Buffer.alloc(0) }).toString('hex') // "0100"
 */
export function encodeDoorbellRecognition(entry: OpenerDoorbellRecognition): Buffer {
  return Buffer.concat([Buffer.from([RING_MODE_CODES[entry.mode], entry.source]), entry.trailing]);
}

/** Reads a Doorbell Recognition entry's data; null when it has fewer than two bytes or an unknown mode. */
export function decodeDoorbellRecognition(data: Buffer): OpenerDoorbellRecognition | null {
  if (data.length < 2) return null;
  const code = (data[0] ?? 0) & 0x03;
  const mode = (Object.keys(RING_MODE_CODES) as OpenerRingMode[]).find((key) => RING_MODE_CODES[key] === code);
  if (mode === undefined) return null;
  return { mode, source: data[1] ?? 0, trailing: Buffer.from(data.subarray(2)) };
}

/** What an Opener's Keyturner States mean for us. */
export interface OpenerStatus {
  ringToOpen: boolean;
  continuousMode: boolean;
  /** The strike is actuated or being actuated. */
  strikeOpen: boolean;
  /** `unlocked` while a mode is active or the strike open, `locked` otherwise, `unknown` when uncalibrated or booting. */
  bolt: 'locked' | 'unlocked' | 'unknown';
  /** Bit 0 of the battery byte. */
  batteryCritical: boolean;
}

/**
 * Maps an Opener's Keyturner States (docs/design.md §4d): `unlocked` while Ring to Open or
 * Continuous Mode is active or the strike is open, else `locked`.
 */
export function openerStatusOf(states: Pick<NukiKeyturnerStates, 'nukiState' | 'lockState' | 'battery'>): OpenerStatus {
  const continuousMode = states.nukiState === OpenerState.continuousMode;
  const ringToOpen = states.lockState === OpenerLockState.ringToOpenActive;
  const strikeOpen = states.lockState === OpenerLockState.open || states.lockState === OpenerLockState.opening;
  const known = continuousMode || ringToOpen || strikeOpen || states.lockState === OpenerLockState.locked;
  return {
    ringToOpen,
    continuousMode,
    strikeOpen,
    bolt: !known ? 'unknown' : continuousMode || ringToOpen || strikeOpen ? 'unlocked' : 'locked',
    batteryCritical: states.battery.critical,
  };
}

/** The commands of the Opener family (docs/design.md §4d). */
export const OPENER_COMMAND_TYPES = ['lock', 'unlock', 'ring_to_open_on', 'ring_to_open_off', 'continuous_mode_on', 'continuous_mode_off'] as const;

/** One of {@link OPENER_COMMAND_TYPES}. */
export type OpenerCommandType = (typeof OPENER_COMMAND_TYPES)[number];

/**
 * The Lock Actions a command sends, in order: `unlock` actuates the strike; `lock` turns Ring to
 * Open and Continuous Mode off; the mode commands switch their mode.
 */
export function openerActionsFor(command: OpenerCommandType): readonly number[] {
  switch (command) {
    case 'unlock':
      return [OpenerLockAction.electricStrikeActuation];
    case 'lock':
      return [OpenerLockAction.deactivateRingToOpen, OpenerLockAction.deactivateContinuousMode];
    case 'ring_to_open_on':
      return [OpenerLockAction.activateRingToOpen];
    case 'ring_to_open_off':
      return [OpenerLockAction.deactivateRingToOpen];
    case 'continuous_mode_on':
      return [OpenerLockAction.activateContinuousMode];
    case 'continuous_mode_off':
      return [OpenerLockAction.deactivateContinuousMode];
  }
}
