import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { PluginConfigSchema } from '../../../src/config/plugin-config.js';

interface JsonSchemaNode {
  type?: string;
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

describe('config.schema.json (the Homebridge UI form)', () => {
  const file = JSON.parse(readFileSync(new URL('../../../config.schema.json', import.meta.url), 'utf8')) as { schema: JsonSchemaNode };
  const code = PluginConfigSchema as unknown as JsonSchemaNode;
  // Homebridge's own keys, not ours to describe.
  const homebridgeKeys = new Set(['platform', '_bridge']);

  it('offers exactly the settings the plugin validates (no field missing from the form, none the plugin would refuse)', () => {
    expect(paths(file.schema).sort()).toEqual(paths(code).filter((path) => !homebridgeKeys.has(path)).sort());
  });

  it('offers the lock families the plugin knows', () => {
    const familyInCode = code.properties?.locks?.items?.properties?.family;
    const familyInFile = file.schema.properties?.locks?.items?.properties?.family;
    expect(allowed(familyInFile).sort()).toEqual(allowed(familyInCode).sort());
    expect(allowed(familyInFile).sort()).toEqual(['ekey', 'nuki']);
  });
});
