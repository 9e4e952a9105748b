import { parseArgs } from 'node:util';
import { UsageError } from '../../cli/usage-error.js';
import { describeError } from '../../domain/errors.js';
import { dissectTtlockFrame, parseTtlockHex } from './protocol/ttlock-frame-dissector.js';
import { TtlockFrameError } from './protocol/ttlock-frame.js';

/**
 * `ekey-locks ttlock scan|pair|import|decode` (docs/design.md §4f). `decode` prints one JSON line
 * and exits 0; a malformed frame (or a key it does not decrypt under) prints one line on stderr
 * that starts with `ttlock decode:` and sets exit code 1, with nothing on stdout. A malformed call
 * is a UsageError.
 */
export function ttlockCommand(args: string[]): Promise<void> {
  const [subcommand, ...rest] = args;
  // Scanning, pairing and importing load BlueZ and the data folder; decode needs neither.
  if (subcommand === 'scan') return import('./ttlock-pairing-commands.js').then(async (commands) => {
    await commands.ttlockScanCommand(rest);
  });
  if (subcommand === 'pair') return import('./ttlock-pairing-commands.js').then((commands) => commands.ttlockPairCommand(rest));
  if (subcommand === 'import') return import('./ttlock-pairing-commands.js').then((commands) => commands.ttlockImportCommand(rest));
  return new Promise((resolve) => {
    switch (subcommand) {
      case 'decode':
        decodeSubcommand(rest);
        break;
      case undefined:
        throw new UsageError('ttlock needs a subcommand: "scan", "pair", "import" or "decode".');
      default:
        throw new UsageError(`Unknown ttlock subcommand "${subcommand}".`);
    }
    resolve();
  });
}

function decodeSubcommand(args: string[]): void {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { key: { type: 'string' } }, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(describeError(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('ttlock decode needs exactly one FRAME_HEX.');
  let line: string;
  try {
    const frame = parseTtlockHex(positionals[0] ?? '');
    const key = values.key === undefined ? undefined : parseKey(values.key);
    line = JSON.stringify(dissectTtlockFrame(frame, key));
  } catch (error) {
    if (!(error instanceof TtlockFrameError)) throw error;
    process.stderr.write(`ttlock decode: ${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`${line}\n`);
}

function parseKey(text: string): Buffer {
  if (!/^[0-9a-fA-F]{32}$/.test(text)) throw new TtlockFrameError('--key must be 32 hex digits (the lock\'s 16-byte AES key)');
  return Buffer.from(text, 'hex');
}
