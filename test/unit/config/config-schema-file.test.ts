import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { PluginConfigSchema } from '../../../src/config/plugin-config-schema.js';

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

/** Every property path of a schema (`locks[].family`, `api.port`, …). */
function paths(node: JsonSchemaNode, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    out.push(path);
    const inner = child.anyOf?.find((variant) => variant.type === 'object' || variant.type === 'array') ?? child;
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
    const inner = child.anyOf?.find((variant) => variant.type === 'object' || variant.type === 'array') ?? child;
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
      const fileEntry = inFile.get(path);
      if (fileEntry === undefined) continue; // the path test above reports it
      const expected = JSON.stringify(constraints(entry));
      const actual = JSON.stringify(constraints(fileEntry));
      if (expected !== actual) drift.push(`${path}: code ${expected}, config.schema.json ${actual}`);
    }
    expect(drift).toEqual([]);
  });

  it('offers the lock families the plugin knows', () => {
    const familyInCode = code.properties?.locks?.items?.properties?.family;
    const familyInFile = file.schema.properties?.locks?.items?.properties?.family;
    expect(allowed(familyInFile).sort()).toEqual(allowed(familyInCode).sort());
    expect(allowed(familyInFile).sort()).toEqual(['ekey', 'nuki', 'nuki-opener']);
  });
});
