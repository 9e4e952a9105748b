/**
 * The built web app (docs/design.md §7), held in memory: a handful of files that `npm run build` writes
 * to `dist/web/` (scripts/build-web.mjs) together with their gzip and brotli forms (`.gz`, `.br`
 * beside each), kept with a strong ETag, so serving one costs no disk read and no compression.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WebAsset {
  body: Buffer;
  gzip: Buffer | undefined;
  brotli: Buffer | undefined;
  contentType: string;
  etag: string;
  /** Content-hashed file names never change: cache them for a year. */
  immutable: boolean;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
};

/** `name-HASH.ext` as esbuild writes entry and chunk names. */
const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/;

/** The package's root folder: the nearest ancestor of this module holding our package.json. */
export function packageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = from;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'homebridge-ekey-locks') return dir;
      } catch {
        // Not ours, or unreadable: keep looking upwards.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Where `npm run build` puts the web app. */
export function defaultWebRoot(): string | undefined {
  const root = packageRoot();
  return root === undefined ? undefined : join(root, 'dist', 'web');
}

/**
 * Loads every file under `root` keyed by its path relative to it (`index.html`,
 * `assets/main-ABCD1234.js`). An absent folder gives an empty map: the service runs, and the app's
 * routes say it was not built.
 */
export function loadWebAssets(root: string | undefined): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  if (root === undefined || !existsSync(root)) return assets;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const extension = extname(entry);
      const type = TYPES[extension];
      if (type === undefined) continue;
      const body = readFileSync(path);
      assets.set(relative(root, path).split(sep).join('/'), {
        body,
        gzip: readIfPresent(`${path}.gz`),
        brotli: readIfPresent(`${path}.br`),
        contentType: type,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
        immutable: HASHED.test(entry),
      });
    }
  };
  walk(root);
  return assets;
}

function readIfPresent(path: string): Buffer | undefined {
  return existsSync(path) ? readFileSync(path) : undefined;
}
