import type { NukiModel } from '../nuki-api-level.js';
import type { Clock } from '../../../domain/clock.js';
import type { NukiKeyPair } from '../protocol/nuki-crypto.js';
import type { NukiAuthorizationType } from './nuki-authorization-table.js';
import type { NukiKeyturnerStatesLength } from './nuki-status-payloads.js';

/** A pre-paired authorization, so a test or the demo starts paired without running pairing. */
export interface SimulatedNukiAuthorizationOption {
  /** Authorization-ID, u32 above 0. */
  id: number;
  /** e.g. "Olivia's iPhone"; `tap()` finds authorizations by this name. */
  name: string;
  type: NukiAuthorizationType;
  /** 32 bytes; without it the authorization exists for taps and the log but cannot talk over Bluetooth. */
  sharedKey?: Buffer;
}

/** How to build a simulated Nuki. */
export interface SimulatedNukiOptions {
  /** BLE address, `AA:BB:CC:DD:EE:FF`. */
  address: string;
  /** Advertised name, also the name in Config. */
  name: string;
  /** Log timestamps, the lock's clock in its messages and the pairing-mode timeout come from here. */
  clock: Clock;
  /** The lock's Nuki ID (u32); default: the last four bytes of the address. */
  nukiId?: number;
  /** Firmware version as Config reports it (default 2.14.6). */
  firmware?: [number, number, number];
  /** Hardware revision as Config reports it (default 2.0). */
  hardware?: [number, number];
  /** The 4-digit security PIN that log reads and Verify Security PIN check (u16). */
  securityPin: number;
  /** Reply frames are cut into indications of at most this many bytes (default 20, the smallest MTU). */
  fragmentSize?: number;
  /** How long a motorised move takes, in real ms; 0 (default) finishes on the next turn of the event loop. */
  motorTimeMs?: number;
  /** Initial bolt (default `locked`). */
  bolt?: 'locked' | 'unlocked';
  /** Initial battery, percent 0..100 (default 100). */
  batteryPercent?: number;
  /** Whether a door sensor is fitted (default false). */
  hasDoorSensor?: boolean;
  /** Initial door, with a door sensor (default `closed`). */
  door?: 'closed' | 'open';
  /** How many authorizations the lock holds (default 100); pairing beyond it answers P_ERROR_MAX_USER. */
  maxAuthorizations?: number;
  /** Index of the first log entry (default 1); a restarted demo continues its numbering. */
  firstLogIndex?: number;
  /** How many log entries the lock keeps before dropping the oldest (default 500). */
  logCapacity?: number;
  /** Pre-paired authorizations. */
  authorizations?: readonly SimulatedNukiAuthorizationOption[];
  /** The lock's X25519 key pair (default: a fresh one). */
  keyPair?: NukiKeyPair;
  /** Source of nonces: at least 32 bytes per call; challenges use 32, encrypted frames the first 24 (default random). */
  nonce?: () => Buffer;
  /** How long pairing mode lasts, in ms of the injected clock (default 30 000). */
  pairingTimeoutMs?: number;
  /** A Nuki Keypad is paired: the lock stores keypad codes and judges typed codes (docs/design.md §4c; default false). */
  keypad?: boolean;
  /** How many codes the keypad holds (default 100, as the real Nuki Keypad). */
  keypadCapacity?: number;
  /** The lock's time zone (IANA), in which it reads keypad codes' weekdays and daily windows (default UTC). */
  timeZone?: string;
  /** Length of the Keyturner States payload: 15, 20 or 27 bytes (default 27). */
  keyturnerStatesLength?: NukiKeyturnerStatesLength;
  /**
   * Which Smart Lock (default `smart_lock_4`): the Ultra, Go and Pro 5th generation speak API 2.3
   * (another pairing service, a 6-digit security PIN); docs/design.md §4d.
   */
  model?: Exclude<NukiModel, 'opener'>;
}
