import { randomInt } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { hostTimeZone } from '../../config/time-zone.js';
import { describeError } from '../../domain/errors.js';
import { silentLogger, type GatewayLogger } from '../../gateway/gateway-logger.js';
import { TransportError, type GattTransport } from '../../gateway/gatt-transport.js';
import type { FamilyPairing, PairedDevice, PairingIo, PairOptions, ScannedDevice, ScanOptions } from '../lock-family-module.js';
import { BluetoothUnavailable, PairingFailed } from '../pairing-errors.js';
import { pairTtlockOverGatt, TtlockPairingError, type TtlockPairedSecrets } from './driver/ttlock-pairing-link.js';
import { parseTtlockAdvertisement, TtlockAdvertFlag } from './protocol/ttlock-advertisement.js';
import { TtlockCredentialFile, type StoredTtlockCredentials } from './ttlock-credential-file.js';
import { IMPORT_WARNING, LockDataError, parseLockData } from './ttlock-lock-data.js';
import { ttlockFamily } from './ttlock-family.js';

/** One TTLock a scan heard. */
export interface ScannedTtlock extends ScannedDevice {
  /** In setting mode: ready to pair now. */
  settingMode: boolean;
}

/** Keeps the transport's error lines (they name no secret) to explain a failure in one sentence. */
function errorCollector(): { logger: GatewayLogger; errors: string[]; firstError: Promise<void> } {
  const errors: string[] = [];
  let reported: () => void = () => undefined;
  const firstError = new Promise<void>((resolve) => {
    reported = resolve;
  });
  const ignore = (): void => undefined;
  return {
    errors,
    firstError,
    logger: {
      debug: ignore,
      info: ignore,
      warn: ignore,
      error: (message) => {
        errors.push(message);
        reported();
      },
    },
  };
}

/**
 * Listens for TTLocks nearby (their manufacturer data; no UUID filter, which hides some locks:
 * docs/ttlock.md) and says which are in setting mode. A scan that cannot start is
 * {@link BluetoothUnavailable}, not "nothing heard".
 */
export async function scanTtlocks(options: ScanOptions, io: PairingIo): Promise<ScannedTtlock[]> {
  const { logger, errors, firstError } = errorCollector();
  const transport = io.transport(options.adapter, logger);
  const found = new Map<string, { rssi: number | null; settingMode: boolean; gateway: string | undefined }>();
  io.progress(`Scanning for TTLocks for ${options.seconds} s…`);
  let timer: NodeJS.Timeout | undefined;
  const stop = transport.watchAdvertisements((advertisement) => {
    const parsed = parseTtlockAdvertisement(advertisement.manufacturerData);
    if (parsed === null) return;
    const settingMode = (parsed.params & TtlockAdvertFlag.settingMode) !== 0;
    const known = found.get(advertisement.address);
    found.set(advertisement.address, { rssi: advertisement.rssi, settingMode: settingMode || (known?.settingMode ?? false), gateway: advertisement.gateway ?? known?.gateway });
  });
  try {
    const scanEnd = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.seconds * 1000);
    });
    await Promise.race([scanEnd, firstError.then(() => (found.size > 0 ? scanEnd : undefined))]);
  } finally {
    clearTimeout(timer);
    stop();
    await transport.close();
  }
  if (found.size === 0 && errors.length > 0) {
    const reason = (errors[0] ?? 'no reason given').replace(/[.\s]+$/, '');
    throw new BluetoothUnavailable(`Bluetooth is not available, so nothing could be heard (${reason}). Install and start BlueZ (docs/ttlock.md "Requirements").`);
  }
  const scanned = [...found].sort(([a], [b]) => a.localeCompare(b)).map(([address, seen]): ScannedTtlock => ({
    address,
    rssi: seen.rssi,
    model: seen.settingMode ? 'TTLock (in setting mode: ready to pair)' : 'TTLock',
    apiLevel: null,
    family: ttlockFamily.id,
    pinRequired: false,
    settingMode: seen.settingMode,
    // docs/design.md §4e: which gateway device heard it (the host's adapter or a proxy), where the radio says.
    ...(seen.gateway === undefined ? {} : { gateway: seen.gateway }),
  }));
  for (const entry of scanned) io.progress(`  ${entry.address}  ${entry.model}${entry.rssi === null ? '' : `  ${entry.rssi} dBm`}${entry.gateway === undefined || entry.gateway === 'host' ? '' : `  via ${entry.gateway}`}`);
  if (scanned.length === 0) io.progress('No TTLock heard. Is Bluetooth on, the lock in range and its batteries in? Touch its keypad to wake it (docs/ttlock.md).');
  else io.progress(`${scanned.length} found. Pair one in setting mode with: ekey-locks ttlock pair --address <address>`);
  return scanned;
}

/** Pause between attempts while the lock is not in setting mode yet. */
const SETTING_MODE_RETRY_MS = 1_000;

/**
 * Pairs with the TTLock at `options.address` (in setting mode: reset, then woken by a touch of its
 * keypad): the service becomes its admin with secrets drawn here, stores them in the data folder
 * (mode 0600; never printed, never in config.json) and answers the config block to add.
 * @throws PairingFailed with one sentence
 */
export async function pairTtlock(options: PairOptions, io: PairingIo): Promise<PairedDevice> {
  const address = options.address.toUpperCase();
  const timeoutS = options.timeoutS ?? 30;
  const file = new TtlockCredentialFile(options.dataDir);
  const previous = checkCredentialFile(file, address);
  io.progress(`Pairing with the TTLock at ${address}:`);
  io.progress('  1. Reset the lock if it was paired with the TTLock app, then touch its keypad to wake it (setting mode, about 15 s).');
  io.progress(`  2. Waiting for the lock in setting mode (up to ${timeoutS} s)…`);
  const transport = io.transport(options.adapter, silentLogger);
  let secrets: TtlockPairedSecrets;
  try {
    secrets = await pairWhenInSettingMode(transport, address, timeoutS * 1000, io);
  } catch (error) {
    throw new PairingFailed(pairingFailureMessage(error, address, timeoutS));
  } finally {
    await transport.close();
  }
  const stored: StoredTtlockCredentials = { address, ...secrets, origin: 'paired', addedAt: Date.now() };
  try {
    file.write(stored);
  } catch (error) {
    throw new PairingFailed(`Paired, but the credentials could not be saved in ${file.path}: ${describeError(error)}. Fix the folder's permissions, reset the lock and pair again.`);
  }
  io.progress('  3. Paired: the service is the lock\'s admin, with a key of the lock\'s own.');
  io.progress(`     Credentials saved in ${file.path} (readable by this user only), with the admin keypad code the lock was given.`);
  if (previous !== undefined) io.progress('     They replace the credentials stored for this lock before.');
  return { entry: { name: 'TTLock', family: ttlockFamily.id, address, keypad: true } };
}

/**
 * `ekey-locks ttlock import --lock-data FILE`: takes the lock's secrets from the TTLock app's
 * record of it, after the honest warning ({@link IMPORT_WARNING}). @throws PairingFailed
 */
export function importTtlock(options: { lockDataFile: string; address?: string; dataDir: string }, io: PairingIo): PairedDevice {
  let text: string;
  try {
    text = readFileSync(options.lockDataFile, 'utf8');
  } catch (error) {
    throw new PairingFailed(`The lock data file ${options.lockDataFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? describeError(error)}).`);
  }
  let imported;
  try {
    imported = parseLockData(text, options.address);
  } catch (error) {
    if (error instanceof LockDataError) throw new PairingFailed(`The lock data cannot be imported: ${error.message}.`);
    throw error;
  }
  for (const line of IMPORT_WARNING) io.warn(line);
  const file = new TtlockCredentialFile(options.dataDir);
  checkCredentialFile(file, imported.address);
  const stored: StoredTtlockCredentials = {
    address: imported.address,
    aesKey: imported.aesKey,
    adminPs: imported.adminPs,
    unlockKey: imported.unlockKey,
    uid: imported.uid ?? randomInt(1, 0x7fff_ffff),
    lockFlagPos: imported.lockFlagPos,
    version: imported.version,
    adminKeypadCode: null,
    origin: 'imported',
    addedAt: Date.now(),
  };
  try {
    file.write(stored);
  } catch (error) {
    throw new PairingFailed(`The credentials could not be saved in ${file.path}: ${describeError(error)}.`);
  }
  io.progress(`Imported the TTLock at ${imported.address}; its credentials are in ${file.path} (readable by this user only).`);
  return { entry: { name: 'TTLock', family: ttlockFamily.id, address: imported.address, keypad: true } };
}

/** The TTLock family's pairing facet (src/families/lock-family-module.ts). */
export const ttlockPairing: FamilyPairing = { scan: scanTtlocks, pair: pairTtlock };

function checkCredentialFile(file: TtlockCredentialFile, address: string): StoredTtlockCredentials | undefined {
  let previous: StoredTtlockCredentials | undefined;
  try {
    previous = file.read(address);
  } catch (error) {
    throw new PairingFailed(`The stored TTLock credentials cannot be read (${describeError(error)}). Move that file aside or fix it, then try again; nothing was sent to the lock.`);
  }
  const folder = dirname(file.path);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PairingFailed(`The data folder ${folder} is not writable (${code}): run this as the user Homebridge runs as, or pass --data. Nothing was sent to the lock.`);
  }
  return previous;
}

/** Pairs, trying again while the lock is not in setting mode yet, until `budgetMs` is spent; says once that it waits. */
async function pairWhenInSettingMode(transport: GattTransport, address: string, budgetMs: number, io: PairingIo): Promise<TtlockPairedSecrets> {
  const endsAt = performance.now() + budgetMs;
  let told = false;
  for (;;) {
    const remaining = Math.round(endsAt - performance.now());
    try {
      return await pairTtlockOverGatt(transport, address, { connectTimeoutMs: Math.max(1_000, remaining), stepTimeoutMs: Math.min(5_000, Math.max(1_000, remaining)), timeZone: hostTimeZone() });
    } catch (error) {
      const notYet = error instanceof TtlockPairingError && error.reason === 'not_setting_mode';
      if (!notYet || endsAt - performance.now() < SETTING_MODE_RETRY_MS * 2) throw error;
      if (!told) io.progress('     The lock is not in setting mode yet; touch its keypad to wake it…');
      told = true;
      await sleep(SETTING_MODE_RETRY_MS);
    }
  }
}

function pairingFailureMessage(error: unknown, address: string, timeoutS: number): string {
  if (error instanceof TtlockPairingError) {
    switch (error.reason) {
      case 'not_setting_mode':
        return `The lock is not in setting mode (waited ${timeoutS} s). A lock paired with the TTLock app must be reset first; then touch its keypad and run this again within 15 s.`;
      case 'refused':
        return `The lock refused to pair (${error.message}). Reset it, touch its keypad and try again.`;
      case 'timeout':
        return 'The lock stopped answering during pairing (its setting mode lasts about 15 s). Keep it close, touch its keypad again and retry.';
      case 'link':
        return `The link to the lock dropped during pairing (${error.message}). Keep it close, touch its keypad again and retry.`;
    }
  }
  if (error instanceof TransportError) {
    switch (error.failure) {
      case 'not_found':
        return `No lock answered at ${address} within ${timeoutS} s. Check the address ("ekey-locks ttlock scan"), that the lock is in range, and touch its keypad to wake it.`;
      case 'bus_unavailable':
        return `Bluetooth is not available: the BlueZ system bus cannot be reached (${error.message}). Install and start BlueZ (docs/ttlock.md "Requirements").`;
      case 'gatt_unavailable':
        return `The device at ${address} does not offer the TTLock service (0x1910): is it a TTLock?`;
      default:
        return `Could not connect to ${address}: ${error.message}. Keep the lock close and retry.`;
    }
  }
  return `Pairing failed unexpectedly: ${describeError(error)}`;
}
