import { randomInt } from 'node:crypto';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger, type GatewayLogger } from '../../gateway/gateway-logger.js';
import { TransportError, type GattTransport } from '../../gateway/gatt-transport.js';
import { NUKI_APPLE_COMPANY_ID, parseNukiBeacon } from './protocol/nuki-uuids.js';
import { NukiPairingError, type NukiPairingOptions } from './protocol/nuki-pairing.js';
import { NukiCredentialFile, type StoredNukiCredentials } from './nuki-credential-file.js';
import { MAX_SECURITY_PIN, NukiFamilyUuids, pairingTargetOf, type NukiApiLevel, type NukiDeviceKind, type NukiPairingTarget } from './nuki-api-level.js';
import { pairNukiDevice, probeNukiDevice, type NukiDevicePairing } from './nuki-device-pairing.js';
import { describeError } from '../../domain/errors.js';
import { BluetoothUnavailable, PairingFailed } from '../pairing-errors.js';
import type { FamilyPairing, PairedDevice, PairingIo, PairOptions, ScannedDevice, ScanOptions } from '../lock-family-module.js';
import { nukiFamily } from './nuki-family.js';
import { nukiOpenerFamily } from '../nuki-opener/nuki-opener-family.js';

/** Keeps the transport's error lines (they name no secret) to explain a failure in one sentence. */
function errorCollector(): { logger: GatewayLogger; errors: string[]; firstError: Promise<void> } {
  const errors: string[] = [];
  const ignore = (): void => undefined;
  let reported: () => void = ignore;
  const firstError = new Promise<void>((resolve) => {
    reported = resolve;
  });
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

/** The name our authorization gets in the lock's list unless --name says otherwise (Nuki allows 32 bytes). */
export const DEFAULT_AUTHORIZATION_NAME = 'ekey-locks (Homebridge)';

/** One Nuki heard by a scan, and what it is (docs/design.md §4d). */
export interface ScannedNuki extends ScannedDevice {
  /** Null when the scan could not tell (the device could not be reached to look). */
  kind: NukiDeviceKind | null;
  apiLevel: NukiApiLevel | null;
}

/** How long the scan may spend connecting to one device to see its model. */
const PROBE_TIMEOUT_MS = 5_000;

/** The model class a beacon's UUID tells by itself: pairing mode, or an Opener; null for a Smart Lock at rest. */
function targetOfBeacon(serviceUuid: string): NukiPairingTarget | null {
  if (serviceUuid === NukiFamilyUuids.openerKeyturnerService) return pairingTargetOf([NukiFamilyUuids.openerPairingService]);
  return pairingTargetOf([serviceUuid]);
}

function scannedOf(address: string, rssi: number | null, target: NukiPairingTarget | null, unknownBecause?: string): ScannedNuki {
  if (target === null) {
    return { address, rssi, kind: null, apiLevel: null, model: `Nuki (model unknown: ${unknownBecause ?? 'no Nuki pairing service'})`, family: nukiFamily.id, pinRequired: false };
  }
  return {
    address,
    rssi,
    kind: target.kind,
    apiLevel: target.apiLevel,
    model: target.description,
    family: target.kind === 'opener' ? nukiOpenerFamily.id : nukiFamily.id,
    pinRequired: target.apiLevel === '2.3',
  };
}

/**
 * Scans for the Nuki Smart Locks and Openers advertising nearby (their iBeacon), with each one's
 * model, Bluetooth API level and signal strength (docs/design.md §4d); a progress line each. The
 * beacon tells an Opener and a lock in pairing mode; for a Smart Lock at rest the scan connects
 * briefly and looks at which pairing service it offers. A scan that cannot start (no BlueZ) is
 * {@link BluetoothUnavailable}, not "nothing heard". Answers what it found.
 */
export async function scanNukis(options: ScanOptions, io: PairingIo): Promise<ScannedNuki[]> {
  const { seconds } = options;
  const { logger, errors, firstError } = errorCollector();
  const transport = io.transport(options.adapter, logger);
  const found = new Map<string, { rssi: number | null; target: NukiPairingTarget | null; gateway: string | undefined }>();
  io.progress(`Scanning for Nuki Smart Locks for ${seconds} s…`);
  let timer: NodeJS.Timeout | undefined;
  const stop = transport.watchAdvertisements((advertisement) => {
    const data = advertisement.manufacturerData.get(NUKI_APPLE_COMPANY_ID);
    const beacon = data === undefined ? null : parseNukiBeacon(data);
    if (beacon === null) return;
    const known = found.get(advertisement.address);
    // A lock seen once in pairing mode stays known by it.
    found.set(advertisement.address, { rssi: advertisement.rssi, target: targetOfBeacon(beacon.serviceUuid) ?? known?.target ?? null, gateway: advertisement.gateway ?? known?.gateway });
  });
  const scanned: ScannedNuki[] = [];
  try {
    const scanEnd = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, seconds * 1000);
    });
    // A scan that cannot start says so at once (the transport reports it): no point waiting it out.
    await Promise.race([scanEnd, firstError.then(() => (found.size > 0 ? scanEnd : undefined))]);
    clearTimeout(timer);
    stop();
    for (const [address, { rssi, target, gateway }] of [...found].sort(([a], [b]) => a.localeCompare(b))) {
      let entry: ScannedNuki;
      if (target !== null) entry = scannedOf(address, rssi, target);
      else {
        try {
          entry = scannedOf(address, rssi, await probeNukiDevice(transport, address, PROBE_TIMEOUT_MS));
        } catch (error) {
          entry = scannedOf(address, rssi, null, error instanceof TransportError ? 'it could not be reached to look' : describeError(error));
        }
      }
      // docs/design.md §4e: which gateway device heard it (the host's adapter or a proxy), where the radio says.
      if (gateway !== undefined) entry.gateway = gateway;
      scanned.push(entry);
      const level = entry.apiLevel === null ? '' : `  API ${entry.apiLevel}`;
      io.progress(`  ${address}  ${entry.model}${level}${rssi === null ? '' : `  ${rssi} dBm`}${gateway === undefined || gateway === 'host' ? '' : `  via ${gateway}`}`);
    }
  } finally {
    clearTimeout(timer);
    stop();
    await transport.close();
  }
  if (found.size === 0 && errors.length > 0) {
    // Without this, a host without BlueZ would be told that no lock is around.
    const reason = (errors[0] ?? 'no reason given').replace(/[.\s]+$/, '');
    throw new BluetoothUnavailable(`Bluetooth is not available, so nothing could be heard (${reason}). Install and start BlueZ (docs/nuki.md "Requirements").`);
  }
  if (found.size === 0) {
    io.progress('No Nuki lock heard. Is Bluetooth on, the lock in range and its batteries in? (docs/nuki.md "Troubleshooting")');
    return scanned;
  }
  io.progress(`${found.size} found. Pair one with: ekey-locks nuki pair --address <address> [--pin <security PIN>]`);
  if (scanned.some((entry) => entry.pinRequired)) io.progress('A lock of API 2.3 (Ultra, Go, Pro 5th generation) pairs only with its 6-digit security PIN: --pin.');
  return scanned;
}

/**
 * Pairs with the Nuki at `options.address` as an app (or, with `asBridge`, as a bridge), stores
 * the credentials in the data folder (mode 0600; never printed, never in config.json) and answers
 * the config block to add. The steps are progress lines. @throws PairingFailed with one sentence.
 */
export async function pairNuki(options: PairOptions, io: PairingIo): Promise<PairedDevice> {
  const address = options.address.toUpperCase();
  const name = options.name ?? DEFAULT_AUTHORIZATION_NAME;
  const pin = options.pin === undefined || options.pin.trim() === '' ? null : parsePin(options.pin.trim());
  const timeoutS = options.timeoutS ?? 30;
  const asBridge = options.asBridge === true;
  const file = new NukiCredentialFile(options.dataDir);
  // Before the lock is touched: a pairing whose credentials cannot be kept leaves an orphan authorization on the lock.
  const previous = checkCredentialFile(file, address);

  if (asBridge) {
    io.warn('Warning: pairing as a bridge replaces the Nuki Bridge this lock may have. That bridge stops working, and with it');
    io.warn('         remote access and integrations that go through it. Pair as an app (without --as-bridge) unless you mean it.');
  }
  io.progress(`Pairing with the Nuki at ${address} (a Smart Lock or an Opener):`);
  io.progress('  1. Press and hold the button on the lock for 5 seconds, until its LED ring lights up (pairing mode; an Opener: its button, until its LED ring lights up).');
  io.progress(`  2. Waiting for the lock (up to ${timeoutS} s)…`);

  const transport = io.transport(options.adapter, silentLogger);
  const stepTimeoutMs = Math.min(10_000, timeoutS * 1000);
  let credentials;
  let target: NukiPairingTarget;
  let told = false;
  try {
    ({ credentials, target } = await pairWhenInPairingMode(transport, address, timeoutS * 1000, io, {
      name,
      idType: asBridge ? 'bridge' : 'app',
      appId: randomInt(1, 0x7fff_ffff),
      stepTimeoutMs,
      securityPin: pin,
      // docs/design.md §4d: the model decides whether a PIN is needed and how large it may be.
      checkTarget: (found) => {
        if (!told) io.progress(`     Found a ${found.description} (Bluetooth API ${found.apiLevel}).`);
        told = true;
        if (found.apiLevel === '2.3' && pin === null) throw new PinNeeded(found);
        if (pin !== null && pin > MAX_SECURITY_PIN[found.apiLevel]) throw new PinTooLarge(found);
      },
    }));
  } catch (error) {
    throw new PairingFailed(pairingFailureMessage(error, { address, timeoutS, stepTimeoutMs }));
  } finally {
    await transport.close();
  }

  try {
    file.write({
      address,
      sharedKey: credentials.sharedKey,
      authorizationId: credentials.authorizationId,
      appId: credentials.appId,
      idType: credentials.idType,
      authorizationName: name,
      lockUuid: credentials.lockUuid.toString('hex'),
      securityPin: pin,
      pairedAt: Date.now(),
      kind: target.kind,
      apiLevel: target.apiLevel,
    });
  } catch (error) {
    throw new PairingFailed(
      `Paired, but the credentials could not be saved in ${file.path}: ${describeError(error)}. Fix the folder's permissions, remove "${name}" in the Nuki app (Manage users) and pair again.`,
    );
  }
  const opener = target.kind === 'opener';
  io.progress(`  3. Paired: the ${opener ? 'Opener' : 'lock'} knows us as "${name}" (authorization ${credentials.authorizationId}).`);
  io.progress(`     Credentials saved in ${file.path} (readable by this user only).`);
  if (previous !== undefined) {
    io.progress(`     They replace those of an earlier pairing (authorization ${previous.authorizationId}, "${previous.authorizationName}"):`);
    io.progress('     remove that one in the Nuki app (Manage users); this plugin no longer uses it.');
  }
  if (pin === null) io.progress(`     No --pin given: the ${opener ? 'Opener' : 'lock'}'s log (who opened the door) is not read until you pair again with --pin.`);
  return { entry: { name: opener ? 'Nuki Opener' : 'Nuki Smart Lock', family: opener ? nukiOpenerFamily.id : nukiFamily.id, address } };
}

/** The Nuki family's pairing facet (src/families/lock-family-module.ts); its Openers pair the same way. */
export const nukiPairing: FamilyPairing = { scan: scanNukis, pair: pairNuki };

/**
 * The stored credentials of this lock (a pairing to be replaced), after making sure the file can
 * be read and its folder written. @throws NukiPairingFailed naming the file (never its content).
 */
function checkCredentialFile(file: NukiCredentialFile, address: string): StoredNukiCredentials | undefined {
  let previous: StoredNukiCredentials | undefined;
  try {
    previous = file.read(address);
  } catch (error) {
    throw new PairingFailed(
      `The stored Nuki credentials cannot be read (${describeError(error)}). Move that file aside or fix it, then pair again; nothing was sent to the lock.`,
    );
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

/** Pause between two attempts while the lock is not in pairing mode yet. */
const PAIRING_MODE_RETRY_MS = 1_000;

/**
 * Pairs, trying again while the lock answers "not in pairing mode" (the user may run the command
 * first and hold the button after) until `budgetMs` is spent; says once that it is waiting.
 */
async function pairWhenInPairingMode(
  transport: GattTransport,
  address: string,
  budgetMs: number,
  io: PairingIo,
  options: NukiPairingOptions & { securityPin: number | null; checkTarget: (target: NukiPairingTarget) => void },
): Promise<NukiDevicePairing> {
  const endsAt = performance.now() + budgetMs;
  let told = false;
  for (;;) {
    const remaining = Math.round(endsAt - performance.now());
    try {
      return await pairNukiDevice(transport, address, { ...options, connectTimeoutMs: Math.max(1_000, remaining) });
    } catch (error) {
      const notYet = error instanceof NukiPairingError && error.reason === 'not_pairing_mode';
      if (!notYet || endsAt - performance.now() < PAIRING_MODE_RETRY_MS * 2) throw error;
      if (!told) io.progress('     The lock is not in pairing mode yet; hold its button until the LED ring lights up…');
      told = true;
      await sleep(PAIRING_MODE_RETRY_MS);
    }
  }
}

/**
 * The security PIN: up to 65535 on a Smart Lock 1.0–4.0 and the Opener, six digits on an API 2.3
 * lock (which pairing finds out, docs/design.md §4d).
 */
function parsePin(value: string): number {
  if (!/^\d{1,6}$/.test(value)) throw new PairingFailed('--pin must be the lock\'s security PIN: digits only (six on a Smart Lock Ultra, Go or Pro 5th generation).');
  return Number(value);
}

/** An API 2.3 lock was found and no PIN given. */
class PinNeeded extends Error {
  constructor(readonly target: NukiPairingTarget) {
    super(`pairing a ${target.description} needs its security PIN`);
  }
}

/** A PIN larger than the device's field holds (a six-digit PIN for an API 2.2 device). */
class PinTooLarge extends Error {
  constructor(readonly target: NukiPairingTarget) {
    super(`the PIN does not fit a ${target.description}`);
  }
}

/** One sentence that says what went wrong and what to do. */
function pairingFailureMessage(
  error: unknown,
  context: { address: string; timeoutS: number; stepTimeoutMs: number },
): string {
  const { address, timeoutS } = context;
  if (error instanceof PinNeeded) {
    return `This is a ${error.target.description}: pairing it needs its 6-digit security PIN (set in the Nuki app, Settings → Smart Lock → Security PIN). Run this again with --pin. Nothing was sent to the lock.`;
  }
  if (error instanceof PinTooLarge) {
    return `This is a ${error.target.description}: its security PIN is a number from 0 to 65535 (--pin). Nothing was sent to it.`;
  }
  if (error instanceof NukiPairingError) {
    switch (error.reason) {
      case 'not_pairing_mode':
        return `The lock is not in pairing mode (waited ${timeoutS} s). Hold its button for 5 s until the LED ring lights up, then run this again within 30 s.`;
      case 'bad_authenticator':
        return 'The lock and this gateway could not authenticate each other (bad authenticator). Put the lock in pairing mode again and retry; if it repeats, restart the lock.';
      case 'bad_pin':
        return 'The lock refused the security PIN (--pin). Check it in the Nuki app (Settings → Smart Lock → Security PIN), put the lock in pairing mode again and retry.';
      case 'max_users':
        return 'The lock has no room for another authorization. Remove one in the Nuki app (Manage users), then pair again.';
      case 'timeout':
        return `The lock stopped answering during pairing (no answer within ${Math.round(context.stepTimeoutMs / 1000)} s). Keep it close to this computer, put it in pairing mode again and retry.`;
      case 'protocol':
        return `Pairing failed: ${error.message} Put the lock in pairing mode again and retry.`;
    }
  }
  if (error instanceof TransportError) {
    switch (error.failure) {
      case 'not_found':
        return `No lock answered at ${address} within ${timeoutS} s. Check the address ("ekey-locks nuki scan"), that the lock is in range, and that it is in pairing mode.`;
      case 'bus_unavailable':
        return `Bluetooth is not available: the BlueZ system bus cannot be reached (${error.message}). Install and start BlueZ (docs/nuki.md "Requirements").`;
      case 'gatt_unavailable':
        return `The device at ${address} does not offer the Nuki pairing service: is it a Nuki Smart Lock?`;
      default:
        return `Could not connect to ${address}: ${error.message}. Keep the lock close and retry.`;
    }
  }
  return `Pairing failed unexpectedly: ${describeError(error)}`;
}
