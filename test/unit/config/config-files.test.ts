/**
 * The two files made from the plugin config's schema (scripts/config-files.mjs): config.schema.json,
 * the Homebridge UI's form, and src/config/plugin-config-validators.generated.ts, Ajv's standalone
 * code that checks a config on Homebridge's main thread without loading Ajv or TypeBox there. Each
 * must be what the script makes of the schema as it is now, and say what the schema says.
 */
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { LockConfigSchema, PluginConfigSchema } from '../../../src/config/plugin-config-schema.js';
import { lockEntryProblems, validatePluginConfig } from '../../../src/config/plugin-config.js';
import { LOCK_FAMILIES } from '../../../src/families/registry.js';
import { PROJECT_ROOT, ensureBuild } from '../../support/child-process.js';

const made = (which: '--print-validators' | '--print-schema'): string =>
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'config-files.mjs'), ensureBuild(), which], { encoding: 'utf8' });

describe('the committed files', () => {
  it('config.schema.json is what scripts/config-files.mjs makes of the schema (regenerate with `npm run config-files`)', () => {
    expect(readFileSync(join(PROJECT_ROOT, 'config.schema.json'), 'utf8')).toBe(made('--print-schema'));
  });

  it('the generated validators are what scripts/config-files.mjs makes of the schema', () => {
    expect(readFileSync(join(PROJECT_ROOT, 'src', 'config', 'plugin-config-validators.generated.ts'), 'utf8')).toBe(made('--print-validators'));
  });
});

describe('the generated config validators', () => {
  it('answer as Ajv compiling the schemas at run time does, errors and all', () => {
    const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
    addFormats.default(ajv);
    const config = ajv.compile(PluginConfigSchema);
    const lock = ajv.compile(LockConfigSchema);
    const messages = (errors: typeof config.errors): string[] => (errors ?? []).map((error) => error.message ?? 'is invalid').sort();
    const configs: unknown[] = [
      { platform: 'EKeyLocks', demo: true },
      { platform: 'EKeyLocks', api: { port: 70000, public_url: 'ftp://x' }, clients: [{ client_id: 'not-a-uuid', redirect_uris: [] }] },
      { platform: 'EKeyLocks', users: [{ email: 'not an address' }], homekit: { arrival_triggers: ['a@example.com', 7] } },
      { platform: 'EKeyLocks', locks: [{ name: 'Back Door', owner_email: 'o@example.com', nuki_users: [{ authorization: 'x', email: 'no' }] }] },
      'not an object',
    ];
    for (const candidate of configs) {
      const expected = config(candidate) ? [] : messages(config.errors);
      if (candidate !== configs[0]) expect(expected.length).toBeGreaterThan(0);
      expect(validatePluginConfig(candidate).map((error) => error.message).sort()).toEqual(expected);
    }
    const locks: unknown[] = [
      { name: 'Front Door', owner_email: 'olivia@example.com', address: 'D0:E1:00:00:00:01', key: 'ab'.repeat(32) },
      { name: '', owner_email: 'nobody', family: 'acme', extra: true },
      { name: 'x'.repeat(200), owner_email: 'olivia@example.com', id: 'nope' },
    ];
    for (const candidate of locks) {
      const valid = lock(candidate);
      const problems = lockEntryProblems(candidate);
      if (!valid) {
        // The same fields, each said once, in words (no "must match pattern …").
        const fields = new Set((lock.errors ?? []).map((error) => `${error.instancePath}${typeof error.params.additionalProperty === 'string' ? `/${error.params.additionalProperty}` : ''}`));
        expect(new Set(problems.map((problem) => problem.field))).toEqual(fields);
      }
      expect(problems.filter((problem) => problem.message.startsWith('must '))).toEqual([]);
    }
  });
});

interface JsonSchemaNode {
  type?: string | string[];
  required?: boolean | string[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  enum?: unknown[];
  oneOf?: { enum?: unknown[] }[];
  anyOf?: JsonSchemaNode[];
  const?: unknown;
}

/** The shape of a node the form shows: of a union the form edits in one shape (`x-form-choice`), that one. */
function formShape(node: JsonSchemaNode): JsonSchemaNode {
  const choice = (node as { 'x-form-choice'?: number })['x-form-choice'];
  const shape = choice === undefined ? undefined : node.anyOf?.[choice];
  return shape ?? node.anyOf?.find((variant) => variant.type === 'object' || variant.type === 'array') ?? node;
}

/** Every property path of a schema (`locks[].family`, `api.port`, …). */
function paths(node: JsonSchemaNode, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    out.push(path);
    const inner = formShape(child);
    if (inner.type === 'object') out.push(...paths(inner, path));
    if (inner.type === 'array' && inner.items !== undefined) out.push(...paths(inner.items, `${path}[]`));
  }
  return out;
}

/** The allowed values of an enum-like property in either schema style. */
function allowed(node: JsonSchemaNode | undefined): unknown[] {
  if (node === undefined) return [];
  if (node.enum !== undefined) return node.enum;
  if (node.oneOf !== undefined) return node.oneOf.flatMap((variant) => variant.enum ?? []);
  if (node.anyOf !== undefined) return node.anyOf.map((variant) => variant.const);
  return [];
}

/** Every property of a schema by path, with whether its parent requires it. */
function nodes(node: JsonSchemaNode, prefix = ''): Map<string, { node: JsonSchemaNode; required: boolean }> {
  const out = new Map<string, { node: JsonSchemaNode; required: boolean }>();
  const requiredList = Array.isArray(node.required) ? node.required : [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    out.set(path, { node: child, required: requiredList.includes(name) || child.required === true });
    const inner = formShape(child);
    if (inner.type === 'object') for (const [key, value] of nodes(inner, path)) out.set(key, value);
    if (inner.type === 'array' && inner.items !== undefined) for (const [key, value] of nodes(inner.items, `${path}[]`)) out.set(key, value);
  }
  return out;
}

/** What a property accepts, in a form both schema styles reduce to. */
function constraints(entry: { node: JsonSchemaNode; required: boolean }): Record<string, unknown> {
  const { node } = entry;
  const variants = node.anyOf ?? [node];
  const types = new Set<string>();
  for (const variant of variants) {
    const type = variant.type ?? (variant.const !== undefined ? typeof variant.const : undefined);
    for (const one of Array.isArray(type) ? type : type === undefined ? [] : [type]) types.add(one);
  }
  const main = variants.find((variant) => variant.type !== 'null') ?? node;
  const picked: Record<string, unknown> = { type: [...types].sort(), required: entry.required };
  for (const keyword of ['format', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems'] as const) {
    if (main[keyword] !== undefined) picked[keyword] = main[keyword];
  }
  return picked;
}

describe('config.schema.json (the Homebridge UI form)', () => {
  const file = JSON.parse(readFileSync(new URL('../../../config.schema.json', import.meta.url), 'utf8')) as { schema: JsonSchemaNode };
  const code = PluginConfigSchema as unknown as JsonSchemaNode;
  // Homebridge's own keys, not ours to describe (the form asks for the platform's name).
  const homebridgeKeys = new Set(['platform', '_bridge']);
  const homebridgeRules = new Set(['name']);

  it('offers exactly the settings the plugin validates (no field missing from the form, none the plugin would refuse)', () => {
    expect(paths(file.schema).sort()).toEqual(paths(code).filter((path) => !homebridgeKeys.has(path)).sort());
  });

  it('states for every setting the type and limits the plugin validates with (a hand copy that drifted fails here)', () => {
    const inFile = nodes(file.schema);
    const inCode = nodes(code);
    const drift: string[] = [];
    for (const [path, entry] of inCode) {
      if (homebridgeKeys.has(path) || homebridgeRules.has(path)) continue;
      // A union the form edits in one of its shapes (src/config/plugin-config-schema.ts `x-form-choice`).
      const choice = (entry.node as { 'x-form-choice'?: number })['x-form-choice'];
      if (choice !== undefined && entry.node.anyOf?.[choice] !== undefined) entry.node = { ...entry.node.anyOf[choice], anyOf: undefined };
      const fileEntry = inFile.get(path);
      if (fileEntry === undefined) continue; // the path test above reports it
      const expected = JSON.stringify(constraints(entry));
      const actual = JSON.stringify(constraints(fileEntry));
      if (expected !== actual) drift.push(`${path}: code ${expected}, config.schema.json ${actual}`);
    }
    expect(drift).toEqual([]);
  });

  it('offers the lock families the plugin knows, each under its own title', () => {
    const familyInCode = code.properties?.locks?.items?.properties?.family;
    const familyInFile = file.schema.properties?.locks?.items?.properties?.family;
    expect(allowed(familyInFile).sort()).toEqual(allowed(familyInCode).sort());
    expect(familyInFile?.oneOf).toEqual(LOCK_FAMILIES.map((family) => ({ title: family.formTitle, enum: [family.id] })));
  });

  it('has no default the form would write into an entry nobody filled in: only checkboxes have one (the code\'s default), and the platform\'s name', () => {
    const defaults: string[] = [];
    const walk = (node: JsonSchemaNode & { default?: unknown }, path: string): void => {
      if (node.default !== undefined) defaults.push(`${path}: ${node.type === 'boolean' ? 'checkbox' : JSON.stringify(node.default)}`);
      for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, path === '' ? name : `${path}.${name}`);
      if (node.items !== undefined) walk(node.items, `${path}[]`);
    };
    walk(file.schema, '');
    expect(defaults.filter((entry) => !entry.endsWith(': checkbox'))).toEqual(['name: "eKey Locks"']);
  });

  it('lets the form edit every field of a lock, in the layout (a field missing from it cannot be set in the form)', () => {
    const layout = JSON.stringify((JSON.parse(readFileSync(new URL('../../../config.schema.json', import.meta.url), 'utf8')) as { layout: unknown }).layout);
    for (const field of Object.keys(file.schema.properties?.locks?.items?.properties ?? {})) expect(layout).toContain(`"locks[].${field}`);
  });
});
