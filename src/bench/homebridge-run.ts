import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DemoHousehold } from '../demo/demo-household.js';
import { DEMO_CONTROL_ENV } from '../homebridge/demo-control-channel.js';
import { PLATFORM_NAME } from '../homebridge/platform-name.js';
import { PROBE_ENV, askProbe, type ProbeReading } from './homebridge-probe.js';
import { benchNodeArgs } from './profile-args.js';
import { RUN_CACHE_SUFFIX, SERVICE_THREAD_BUNDLE } from '../worker/service-thread-code.js';

/*
 * Runs the real Homebridge (the devDependency's `bin/homebridge.js`, as `npm start` does) for the
 * `loop-delay` and `footprint` benchmarks: its own storage folder on the temporary directory's
 * disk, the bridge on a free port bound to loopback (mDNS through ciao on `lo` only), and either
 * this build as its only plugin with the platform in demo mode, or no plugin at all. The process
 * is `node --import homebridge-probe.js …`: the probe (src/bench/homebridge-probe.ts) reports the
 * event-loop delay, start-up times and memory over a Unix socket. In demo mode the demo control
 * socket (`EKEY_DEMO_CONTROL`) is opened too, to drive the simulated locks.
 */

/** What the benchmark can do with a running Homebridge. */
export interface RunningHomebridge {
  /** Homebridge's process id (its main thread's id too). */
  pid: number;
  /** `performance.now()` of this process when Homebridge was spawned. */
  spawnedAt: number;
  /** The demo line (docs/design.md §6), with the plugin only. */
  demo: (DemoHousehold & { base_url: string }) | undefined;
  /** Asks the probe. */
  probe(request: 'read'): Promise<ProbeReading>;
  probe(request: 'reset'): Promise<unknown>;
  /** A new connection to the demo control socket (plugin only). */
  control(): Promise<ControlConnection>;
  /** Resident memory from /proc (the probe's when /proc is missing), bytes. */
  rssBytes(): Promise<number>;
  /** VmHWM: the highest resident memory so far, bytes; undefined without /proc. */
  peakRssBytes(): number | undefined;
  /** Everything Homebridge wrote so far. */
  output(): string;
  /** The folder holding Homebridge's storage (and the plugin folder): pass it as `reuse` to restart. */
  folder: string;
  /** The bridge's HAP server on loopback, for a HomeKit controller: port, setup PIN and username. */
  bridge: { port: number; pin: string; username: string };
  /** SIGTERM, wait (SIGKILL after 10 s), then remove the storage and plugin folders unless `keepFiles`. */
  stop(options?: { keepFiles?: boolean }): Promise<void>;
}

/** One connection to the demo control socket: one JSON line out, one answer line back, in order. */
export interface ControlConnection {
  send(line: Record<string, unknown>): Promise<{ ok: boolean; error?: string; observed?: boolean }>;
  close(): void;
}

const READY_TIMEOUT_MS = 90_000;
const BRIDGE_PIN = '031-45-154';

/** The build folder (…/dist) this file was compiled into. */
const buildFolder = (): string => fileURLToPath(new URL('..', import.meta.url));

/** The package root: the nearest folder above the build with this package's package.json. */
function packageRoot(): string {
  let folder = buildFolder();
  for (;;) {
    const file = join(folder, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'homebridge-ekey-locks') return folder;
    const parent = dirname(folder);
    if (parent === folder) throw new Error('the homebridge-ekey-locks package root was not found above the build');
    folder = parent;
  }
}

/**
 * A plugin folder for `-P`: this package's package.json, its config schema, `dist` → this build,
 * `node_modules` → the package's. Nothing in the working tree is written but this: a first start is
 * the first after an install or a build, so the service thread's run cache, written by an earlier
 * start of this build (src/worker/service-thread-code.ts), is removed; the build's cache stays.
 */
function pluginFolder(into: string): void {
  const root = packageRoot();
  rmSync(join(buildFolder(), 'worker', SERVICE_THREAD_BUNDLE + RUN_CACHE_SUFFIX), { force: true });
  const folder = join(into, 'homebridge-ekey-locks');
  mkdirSync(folder);
  cpSync(join(root, 'package.json'), join(folder, 'package.json'));
  if (existsSync(join(root, 'config.schema.json'))) cpSync(join(root, 'config.schema.json'), join(folder, 'config.schema.json'));
  symlinkSync(buildFolder(), join(folder, 'dist'), 'dir');
  symlinkSync(join(root, 'node_modules'), join(folder, 'node_modules'), 'dir');
}

/** A TCP port free right now on loopback (for the bridge's HAP server). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => {
    resolve();
  }));
  return typeof address === 'object' && address ? address.port : 0;
}

/** A locally administered MAC-style bridge username, different for every run. */
function bridgeUsername(): string {
  const bytes = [0x0e, 0x4b, ...Array.from({ length: 4 }, () => Math.floor(Math.random() * 256))];
  return bytes.map((byte) => byte.toString(16).padStart(2, '0').toUpperCase()).join(':');
}

async function openControl(path: string): Promise<ControlConnection> {
  const socket = createConnection(path);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const waiting: ((line: string) => void)[] = [];
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      waiting.shift()?.(line);
    }
  });
  return {
    send: (line) =>
      new Promise((resolve) => {
        waiting.push((answer) => {
          resolve(JSON.parse(answer) as { ok: boolean; error?: string; observed?: boolean });
        });
        socket.write(`${JSON.stringify(line)}\n`);
      }),
    close: () => {
      socket.destroy();
    },
  };
}

/** A memory field of /proc/<pid>/status (`VmRSS`, `VmHWM`), bytes; undefined without /proc. */
function procMemory(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Starts Homebridge with this plugin in demo mode (`plugin: true`) or with no plugin at all, and
 * resolves once the bridge is published (and, with the plugin, its demo line is out: the REST API
 * listens and every accessory is registered). `reuse`: the folder of an earlier run stopped with
 * `keepFiles` — a restart on the same storage (cached accessories, existing data).
 */
export async function startHomebridge(options: { plugin: boolean; reuse?: string; cgroupProcs?: readonly string[] }): Promise<RunningHomebridge> {
  const folder = options.reuse ?? mkdtempSync(join(tmpdir(), 'ekey-bench-hb-'));
  // Unix socket paths are limited to 107 bytes: keep them short.
  const sockets = mkdtempSync(join(tmpdir(), 'ekhb-'));
  const storage = join(folder, 'storage');
  const plugins = join(folder, options.plugin ? 'homebridge-ekey-locks' : 'no-plugins');
  if (options.reuse === undefined) {
    if (options.plugin) pluginFolder(folder);
    else mkdirSync(plugins);
    mkdirSync(storage);
    const config = {
      bridge: { name: 'eKey Bench', username: bridgeUsername(), port: await freePort(), pin: BRIDGE_PIN, bind: ['lo'], advertiser: 'ciao' },
      accessories: [],
      platforms: options.plugin ? [{ platform: PLATFORM_NAME, name: 'eKey Locks', demo: true }] : [],
    };
    writeFileSync(join(storage, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  }
  const bridge = (JSON.parse(readFileSync(join(storage, 'config.json'), 'utf8')) as { bridge: RunningHomebridge['bridge'] }).bridge;
  const probePath = join(sockets, 'probe.sock');
  const controlPath = join(sockets, 'control.sock');
  const homebridge = join(dirname(createRequire(import.meta.url).resolve('homebridge')), '..', 'bin', 'homebridge.js');
  const probeModule = pathToFileURL(fileURLToPath(new URL('./homebridge-probe.js', import.meta.url))).href;
  const spawnedAt = performance.now();
  const command = [process.execPath, ...benchNodeArgs(), '--import', probeModule, homebridge, '-U', storage, '-P', plugins, '--strict-plugin-resolution', '--no-timestamp'];
  // `cgroupProcs`: a shell enters the control groups, then becomes Homebridge (same pid), so every
  // thread Homebridge starts is confined from its first instruction.
  const cgroupProcs = options.cgroupProcs ?? [];
  const confined = cgroupProcs.length > 0;
  const [file, ...args] = confined ? ['sh', '-c', 'for procs in $EKEY_BENCH_CGROUP_PROCS; do echo $$ > "$procs" || exit 97; done; exec "$@"', 'sh', ...command] : command;
  const child = spawn(file ?? process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      [PROBE_ENV]: probePath,
      [DEMO_CONTROL_ENV]: options.plugin ? controlPath : '',
      FORCE_COLOR: '0',
      NO_COLOR: '1',
      ...(confined ? { EKEY_BENCH_CGROUP_PROCS: cgroupProcs.join(' ') } : {}),
    },
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    resolve();
  }));
  const stop = async (stopOptions: { keepFiles?: boolean } = {}): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(sockets, { recursive: true, force: true });
    if (stopOptions.keepFiles !== true) rmSync(folder, { recursive: true, force: true });
  };

  let demo: RunningHomebridge['demo'];
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const demoLine = /^EKEY_DEMO (.+)$/m.exec(output);
      if (demoLine?.[1] !== undefined) demo ??= JSON.parse(demoLine[1]) as NonNullable<RunningHomebridge['demo']>;
      if ((demo !== undefined || !options.plugin) && /is running on port \d+/.test(output) && existsSync(probePath)) break;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`Homebridge exited during start-up:\n${output.slice(-4000)}`);
      if (Date.now() > deadline) throw new Error(`Homebridge did not become ready within ${READY_TIMEOUT_MS} ms:\n${output.slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const pid = child.pid ?? 0;
  const probe = (request: 'read' | 'reset'): Promise<ProbeReading> => askProbe(probePath, request) as Promise<ProbeReading>;
  return {
    pid,
    spawnedAt,
    demo,
    probe,
    control: () => {
      if (!options.plugin) throw new Error('no demo control without the plugin');
      return openControl(controlPath);
    },
    rssBytes: async () => procMemory(pid, 'VmRSS') ?? (await probe('read')).rss_bytes,
    peakRssBytes: () => procMemory(pid, 'VmHWM'),
    output: () => output,
    folder,
    bridge,
    stop,
  };
}
