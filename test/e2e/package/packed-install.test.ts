import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPluginFolder, canUsePrivateNetwork, describeWhen, HomebridgeSupervisor, REPO_ROOT } from '../../support/homebridge-process.js';

/*
 * The package as users get it (issue #12 part 5): `npm pack`, then `npm install` of the tarball
 * together with the Homebridge this Node supports into an empty folder — with no engine warning,
 * better-sqlite3 forced to build from source where it has no prebuilt binary, the path every user
 * without a download takes — and Homebridge loading the plugin from there. From the npm cache where it can (`--prefer-offline`), from the registry otherwise.
 */

const describeE2E = describeWhen(canUsePrivateNetwork(), 'This end-to-end test runs Homebridge in a private network namespace and needs root (unshare -n, ip). Run as root.');

interface Packed {
  filename: string;
  files: { path: string }[];
}

interface Run {
  code: number | null;
  output: string;
}

/** The environment of an npm run of our own: none of the `npm_*` variables of the `npm test` around us. */
function npmEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_')) env[name] = value;
  const cache = process.env.npm_config_cache;
  return { ...env, ...(cache === undefined ? {} : { npm_config_cache: cache }), ...extra };
}

function npm(args: string[], cwd: string, extra: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, env: npmEnvironment(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, output });
    });
  });
}

function readVersion(folder: string): string {
  return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The `homebridge` command's file inside an installed Homebridge, from its package.json `bin`. */
function homebridgeBin(folder: string): string {
  const { bin } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
  const file = typeof bin === 'string' ? bin : bin.homebridge;
  if (file === undefined) throw new Error(`${folder}/package.json names no homebridge command`);
  return file;
}

const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  overrides: Record<string, string>;
};

describeE2E('the packed plugin, installed as a user installs it', () => {
  const folders: string[] = [];
  const supervisor = new HomebridgeSupervisor();
  let packed: Packed;
  let tarball = '';

  beforeAll(async () => {
    const pluginFolder = buildPluginFolder();
    folders.push(pluginFolder);
    for (const shipped of ['README.md', 'docs']) cpSync(join(REPO_ROOT, shipped), join(pluginFolder, shipped), { recursive: true });
    const destination = mkdtempSync(join(tmpdir(), 'ekey-pack-'));
    folders.push(destination);
    const pack = await npm(['pack', '--json', '--pack-destination', destination], pluginFolder);
    expect(pack.code).toBe(0);
    const [report] = JSON.parse(pack.output.slice(pack.output.indexOf('['))) as Packed[];
    if (report === undefined) throw new Error(`npm pack reported nothing:\n${pack.output}`);
    packed = report;
    tarball = join(destination, packed.filename);
  }, 240_000);

  afterAll(async () => {
    await supervisor.dispose();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('ships what users run and nothing else: no sources, tests, benchmarks or source maps', () => {
    const paths = packed.files.map((file) => file.path);
    // The settings page (config.schema.json's customUiPath) ships too: the Homebridge UI loads it from the package.
    // So does the preinstall check that refuses an unsupported Node (docs/decisions/runtimes.md).
    for (const needed of ['package.json', 'README.md', 'config.schema.json', 'scripts/node-version-check.mjs', 'dist/index.js', 'dist/cli.js', 'dist/worker/service-worker.js', 'docs/architecture.md', 'homebridge-ui/server.js', 'homebridge-ui/public/index.html']) {
      expect(paths).toContain(needed);
    }
    const unexpected = paths.filter(
      (path) => !(path.startsWith('dist/') || path.startsWith('docs/') || path.startsWith('homebridge-ui/') || ['package.json', 'README.md', 'config.schema.json', 'scripts/node-version-check.mjs'].includes(path)),
    );
    expect(unexpected).toEqual([]);
    expect(paths.filter((path) => path.startsWith('dist/bench/') || path.endsWith('.map'))).toEqual([]);
    // The service thread: its entry and bundle, and no code cache (made by the installing Node, at postinstall).
    expect(paths).toEqual(expect.arrayContaining(['dist/worker/service-thread.js', 'dist/worker/service-thread.cjs', 'dist/worker/service-thread-install.js']));
    expect(paths.filter((path) => /\.(cache|build-cache|tmp)$/.test(path))).toEqual([]);
  });

  it('imports no devDependency from any shipped file', () => {
    const devOnly = Object.keys(packageJson.devDependencies).filter((name) => !(name in packageJson.dependencies));
    const offending: string[] = [];
    const pluginFolder = folders[0] ?? '';
    for (const { path } of packed.files.filter((file) => /\.m?js$/.test(file.path))) {
      const source = readFileSync(join(pluginFolder, path), 'utf8');
      // Runtime imports only: `import type` is erased by the compiler.
      for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
        const specifier = match[1] ?? match[2] ?? '';
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
        if (name !== undefined && devOnly.includes(name)) offending.push(`${path} → ${specifier}`);
      }
    }
    // `homebridge` is the host: the plugin only uses its types, never imports it at run time.
    expect(offending).toEqual([]);
  });

  it('installs into an empty folder with the Homebridge its Node supports, with no engine warning, building what has no prebuilt binary from source, and Homebridge runs the plugin from there', async () => {
    const app = mkdtempSync(join(tmpdir(), 'ekey-user-'));
    folders.push(app);
    // This registry lacks the hap-nodejs Homebridge 2.4 pins (package.json "overrides"): a registry
    // matter, not the plugin's; a user's install gets Homebridge's own pin.
    const hapNodejs = packageJson.overrides['@homebridge/hap-nodejs'] ?? '';
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'homebridge-user', version: '1.0.0', private: true, overrides: { '@homebridge/hap-nodejs': hapNodejs } }));
    // Homebridge 2 on Node 22 or 24 (docs/design.md §10; Homebridge 1.8 runs in the CI's own stage).
    const homebridgeSpec = `homebridge@${packageJson.devDependencies.homebridge ?? ''}`;
    const install = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, homebridgeSpec], app, {
      // No prebuilt binary from the network: the compiler runs, with whatever node-gyp the tree puts on the PATH.
      npm_config_build_from_source: 'better-sqlite3',
      // One compiler at a time: the other Jest worker's tests keep their share of the machine.
      JOBS: '1',
    });
    expect({ code: install.code, output: install.code === 0 ? '' : install.output }).toEqual({ code: 0, output: '' });
    // A supported pair installs without a single engine warning.
    expect(install.output.split('\n').filter((line) => line.includes('EBADENGINE'))).toEqual([]);
    const modules = join(app, 'node_modules');
    // The one SQLite driver (src/store/sqlite-driver.ts): 13's prebuilt Node-API binary, and no other.
    expect(readVersion(join(modules, 'better-sqlite3'))).toMatch(/^13\./);
    expect(existsSync(join(modules, 'better-sqlite3', 'prebuilds', `${process.platform}-${process.arch}.node`))).toBe(true);
    expect(existsSync(join(modules, 'better-sqlite3-node20'))).toBe(false);
    // The node-gyp on the PATH of install scripts is ours, not usocket's 7.x, whose gyp fails on today's Python and Node.
    const gyp = JSON.parse(readFileSync(join(realpathSync(join(modules, '.bin', 'node-gyp')), '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(Number(gyp.version.split('.')[0])).toBeGreaterThanOrEqual(11);
    expect(readVersion(join(modules, 'homebridge'))).toMatch(/^2\./);
    // postinstall made the service thread's code cache with this Node (src/worker/service-thread-code.ts).
    const bundle = join(modules, 'homebridge-ekey-locks', 'dist', 'worker', 'service-thread.cjs');
    expect(readFileSync(`${bundle}.build-cache`).subarray(0, 32).equals(createHash('sha256').update(readFileSync(bundle, 'utf8')).digest())).toBe(true);

    const homebridge = await supervisor.start(
      {
        storage: join(app, 'storage'),
        pluginFolder: join(modules, 'homebridge-ekey-locks'),
        // Homebridge's own entry as its package.json names it (bin/homebridge.js in 2.x, bin/homebridge in 1.8).
        homebridge: join(modules, 'homebridge', homebridgeBin(join(modules, 'homebridge'))),
        pin: '031-45-157',
        username: '0E:4B:00:00:E2:F3',
        platform: { demo: true },
      },
      90_000,
    );
    try {
      expect(homebridge.demo.locks.map((lock) => lock.name).sort()).toEqual(['Back Door', 'Building Door', 'Front Door', 'Garden Gate', 'Side Door']);
      expect(homebridge.output()).toContain(`Loaded plugin: homebridge-ekey-locks@${packageJson.version}`);
      const client = homebridge.demo.clients[0];
      const answer = await fetch(`${homebridge.apiUrl}/oauth/authorize?response_type=code&client_id=${client?.client_id ?? ''}&redirect_uri=${encodeURIComponent(client?.redirect_uri ?? '')}&state=s`, {
        headers: { accept: 'text/html' },
      });
      expect(answer.status).toBe(200);
      await answer.text();
    } finally {
      await homebridge.stop();
    }
  }, 420_000);
});
