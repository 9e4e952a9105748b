import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/*
 * The service thread's code and V8's code cache for it (docs/architecture.md "Start-up").
 *
 * `npm run build` bundles the thread (dist/worker/service-worker.js and everything it imports) into
 * one CommonJS file, dist/worker/service-thread.cjs (scripts/service-thread-bundle.mjs). Compiling
 * its 2 MB is the largest single cost of a start (~60-70 ms of CPU on a fast core; ×4 on a quarter
 * core). V8 can skip most of it with a code cache: the bytecode of an earlier compile, checked by V8
 * against the source and its own version and flags, and refused when they differ. Node 22's
 * `module.enableCompileCache()` does this for modules; on every supported Node, `vm.Script` with
 * `cachedData` does it for a script, which is how this file loads the bundle:
 *
 * - `<bundle>.build-cache`: the compiled top level, written at build (`npm run build`) and at install
 *   (`postinstall`), with the Node that runs it — so the first start after an install uses it;
 * - `<bundle>.cache`: written by the thread a minute after the service opened (its start's peak long
 *   past), when it did not start from it: then it holds every function the start ran (V8 adds what
 *   was compiled since), so later starts skip those compiles too.
 *
 * V8 checks a cache against its own version and flags and the source's length only, so each file
 * starts with the SHA-256 of the source it was made from, and a cache for other source is not offered.
 * A cache V8 refuses (another Node, other flags) costs nothing but the compile it would have saved,
 * and the next start writes a fresh one. Both files sit next to the code they
 * cache: whoever can write them can write the code itself. Writes go to a temporary name first and
 * are renamed into place, so a concurrent start reads a whole cache or none; a read-only install
 * simply never has a run cache.
 */

/** The bundle's file name, next to this module in dist/worker/. */
export const SERVICE_THREAD_BUNDLE = 'service-thread.cjs';
/** Suffix of the cache written after a start (what the start compiled). */
export const RUN_CACHE_SUFFIX = '.cache';
/** Suffix of the cache written at build and install (the compiled top level). */
export const BUILD_CACHE_SUFFIX = '.build-cache';

/** Which cache the compile used: the run cache, the build cache, none present, or one V8 refused. */
export type CodeCacheUse = 'run' | 'build' | 'none' | 'refused';

// The CommonJS wrapper, on the bundle's first line (stack traces keep its line numbers).
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAPPER_TAIL = '\n})';

type CommonJsWrapper = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

const HASH_BYTES = 32;

interface Compiled {
  script: Script;
  /** SHA-256 of the bundle's source. */
  hash: Buffer;
}

function compile(bundle: string, cacheFiles: readonly string[]): Compiled & { offered: string | undefined } {
  // Hashed as bytes (as a string it would be encoded to UTF-8 again first: ~2x the time).
  const bytes = readFileSync(bundle);
  const hash = createHash('sha256').update(bytes).digest();
  const source = bytes.toString('utf8');
  // The first cache made from this very source; V8 itself checks only its length.
  let offered: string | undefined;
  let cachedData: Buffer | undefined;
  for (const file of cacheFiles) {
    const cache = readIfPresent(file);
    if (cache === undefined || cache.length <= HASH_BYTES || !cache.subarray(0, HASH_BYTES).equals(hash)) continue;
    offered = file;
    cachedData = cache.subarray(HASH_BYTES);
    break;
  }
  const script = new Script(`${WRAPPER_HEAD}${source}${WRAPPER_TAIL}`, {
    filename: bundle,
    columnOffset: -WRAPPER_HEAD.length,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  return { script, hash, offered };
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** A cache file's bytes: the source's hash, then V8's data. */
const cacheBytes = ({ script, hash }: Compiled): Buffer => Buffer.concat([hash, script.createCachedData()]);

/** The bundle, compiled (with a cache when V8 takes one) and run: its exports, and how to keep what it compiled. */
export interface LoadedServiceThread {
  readonly exports: Record<string, unknown>;
  readonly cacheUse: CodeCacheUse;
  /**
   * Writes the run cache from what has been compiled so far, unless this start used the run cache
   * (then it holds the same). Resolves with whether it wrote; never rejects.
   */
  saveRunCache(): Promise<boolean>;
}

/** Compiles and runs `bundle` as a CommonJS module, with the run cache, else the build cache, when present. */
export function loadServiceThread(bundle: string): LoadedServiceThread {
  const compiled = compile(bundle, [bundle + RUN_CACHE_SUFFIX, bundle + BUILD_CACHE_SUFFIX]);
  const { script, offered } = compiled;
  const cacheUse: CodeCacheUse =
    offered === undefined ? 'none' : script.cachedDataRejected === true ? 'refused' : offered.endsWith(RUN_CACHE_SUFFIX) ? 'run' : 'build';
  const module = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as CommonJsWrapper)(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return {
    exports: module.exports,
    cacheUse,
    saveRunCache: async () => {
      if (cacheUse === 'run') return false;
      const target = bundle + RUN_CACHE_SUFFIX;
      const staging = `${target}.${process.pid}-${Date.now()}.tmp`;
      try {
        await writeFile(staging, cacheBytes(compiled));
        await rename(staging, target);
        return true;
      } catch {
        await rm(staging, { force: true }).catch(() => undefined);
        return false;
      }
    },
  };
}

/**
 * Writes `<bundle>.build-cache` (the compiled top level) with this Node, replacing an older one, and
 * removes a run cache (it belongs to the bundle it replaced). Throws when the bundle cannot be
 * compiled or the file cannot be written.
 */
export function writeBuildCache(bundle: string): void {
  const target = bundle + BUILD_CACHE_SUFFIX;
  const staging = `${target}.${process.pid}-${Date.now()}.tmp`;
  try {
    writeFileSync(staging, cacheBytes(compile(bundle, [])));
    renameSync(staging, target);
  } finally {
    rmSync(staging, { force: true });
  }
  rmSync(bundle + RUN_CACHE_SUFFIX, { force: true });
}

/** The `postinstall` step: the build cache for the Node that installed the package; silent, never fails the install. */
export function writeBuildCacheAtInstall(bundle: string): void {
  try {
    if (existsSync(bundle)) writeBuildCache(bundle);
  } catch {
    // A read-only or odd install starts without it, as before the cache existed.
  }
}
