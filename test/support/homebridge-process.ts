import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from '@jest/globals';
import type { DemoLine } from './demo-process.js';
import { until } from './polling.js';

export type { DemoLine };

/** The repository root (this file is test/support/homebridge-process.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Ports inside the private network namespace: always free there, so fixed. */
const HAP_PORT_INSIDE = 51826;
const API_PORT_INSIDE = 8787;

/** True when this machine can run Homebridge in a private network namespace (root + unshare + ip). */
export function canUsePrivateNetwork(): boolean {
  const probe = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore', timeout: 5000 });
  return probe.status === 0;
}

/**
 * The `describe` of an end-to-end suite that needs what `available` says (a private network
 * namespace, strace, ...): `describe` when it is there; without it the suite fails with `needs`,
 * or is skipped when EKEY_SKIP_HOMEKIT_E2E=1 asks for that.
 */
export function describeWhen(available: boolean, needs: string): typeof describe | typeof describe.skip {
  if (!available && process.env.EKEY_SKIP_HOMEKIT_E2E !== '1') throw new Error(`${needs} Or set EKEY_SKIP_HOMEKIT_E2E=1.`);
  return available ? describe : describe.skip;
}

/** What {@link awaitHomebridgeReady} watches of a starting Homebridge. */
export interface HomebridgeStart {
  /** Names it in the errors ("Homebridge", "Homebridge with Matter"). */
  what: string;
  /** Everything it wrote so far. */
  output(): string;
  /** True once its process has exited. */
  exited(): boolean;
  /** Ends it when it is not ready within the budget. */
  kill(): void;
  /** Whether to wait for the `EKEY_DEMO` line (false: the plugin is expected not to start). */
  waitForDemo: boolean;
  /** Anything else it must show before it counts as ready (Matter's pairing code). */
  ready?: () => boolean;
  timeoutMs: number;
}

/**
 * Waits (bounded) until the bridge is published ("is running on port"), with the demo line out
 * when asked and whatever `ready` adds; answers the parsed demo line. Throws with the output when
 * Homebridge exits during start-up, and kills it when it is not ready within the budget.
 */
export async function awaitHomebridgeReady(start: HomebridgeStart): Promise<DemoLine | undefined> {
  let demo: DemoLine | undefined;
  const ready = (): boolean => {
    const output = start.output();
    const demoLine = /^EKEY_DEMO (.+)$/m.exec(output);
    if (demoLine?.[1] !== undefined) demo ??= JSON.parse(demoLine[1]) as DemoLine;
    if ((demo !== undefined || !start.waitForDemo) && (start.ready?.() ?? true) && /is running on port \d+/.test(output)) return true;
    if (start.exited()) throw new Error(`${start.what} exited during start-up:\n${output}`);
    return false;
  };
  try {
    await until(ready, start.what, start.timeoutMs, 50);
  } catch (error) {
    if (start.exited()) throw error;
    start.kill();
    throw new Error(`${start.what} did not become ready within ${start.timeoutMs} ms:\n${start.output()}`);
  }
  return demo;
}

/** Where {@link pluginBuild} keeps its builds: under node_modules, so they resolve the project's dependencies. */
const PLUGIN_BUILD_CACHE = join(REPO_ROOT, 'node_modules', '.cache', 'ekey-locks-plugin-build');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/**
 * The plugin's dist/ as `npm run build` makes it — tsc with tsconfig.build.json, then the service
 * thread's bundle and its code cache (scripts/service-thread-bundle.mjs) — built once for each
 * content of what goes into it (src/, the tsconfigs, the bundle script, the lockfile) and each
 * Node (the code cache is V8's), then reused: by every end-to-end suite of a run, and by the CI's
 * later stages on the same tree. Concurrent builders each build aside and the first rename wins.
 */
function pluginBuild(): string {
  const hash = createHash('sha256');
  for (const file of filesUnder(join(REPO_ROOT, 'src')).sort()) hash.update(file.slice(REPO_ROOT.length)).update('\0').update(readFileSync(file)).update('\0');
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', join('scripts', 'service-thread-bundle.mjs')]) hash.update(file).update('\0').update(readFileSync(join(REPO_ROOT, file))).update('\0');
  hash.update(process.version);
  const done = join(PLUGIN_BUILD_CACHE, hash.digest('hex').slice(0, 16));
  if (existsSync(join(done, 'dist', 'index.js'))) return join(done, 'dist');
  mkdirSync(PLUGIN_BUILD_CACHE, { recursive: true });
  const staging = `${done}.tmp-${process.pid}-${Date.now()}`;
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(REPO_ROOT, 'tsconfig.build.json'), '--outDir', join(staging, 'dist'), '--sourceMap', 'false', '--declaration', 'false'], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (build.status !== 0) throw new Error(`plugin build failed:\n${build.stdout}\n${build.stderr}`);
  const bundle = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'service-thread-bundle.mjs'), join(staging, 'dist')], { encoding: 'utf8', timeout: 60_000 });
  if (bundle.status !== 0) throw new Error(`service thread bundle failed:\n${bundle.stdout}\n${bundle.stderr}`);
  try {
    renameSync(staging, done);
  } catch (error) {
    // Another suite finished the same build first: use theirs.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(done, 'dist', 'index.js'))) throw error;
  }
  return join(done, 'dist');
}

/**
 * A throw-away plugin folder as Homebridge loads it: package.json, config.schema.json,
 * homebridge-ui/, scripts/node-version-check.mjs, a copy of the plugin's build ({@link pluginBuild}: a suite may change what it
 * holds, e.g. the service thread's run-time code cache) and a node_modules link to the
 * repository's. The shared working tree's dist/ is not touched.
 */
export function buildPluginFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'ekey-plugin-'));
  cpSync(pluginBuild(), join(folder, 'dist'), { recursive: true });
  cpSync(join(REPO_ROOT, 'package.json'), join(folder, 'package.json'));
  cpSync(join(REPO_ROOT, 'config.schema.json'), join(folder, 'config.schema.json'));
  // The settings page (config.schema.json's customUiPath), for the Homebridge UI.
  cpSync(join(REPO_ROOT, 'homebridge-ui'), join(folder, 'homebridge-ui'), { recursive: true });
  // The install's Node check (package.json `preinstall`), shipped like the rest.
  mkdirSync(join(folder, 'scripts'));
  cpSync(join(REPO_ROOT, 'scripts', 'node-version-check.mjs'), join(folder, 'scripts', 'node-version-check.mjs'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
  return folder;
}

/** What a Homebridge run is configured with. */
export interface HomebridgeSetup {
  /** Homebridge's storage folder (-U): config.json, persist/, accessories/. Kept across restarts. */
  storage: string;
  /** Plugin folder (-P), see {@link buildPluginFolder}. */
  pluginFolder: string;
  /** Setup code `XXX-XX-XXX`. */
  pin: string;
  /** Bridge MAC-style username; also the HAP device id. */
  username: string;
  /** The EKeyLocks platform block (without `platform`); `api.port`/`api.host` are set by the harness. */
  platform: Record<string, unknown>;
  /** Extra environment for the Homebridge process (e.g. EKEY_DEMO_CONTROL). */
  env?: Record<string, string>;
  /** A command Homebridge's node runs under, e.g. `['strace', '-f', …]` (the node binary and its arguments follow). */
  wrapper?: string[];
  /** Extra arguments for Homebridge's node, before homebridge.js (e.g. `--import` a probe). */
  nodeArgs?: string[];
  /** Homebridge's bin/homebridge.js (default: the repository's devDependency). */
  homebridge?: string;
}

/** A running Homebridge in its own network namespace, reachable through loopback relays. */
export interface RunningHomebridge {
  /** The bridge's HAP port as seen from the test process. */
  hapPort: number;
  /** The REST API base URL as seen from the test process. */
  apiUrl: string;
  /** The parsed `EKEY_DEMO` line. */
  demo: DemoLine;
  /** Everything Homebridge wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, wait for a clean exit (SIGKILL after 10 s); relays stay up for a restart. */
  stop(): Promise<void>;
}

/**
 * Runs inside the namespace: relays Unix sockets in the shared socket folder to the loopback TCP
 * ports there, starts Homebridge as its child, forwards SIGTERM/SIGINT and exits with it. Plain
 * JavaScript because it is handed to `node -e`.
 */
const NAMESPACE_LAUNCHER = `
const net = require('node:net');
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const [socketFolder, hapPort, apiPort, ...homebridgeArgs] = process.argv.slice(1);
const wrapper = JSON.parse(process.env.EKEY_HOMEBRIDGE_WRAPPER || '[]');
for (const [name, port] of [['hap.sock', Number(hapPort)], ['api.sock', Number(apiPort)]]) {
  const path = socketFolder + '/' + name;
  fs.rmSync(path, { force: true });
  net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  }).listen(path);
}
const child = wrapper.length > 0
  ? spawn(wrapper[0], [...wrapper.slice(1), process.execPath, ...homebridgeArgs], { stdio: 'inherit' })
  : spawn(process.execPath, homebridgeArgs, { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
`;

/** A TCP listener on 127.0.0.1 in the test's namespace that pipes each connection to a Unix socket. */
export class LoopbackRelay {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  port = 0;

  constructor(private readonly socketPath: string) {
    this.server = createServer((client) => {
      const upstream = createConnection(this.socketPath);
      this.sockets.add(client);
      this.sockets.add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', drop);
      upstream.on('error', drop);
      client.on('close', drop);
      upstream.on('close', drop);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((done) => {
      this.server.listen(0, '127.0.0.1', () => {
        done();
      });
    });
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this.port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((done) => {
      this.server.close(() => {
        done();
      });
    });
  }
}

/**
 * The Homebridge the end-to-end tests run: the repository's devDependency (2.x), or the
 * `bin/homebridge.js` named by `EKEY_TEST_HOMEBRIDGE` — CI runs the HAP suites against
 * Homebridge 1.8 that way (docs/decisions/runtimes.md).
 */
export function defaultHomebridge(): string {
  const chosen = process.env.EKEY_TEST_HOMEBRIDGE;
  return chosen !== undefined && chosen !== '' ? chosen : join(REPO_ROOT, 'node_modules', 'homebridge', 'bin', 'homebridge.js');
}

/**
 * Owns the Homebridge child processes and relays of one test suite; `dispose()` kills whatever
 * is left, also after a failure.
 */
export class HomebridgeSupervisor {
  readonly socketFolder: string;
  private readonly hapRelay: LoopbackRelay;
  private readonly apiRelay: LoopbackRelay;
  private readonly children = new Set<ChildProcess>();
  private relaysUp = false;

  constructor() {
    // Short path: Unix socket paths are limited to 107 bytes.
    this.socketFolder = mkdtempSync(join(tmpdir(), 'ekhb-'));
    this.hapRelay = new LoopbackRelay(join(this.socketFolder, 'hap.sock'));
    this.apiRelay = new LoopbackRelay(join(this.socketFolder, 'api.sock'));
    // Detached children outlive a test runner that is killed: take them down when it exits.
    process.once('exit', this.killAll);
  }

  private readonly killAll = (): void => {
    for (const child of this.children) killGroup(child, 'SIGKILL');
  };

  /** Writes config.json and starts Homebridge; resolves when the bridge is published and the demo line is out. */
  async start(setup: HomebridgeSetup, timeoutMs = 60_000): Promise<RunningHomebridge> {
    const { demo, ...running } = await this.launch(setup, timeoutMs, true);
    if (demo === undefined) throw new Error('no EKEY_DEMO line');
    return { ...running, demo };
  }

  /**
   * Starts Homebridge and resolves once the bridge is published, whatever became of the plugin
   * (for tests where the plugin is expected not to start).
   */
  async startBridge(setup: HomebridgeSetup, timeoutMs = 60_000): Promise<Omit<RunningHomebridge, 'demo'>> {
    const { demo: _demo, ...running } = await this.launch(setup, timeoutMs, false);
    return running;
  }

  private async launch(setup: HomebridgeSetup, timeoutMs: number, waitForDemo: boolean): Promise<Omit<RunningHomebridge, 'demo'> & { demo: DemoLine | undefined }> {
    if (!this.relaysUp) {
      await this.hapRelay.listen();
      await this.apiRelay.listen();
      this.relaysUp = true;
    }
    mkdirSync(setup.storage, { recursive: true });
    const config = {
      bridge: { name: 'eKey Locks E2E', username: setup.username, port: HAP_PORT_INSIDE, pin: setup.pin, bind: ['lo'], advertiser: 'ciao' },
      accessories: [],
      platforms: [{ platform: 'EKeyLocks', name: 'eKey Locks', ...setup.platform, api: { ...(setup.platform.api as object | undefined), host: '127.0.0.1', port: API_PORT_INSIDE } }],
    };
    writeFileSync(join(setup.storage, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
    const homebridge = setup.homebridge ?? defaultHomebridge();
    const args = [...(setup.nodeArgs ?? []), homebridge, '-D', '-U', setup.storage, '-P', setup.pluginFolder, '--strict-plugin-resolution', '--no-timestamp'];
    const child = spawn(
      'unshare',
      ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" -e "$EKEY_NAMESPACE_LAUNCHER" "$@"', process.execPath, this.socketFolder, String(HAP_PORT_INSIDE), String(API_PORT_INSIDE), ...args],
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ...setup.env,
          EKEY_NAMESPACE_LAUNCHER: NAMESPACE_LAUNCHER,
          EKEY_HOMEBRIDGE_WRAPPER: JSON.stringify(setup.wrapper ?? []),
          FORCE_COLOR: '0',
          NO_COLOR: '1',
        },
      },
    );
    this.children.add(child);
    let output = '';
    const state = { exited: false };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exit = new Promise<void>((done) => {
      child.on('exit', () => {
        state.exited = true;
        this.children.delete(child);
        done();
      });
    });

    const demo = await awaitHomebridgeReady({
      what: 'Homebridge',
      output: () => output,
      exited: () => state.exited,
      kill: () => {
        killGroup(child, 'SIGKILL');
      },
      waitForDemo,
      timeoutMs,
    });
    const stop = async (): Promise<void> => {
      if (state.exited) return;
      // To the launcher only: it forwards one SIGTERM to Homebridge, which then saves its cache.
      if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        killGroup(child, 'SIGKILL');
      }, 10_000);
      await exit;
      clearTimeout(timer);
    };
    return { hapPort: this.hapRelay.port, apiUrl: `http://127.0.0.1:${this.apiRelay.port}`, demo, output: () => output, stop };
  }

  /** Kills every child still running, closes the relays and removes the socket folder. */
  async dispose(): Promise<void> {
    this.killAll();
    process.off('exit', this.killAll);
    if (this.relaysUp) {
      await this.hapRelay.close();
      await this.apiRelay.close();
    }
    if (existsSync(this.socketFolder)) rmSync(this.socketFolder, { recursive: true, force: true });
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // The launcher leads its own process group (detached): this reaches Homebridge too.
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Waits, for polling loops with a deadline (never used to wait for time to pass in logic). */
export function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
