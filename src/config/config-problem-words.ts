import type { ErrorObject } from 'ajv';
import { configFieldWords } from './plugin-config-validators.generated.js';

/**
 * What the config check says of a field, in words a user can act on (the log, and the settings
 * page, which quotes it): the value and what it must look like, never a JSON pointer or a regular
 * expression. The words come from the schema (src/config/plugin-config-schema.ts: `title`,
 * `x-hint`, the choices), generated beside the validators.
 */

/** What the schema says of one field, by its place (`locks[].address`). */
export interface FieldWords {
  title?: string;
  /** What a value must look like, for a field with a pattern. */
  hint?: string;
  /** Values that mean the same as leaving the field out. */
  unset?: unknown[];
  /** The allowed values of a choice. */
  choices?: string[];
  /** A secret: its value is never repeated. */
  secret?: boolean;
}

const WORDS = configFieldWords as Readonly<Record<string, FieldWords>>;

/** `['locks', '0', 'address']` → `locks[].address`: the field's place in the schema. */
export function placeOf(segments: readonly string[]): string {
  let place = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) place += '[]';
    else place += place === '' ? segment : `.${segment}`;
  }
  return place;
}

/** `['locks', '0', 'address']` → `locks[0].address`: the field as the user finds it in config.json. */
export function nameOf(segments: readonly string[]): string {
  let name = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) name += `[${segment}]`;
    else name += name === '' ? segment : `.${segment}`;
  }
  return name;
}

/** The words of the field at `place`, if the schema has any. */
export const wordsOf = (place: string): FieldWords => WORDS[place] ?? {};

/** The segments of a JSON pointer (`/locks/0/address`). */
export const segmentsOf = (pointer: string): string[] =>
  pointer === '' ? [] : pointer.slice(1).split('/').map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));

const TYPE_WORDS: Readonly<Record<string, string>> = {
  integer: 'a whole number',
  number: 'a number',
  boolean: 'on or off (true or false)',
  string: 'text',
  array: 'a list',
  object: 'a group of settings',
  null: 'empty',
};

function shown(value: unknown, words: FieldWords): string {
  if (words.secret === true) return 'the value given';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const short = text.length > 60 ? `${text.slice(0, 57)}…` : text;
  return `"${short}"`;
}

/**
 * One schema error as a sentence about the field (`is missing`, `"x" is not an e-mail address`),
 * without the field's name; `value` is the value at fault.
 */
export function describeSchemaError(error: ErrorObject, value: unknown): string {
  const params = error.params as Record<string, unknown>;
  const words = wordsOf(placeOf(segmentsOf(error.instancePath)));
  switch (error.keyword) {
    case 'required':
      return 'is missing';
    case 'additionalProperties':
      return 'is not a setting here';
    case 'type': {
      const wanted = String(params.type).split(',').map((type) => TYPE_WORDS[type] ?? type);
      return `must be ${wanted.join(' or ')}`;
    }
    case 'format':
      switch (params.format) {
        case 'email':
          return `${shown(value, words)} is not an e-mail address`;
        case 'uuid':
          return `${shown(value, words)} is not a UUID (like 2f1e4c1a-8b7d-4e6f-9a0b-1c2d3e4f5a6b)`;
        case 'uri':
          return `${shown(value, words)} is not a web address`;
        default:
          return `${shown(value, words)} is not a valid ${String(params.format)}`;
      }
    case 'pattern':
      return `${shown(value, words)} is not ${words.hint ?? 'in the expected form'}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(params.limit)}`;
    case 'minLength':
      return typeof value === 'string' && value.length === 0 ? 'is empty' : `needs at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `may have at most ${String(params.limit)} characters`;
    case 'minItems':
      return `needs at least ${String(params.limit)} ${params.limit === 1 ? 'entry' : 'entries'}`;
    case 'anyOf':
    case 'const':
    case 'enum':
      return words.choices === undefined ? `${shown(value, words)} is not allowed here` : `${shown(value, words)} is not one of ${words.choices.map((choice) => `"${choice}"`).join(', ')}`;
    default:
      return error.message ?? 'is not valid';
  }
}

/**
 * The schema's errors as one problem per field (the first error of each, so a value that is both
 * of the wrong type and the wrong shape is said once), each field named from `base` on (`address`,
 * not `locks[2].address`) and each message a sentence from {@link describeSchemaError}.
 */
export function describeFieldErrors(errors: readonly ErrorObject[], valueAt: (pointer: string) => unknown, base: readonly string[] = []): { field: string; message: string }[] {
  const parts = new Map<string, string>();
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    const segments = segmentsOf(error.instancePath);
    const extra = typeof params.missingProperty === 'string' ? params.missingProperty : typeof params.additionalProperty === 'string' ? params.additionalProperty : undefined;
    const field = nameOf([...segments, ...(extra === undefined ? [] : [extra])].slice(base.length)) || 'entry';
    if (parts.has(field)) continue;
    // A union's branches each report, then the union itself: a choice is said by its choices, any
    // other union (a number or empty, a map or a list) by what its first shape wanted.
    if (error.schemaPath.includes('/anyOf/')) continue;
    if (error.keyword === 'anyOf' && wordsOf(placeOf(segments)).choices === undefined) {
      const first = errors.find((branch) => branch.instancePath === error.instancePath && branch.schemaPath.startsWith(`${error.schemaPath}/0/`));
      if (first !== undefined) {
        parts.set(field, describeSchemaError(first, valueAt(first.instancePath)));
        continue;
      }
    }
    parts.set(field, describeSchemaError(error, valueAt(error.instancePath)));
  }
  return [...parts].map(([field, message]) => ({ field, message }));
}

/** `field: message; field: message` */
export const joinProblems = (problems: readonly { field: string; message: string }[]): string => problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ');
