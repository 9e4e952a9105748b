import { defaultDataDir } from '../../cli/data-dir.js';
import { parseOptions } from '../../cli/parse-options.js';
import { UsageError } from '../../cli/usage-error.js';
import { pairingIoVia } from '../../cli/pairing-radio.js';
import { hostTransport } from '../../gateway/transports/bluez/host-transport.js';
import type { PairedDevice, PairingIo } from '../lock-family-module.js';
import { importTtlock, pairTtlock, scanTtlocks, type ScannedTtlock } from './ttlock-pairing-facet.js';

const ADDRESS_PATTERN = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;

/** The terminal's side of pairing: progress on stdout, warnings on stderr, the host's BlueZ. */
const terminalIo: PairingIo = {
  progress: (line) => process.stdout.write(`${line}\n`),
  warn: (line) => process.stderr.write(`${line}\n`),
  transport: hostTransport,
};

/** `ekey-locks ttlock scan [--seconds N] [--adapter hciX | --via PROXY [--config FILE]]`: the TTLocks nearby, one line each, heard by the host's adapter or the ESPHome Bluetooth proxy `--via` names. */
export async function ttlockScanCommand(args: string[], io: PairingIo = terminalIo): Promise<ScannedTtlock[]> {
  const values = parseOptions(args, { seconds: { type: 'string' }, adapter: { type: 'string' }, via: { type: 'string' }, config: { type: 'string' }, data: { type: 'string' } });
  const seconds = values.seconds === undefined ? 10 : Number(values.seconds);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 120) throw new UsageError(`--seconds must be a whole number from 1 to 120, not "${values.seconds ?? ''}".`);
  return scanTtlocks({ seconds, ...(values.adapter === undefined ? {} : { adapter: values.adapter }) }, pairingIoVia(io, values));
}

/** `ekey-locks ttlock pair --address A [--data DIR] [--adapter hciX | --via PROXY [--config FILE]] [--timeout-s N]`: becomes the lock's admin (through the host's adapter or the proxy `--via` names); prints the config block. */
export async function ttlockPairCommand(args: string[], io: PairingIo = terminalIo): Promise<void> {
  const values = parseOptions(args, { address: { type: 'string' }, data: { type: 'string' }, adapter: { type: 'string' }, via: { type: 'string' }, config: { type: 'string' }, 'timeout-s': { type: 'string' } });
  const address = values.address?.toUpperCase();
  if (address === undefined || !ADDRESS_PATTERN.test(address)) throw new UsageError('ttlock pair needs --address AA:BB:CC:DD:EE:FF (see "ekey-locks ttlock scan").');
  const timeoutS = values['timeout-s'] === undefined ? 30 : Number(values['timeout-s']);
  if (!Number.isInteger(timeoutS) || timeoutS < 5 || timeoutS > 300) throw new UsageError(`--timeout-s must be a whole number from 5 to 300, not "${values['timeout-s'] ?? ''}".`);
  const paired = await pairTtlock({ address, timeoutS, dataDir: values.data ?? defaultDataDir(), ...(values.adapter === undefined ? {} : { adapter: values.adapter }) }, pairingIoVia(io, values));
  printConfigBlock(paired, io);
}

/** `ekey-locks ttlock import --lock-data FILE [--address A] [--data DIR]`: the app's secrets of a lock, after the warning; prints the config block. */
export function ttlockImportCommand(args: string[], io: PairingIo = terminalIo): Promise<void> {
  const values = parseOptions(args, { 'lock-data': { type: 'string' }, address: { type: 'string' }, data: { type: 'string' } });
  const file = values['lock-data'];
  if (file === undefined || file.trim() === '') throw new UsageError('ttlock import needs --lock-data FILE (the lock\'s record from the TTLock app or its Open API).');
  const address = values.address?.toUpperCase();
  if (address !== undefined && !ADDRESS_PATTERN.test(address)) throw new UsageError('--address must be AA:BB:CC:DD:EE:FF.');
  const imported = importTtlock({ lockDataFile: file, dataDir: values.data ?? defaultDataDir(), ...(address === undefined ? {} : { address }) }, io);
  printConfigBlock(imported, io);
  return Promise.resolve();
}

function printConfigBlock(device: PairedDevice, io: PairingIo): void {
  io.progress('');
  io.progress('Add this lock to the "locks" of the EKeyLocks platform in config.json (set its name, time zone and owner\'s e-mail):');
  io.progress(JSON.stringify({ ...device.entry, owner_email: 'owner@example.com' }, null, 2));
}
