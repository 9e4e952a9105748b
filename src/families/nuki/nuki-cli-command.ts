import { parseArgs } from 'node:util';
import { NukiFrameError } from './protocol/nuki-frame.js';
import { buildNukiFrame, dissectNukiFrame, parseNukiHex } from './protocol/nuki-frame-dissector.js';
import { UsageError } from '../../cli/usage-error.js';
import { describeError } from '../../domain/errors.js';

/** A frame or value that cannot be used: one line on stderr, exit 2, no usage text (docs/design.md §4b). */
class FrameInputError extends Error {}

/**
 * `ekey-locks nuki decode [--shared-key HEX64] FRAME_HEX` and
 * `ekey-locks nuki encode --command N [--payload HEX] [--shared-key HEX64 --auth-id N --nonce HEX48]`.
 * A bad frame or value prints one `nuki decode:` (or `nuki encode:`) line on stderr and sets exit
 * code 2 with nothing on stdout; a malformed call is a UsageError.
 */
export function nukiCommand(args: string[]): Promise<void> {
  const [first, ...others] = args;
  // Scanning and pairing load BlueZ and the store; decode and encode need neither.
  if (first === 'scan') return import('./nuki-pairing-commands.js').then(async (commands) => {
    await commands.nukiScanCommand(others);
  });
  if (first === 'pair') return import('./nuki-pairing-commands.js').then((commands) => commands.nukiPairCommand(others));
  return new Promise((resolve) => {
    const [subcommand, ...rest] = args;
    switch (subcommand) {
      case 'decode':
        reportingFrameErrors('nuki decode', () => decodeSubcommand(rest));
        break;
      case 'encode':
        reportingFrameErrors('nuki encode', () => encodeSubcommand(rest));
        break;
      case undefined:
        throw new UsageError('nuki needs a subcommand: "scan", "pair", "decode" or "encode".');
      default:
        throw new UsageError(`Unknown nuki subcommand "${subcommand}".`);
    }
    resolve();
  });
}

function decodeSubcommand(args: string[]): string {
  const { values, positionals } = parseCommandLine(args, { 'shared-key': { type: 'string' } }, true);
  if (positionals.length !== 1) throw new UsageError('nuki decode needs exactly one FRAME_HEX.');
  const frame = parseNukiHex(positionals[0] ?? '');
  const sharedKey = values['shared-key'] === undefined ? undefined : hexValue('--shared-key', values['shared-key'], 32);
  return JSON.stringify(dissectNukiFrame(frame, sharedKey));
}

function encodeSubcommand(args: string[]): string {
  const { values } = parseCommandLine(
    args,
    {
      command: { type: 'string' },
      payload: { type: 'string' },
      'shared-key': { type: 'string' },
      'auth-id': { type: 'string' },
      nonce: { type: 'string' },
    },
    false,
  );
  if (values.command === undefined) throw new UsageError('nuki encode needs --command N.');
  const encryptionOptions = [values['shared-key'], values['auth-id'], values.nonce];
  const given = encryptionOptions.filter((value) => value !== undefined).length;
  if (given !== 0 && given !== encryptionOptions.length) throw new UsageError('nuki encode: --shared-key, --auth-id and --nonce go together.');
  const command = integerValue('--command', values.command, 0xffff);
  const payload = values.payload === undefined ? Buffer.alloc(0) : parseNukiHex(values.payload, '--payload');
  const encryption =
    values['shared-key'] !== undefined && values['auth-id'] !== undefined && values.nonce !== undefined
      ? {
          sharedKey: hexValue('--shared-key', values['shared-key'], 32),
          authorizationId: integerValue('--auth-id', values['auth-id'], 0xffffffff),
          nonce: hexValue('--nonce', values.nonce, 24),
        }
      : undefined;
  return buildNukiFrame({ command, payload, ...(encryption === undefined ? {} : { encryption }) }).toString('hex');
}

/** Prints the line `run` returns; a frame or value error becomes one `prefix:` line and exit code 2. */
function reportingFrameErrors(prefix: string, run: () => string): void {
  let line: string;
  try {
    line = run();
  } catch (error) {
    if (!(error instanceof NukiFrameError || error instanceof FrameInputError)) throw error;
    process.stderr.write(`${prefix}: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  process.stdout.write(`${line}\n`);
}

type OptionSpec = Record<string, { type: 'string' }>;

function parseCommandLine<T extends OptionSpec>(args: string[], options: T, allowPositionals: boolean) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError(describeError(error));
  }
}

function hexValue(flag: string, text: string, bytes: number): Buffer {
  if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(text)) throw new FrameInputError(`${flag} must be ${bytes * 2} hex digits`);
  return Buffer.from(text, 'hex');
}

/** A whole number, decimal or 0x-hex, from 0 to `max`. */
function integerValue(flag: string, text: string, max: number): number {
  const value = /^0x[0-9a-f]+$/i.test(text) ? Number.parseInt(text.slice(2), 16) : /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value > max) throw new FrameInputError(`${flag} must be a number from 0 to ${max} (decimal or 0x-hex), not "${text}"`);
  return value;
}
