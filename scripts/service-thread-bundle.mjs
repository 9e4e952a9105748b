#!/usr/bin/env node
/**
 * Bundles the service's worker thread (dist/worker/service-worker.js and everything it imports,
 * our modules and their dependencies) into one CommonJS file, dist/worker/service-thread.cjs, and
 * writes V8's code cache for it with this Node (dist/worker/service-thread.cjs.build-cache). The
 * thread's entry, dist/worker/service-thread.js (src/worker/service-thread.ts), compiles the bundle
 * with that cache (src/worker/service-thread-code.ts). Why one file: the thread otherwise resolves,
 * stats, reads and compiles several hundred small ES and CommonJS modules at every start; why a
 * script and not an ES module: `vm.Script` takes the code cache written at build time, and
 * compiling the 2 MB bundle was the start's largest single cost (docs/performance.md "Start-up").
 * The code is the JavaScript tsc emitted without its comments and indentation; names are kept, so
 * stack traces still name every function.
 *
 * What the service imports with `import()` on first use (the BlueZ transport, and through it
 * dbus-next and node-ble; nodemailer) is required when first imported, not at load: esbuild turns
 * each `import()` into a deferred `require` (`supported: { 'dynamic-import': false }`), and a module
 * reached only that way is wrapped to run on first use (src/gateway/transports/shared/deferred-transport.ts).
 * `import.meta.url` is the bundle's own file URL.
 *
 * Left out altogether: the `yaml` package, which @fastify/swagger loads for YAML output the service
 * never produces (scripts/yaml-left-out.mjs stands in for it).
 *
 * Left outside the bundle, loaded from node_modules as before: the SQLite drivers (native
 * addons), the BlueZ stack (dbus-next, node-ble), nodemailer and the MQTT client (mqtt, with
 * mqtt-packet, readable-stream and ws: ~350 KB a start would parse and cache, MQTT or not), which
 * load on first use.
 *
 * `npm run build` runs it; so do the tests' builds (test/support/global-setup.ts, buildPluginFolder in
 * test/support/homebridge-process.ts).
 */
import { buildSync } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const SERVICE_THREAD_FILE = 'service-thread.cjs';

/** What earlier builds made and this one does not: an ES module bundle and its chunks. */
const EARLIER_OUTPUTS = ['service-thread-chunks', 'service-thread.js.map'];

export const SERVICE_THREAD_EXTERNALS = ['better-sqlite3', 'dbus-next', 'node-ble', 'nodemailer', 'mqtt'];

/** Bundles `<distDir>/worker/service-worker.js` into `<distDir>/worker/service-thread.cjs` and writes its build cache. */
export async function bundleServiceThread(distDir) {
  const workerDir = join(distDir, 'worker');
  for (const earlier of EARLIER_OUTPUTS) rmSync(join(workerDir, earlier), { recursive: true, force: true });
  const bundle = join(workerDir, SERVICE_THREAD_FILE);
  buildSync({
    entryPoints: [join(workerDir, 'service-worker.js')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: SERVICE_THREAD_EXTERNALS,
    // `import()` becomes a require on first use: a script has no dynamic import without a loader of its own.
    supported: { 'dynamic-import': false },
    // A CommonJS bundle has no import.meta: its URL is the bundle's own.
    banner: { js: 'const __serviceThreadUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { 'import.meta.url': '__serviceThreadUrl' },
    legalComments: 'eof',
    // Comments and indentation out (a third of the file): less to read, parse and keep in memory.
    minifyWhitespace: true,
    // @fastify/swagger's YAML output is never asked for: its parser stays out (yaml-left-out.mjs).
    alias: { yaml: fileURLToPath(new URL('./yaml-left-out.mjs', import.meta.url)) },
    logLevel: 'warning',
  });
  // The code cache belongs to this bundle and this Node (src/worker/service-thread-code.ts).
  const { writeBuildCache } = await import(pathToFileURL(join(workerDir, 'service-thread-code.js')).href);
  writeBuildCache(bundle);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundleServiceThread(process.argv[2] ?? join(fileURLToPath(new URL('..', import.meta.url)), 'dist'));
}
