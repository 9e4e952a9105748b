import type { Clock } from '../../../domain/clock.js';
import type { TtlockLockVersion } from '../protocol/ttlock-frame.js';

/** The secrets a lock paired with an admin holds (pairing made them). */
export interface TtlockAdminSecrets {
  aesKey: Buffer;
  adminPs: number;
  unlockKey: number;
}

/** Settings of a simulated TTLock; every field but the first four has a default. */
export interface SimulatedTtlockOptions {
  /** Upper case. */
  address: string;
  name: string;
  /** The injected clock its own wall clock runs on. */
  clock: Clock;
  /** The zone its wall clock shows at first (a lock set up by an app in that zone). */
  timeZone: string;
  /** Already paired with an admin (the demo's lock, a test's paired lock); absent: unpaired, waiting for setting mode. */
  paired?: TtlockAdminSecrets;
  /** The header it answers with (default 5/3/2, group 1, org 1). */
  version?: TtlockLockVersion;
  bolt?: 'locked' | 'unlocked';
  batteryPercent?: number;
  /** The number of its first log record (default 1). */
  firstLogNumber?: number;
  logCapacity?: number;
  passcodeCapacity?: number;
  /** A link without a write for this long is dropped by the lock, ms (default 5 000: docs/ttlock.md). */
  idleDropMs?: number;
  /** How long a touch of the keypad keeps an unpaired lock in setting mode, ms of the injected clock (default 15 000). */
  settingModeMs?: number;
  /** Notification chunk size (default 20). */
  notifyChunk?: number;
  model?: string;
  firmware?: string;
  /** Draws the key GET_AES_KEY gives out (default: 16 random bytes); a test replays a capture with the captured key. */
  newKey?: () => Buffer;
}

/** Faults a test injects. */
export interface SimulatedTtlockFaults {
  /** It answers nothing (a lock that hears but does not reply). */
  silent: boolean;
  /** It answers everything but lock and unlock, which it ignores. */
  ignoreBoltCommands: boolean;
  /** Commands it refuses as "invalid command" (a model without them). */
  refuseCommands: number[];
  /** The next this many lock/unlock commands drop the link instead of acting. */
  dropBeforeAnswer: number;
  /** The next reply's CRC is wrong (it still decrypts). */
  badCrcNext: boolean;
}
