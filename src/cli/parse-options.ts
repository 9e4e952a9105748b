import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';
import { describeError } from '../domain/errors.js';

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/** Parses `--flag value` options strictly: unknown flags and stray words are usage errors. */
export function parseOptions<T extends OptionSpec>(args: string[], options: T): ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: false; args: string[] }>>['values'] {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(describeError(error));
  }
}

/** A port number 0–65535, or a usage error. */
export function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${value}".`);
  return port;
}
