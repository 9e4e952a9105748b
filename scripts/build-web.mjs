#!/usr/bin/env node
/**
 * Builds the web app (web/) into dist/web/ with esbuild: one JS and one CSS bundle with content
 * hashes in their names, `invite.js` and `pages.css` (the service's own pages' script and look,
 * stable names), index.html pointing at the bundles, the favicon, the web manifest and its icons
 * (icons/, drawn from icons/icon.svg), and a gzip and a brotli copy of each text file for the
 * service to serve as they are (src/api/web/web-assets.ts). Writes into a fresh folder and swaps
 * it in, so a running service or test never reads a half-written app.
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'web');
const target = join(root, 'dist', 'web');
const staging = `${target}.tmp-${process.pid}`;

const common = {
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'safari14'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
  tsconfig: join(web, 'tsconfig.json'),
};

rmSync(staging, { recursive: true, force: true });
const app = await build({
  ...common,
  entryPoints: { main: join(web, 'src', 'main.tsx') },
  outdir: join(staging, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  splitting: true,
  metafile: true,
});
// Stable names: the service's own pages (src/auth/html-page.ts) load these two.
await build({ ...common, entryPoints: { invite: join(web, 'src', 'invite.ts'), pages: join(web, 'src', 'pages.css') }, outdir: staging });

const outputs = Object.keys(app.metafile.outputs).map((path) => basename(path));
const entry = (extension) =>
  Object.entries(app.metafile.outputs).find(([path, output]) => output.entryPoint !== undefined && path.endsWith(extension))?.[0] ??
  Object.keys(app.metafile.outputs).find((path) => basename(path).startsWith('main-') && path.endsWith(extension));
const js = entry('.js') && basename(entry('.js'));
const css = entry('.css') && basename(entry('.css'));
if (!js || !css) throw new Error(`web build: missing bundle among ${outputs.join(', ')}`);
writeFileSync(join(staging, 'index.html'), readFileSync(join(web, 'index.html'), 'utf8').replace('%JS%', js).replace('%CSS%', css));
copyFileSync(join(web, 'favicon.svg'), join(staging, 'favicon.svg'));
copyFileSync(join(web, 'manifest.webmanifest'), join(staging, 'manifest.webmanifest'));
mkdirSync(join(staging, 'icons'));
for (const icon of readdirSync(join(web, 'icons'))) copyFileSync(join(web, 'icons', icon), join(staging, 'icons', icon));

let shipped = 0;
let compressed = 0;
const compressAll = (dir) => {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      compressAll(path);
      continue;
    }
    // PNGs are compressed already.
    if (entry.endsWith('.png')) continue;
    const body = readFileSync(path);
    const brotli = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(`${path}.br`, brotli);
    shipped += body.length;
    compressed += brotli.length;
  }
};
compressAll(staging);

mkdirSync(dirname(target), { recursive: true });
const old = `${target}.old-${process.pid}`;
if (existsSync(target)) renameSync(target, old);
renameSync(staging, target);
rmSync(old, { recursive: true, force: true });
console.error(`web app: dist/web (${js}, ${css}; ${shipped} bytes, ${compressed} bytes brotli)`);
