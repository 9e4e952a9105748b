import type { ValidateFunction } from 'ajv';
import type { FieldError } from '../domain/errors.js';
import { DEFAULT_LOCK_FAMILY, lockFamily } from '../families/registry.js';
import type { LockConfig, PluginConfig } from './plugin-config-schema.js';
import { validateConfig, validateLock } from './plugin-config-validators.generated.js';
import { hostTimeZone, isValidTimeZone } from './time-zone.js';

export type { ClientConfig, LockConfig, PluginConfig } from './plugin-config-schema.js';

/**
 * The config's validators: Ajv's standalone code for the schemas of plugin-config-schema.ts,
 * generated at development time (scripts/config-validators.mjs), so checking a config on
 * Homebridge's main thread loads neither Ajv nor TypeBox and compiles nothing.
 */
const validators = (): { validate: ValidateFunction; validateLock: ValidateFunction } => ({
  validate: validateConfig as ValidateFunction,
  validateLock: validateLock as ValidateFunction,
});

function fieldErrors(errors: ValidateFunction['errors']): FieldError[] {
  return (errors ?? []).map((issue) => {
    const params = issue.params as Record<string, unknown>;
    const extra =
      typeof params.additionalProperty === 'string' ? `/${params.additionalProperty}` : typeof params.missingProperty === 'string' ? `/${params.missingProperty}` : '';
    return { field: `${issue.instancePath}${extra}` || '/', message: issue.message ?? 'is invalid' };
  });
}

/** Validates a whole config object, locks included; returns per-field errors (empty when valid). */
export function validatePluginConfig(config: unknown): FieldError[] {
  const { validate } = validators();
  return validate(config) ? [] : fieldErrors(validate.errors);
}

/** What {@link checkPluginConfig} decided. */
export interface ConfigCheck {
  /** The config to run with, bad lock entries left out; undefined when `errors` is not empty. */
  config: PluginConfig | undefined;
  /** Errors outside `locks[]`: the plugin cannot start with them. */
  errors: FieldError[];
  /** One line per lock entry left out, naming the lock and every field at fault (docs/design.md §9). */
  skippedLocks: string[];
}

/**
 * Checks a config the way the service runs it (docs/design.md §9): a lock entry that fails validation
 * (time zone, address, key, family, …) is left out with one line naming the lock and the field,
 * and the other locks run; anything wrong outside `locks[]` stops the plugin.
 */
export function checkPluginConfig(raw: unknown): ConfigCheck {
  const isObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  const locks: unknown = isObject ? (raw as Record<string, unknown>).locks : undefined;
  if (!isObject || !Array.isArray(locks)) {
    const errors = validatePluginConfig(raw);
    return { config: errors.length === 0 ? (raw as PluginConfig) : undefined, errors, skippedLocks: [] };
  }
  const errors = validatePluginConfig({ ...raw, locks: [] });
  const kept: LockConfig[] = [];
  const skippedLocks: string[] = [];
  locks.forEach((entry, index) => {
    const problems = lockEntryProblems(entry);
    if (problems.length === 0) {
      kept.push(entry as LockConfig);
      return;
    }
    const given = (entry as { name?: unknown } | null)?.name;
    const name = typeof given === 'string' && given.trim() !== '' ? `"${given}"` : `#${index + 1}`;
    const fields = problems.map((problem) => `${problem.field.replace(/^\//, '') || 'entry'}: ${problem.message}`).join('; ');
    skippedLocks.push(`Lock ${name} (locks[${index}]) is left out: ${fields}. The other locks run.`);
  });
  return { config: errors.length === 0 ? { ...raw, locks: kept } : undefined, errors, skippedLocks };
}

/** What is wrong with one `locks[]` entry: the schema, then what the schema cannot say. */
export function lockEntryProblems(entry: unknown): FieldError[] {
  const { validateLock } = validators();
  if (!validateLock(entry)) return fieldErrors(validateLock.errors);
  const lock = entry as LockConfig;
  const problems: FieldError[] = [];
  const zone = lock.time_zone ?? hostTimeZone();
  if (!isValidTimeZone(zone)) problems.push({ field: '/time_zone', message: `"${zone}" is not an IANA time zone (e.g. "Europe/Berlin")` });
  const family = lockFamily(lock.family ?? DEFAULT_LOCK_FAMILY);
  problems.push(...family.configProblems(lock));
  if (lock.keypad === true && !family.takesKeypad) problems.push({ field: '/keypad', message: 'is only for a Nuki Smart Lock (a Nuki Keypad pairs with a Nuki Smart Lock)' });
  return problems;
}
