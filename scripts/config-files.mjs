#!/usr/bin/env node
/**
 * Makes the two files that come from the plugin config's schema (src/config/plugin-config-schema.ts,
 * TypeBox) and form (src/config/plugin-config-form.ts):
 *
 * - config.schema.json, the Homebridge UI's form: the schema in the form's dialect (property-level
 *   `required: true`, `oneOf` with a title per choice, `["integer", "null"]`), with the form's
 *   words (`title`, `description`, `placeholder`) and the layout;
 * - src/config/plugin-config-validators.generated.ts, the config's two validators (the whole
 *   config, one `locks[]` entry) as Ajv's own standalone code, with what the check's lines say of
 *   each field (its title, what it must look like, the values that mean "not set"). Why generated:
 *   the platform checks the config on Homebridge's main thread, and compiling it there meant loading
 *   Ajv, ajv-formats and TypeBox into Homebridge's own heap (~5 MiB it kept for good) and ~0.1 s of
 *   compiling; the generated functions need only two small runtime modules
 *   (docs/architecture.md "Start-up").
 *
 *   npm run build                       # runs it after tsc (and writes the compiled copy in dist/)
 *   npm run config-files                # the same, on its own (it builds first)
 *   node scripts/config-files.mjs [buildDir] [--print-validators | --print-schema]
 *
 * `buildDir` holds the compiled schemas (default dist/). test/unit/config/config-files.test.ts fails
 * while a committed file is not what this makes.
 */
import { Ajv } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CONFIG_VALIDATORS_FILE = join(ROOT, 'src', 'config', 'plugin-config-validators.generated.ts');
export const CONFIG_SCHEMA_FILE = join(ROOT, 'config.schema.json');

const standaloneCode = standaloneCodeModule.default ?? standaloneCodeModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

/** Keywords for people (the form, the error lines), not rules: left out of the validators. */
const WORDS = ['title', 'description', 'placeholder', 'x-schema-form', 'x-hint', 'x-unset', 'x-form-choice', 'x-add-button', 'default'];
/** Keywords of ours that the form does not read: left out of config.schema.json. */
const OURS = ['x-hint', 'x-unset', 'x-form-choice', 'x-add-button'];

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A deep copy of `node` without the keywords in `drop` (the names of properties are kept, whatever they are). */
function without(node, drop) {
  if (Array.isArray(node)) return node.map((item) => without(item, drop));
  if (!isObject(node)) return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (drop.includes(key)) continue;
    if (key === 'properties' || key === 'patternProperties') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, without(child, drop)]));
    } else {
      out[key] = without(value, drop);
    }
  }
  return out;
}

/** A union of string constants (`Type.Union([Type.Literal(…), …])`): the form shows it as a choice. */
const isChoice = (node) => Array.isArray(node.anyOf) && node.anyOf.length > 0 && node.anyOf.every((variant) => variant.const !== undefined);

/** One schema node in the Homebridge form's dialect. */
function toForm(node) {
  if (!isObject(node)) return node;
  const words = {};
  for (const key of ['title', 'description', 'placeholder', 'default', 'x-schema-form']) if (node[key] !== undefined) words[key] = node[key];
  if (Array.isArray(node.anyOf) && node['x-form-choice'] !== undefined) {
    // A union the form can edit in one of its shapes only (src/config/plugin-config-schema.ts).
    return { ...toForm(node.anyOf[node['x-form-choice']]), ...words };
  }
  if (isChoice(node)) {
    return { ...words, type: 'string', oneOf: node.anyOf.map((variant) => ({ title: variant.title ?? String(variant.const), enum: [variant.const] })) };
  }
  if (Array.isArray(node.anyOf) && node.anyOf.length === 2 && node.anyOf.some((variant) => variant.type === 'null')) {
    // `Type.Union([X, Type.Null()])`: the form's nullable field.
    const main = toForm(node.anyOf.find((variant) => variant.type !== 'null'));
    return { ...main, ...words, type: [main.type, 'null'] };
  }
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (OURS.includes(key) || key === 'required' || key === 'additionalProperties') continue;
    if (key === 'properties') {
      const required = Array.isArray(node.required) ? node.required : [];
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, required.includes(name) ? { ...toForm(child), required: true } : toForm(child)]),
      );
    } else if (key === 'patternProperties') {
      // `Type.Record(Type.String(), X)`: any name, each value an X.
      const [only] = Object.values(value);
      out.additionalProperties = toForm(only);
    } else if (key === 'items') {
      out.items = toForm(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** config.schema.json's text. */
export async function configSchemaSource(buildDir) {
  const { PluginConfigSchema } = await import(pathToFileURL(join(buildDir, 'config', 'plugin-config-schema.js')).href);
  const { CONFIG_FORM } = await import(pathToFileURL(join(buildDir, 'config', 'plugin-config-form.js')).href);
  const schema = toForm(PluginConfigSchema);
  // Homebridge's own key, not a setting of ours.
  delete schema.properties.platform;
  // Homebridge logs with the platform's name: the form asks for it.
  schema.properties.name = { ...schema.properties.name, required: true };
  const { layout, ...form } = CONFIG_FORM;
  return `${JSON.stringify({ ...form, schema, layout }, null, 2)}\n`;
}

/**
 * What the check says of each field, by its place (`locks[].address`, `api.port`): its title, what a
 * value must look like (`x-hint`), and the values that mean the same as leaving it out (the form's
 * checkbox `default`, and `x-unset`: the code's default, which the form leaves empty).
 */
function fieldWords(node, path, out) {
  if (!isObject(node)) return out;
  if (path !== '') {
    const entry = {};
    if (node.title !== undefined) entry.title = node.title;
    if (node['x-hint'] !== undefined) entry.hint = node['x-hint'];
    if (isChoice(node)) entry.choices = node.anyOf.map((variant) => variant.const);
    if (node['x-schema-form']?.type === 'password') entry.secret = true;
    const unset = [];
    if (node.default !== undefined && node.type === 'boolean') unset.push(node.default);
    if (node['x-unset'] !== undefined) unset.push(node['x-unset']);
    if (unset.length > 0) entry.unset = unset;
    if (Object.keys(entry).length > 0) out[path] = entry;
  }
  for (const [name, child] of Object.entries(node.properties ?? {})) fieldWords(child, path === '' ? name : `${path}.${name}`, out);
  if (isObject(node.items)) fieldWords(node.items, `${path}[]`, out);
  for (const variant of node.anyOf ?? []) if (variant.type === 'object' || variant.type === 'array') fieldWords(variant, path, out);
  return out;
}

/** The generated validators module's text, from the compiled schemas in `buildDir`. */
export async function configValidatorsSource(buildDir) {
  const { PluginConfigSchema, LockConfigSchema } = await import(pathToFileURL(join(buildDir, 'config', 'plugin-config-schema.js')).href);
  // The check's options: every error at once; the schemas are ours and tested, so no meta-schema check.
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, code: { source: true, esm: true } });
  addFormats(ajv);
  ajv.addSchema(without(PluginConfigSchema, WORDS), 'config');
  ajv.addSchema(without(LockConfigSchema, WORDS), 'lock');
  let code = standaloneCode(ajv, { validateConfig: 'config', validateLock: 'lock' }).replace(/^"use strict";/, '');
  // Ajv's ES module output still require()s its runtime helpers and the formats: import them instead.
  const imports = new Map();
  code = code.replace(/require\("([^"]+)"\)/g, (_match, specifier) => {
    if (!imports.has(specifier)) imports.set(specifier, `ajvImport${imports.size}`);
    return imports.get(specifier);
  });
  const importLines = [...imports].map(([specifier, name]) => `import ${name} from '${specifier}.js';`);
  return [
    '/* eslint-disable */',
    '// @ts-nocheck',
    '// Generated by scripts/config-files.mjs from src/config/plugin-config-schema.ts: do not edit.',
    '// Regenerate with `npm run config-files` (npm run build does too); test/unit/config/config-files.test.ts keeps it current.',
    ...importLines,
    `export const configFieldWords = ${JSON.stringify(fieldWords(PluginConfigSchema, '', {}))};`,
    code,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const buildDir = args.find((arg) => !arg.startsWith('--')) ?? join(ROOT, 'dist');
  if (args.includes('--print-validators')) {
    process.stdout.write(await configValidatorsSource(buildDir));
  } else if (args.includes('--print-schema')) {
    process.stdout.write(await configSchemaSource(buildDir));
  } else {
    const validators = await configValidatorsSource(buildDir);
    writeFileSync(CONFIG_VALIDATORS_FILE, validators);
    // The build's own copy, so dist/ never holds validators older than its schema.
    const compiled = join(buildDir, 'config', 'plugin-config-validators.generated.js');
    if (existsSync(join(buildDir, 'config'))) writeFileSync(compiled, validators);
    writeFileSync(CONFIG_SCHEMA_FILE, await configSchemaSource(buildDir));
  }
}
