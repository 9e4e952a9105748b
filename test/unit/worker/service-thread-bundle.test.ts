/**
 * The service thread's bundle (scripts/service-thread-bundle.mjs), as the tests' build makes it
 * and `npm run build` does: one CommonJS file for everything the thread runs, its code cache beside
 * it, and what the service imports on first use required only then. The BlueZ stack (dbus-next,
 * node-ble) must not load with the bundle: the demo's simulator never needs it, and a gateway loads
 * it at its first scan or connection (docs/architecture.md "Start-up").
 */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuild } from '../../support/child-process.js';

/** Every `require("<name>")` of the bundle, and those that run only when the module holding them is first imported. */
function requiresOf(text: string, names: RegExp): { all: number; deferred: number } {
  const all = [...text.matchAll(/\brequire\("([^"]+)"\)/g)].filter((match) => names.test(match[1] ?? '')).length;
  // esbuild wraps a module reached only through `import()` in `__esm({ "<path>"() { … } })`, run on first use;
  // the external modules it imports are its first statements.
  let deferred = 0;
  for (const wrapper of text.matchAll(/__esm\(\{"[^"]*\/gateway\/transports\/(?:[\w-]+\/)*[\w-]+\.js"\(\)\{(?:"use strict";)?((?:import_\w+=__toESM\(require\("[^"]+"\),1\);?)*)/g)) {
    deferred += [...(wrapper[1] ?? '').matchAll(/require\("([^"]+)"\)/g)].filter((match) => names.test(match[1] ?? '')).length;
  }
  return { all, deferred };
}

describe('the service thread bundle', () => {
  const workerDir = join(ensureBuild(), 'worker');
  const entry = readFileSync(join(workerDir, 'service-thread.cjs'), 'utf8');

  it('requires the BlueZ stack only inside the transport modules that run on first use', () => {
    const bluez = requiresOf(entry, /^(dbus-next|node-ble)(\/|$)/);
    expect(bluez.all).toBeGreaterThan(0);
    expect(bluez.deferred).toBe(bluez.all);
    // The transport itself is reached only through import(), which is now a require on first use.
    expect(entry).toMatch(/Promise\.resolve\(\)\.then\(\(\)=>\(init_bluez_transport\(\),bluez_transport_exports\)\)/);
    expect(entry).not.toMatch(/\bimport\(/);
  });

  it('leaves the MQTT client outside, required from node_modules only when MQTT is configured', () => {
    // Its ~350 KB (mqtt, mqtt-packet, readable-stream, ws) would be parsed and cached at every start, MQTT or not.
    expect(entry).not.toMatch(/"node_modules\/(mqtt|mqtt-packet|readable-stream|ws)\//);
    const requires = [...entry.matchAll(/.{0,40}\brequire\("mqtt"\)/g)].map((match) => match[0]);
    expect(requires.length).toBeGreaterThan(0);
    for (const found of requires) expect(found).toMatch(/Promise\.resolve\(\)\.then\(\(\)=>__toESM\(require\("mqtt"\)$/);
  });

  it('has its code cache beside it, made from this very bundle', () => {
    const cache = readFileSync(join(workerDir, 'service-thread.cjs.build-cache'));
    expect(cache.subarray(0, 32).equals(createHash('sha256').update(entry).digest())).toBe(true);
    expect(cache.length).toBeGreaterThan(1024);
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
