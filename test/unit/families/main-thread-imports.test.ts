import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * docs/design.md §2 "The plug-in contract": Homebridge's main thread loads the families'
 * descriptors only — never a driver, a protocol (and its crypto), pairing or a simulator; those
 * load on the service's thread (`descriptor.load()`, a dynamic import). Checked on the static
 * import graph of src/index.ts, the module Homebridge loads: every `import`/`export … from` that
 * is not type-only, followed through src/ (dynamic `import()` is not followed: it runs only
 * when called).
 */

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** The src/ files a module loads at once (value imports and re-exports, relative ones). */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const found: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.phaseModifier === ts.SyntaxKind.TypeKeyword) continue;
      // `import { type A, type B } from …` loads nothing either.
      const named = clause?.namedBindings;
      if (clause !== undefined && clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((element) => element.isTypeOnly)) continue;
      specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined) {
      if (statement.isTypeOnly) continue;
      specifier = statement.moduleSpecifier;
    }
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const target = resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts'));
    if (existsSync(target)) found.push(target);
  }
  return found;
}

function graphFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() ?? '';
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...staticImports(file));
  }
  return seen;
}

describe("Homebridge's main thread (src/index.ts and what it imports at once)", () => {
  const loaded = [...graphFrom(join(SRC, 'index.ts'))].map((file) => relative(SRC, file)).sort();
  const familyFiles = loaded.filter((file) => file.startsWith('families/'));

  it('loads the registry and each family\'s descriptor', () => {
    expect(familyFiles).toEqual(expect.arrayContaining(['families/registry.ts', 'families/ekey/ekey-family.ts', 'families/nuki/nuki-family.ts']));
  });

  it('loads no driver, protocol, pairing, simulator or other heavy part of any family', () => {
    const light = new Set(['families/registry.ts', 'families/lock-family.ts', 'families/lock-family-module.ts', 'families/pairing-errors.ts']);
    const heavy = familyFiles.filter((file) => !light.has(file) && !/^families\/[^/]+\/[^/]+-family\.ts$/.test(file));
    expect(heavy).toEqual([]);
  });

  it('loads no transport, gateway core or store either (the service thread has them)', () => {
    expect(loaded.filter((file) => /^(gateway|store\/migrations|locks|demo)\//.test(file))).toEqual([]);
  });
});

describe("the service thread's static imports (src/service-root.ts)", () => {
  const loaded = [...graphFrom(join(SRC, 'service-root.ts'))].map((file) => relative(SRC, file)).sort();

  it('reach the ESPHome proxies only through their light radio: the transport, its protocol and Noise load with import() when proxies are configured (docs/design.md §4e)', () => {
    expect(loaded).toContain('gateway/transports/esphome/esphome-radio.ts');
    expect(loaded.filter((file) => file.startsWith('gateway/transports/esphome/') && file !== 'gateway/transports/esphome/esphome-radio.ts')).toEqual([]);
  });
});
