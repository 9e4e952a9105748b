/**
 * The service thread's code cache (src/worker/service-thread-code.ts), with V8's real cache on small
 * bundles in a temporary folder: which cache a start uses, that a cache for other source is never
 * offered (V8 itself checks only the length), that a cache V8 refuses costs nothing but the compile,
 * and that writing one never fails a start.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILD_CACHE_SUFFIX, RUN_CACHE_SUFFIX, loadServiceThread, writeBuildCache, writeBuildCacheAtInstall } from '../../../src/worker/service-thread-code.js';
import { ensureBuild } from '../../support/child-process.js';

/** A CommonJS bundle: exports what it was given and a function of its own; `tag` is one character. */
const bundleSource = (tag: string): string =>
  [
    "'use strict';",
    "const { join } = require('node:path');",
    `exports.tag = '${tag}';`,
    'exports.file = __filename;',
    'exports.dir = __dirname;',
    'exports.joined = join(__dirname, "x");',
    'exports.sum = function sum(values) { let total = 0; for (const value of values) total += value; return total; };',
    // Enough code for V8 to have something to cache.
    ...Array.from({ length: 200 }, (_, index) => `exports.f${index} = function f${index}(a) { return a * ${index} + ${index}; };`),
  ].join('\n');

/**
 * Runs the built module in a child Node with `nodeArgs`: `build` writes the build cache, `load`
 * loads the bundle (and with `save` writes the run cache). A process of its own: V8 also keeps
 * compiled code per isolate and would answer from there, and a cache holds the V8 flags it was made with.
 */
function inChild(bundle: string, step: 'build' | 'load' | 'load+save', nodeArgs: readonly string[] = []): { cacheUse?: string; tag?: unknown; saved?: boolean } {
  const module = pathToFileURL(join(ensureBuild(), 'worker', 'service-thread-code.js')).href;
  const script =
    step === 'build'
      ? `const { writeBuildCache } = await import(${JSON.stringify(module)}); writeBuildCache(${JSON.stringify(bundle)}); console.log('{}');`
      : [
          `const { loadServiceThread } = await import(${JSON.stringify(module)});`,
          `const thread = loadServiceThread(${JSON.stringify(bundle)});`,
          `const saved = ${step === 'load+save' ? 'await thread.saveRunCache()' : 'undefined'};`,
          'console.log(JSON.stringify({ cacheUse: thread.cacheUse, tag: thread.exports.tag, saved }));',
        ].join('\n');
  const child = spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as { cacheUse?: string; tag?: unknown; saved?: boolean };
}

describe('the service thread code cache', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  const bundleIn = (tag = 'a'): string => {
    const folder = mkdtempSync(join(tmpdir(), 'ekey-code-cache-'));
    folders.push(folder);
    const bundle = join(folder, 'service-thread.cjs');
    writeFileSync(bundle, bundleSource(tag));
    return bundle;
  };

  it('runs the bundle as a CommonJS module: its exports, require, __filename and __dirname', () => {
    const bundle = bundleIn();
    const thread = loadServiceThread(bundle);
    expect(thread.cacheUse).toBe('none');
    expect(thread.exports.tag).toBe('a');
    expect(thread.exports.file).toBe(bundle);
    expect(thread.exports.joined).toBe(join(bundle, '..', 'x'));
    expect((thread.exports.sum as (values: number[]) => number)([1, 2, 3])).toBe(6);
  });

  it('uses the build cache, then writes a run cache that the next start uses instead, and rewrites nothing then', async () => {
    const bundle = bundleIn();
    writeBuildCache(bundle);
    expect(existsSync(bundle + BUILD_CACHE_SUFFIX)).toBe(true);
    const first = loadServiceThread(bundle);
    expect(first.cacheUse).toBe('build');
    (first.exports.f7 as (a: number) => number)(1);
    await expect(first.saveRunCache()).resolves.toBe(true);
    const second = loadServiceThread(bundle);
    expect(second.cacheUse).toBe('run');
    expect((second.exports.f7 as (a: number) => number)(2)).toBe(21);
    await expect(second.saveRunCache()).resolves.toBe(false);
    // No temporary file is left behind.
    expect(readdirSync(join(bundle, '..')).sort()).toEqual(['service-thread.cjs', `service-thread.cjs${BUILD_CACHE_SUFFIX}`, `service-thread.cjs${RUN_CACHE_SUFFIX}`]);
  });

  it('never offers a cache made from other source, even of the same length (V8 would take it)', async () => {
    const bundle = bundleIn('a');
    writeBuildCache(bundle);
    await loadServiceThread(bundle).saveRunCache();
    // One character changed: the same length, other code.
    writeFileSync(bundle, bundleSource('b'));
    const changed = loadServiceThread(bundle);
    expect(changed.cacheUse).toBe('none');
    expect(changed.exports.tag).toBe('b');
    // The start then writes a run cache for the code it runs.
    await expect(changed.saveRunCache()).resolves.toBe(true);
    expect(loadServiceThread(bundle).cacheUse).toBe('run');
  });

  it('in a fresh process, V8 takes the build and the run cache, refuses bytes that are not its own, and the start runs either way', () => {
    const bundle = bundleIn();
    inChild(bundle, 'build');
    expect(inChild(bundle, 'load+save')).toEqual({ cacheUse: 'build', tag: 'a', saved: true });
    expect(inChild(bundle, 'load+save')).toEqual({ cacheUse: 'run', tag: 'a', saved: false });
    // The right source hash before bytes that are not V8's.
    const cache = readFileSync(bundle + RUN_CACHE_SUFFIX);
    writeFileSync(bundle + RUN_CACHE_SUFFIX, Buffer.concat([cache.subarray(0, 32), Buffer.alloc(cache.length - 32, 7)]));
    expect(inChild(bundle, 'load+save')).toEqual({ cacheUse: 'refused', tag: 'a', saved: true });
    // That start replaced it with one V8 takes.
    expect(inChild(bundle, 'load')).toEqual({ cacheUse: 'run', tag: 'a' });
  });

  it('a cache made with other V8 flags is refused, and the start with these flags writes one of its own', () => {
    // Homebridge started with a V8 flag that the build or install did not have. `--no-opt` changes
    // V8's flag hash on every supported Node; heap sizes (--max-old-space-size) do on 20 and 22, not on 24.
    const bundle = bundleIn();
    inChild(bundle, 'build');
    const flags = ['--no-opt'];
    expect(inChild(bundle, 'load+save', flags)).toEqual({ cacheUse: 'refused', tag: 'a', saved: true });
    expect(inChild(bundle, 'load', flags)).toEqual({ cacheUse: 'run', tag: 'a' });
  });

  it('a new build cache removes the run cache of the bundle it replaces', async () => {
    const bundle = bundleIn();
    writeBuildCache(bundle);
    await loadServiceThread(bundle).saveRunCache();
    writeBuildCache(bundle);
    expect(existsSync(bundle + RUN_CACHE_SUFFIX)).toBe(false);
    expect(loadServiceThread(bundle).cacheUse).toBe('build');
  });

  it('a folder it cannot write: the start runs, the run cache is not written, nothing is thrown', async () => {
    const bundle = bundleIn();
    const thread = loadServiceThread(bundle);
    expect(thread.exports.tag).toBe('a');
    // Gone since (root writes anywhere, so a folder that is not there stands in for a read-only one).
    rmSync(join(bundle, '..'), { recursive: true, force: true });
    await expect(thread.saveRunCache()).resolves.toBe(false);
  });

  it('at install: writes the build cache when the bundle is there, and does nothing (no throw) when it is not', () => {
    const bundle = bundleIn();
    writeBuildCacheAtInstall(bundle);
    expect(loadServiceThread(bundle).cacheUse).toBe('build');
    const missing = join(bundle, '..', 'nothing-here.cjs');
    expect(() => {
      writeBuildCacheAtInstall(missing);
    }).not.toThrow();
    expect(existsSync(missing + BUILD_CACHE_SUFFIX)).toBe(false);
  });
});
