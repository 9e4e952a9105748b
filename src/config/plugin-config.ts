import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FieldError } from '../domain/errors.js';
import { DEFAULT_LOCK_FAMILY, LOCK_FAMILIES, familyDescriptor } from '../families/registry.js';
import type { ClientConfig, LockConfig, PluginConfig } from './plugin-config-schema.js';
import { validateConfig, validateLock } from './plugin-config-validators.generated.js';
import { describeFieldErrors, describeSchemaError, joinProblems, nameOf, placeOf, segmentsOf, wordsOf } from './config-problem-words.js';
import { hostTimeZone, isValidTimeZone } from './time-zone.js';

export type { ClientConfig, LockConfig, PluginConfig } from './plugin-config-schema.js';

/**
 * The config's validators: Ajv's standalone code for the schemas of plugin-config-schema.ts,
 * generated at development time (scripts/config-files.mjs), so checking a config on Homebridge's
 * main thread loads neither Ajv nor TypeBox and compiles nothing.
 */
const validate = validateConfig as ValidateFunction;
const validateLockEntry = validateLock as ValidateFunction;

/** Validates a whole config object, locks included; returns per-field errors (empty when valid). */
export function validatePluginConfig(config: unknown): FieldError[] {
  return validate(config) ? [] : (validate.errors ?? []).map(toFieldError);
}

function toFieldError(error: ErrorObject): FieldError {
  const params = error.params as Record<string, unknown>;
  const extra = typeof params.additionalProperty === 'string' ? `/${params.additionalProperty}` : typeof params.missingProperty === 'string' ? `/${params.missingProperty}` : '';
  return { field: `${error.instancePath}${extra}` || '/', message: error.message ?? 'is invalid' };
}

/** What {@link checkPluginConfig} decided. */
export interface ConfigCheck {
  /** The config to run with, what could not be used left out; undefined only when the config is not an object. */
  config: PluginConfig | undefined;
  /** Set only with `config` undefined: why there is nothing to run. */
  errors: FieldError[];
  /**
   * One error line per part of the config left out (a lock entry, a client, a setting, an
   * incomplete section), naming it, what is wrong and what happens meanwhile (docs/design.md §9).
   */
  problems: string[];
  /** One line per entry ignored because it holds nothing of its own (the form's empty entries). */
  notes: string[];
  /** The lines of `problems` about lock entries: while one is left out, no cached accessory is removed. */
  skippedLocks: string[];
  /**
   * Each field at fault outside the lock entries, as a pointer (`/api/port`, `/clients/0/client_id`)
   * and a sentence: what `ekey-locks serve` refuses to start with (src/cli/serve-command.ts).
   */
  fieldErrors: FieldError[];
}

/** The lists whose entries are objects: each entry stands or falls alone. */
const ENTRY_LISTS = ['locks', 'clients', 'users'] as const;
/** The sections: groups of settings, each optional. */
const SECTIONS = ['api', 'bluetooth', 'smtp', 'homekit', 'mqtt', 'events'] as const;
/**
 * Sections that run whole or not at all: a fault anywhere in one leaves the section out (one line
 * naming every field at fault), never a part of it — MQTT with a default in place of a bad setting
 * would publish where nobody looks, or act as someone else (docs/design.md §11).
 */
const WHOLE_SECTIONS: readonly string[] = ['mqtt'];

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a config the way the service runs it (docs/design.md §9, "Config as the Homebridge UI
 * saves it"). Nothing in it stops the plugin as a whole:
 * - a value that is empty (`""`, `null`) counts as left out, and an entry of a list that holds
 *   nothing of its own — only checkboxes and the values that mean "not set" — is ignored with one
 *   line: the Homebridge UI's form saves one such entry for every empty list;
 * - a lock entry or an OAuth client that fails validation is left out with one line naming it and
 *   every field at fault; the others run;
 * - a user policy that fails validation still applies to its e-mail, as "may not send eKeys";
 * - a setting that fails validation is left out (its default applies), an entry of a list of
 *   values likewise, and a section missing what it needs (`smtp` without `host`) is left out —
 *   each with one line;
 * - `homekit.user_email` that is not an e-mail address stays as given: no account matches it, so
 *   HomeKit's commands are refused (leaving it out would let HomeKit act as each lock's owner).
 */
export function checkPluginConfig(raw: unknown): ConfigCheck {
  if (!isObject(raw)) {
    const errors = validatePluginConfig(raw);
    return { config: undefined, errors: errors.length > 0 ? errors : [{ field: '/', message: 'must be an object' }], problems: [], notes: [], skippedLocks: [], fieldErrors: [] };
  }
  const config = withoutEmptyValues(raw) as JsonObject;
  // Lines name each entry by its place in the config as saved, whatever was left out before it.
  const places = new Map<unknown, number>();
  for (const list of ENTRY_LISTS) if (Array.isArray(config[list])) (config[list] as unknown[]).forEach((entry, index) => places.set(entry, index));
  const placeOfEntry = (entry: unknown): number => places.get(entry) ?? 0;
  const notes = ignoreEmptyEntries(config, placeOfEntry);
  const entryLines: { list: number; index: number; line: string; lock: boolean }[] = [];
  const entryLine = (list: string, entry: unknown, line: string): void => {
    entryLines.push({ list: ENTRY_LISTS.indexOf(list as (typeof ENTRY_LISTS)[number]), index: placeOfEntry(entry), line, lock: list === 'locks' });
  };
  const otherLines: string[] = [];
  const fieldErrors: FieldError[] = [];

  // Set aside while validating, put back after (see above).
  let actingEmail: string | undefined;
  const homekit = config.homekit;
  if (isObject(homekit) && typeof homekit.user_email === 'string' && !validate({ homekit: { user_email: homekit.user_email } })) {
    actingEmail = homekit.user_email;
    delete homekit.user_email;
    otherLines.push(`homekit.user_email: "${actingEmail}" is not an e-mail address; HomeKit's commands are refused until it names an account.`);
    fieldErrors.push({ field: '/homekit/user_email', message: `"${actingEmail}" is not an e-mail address` });
  }

  const valueAt = (pointer: string): unknown => valueAtPointer(config, pointer);
  // Each round leaves out what the errors name; a later round sees only what is left.
  for (let round = 0; round < 4 && !validate(config); round++) {
    const errors = validate.errors ?? [];
    const byEntry = new Map<unknown, { list: string; index: string; errors: ErrorObject[] }>();
    const elsewhere: ErrorObject[] = [];
    const bySection = new Map<string, ErrorObject[]>();
    for (const error of errors) {
      const [list = '', index] = segmentsOf(error.instancePath);
      if (WHOLE_SECTIONS.includes(list)) {
        bySection.set(list, [...(bySection.get(list) ?? []), error]);
        continue;
      }
      if ((ENTRY_LISTS as readonly string[]).includes(list) && index !== undefined && /^\d+$/.test(index)) {
        const entry = (config[list] as unknown[])[Number(index)];
        const known = byEntry.get(entry) ?? { list, index, errors: [] };
        known.errors.push(error);
        byEntry.set(entry, known);
      } else {
        elsewhere.push(error);
      }
    }
    const removals: (() => void)[] = [];
    for (const [section, sectionErrors] of bySection) {
      const found = describeFieldErrors(sectionErrors, valueAt);
      const title = wordsOf(section).title;
      otherLines.push(`${title === undefined ? section : `${title} (${section})`} is left out: ${joinProblems(found)}. Until it is fixed, the service runs without it.`);
      for (const problem of found) fieldErrors.push({ field: `/${problem.field.replace(/\[(\d+)\]/g, '.$1').replace(/\./g, '/')}`, message: problem.message });
      removals.push(() => {
        Reflect.deleteProperty(config, section);
      });
    }
    for (const [entry, { list, index, errors: entryErrors }] of byEntry) {
      const parts = joinProblems(describeFieldErrors(entryErrors, valueAt, [list, index]));
      if (list !== 'locks') {
        for (const problem of describeFieldErrors(entryErrors, valueAt)) {
          fieldErrors.push({ field: `/${problem.field.replace(/\[(\d+)\]/g, '.$1').replace(/\./g, '/')}`, message: problem.message });
        }
      }
      const at = placeOfEntry(entry);
      if (list === 'locks') {
        entryLine(list, entry, `${lockLabel(entry, at)} is left out: ${parts}. The other locks run.`);
        removals.push(removeEntry(config, list, entry));
      } else if (list === 'clients') {
        entryLine(list, entry, `${clientLabel(entry, at)} is left out: ${parts}. It cannot sign anyone in until this is fixed.`);
        removals.push(removeEntry(config, list, entry));
      } else {
        const email = isObject(entry) && typeof entry.email === 'string' && validate({ users: [{ email: entry.email }] }) ? entry.email : undefined;
        if (email === undefined) {
          entryLine(list, entry, `User policy #${at + 1} (users[${at}]) is left out: ${parts}.`);
          removals.push(removeEntry(config, list, entry));
        } else {
          entryLine(list, entry, `User policy of ${email} (users[${at}]) cannot be read: ${parts}. Until it is fixed, ${email} may not send eKeys.`);
          const restricted = { email, can_send_ekeys: false };
          places.set(restricted, at);
          const entries = config[list] as unknown[];
          removals.push(() => {
            entries[entries.indexOf(entry)] = restricted;
          });
        }
      }
    }
    for (const error of elsewhere) {
      const removal = leaveOut(config, error, valueAt, otherLines);
      if (removal === 'fatal') return { config: undefined, errors: errors.map(toFieldError), problems: otherLines, notes, skippedLocks: [], fieldErrors };
      fieldErrors.push({ field: toFieldError(error).field, message: describeSchemaError(error, valueAt(error.instancePath)) });
      removals.push(removal);
    }
    for (const removal of removals) removal();
    compact(config);
  }
  if (!validate(config)) return { config: undefined, errors: (validate.errors ?? []).map(toFieldError), problems: otherLines, notes, skippedLocks: [], fieldErrors };

  if (Array.isArray(config.locks)) {
    config.locks = (config.locks as unknown[]).filter((entry) => {
      const found = lockEntryProblems(entry);
      if (found.length === 0) return true;
      const parts = joinProblems(found.map((problem) => ({ field: problem.field.replace(/^\//, '').replace(/\//g, '.') || 'entry', message: problem.message })));
      entryLine('locks', entry, `${lockLabel(entry, placeOfEntry(entry))} is left out: ${parts}. The other locks run.`);
      return false;
    });
  }
  if (Array.isArray(config.clients)) {
    config.clients = (config.clients as ClientConfig[]).filter((client) => {
      if (client.public !== false || client.client_secret !== undefined) return true;
      entryLine('clients', client, `${clientLabel(client, placeOfEntry(client))} is left out: it is neither public nor has a client secret. Tick "Public client" (an app that signs in with PKCE) or give it a secret.`);
      fieldErrors.push({ field: `/clients/${placeOfEntry(client)}`, message: 'is neither public nor has a client secret' });
      return false;
    });
  }
  dropDuplicateProxies(config, otherLines);
  if (actingEmail !== undefined) config.homekit = { ...(isObject(config.homekit) ? config.homekit : {}), user_email: actingEmail };
  entryLines.sort((a, b) => a.list - b.list || a.index - b.index);
  return {
    config,
    errors: [],
    problems: [...entryLines.map((entry) => entry.line), ...otherLines],
    notes,
    skippedLocks: entryLines.filter((entry) => entry.lock).map((entry) => entry.line),
    fieldErrors,
  };
}

/**
 * docs/design.md §4e: a proxy's name is its gateway id, so two proxies of one name cannot both
 * serve; the later one is left out with one line (names compare without regard to case).
 */
function dropDuplicateProxies(config: JsonObject, problems: string[]): void {
  const bluetooth = config.bluetooth;
  if (!isObject(bluetooth) || !Array.isArray(bluetooth.proxies)) return;
  const seen = new Set<string>();
  bluetooth.proxies = (bluetooth.proxies as JsonObject[]).filter((proxy, index) => {
    const name = String(proxy.name).toLowerCase();
    if (!seen.has(name)) {
      seen.add(name);
      return true;
    }
    problems.push(`bluetooth.proxies[${index}]: another proxy is already named "${String(proxy.name)}"; left out of the list.`);
    return false;
  });
}

/** The value at a JSON pointer, if there is one. */
function valueAtPointer(root: unknown, pointer: string): unknown {
  return segmentsOf(pointer).reduce<unknown>((node, segment) => (isObject(node) || Array.isArray(node) ? (node as JsonObject)[segment] : undefined), root);
}

/** Leaves out what one error outside the entry lists names; returns how (run after every error was read). */
function leaveOut(config: JsonObject, error: ErrorObject, valueAt: (pointer: string) => unknown, problems: string[]): (() => void) | 'fatal' {
  const segments = segmentsOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const [top, field, item] = segments;
  if (top === undefined) return 'fatal';
  const sentence = describeSchemaError(error, valueAt(error.instancePath));
  const title = wordsOf(placeOf([top])).title;
  const section = title === undefined ? top : `${title} (${top})`;
  if (segments.length === 1 && (SECTIONS as readonly string[]).includes(top) && isObject(config[top])) {
    if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      const unknown = params.additionalProperty;
      problems.push(`${top}.${unknown} is not a setting of ${section}: ignored.`);
      return () => {
        Reflect.deleteProperty(config[top] as JsonObject, unknown);
      };
    }
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      problems.push(`${section} is left out: ${top}.${params.missingProperty} is missing. Until it is filled in, the service runs without it.`);
      return () => {
        Reflect.deleteProperty(config, top);
      };
    }
  }
  if (segments.length === 1 || !(SECTIONS as readonly string[]).includes(top)) {
    problems.push(`${nameOf(segments)}: ${sentence}; left out, so its default applies.`);
    return () => {
      Reflect.deleteProperty(config, top);
    };
  }
  if (field !== undefined && item !== undefined && Array.isArray((config[top] as JsonObject)[field])) {
    problems.push(`${nameOf(segments)}: ${sentence}; left out of the list.`);
    const list = (config[top] as JsonObject)[field] as unknown[];
    const entry = list[Number(item)];
    return () => {
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
    };
  }
  problems.push(`${nameOf(segments)}: ${sentence}; left out, so its default applies.`);
  return () => {
    const section = config[top];
    if (field !== undefined && isObject(section)) Reflect.deleteProperty(section, field);
  };
}

/** Removes `entry` from `config[list]` (by identity, so removals in one round do not shift each other). */
function removeEntry(config: JsonObject, list: string, entry: unknown): () => void {
  return () => {
    const entries = config[list] as unknown[];
    const at = entries.indexOf(entry);
    if (at >= 0) entries.splice(at, 1);
  };
}

/** Drops sections left empty by what was left out. */
function compact(config: JsonObject): void {
  for (const section of SECTIONS) if (isObject(config[section]) && Object.keys(config[section]).length === 0) Reflect.deleteProperty(config, section);
}

const lockLabel = (entry: unknown, index: number): string => {
  const given = isObject(entry) ? entry.name : undefined;
  return `Lock ${typeof given === 'string' && given.trim() !== '' ? `"${given}"` : `#${index + 1}`} (locks[${index}])`;
};

const clientLabel = (entry: unknown, index: number): string => {
  const given = isObject(entry) ? (entry.name ?? entry.client_id) : undefined;
  return `OAuth client ${typeof given === 'string' && given.trim() !== '' ? `"${given}"` : `#${index + 1}`} (clients[${index}])`;
};

/**
 * A copy of `value` without empty strings and nulls: the form saves a field the user cleared as
 * `""` (or `null` for a number), which means "not set"; empty entries of lists of values go too,
 * and so do empty entries (`{}`) of lists inside an entry (a lock's `nuki_users: [{}]`). The entries
 * of the top lists stay, for {@link ignoreEmptyEntries} to say so.
 */
function withoutEmptyValues(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) {
    const items = value.filter((item) => item !== '' && item !== null).map((item) => withoutEmptyValues(item, depth + 1));
    return depth <= 1 ? items : items.filter((item) => !(isObject(item) && Object.keys(item).length === 0));
  }
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === '' || item === null) continue;
    out[key] = withoutEmptyValues(item, depth + 1);
  }
  return out;
}

/**
 * Whether an entry or section holds nothing of its own: every value a checkbox, a value that means
 * "not set" (src/config/plugin-config-schema.ts `x-unset`), or an empty list or group.
 */
function holdsNothing(value: JsonObject, place: string): boolean {
  return Object.entries(value).every(([key, item]) => {
    if (typeof item === 'boolean') return true;
    if (Array.isArray(item)) return item.length === 0;
    if (isObject(item)) return holdsNothing(item, `${place}.${key}`);
    return (wordsOf(`${place}.${key}`).unset ?? []).includes(item);
  });
}

/**
 * Ignores the entries of lists that hold nothing (returns a line for each), and sections that hold
 * nothing (silently: they change nothing).
 */
function ignoreEmptyEntries(config: JsonObject, placeOfEntry: (entry: unknown) => number): string[] {
  const notes: string[] = [];
  for (const list of ENTRY_LISTS) {
    const entries = config[list];
    if (!Array.isArray(entries)) continue;
    const title = wordsOf(list).title ?? list;
    config[list] = entries.filter((entry) => {
      if (!isObject(entry) || !holdsNothing(entry, `${list}[]`)) return true;
      const at = placeOfEntry(entry);
      notes.push(`${title}: entry ${at + 1} (${list}[${at}]) has nothing filled in — the settings form adds an empty entry to every list — so it is ignored.`);
      return false;
    });
  }
  for (const section of SECTIONS) {
    const value = config[section];
    if (isObject(value) && holdsNothing(value, section)) Reflect.deleteProperty(config, section);
  }
  return notes;
}

/** What is wrong with one `locks[]` entry: the schema, then what the schema cannot say. */
export function lockEntryProblems(entry: unknown): FieldError[] {
  if (!validateLockEntry(entry)) {
    // Named as in a config's `locks[]`, so the words of those fields apply.
    const errors = (validateLockEntry.errors ?? []).map((error) => ({ ...error, instancePath: `/locks/0${error.instancePath}` }));
    return describeFieldErrors(errors, (pointer) => valueAtPointer({ locks: [entry] }, pointer), ['locks', '0']).map((problem) => ({
      field: `/${problem.field.replace(/\./g, '/')}`,
      message: problem.message,
    }));
  }
  const lock = entry as LockConfig;
  const problems: FieldError[] = [];
  const zone = lock.time_zone ?? hostTimeZone();
  if (!isValidTimeZone(zone)) problems.push({ field: '/time_zone', message: `"${zone}" is not an IANA time zone (e.g. "Europe/Berlin")` });
  const family = familyDescriptor(lock.family ?? DEFAULT_LOCK_FAMILY);
  // The schema names the families it knows: an unknown one never gets this far.
  if (family === undefined) return problems;
  problems.push(...family.configProblems(lock));
  if (lock.keypad === true && !family.capabilities.keypad) {
    const takers = LOCK_FAMILIES.filter((candidate) => candidate.capabilities.keypad).map((candidate) => candidate.displayName);
    problems.push({ field: '/keypad', message: `is only for a ${takers.join(' or ') || 'lock that takes a keypad'} (a keypad pairs with the lock itself)` });
  }
  // Another family's own setting (a lock key on a paired lock, say), unless the family said so already.
  for (const field of Object.keys(lock)) {
    if (field in family.configFields || !LOCK_FAMILIES.some((other) => field in other.configFields)) continue;
    if (problems.some((problem) => problem.field === `/${field}`)) continue;
    problems.push({ field: `/${field}`, message: `is not used by a ${family.displayName}` });
  }
  return problems;
}
