import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { awaitHomebridgeReady, LoopbackRelay, REPO_ROOT, type DemoLine } from './homebridge-process.js';
import { until } from './polling.js';

/*
 * Homebridge with Matter enabled, and a matter.js controller, in one private network namespace
 * (docs/matter.md). matter.js ignores loopback interfaces, so the namespace
 * gets a veth pair with IPv6 addresses: Homebridge binds veth0 (fd42::1), the controller uses
 * veth1 (fd42::2). A small holder process owns the namespace for the whole suite (Homebridge
 * restarts inside it) and relays a Unix socket to the REST API's loopback port there; Homebridge
 * and the controller join it with nsenter. Nothing leaves the namespace.
 */

const API_PORT_INSIDE = 8787;
const HAP_PORT_INSIDE = 51826;
const MATTER_PORT = 5540;

/**
 * The namespace holder: sets up lo and the veth pair, then relays `api.sock` to the API's
 * loopback port inside. Plain JavaScript for `node -e`.
 */
const HOLDER = `
const net = require('node:net');
const fs = require('node:fs');
const [socketPath, apiPort] = process.argv.slice(1);
fs.rmSync(socketPath, { force: true });
net.createServer((client) => {
  const upstream = net.connect(Number(apiPort), '127.0.0.1');
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
}).listen(socketPath);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
`;

const NAMESPACE_SETUP = [
  'ip link set lo up',
  // IPv6 on, whatever the host's defaults (a container may turn it off for new interfaces).
  'echo 0 > /proc/sys/net/ipv6/conf/all/disable_ipv6',
  'echo 0 > /proc/sys/net/ipv6/conf/default/disable_ipv6',
  'ip link add veth0 type veth peer name veth1',
  // No duplicate-address detection: the addresses are usable at once (sysctl without procps).
  'echo 0 > /proc/sys/net/ipv6/conf/all/accept_dad',
  'echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad',
  'ip link set veth0 up',
  'ip link set veth1 up',
  'ip -6 addr add fd42::1/64 dev veth0 nodad',
  'ip -6 addr add fd42::2/64 dev veth1 nodad',
].join(' && ');

/** What one Homebridge run is configured with. */
export interface MatterHomebridgeSetup {
  /** Storage folder (-U), kept across restarts. */
  storage: string;
  /** Plugin folder (-P), see buildPluginFolder. */
  pluginFolder: string;
  /** The EKeyLocks platform block (without `platform`, `api`). */
  platform: Record<string, unknown>;
  /** Extra environment (EKEY_DEMO_CONTROL). */
  env?: Record<string, string>;
}

/** A running Homebridge with Matter. */
export interface RunningMatterHomebridge {
  apiUrl: string;
  demo: DemoLine;
  /** The bridge's manual pairing code (from Homebridge's commissioning.json). */
  manualPairingCode: string;
  output(): string;
  stop(): Promise<void>;
}

/** An answer of test/support/matter-controller.mjs. */
export interface ControllerAnswer {
  ok: boolean;
  status?: number;
  error?: string;
  [key: string]: unknown;
}

/** The matter.js controller process, one request at a time. */
export class MatterControllerProcess {
  private readonly pending = new Map<number, (answer: ControllerAnswer) => void>();
  private nextId = 1;
  private log = '';
  private readonly exited: Promise<void>;

  constructor(private readonly child: ChildProcess) {
    const stdout = child.stdout;
    if (!stdout) throw new Error('controller has no stdout');
    createInterface({ input: stdout }).on('line', (line) => {
      let answer: ControllerAnswer & { id?: number };
      try {
        answer = JSON.parse(line) as ControllerAnswer & { id?: number };
      } catch {
        this.log += `${line}\n`;
        return;
      }
      const resolve = answer.id === undefined ? undefined : this.pending.get(answer.id);
      if (answer.id !== undefined) this.pending.delete(answer.id);
      resolve?.(answer);
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.log += chunk));
    this.exited = new Promise((done) => child.on('exit', () => {
      done();
    }));
  }

  /** Sends one request; rejects when no answer comes within `timeoutMs`. */
  async request(op: string, fields: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<ControllerAnswer> {
    const id = this.nextId++;
    return new Promise<ControllerAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`controller: no answer to ${op} within ${timeoutMs} ms\n${this.log.slice(-4000)}`));
      }, timeoutMs);
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.child.stdin?.write(`${JSON.stringify({ id, op, ...fields })}\n`);
    });
  }

  /** Like {@link request}, but an answer with `ok: false` rejects. */
  async expectOk(op: string, fields: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<ControllerAnswer> {
    const answer = await this.request(op, fields, timeoutMs);
    if (!answer.ok) throw new Error(`controller ${op} failed: ${answer.error ?? ''} (status ${String(answer.status)})`);
    return answer;
  }

  /** Closes the controller (its fabric stays in its storage folder). */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      await this.request('close', {}, 10_000).catch(() => undefined);
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  output(): string {
    return this.log;
  }
}

/** Owns the namespace, Homebridge and controller processes of one suite; `dispose()` ends them all. */
export class MatterHomebridgeSupervisor {
  readonly socketFolder = mkdtempSync(join(tmpdir(), 'ekmt-'));
  private readonly apiRelay = new LoopbackRelay(join(this.socketFolder, 'api.sock'));
  private holder: ChildProcess | undefined;
  private readonly children = new Set<ChildProcess>();

  constructor() {
    process.once('exit', this.killAll);
  }

  private readonly killAll = (): void => {
    for (const child of [...this.children, ...(this.holder ? [this.holder] : [])]) {
      try {
        child.kill('SIGKILL');
      } catch {
        // gone
      }
    }
  };

  /** Creates the namespace (once). */
  private async namespacePid(): Promise<number> {
    if (this.holder?.pid !== undefined) return this.holder.pid;
    const socketPath = join(this.socketFolder, 'api.sock');
    let output = '';
    const holder = spawn('unshare', ['-n', 'sh', '-c', `${NAMESPACE_SETUP} && exec "$0" -e "$EKEY_NS_HOLDER" "$@"`, process.execPath, socketPath, String(API_PORT_INSIDE)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, EKEY_NS_HOLDER: HOLDER },
    });
    holder.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    holder.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    this.holder = holder;
    await until(() => existsSync(socketPath) || holder.exitCode !== null, () => `the network namespace:\n${output}`, 10_000, 20);
    if (!existsSync(socketPath)) throw new Error(`could not set up the network namespace:\n${output}`);
    await this.apiRelay.listen();
    if (holder.pid === undefined) throw new Error('namespace holder has no pid');
    return holder.pid;
  }

  /** Runs a command inside the namespace. */
  private async spawnInside(args: string[], env: Record<string, string> = {}): Promise<ChildProcess> {
    const pid = await this.namespacePid();
    const child = spawn('nsenter', ['-t', String(pid), '-n', '--', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    this.children.add(child);
    child.on('exit', () => this.children.delete(child));
    return child;
  }

  /** Writes config.json and starts Homebridge; resolves once HAP, the demo line and the Matter pairing code are out. */
  async start(setup: MatterHomebridgeSetup, timeoutMs = 60_000): Promise<RunningMatterHomebridge> {
    mkdirSync(setup.storage, { recursive: true });
    const config = {
      bridge: {
        name: 'eKey Locks Matter E2E',
        username: '0E:4B:00:00:3A:77',
        port: HAP_PORT_INSIDE,
        pin: '031-45-154',
        bind: ['veth0'],
        advertiser: 'ciao',
        matter: { port: MATTER_PORT, disableIpv4: true },
      },
      accessories: [],
      platforms: [{ platform: 'EKeyLocks', name: 'eKey Locks', ...setup.platform, api: { host: '127.0.0.1', port: API_PORT_INSIDE } }],
    };
    writeFileSync(join(setup.storage, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
    const homebridge = join(REPO_ROOT, 'node_modules', 'homebridge', 'bin', 'homebridge.js');
    const child = await this.spawnInside(
      [process.execPath, homebridge, '-D', '-U', setup.storage, '-P', setup.pluginFolder, '--strict-plugin-resolution', '--no-timestamp'],
      setup.env,
    );
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exit = new Promise<void>((done) => child.on('exit', () => {
      done();
    }));

    let manualPairingCode: string | undefined;
    const demo = await awaitHomebridgeReady({
      what: 'Homebridge with Matter',
      output: () => output,
      exited: () => child.exitCode !== null,
      kill: () => child.kill('SIGKILL'),
      waitForDemo: true,
      ready: () => (manualPairingCode ??= readPairingCode(setup.storage)) !== undefined,
      timeoutMs,
    });
    if (demo === undefined || manualPairingCode === undefined) throw new Error('no EKEY_DEMO line or no pairing code');
    const stop = async (): Promise<void> => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    };
    return { apiUrl: `http://127.0.0.1:${this.apiRelay.port}`, demo, manualPairingCode, output: () => output, stop };
  }

  /** Starts a matter.js controller in the namespace with its fabric in `storage`. */
  async controller(storage: string): Promise<MatterControllerProcess> {
    mkdirSync(storage, { recursive: true });
    const child = await this.spawnInside([process.execPath, join(REPO_ROOT, 'test', 'support', 'matter-controller.mjs'), storage, 'veth1']);
    return new MatterControllerProcess(child);
  }

  async dispose(): Promise<void> {
    this.killAll();
    process.off('exit', this.killAll);
    await this.apiRelay.close().catch(() => undefined);
    rmSync(this.socketFolder, { recursive: true, force: true });
  }
}

/** The manual pairing code Homebridge wrote for its bridge, once it has. */
function readPairingCode(storage: string): string | undefined {
  const folder = join(storage, 'matter');
  if (!existsSync(folder)) return undefined;
  for (const bridge of readdirSync(folder)) {
    const file = join(folder, bridge, 'commissioning.json');
    if (!existsSync(file)) continue;
    try {
      const code = (JSON.parse(readFileSync(file, 'utf8')) as { manualPairingCode?: unknown }).manualPairingCode;
      if (typeof code === 'string' && code !== '') return code;
    } catch {
      // Being written; read again.
    }
  }
  return undefined;
}
