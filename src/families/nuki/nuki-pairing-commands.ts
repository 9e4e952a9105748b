import { defaultDataDir } from '../../cli/data-dir.js';
import { parseOptions } from '../../cli/parse-options.js';
import { UsageError } from '../../cli/usage-error.js';
import type { PairingIo } from '../lock-family-module.js';
import { hostTransport } from '../../gateway/transports/bluez/host-transport.js';
import { pairingIoVia } from '../../cli/pairing-radio.js';
import { pairNuki, scanNukis, type ScannedNuki } from './nuki-pairing-facet.js';

const ADDRESS_PATTERN = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;

/** The terminal's side of pairing: progress on stdout, warnings on stderr, the host's BlueZ. */
const terminalIo: PairingIo = {
  progress: (line) => process.stdout.write(`${line}\n`),
  warn: (line) => process.stderr.write(`${line}\n`),
  transport: hostTransport,
};

/**
 * `ekey-locks nuki scan [--seconds N] [--adapter hciX | --via PROXY [--config FILE]]`: lists the
 * Nuki Smart Locks and Openers nearby, one line each (src/families/nuki/nuki-pairing-facet.ts),
 * heard by the host's adapter or by the ESPHome Bluetooth proxy `--via` names. A scan that cannot
 * start is a failure (exit 1), not "nothing heard".
 */
export async function nukiScanCommand(args: string[], io: PairingIo = terminalIo): Promise<ScannedNuki[]> {
  const values = parseOptions(args, { seconds: { type: 'string' }, adapter: { type: 'string' }, via: { type: 'string' }, config: { type: 'string' }, data: { type: 'string' } });
  const seconds = values.seconds === undefined ? 10 : Number(values.seconds);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 120) throw new UsageError(`--seconds must be a whole number from 1 to 120, not "${values.seconds ?? ''}".`);
  return scanNukis({ seconds, ...(values.adapter === undefined ? {} : { adapter: values.adapter }) }, pairingIoVia(io, values));
}

/**
 * `ekey-locks nuki pair --address AA:BB:CC:DD:EE:FF [--name N] [--pin PIN] [--as-bridge]
 * [--data DIR] [--adapter hciX | --via PROXY [--config FILE]] [--timeout-s N]`: pairs as an app
 * (or, on request, as a bridge) through the host's adapter or the proxy `--via` names, stores the
 * credentials in the data folder and prints the config block to paste.
 */
export async function nukiPairCommand(args: string[], io: PairingIo = terminalIo): Promise<void> {
  const values = parseOptions(args, {
    address: { type: 'string' },
    name: { type: 'string' },
    pin: { type: 'string' },
    'as-bridge': { type: 'boolean' },
    data: { type: 'string' },
    adapter: { type: 'string' },
    via: { type: 'string' },
    config: { type: 'string' },
    'timeout-s': { type: 'string' },
  });
  const address = values.address?.toUpperCase();
  if (address === undefined || !ADDRESS_PATTERN.test(address)) throw new UsageError('nuki pair needs --address AA:BB:CC:DD:EE:FF (see "ekey-locks nuki scan").');
  const name = values.name;
  if (name !== undefined && (name.trim() === '' || Buffer.byteLength(name) > 32)) throw new UsageError('--name must be 1 to 32 bytes: the lock keeps at most 32.');
  if (values.pin !== undefined && !/^\d{1,6}$/.test(values.pin)) {
    throw new UsageError('--pin must be the lock\'s security PIN: digits only (six on a Smart Lock Ultra, Go or Pro 5th generation).');
  }
  const timeoutS = values['timeout-s'] === undefined ? 30 : Number(values['timeout-s']);
  if (!Number.isInteger(timeoutS) || timeoutS < 5 || timeoutS > 300) throw new UsageError(`--timeout-s must be a whole number from 5 to 300, not "${values['timeout-s'] ?? ''}".`);
  const paired = await pairNuki(
    {
      address,
      ...(name === undefined ? {} : { name }),
      ...(values.pin === undefined ? {} : { pin: values.pin }),
      timeoutS,
      dataDir: values.data ?? defaultDataDir(),
      ...(values.adapter === undefined ? {} : { adapter: values.adapter }),
      asBridge: values['as-bridge'] === true,
    },
    pairingIoVia(io, values),
  );
  const opener = paired.entry.family !== 'nuki';
  io.progress('');
  io.progress(`Add this ${opener ? 'Opener' : 'lock'} to the "locks" of the EKeyLocks platform in config.json (set the owner's e-mail;`);
  io.progress('link the Nuki app users of your household to their accounts in "nuki_users"):');
  io.progress(JSON.stringify({ ...paired.entry, owner_email: 'owner@example.com', nuki_users: { "Owner's iPhone": 'owner@example.com' } }, null, 2));
}
