import { randomInt } from 'node:crypto';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger, type GatewayLogger } from '../../gateway/gateway-logger.js';
import { TransportError, type GattTransport } from '../../gateway/gatt-transport.js';
import { NUKI_APPLE_COMPANY_ID, parseNukiBeacon } from './protocol/nuki-uuids.js';
import { NukiPairingError, type NukiPairingOptions } from './protocol/nuki-pairing.js';
import { BluezTransport } from '../../gateway/transports/bluez/bluez-transport.js';
import { NukiCredentialFile, type StoredNukiCredentials } from './nuki-credential-file.js';
import { MAX_SECURITY_PIN, NukiFamilyUuids, pairingTargetOf, type NukiApiLevel, type NukiDeviceKind, type NukiPairingTarget } from './nuki-api-level.js';
import { pairNukiDevice, probeNukiDevice, type NukiDevicePairing } from './nuki-device-pairing.js';
import { defaultDataDir } from '../../cli/data-dir.js';
import { parseOptions } from '../../cli/parse-options.js';
import { UsageError } from '../../cli/usage-error.js';
import { describeError } from '../../domain/errors.js';

/** What the pairing commands print to and how they reach BlueZ (tests swap both). */
export interface NukiPairingIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** The transport to use; it reports what goes wrong underneath (an unreachable bus, a scan that cannot start) to `logger`. */
  transport: (adapter: string | undefined, logger: GatewayLogger) => GattTransport;
}

const defaultIo: NukiPairingIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  transport: (adapter, logger) => new BluezTransport(adapter === undefined ? { logger } : { adapter, logger }),
};

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

/** A failure the user can act on: one clear message, exit code 1. */
export class NukiPairingFailed extends Error {}

/** The scan could not listen at all: no Bluetooth the transport can use (no D-Bus, no BlueZ, no adapter). */
export class BluetoothUnavailable extends NukiPairingFailed {}

const ADDRESS_PATTERN = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;
/** The name our authorization gets in the lock's list unless --name says otherwise (Nuki allows 32 bytes). */
const DEFAULT_AUTHORIZATION_NAME = 'ekey-locks (Homebridge)';

/** One Nuki heard by a scan, and what it is (docs/design.md §4d). */
export interface ScannedNuki {
  /** Upper case. */
  address: string;
  rssi: number | null;
  /** Null when the scan could not tell (the device could not be reached to look). */
  kind: NukiDeviceKind | null;
  apiLevel: NukiApiLevel | null;
  /** For people: "Nuki Smart Lock 1.0–4.0", "Nuki Smart Lock Ultra / Go / Pro (5th generation)", "Nuki Opener". */
  model: string;
  /** The config `family` it is added with. */
  family: 'nuki' | 'nuki-opener';
  /** Pairing needs the lock's 6-digit security PIN (API 2.3). */
  pinRequired: boolean;
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
    return { address, rssi, kind: null, apiLevel: null, model: `Nuki (model unknown: ${unknownBecause ?? 'no Nuki pairing service'})`, family: 'nuki', pinRequired: false };
  }
  return {
    address,
    rssi,
    kind: target.kind,
    apiLevel: target.apiLevel,
    model: target.description,
    family: target.kind === 'opener' ? 'nuki-opener' : 'nuki',
    pinRequired: target.apiLevel === '2.3',
  };
}

/**
 * `ekey-locks nuki scan [--seconds N] [--adapter hciX]`: lists the Nuki Smart Locks and Openers
 * advertising nearby (their iBeacon), one line each with its model, Bluetooth API level and signal
 * strength (docs/design.md §4d). The beacon tells an Opener and a lock in pairing mode; for a
 * Smart Lock at rest the scan connects briefly and looks at which pairing service it offers.
 * A scan that cannot start (no BlueZ) is a failure, not "nothing heard". Answers what it found.
 */
export async function nukiScanCommand(args: string[], io: NukiPairingIo = defaultIo): Promise<ScannedNuki[]> {
  const values = parseOptions(args, { seconds: { type: 'string' }, adapter: { type: 'string' } });
  const seconds = values.seconds === undefined ? 10 : Number(values.seconds);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 120) throw new UsageError(`--seconds must be a whole number from 1 to 120, not "${values.seconds ?? ''}".`);
  const { logger, errors, firstError } = errorCollector();
  const transport = io.transport(values.adapter, logger);
  const found = new Map<string, { rssi: number | null; target: NukiPairingTarget | null }>();
  io.out(`Scanning for Nuki Smart Locks for ${seconds} s…`);
  let timer: NodeJS.Timeout | undefined;
  const stop = transport.watchAdvertisements((advertisement) => {
    const data = advertisement.manufacturerData.get(NUKI_APPLE_COMPANY_ID);
    const beacon = data === undefined ? null : parseNukiBeacon(data);
    if (beacon === null) return;
    const known = found.get(advertisement.address);
    // A lock seen once in pairing mode stays known by it.
    found.set(advertisement.address, { rssi: advertisement.rssi, target: targetOfBeacon(beacon.serviceUuid) ?? known?.target ?? null });
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
    for (const [address, { rssi, target }] of [...found].sort(([a], [b]) => a.localeCompare(b))) {
      let entry: ScannedNuki;
      if (target !== null) entry = scannedOf(address, rssi, target);
      else {
        try {
          entry = scannedOf(address, rssi, await probeNukiDevice(transport, address, PROBE_TIMEOUT_MS));
        } catch (error) {
          entry = scannedOf(address, rssi, null, error instanceof TransportError ? 'it could not be reached to look' : describeError(error));
        }
      }
      scanned.push(entry);
      const level = entry.apiLevel === null ? '' : `  API ${entry.apiLevel}`;
      io.out(`  ${address}  ${entry.model}${level}${rssi === null ? '' : `  ${rssi} dBm`}`);
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
    io.out('No Nuki lock heard. Is Bluetooth on, the lock in range and its batteries in? (docs/nuki.md "Troubleshooting")');
    return scanned;
  }
  io.out(`${found.size} found. Pair one with: ekey-locks nuki pair --address <address> [--pin <security PIN>]`);
  if (scanned.some((entry) => entry.pinRequired)) io.out('A lock of API 2.3 (Ultra, Go, Pro 5th generation) pairs only with its 6-digit security PIN: --pin.');
  return scanned;
}

/**
 * `ekey-locks nuki pair --address AA:BB:CC:DD:EE:FF [--name N] [--pin PIN] [--as-bridge]
 * [--data DIR] [--adapter hciX] [--timeout-s N]`: pairs as an app (or, on request, as a bridge),
 * stores the credentials in the data folder (mode 0600; never printed, never in config.json) and
 * prints the config block to paste.
 */
export async function nukiPairCommand(args: string[], io: NukiPairingIo = defaultIo): Promise<void> {
  const values = parseOptions(args, {
    address: { type: 'string' },
    name: { type: 'string' },
    pin: { type: 'string' },
    'as-bridge': { type: 'boolean' },
    data: { type: 'string' },
    adapter: { type: 'string' },
    'timeout-s': { type: 'string' },
  });
  const address = values.address?.toUpperCase();
  if (address === undefined || !ADDRESS_PATTERN.test(address)) throw new UsageError('nuki pair needs --address AA:BB:CC:DD:EE:FF (see "ekey-locks nuki scan").');
  const name = values.name ?? DEFAULT_AUTHORIZATION_NAME;
  if (name.trim() === '' || Buffer.byteLength(name) > 32) throw new UsageError('--name must be 1 to 32 bytes: the lock keeps at most 32.');
  const pin = values.pin === undefined ? null : parsePin(values.pin);
  const timeoutS = values['timeout-s'] === undefined ? 30 : Number(values['timeout-s']);
  if (!Number.isInteger(timeoutS) || timeoutS < 5 || timeoutS > 300) throw new UsageError(`--timeout-s must be a whole number from 5 to 300, not "${values['timeout-s'] ?? ''}".`);
  const asBridge = values['as-bridge'] === true;
  const file = new NukiCredentialFile(values.data ?? defaultDataDir());
  // Before the lock is touched: a pairing whose credentials cannot be kept leaves an orphan authorization on the lock.
  const previous = checkCredentialFile(file, address);

  if (asBridge) {
    io.err('Warning: pairing as a bridge replaces the Nuki Bridge this lock may have. That bridge stops working, and with it');
    io.err('         remote access and integrations that go through it. Pair as an app (without --as-bridge) unless you mean it.');
  }
  io.out(`Pairing with the Nuki at ${address} (a Smart Lock or an Opener):`);
  io.out('  1. Press and hold the button on the lock for 5 seconds, until its LED ring lights up (pairing mode; an Opener: its button, until its LED ring lights up).');
  io.out(`  2. Waiting for the lock (up to ${timeoutS} s)…`);

  const transport = io.transport(values.adapter, silentLogger);
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
        if (!told) io.out(`     Found a ${found.description} (Bluetooth API ${found.apiLevel}).`);
        told = true;
        if (found.apiLevel === '2.3' && pin === null) throw new PinNeeded(found);
        if (pin !== null && pin > MAX_SECURITY_PIN[found.apiLevel]) throw new PinTooLarge(found);
      },
    }));
  } catch (error) {
    throw new NukiPairingFailed(pairingFailureMessage(error, { address, timeoutS, stepTimeoutMs }));
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
    throw new NukiPairingFailed(
      `Paired, but the credentials could not be saved in ${file.path}: ${describeError(error)}. Fix the folder's permissions, remove "${name}" in the Nuki app (Manage users) and pair again.`,
    );
  }
  const opener = target.kind === 'opener';
  io.out(`  3. Paired: the ${opener ? 'Opener' : 'lock'} knows us as "${name}" (authorization ${credentials.authorizationId}).`);
  io.out(`     Credentials saved in ${file.path} (readable by this user only).`);
  if (previous !== undefined) {
    io.out(`     They replace those of an earlier pairing (authorization ${previous.authorizationId}, "${previous.authorizationName}"):`);
    io.out('     remove that one in the Nuki app (Manage users); this plugin no longer uses it.');
  }
  if (pin === null) io.out(`     No --pin given: the ${opener ? 'Opener' : 'lock'}'s log (who opened the door) is not read until you pair again with --pin.`);
  io.out('');
  io.out(`Add this ${opener ? 'Opener' : 'lock'} to the "locks" of the EKeyLocks platform in config.json (set the owner's e-mail;`);
  io.out('link the Nuki app users of your household to their accounts in "nuki_users"):');
  io.out(
    JSON.stringify(
      {
        name: opener ? 'Nuki Opener' : 'Nuki Smart Lock',
        family: opener ? 'nuki-opener' : 'nuki',
        address,
        owner_email: 'owner@example.com',
        nuki_users: { "Owner's iPhone": 'owner@example.com' },
      },
      null,
      2,
    ),
  );
}

/**
 * The stored credentials of this lock (a pairing to be replaced), after making sure the file can
 * be read and its folder written. @throws NukiPairingFailed naming the file (never its content).
 */
function checkCredentialFile(file: NukiCredentialFile, address: string): StoredNukiCredentials | undefined {
  let previous: StoredNukiCredentials | undefined;
  try {
    previous = file.read(address);
  } catch (error) {
    throw new NukiPairingFailed(
      `The stored Nuki credentials cannot be read (${describeError(error)}). Move that file aside or fix it, then pair again; nothing was sent to the lock.`,
    );
  }
  const folder = dirname(file.path);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new NukiPairingFailed(`The data folder ${folder} is not writable (${code}): run this as the user Homebridge runs as, or pass --data. Nothing was sent to the lock.`);
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
  io: NukiPairingIo,
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
      if (!told) io.out('     The lock is not in pairing mode yet; hold its button until the LED ring lights up…');
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
  if (!/^\d{1,6}$/.test(value)) throw new UsageError('--pin must be the lock\'s security PIN: digits only (six on a Smart Lock Ultra, Go or Pro 5th generation).');
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
