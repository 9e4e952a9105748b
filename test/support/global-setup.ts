import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/*
 * Jest loads this file without its moduleNameMapper, so it imports nothing relative;
 * test/support/child-process.ts re-exports what tests need from here.
 */

/** The project root (this file lives in test/support). */
export const PROJECT_ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
const SOURCE_DIR = join(PROJECT_ROOT, 'src');
const BUNDLE_SCRIPT = join(PROJECT_ROOT, 'scripts', 'service-thread-bundle.mjs');
/**
 * Built copies live under node_modules/.cache (ignored by git, and Node resolves the project's
 * dependencies from there), one folder per content hash of src/, so concurrent test runs and
 * engineers editing src/ never see a half-written or stale build.
 */
const CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'ekey-locks-test-build');
// A build nobody has reused for an hour is stale (a busy tree makes dozens a day, ~1 MB each).
const STALE_AFTER_MS = 3600 * 1000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Transpiles every `.ts` file under `sourceDir` into `outDir` (same layout, `.js`), per file as
 * ts-jest does with isolatedModules: no type check. `outDir` must sit under the project's
 * node_modules/.cache for the built modules to resolve the project's dependencies.
 */
export function transpileTree(sourceDir: string, outDir: string, contents: { file: string; text: string }[] = sourceFiles(sourceDir).map((file) => ({ file, text: readFileSync(file, 'utf8') }))): void {
  for (const { file, text } of contents) {
    const output = ts.transpileModule(text, {
      fileName: file,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ES2022,
        esModuleInterop: true,
        verbatimModuleSyntax: true,
        sourceMap: false,
      },
    });
    const target = join(outDir, relative(sourceDir, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, output.outputText);
  }
}

/**
 * Transpiles src/ to JavaScript (per file, like ts-jest with isolatedModules: no type check —
 * `tsc --noEmit` is the type gate) and returns the folder holding `cli.js`. Takes about a
 * second, with the service thread's bundle; reuses an existing build of the same sources.
 */
export function ensureBuild(): string {
  const files = sourceFiles(SOURCE_DIR).sort();
  const hash = createHash('sha256');
  const contents = files.map((file) => {
    const text = readFileSync(file, 'utf8');
    hash.update(relative(SOURCE_DIR, file)).update('\0').update(text).update('\0');
    return { file, text };
  });
  // The service thread's bundle is part of the build (scripts/service-thread-bundle.mjs): its recipe counts too.
  hash.update(readFileSync(BUNDLE_SCRIPT, 'utf8'));
  const outDir = join(CACHE_DIR, hash.digest('hex').slice(0, 16));
  if (existsSync(join(outDir, 'cli.js'))) {
    // Mark it used, so pruning leaves it alone.
    const now = new Date();
    utimesSync(outDir, now, now);
    return outDir;
  }

  mkdirSync(CACHE_DIR, { recursive: true });
  const staging = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  transpileTree(SOURCE_DIR, staging, contents);
  // The entry the platform starts its worker thread from (dist/worker/service-thread.js), as `npm run build` makes it.
  execFileSync(process.execPath, [BUNDLE_SCRIPT, staging], { stdio: 'pipe' });
  try {
    renameSync(staging, outDir);
  } catch (error) {
    // Another test run finished the same build first: use theirs.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(outDir, 'cli.js'))) throw error;
  }
  pruneOldBuilds(outDir);
  return outDir;
}

function pruneOldBuilds(keep: string): void {
  for (const entry of readdirSync(CACHE_DIR)) {
    const path = join(CACHE_DIR, entry);
    try {
      if (path !== keep && Date.now() - statSync(path).mtimeMs > STALE_AFTER_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a concurrent run meanwhile.
    }
  }
}

/**
 * Jest global setup: transpiles src/ once per run (about a second), so the tests that spawn
 * the real `ekey-locks` CLI as a child process find it ready, and builds the web app (esbuild,
 * about a second). Workers reuse the same builds.
 */
export default function globalSetup(): void {
  ensureBuild();
  // The web app's bundles (dist/web), as `npm run build` makes them: the services the tests start serve them.
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-web.mjs')], { stdio: 'pipe' });
}
