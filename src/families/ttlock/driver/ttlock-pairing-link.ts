import { randomInt } from 'node:crypto';
import { Deadline } from '../../../gateway/deadline.js';
import type { GattTransport } from '../../../gateway/gatt-transport.js';
import { TtlockCommand, TtlockError } from '../protocol/ttlock-commands.js';
import { TTLOCK_FACTORY_KEY } from '../protocol/ttlock-crypto.js';
import { DEFAULT_TTLOCK_VERSION, type TtlockLockVersion } from '../protocol/ttlock-frame.js';
import { decodeAesKey, encodeAddAdmin, encodeAdminKeypadCode, encodeCalibrateTime, isAddAdminConfirmation, SCIENER } from '../protocol/ttlock-messages.js';
import { wallClockAt } from '../protocol/ttlock-wall-clock.js';
import { TtlockChannel, TtlockExchangeError } from './ttlock-channel.js';
import { TTLOCK_GATT_PROFILE } from './ttlock-gatt-profile.js';

/** What pairing made: the lock's own key, the admin's two secrets, our uid, its header. Secret. */
export interface TtlockPairedSecrets {
  aesKey: Buffer;
  adminPs: number;
  unlockKey: number;
  uid: number;
  lockFlagPos: number;
  version: TtlockLockVersion;
  /** The admin's keypad code the lock was given (7 digits; it opens the lock at the keypad). */
  adminKeypadCode: string;
}

/** Why pairing failed. */
export type TtlockPairingFailure = 'not_setting_mode' | 'refused' | 'timeout' | 'link';

export class TtlockPairingError extends Error {
  constructor(
    readonly reason: TtlockPairingFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TtlockPairingError';
  }
}

export interface TtlockPairingOptions {
  /** Budget of the connect, ms. */
  connectTimeoutMs: number;
  /** Budget of each step's answer, ms (default 5 000). */
  stepTimeoutMs?: number;
  /** The lock's zone: its clock is set to local time there. */
  timeZone: string;
  /** Now, ms (injected for tests; default Date.now). */
  now?: () => number;
}

/**
 * Becomes a TTLock's admin (docs/ttlock.md "Pairing"), the way the vendor's SDK does on a lock in
 * setting mode: INITIALIZATION; GET_AES_KEY under the factory key ("SCIENER" → the lock's own new
 * key); ADD_ADMIN under the new key with two secrets drawn here (9-digit numbers, as the Android
 * SDK draws them; the lock proves the key by answering "SCIENER"); TIME_CALIBRATE to local time;
 * SET_ADMIN_KEYBOARD_PWD with a fresh 7-digit admin code (so no factory code stays valid);
 * OPERATE_FINISHED, which ends setting mode. The header of the lock's first reply is kept: its
 * group and org go into every later frame. @throws TtlockPairingError, TransportError
 */
export async function pairTtlockOverGatt(transport: GattTransport, address: string, options: TtlockPairingOptions): Promise<TtlockPairedSecrets> {
  const connection = await transport.connect(address, TTLOCK_GATT_PROFILE, { timeoutMs: options.connectTimeoutMs });
  const channel = new TtlockChannel(connection, { key: TTLOCK_FACTORY_KEY, version: DEFAULT_TTLOCK_VERSION });
  connection.onNotification((characteristic, value) => {
    if (characteristic === 'notify') channel.chunk(value);
  });
  connection.onDisconnect(() => {
    channel.linkLost();
  });
  const step = async (command: number, payload: Buffer): Promise<Buffer> => {
    const deadline = new Deadline(options.stepTimeoutMs ?? 5_000);
    try {
      return await channel.request(command, payload, deadline);
    } catch (error) {
      throw pairingErrorOf(error, command);
    } finally {
      deadline.cancel();
    }
  };
  try {
    await step(TtlockCommand.initialize, Buffer.alloc(0));
    const version = channel.lastVersion ?? DEFAULT_TTLOCK_VERSION;
    channel.keys = { key: TTLOCK_FACTORY_KEY, version };
    const aesKey = decodeAesKey(await step(TtlockCommand.getAesKey, SCIENER));
    channel.keys = { key: aesKey, version };
    const adminPs = randomInt(100_000_000, 1_000_000_000);
    const unlockKey = randomInt(100_000_000, 1_000_000_000);
    if (!isAddAdminConfirmation(await step(TtlockCommand.addAdmin, encodeAddAdmin({ adminPs, unlockKey })))) {
      throw new TtlockPairingError('refused', 'the lock did not confirm the new key (its ADD_ADMIN answer holds no "SCIENER")');
    }
    await step(TtlockCommand.calibrateTime, encodeCalibrateTime(wallClockAt((options.now ?? Date.now)(), options.timeZone)));
    const adminKeypadCode = String(randomInt(1_000_000, 10_000_000));
    await step(TtlockCommand.setAdminKeypadCode, encodeAdminKeypadCode(adminKeypadCode));
    await step(TtlockCommand.operateFinished, Buffer.alloc(0));
    return { aesKey, adminPs, unlockKey, uid: randomInt(1, 0x7fff_ffff), lockFlagPos: 0, version, adminKeypadCode };
  } finally {
    await connection.disconnect();
  }
}

function pairingErrorOf(error: unknown, command: number): unknown {
  if (!(error instanceof TtlockExchangeError)) return error;
  const failure = error.failure;
  switch (failure.kind) {
    case 'refused':
      if (command === TtlockCommand.getAesKey && failure.code === TtlockError.notInSettingMode) return new TtlockPairingError('not_setting_mode', 'the lock is not in setting mode');
      return new TtlockPairingError('refused', error.message);
    case 'expired':
      return new TtlockPairingError('timeout', error.message);
    case 'unreadable':
      // A paired lock answers INITIALIZATION under its own key, which we cannot read.
      if (command === TtlockCommand.initialize) return new TtlockPairingError('not_setting_mode', 'the lock answers under a key of its own: it is paired already');
      return new TtlockPairingError('link', error.message);
    case 'link_lost':
    case 'write_failed':
      return new TtlockPairingError('link', error.message);
  }
}
