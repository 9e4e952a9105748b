/**
 * The service thread's bundle (scripts/service-thread-bundle.mjs), as the tests' build makes it
 * and `npm run build` does: one entry file for everything a start runs, and what the service
 * imports on first use left in chunks of its own. The BlueZ stack (dbus-next, node-ble) must not
 * load with the entry: the demo's simulator never needs it, and a gateway loads it at its first
 * scan or connection (docs/architecture.md "Start-up").
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuild } from '../../support/child-process.js';

/** The modules a file imports statically (loaded with it), and those it imports with `import()`. */
function importsOf(text: string): { static: string[]; dynamic: string[] } {
  const statics = [...text.matchAll(/(?:^|[;}\s])import\s*(?:[\w$*{},\s]+?\s*from\s*)?["']([^"']+)["']/g)].map((match) => match[1] ?? '');
  const dynamic = [...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1] ?? '');
  return { static: statics, dynamic };
}

describe('the service thread bundle', () => {
  const workerDir = join(ensureBuild(), 'worker');
  const entry = readFileSync(join(workerDir, 'service-thread.js'), 'utf8');

  it('loads no BlueZ module with its entry', () => {
    const { static: statics } = importsOf(entry);
    // The parser sees the entry's imports (the thread's own port is one of them) …
    expect(statics).toContain('node:worker_threads');
    // … and none of them is the BlueZ stack.
    expect(statics.filter((name) => /^(dbus-next|node-ble)(\/|$)/.test(name))).toEqual([]);
  });

  it('keeps the BlueZ transport in a chunk the entry imports on first use', () => {
    const chunks = readdirSync(join(workerDir, 'service-thread-chunks'));
    const bluez = chunks.filter((name) => {
      const { static: statics } = importsOf(readFileSync(join(workerDir, 'service-thread-chunks', name), 'utf8'));
      return statics.includes('dbus-next');
    });
    expect(bluez).toHaveLength(1);
    expect(importsOf(entry).dynamic).toContain(`./service-thread-chunks/${bluez[0] ?? ''}`);
  });

  it('leaves out the YAML parser and the rate limiter backends the service never uses', () => {
    // esbuild names each CommonJS module it wraps by its path.
    expect(entry).toContain('YAML is not part of the service thread');
    expect(entry).not.toContain('"node_modules/yaml/');
    expect(entry).toContain('"node_modules/rate-limiter-flexible/lib/RateLimiterMemory.js"');
    expect(entry).not.toMatch(/"node_modules\/rate-limiter-flexible\/lib\/RateLimiter(Redis|Mongo|MySQL|Postgres|StoreAbstract)\.js"/);
  });

  it('is the emitted code without comments, names kept', () => {
    expect(entry).not.toMatch(/\/\*\*\s/);
    expect(entry).toContain('function hashPassword(');
  });
});
