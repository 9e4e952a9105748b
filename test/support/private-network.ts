import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

/**
 * Private network namespaces for tests of what other devices see (docs/design.md §7): a "host"
 * namespace where the service runs and, optionally, a "phone" namespace joined to it by a veth
 * pair on 192.168.77.0/24 — so the host has a home-network address deterministically, and the
 * phone reaches it only through that address. Needs root, `unshare`, `nsenter` and `ip`
 * (iproute2); nothing leaves the namespaces.
 */
export const HOST_ADDRESS = '192.168.77.2';
export const PHONE_ADDRESS = '192.168.77.3';

/** A namespace kept alive by a sleeping holder process; run commands in it with {@link wrapper}. */
export class Namespace {
  private constructor(private readonly holder: ChildProcess) {}

  static async create(): Promise<Namespace> {
    const holder = spawn('unshare', ['-n', 'sh', '-c', 'ip link set lo up && echo ready && exec sleep 3600'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    holder.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) resolve();
      });
      holder.on('exit', (code) => {
        reject(new Error(`network namespace holder exited (${String(code)}): ${stderr}`));
      });
    });
    return new Namespace(holder);
  }

  get pid(): number {
    if (this.holder.pid === undefined) throw new Error('namespace holder has no pid');
    return this.holder.pid;
  }

  /** The prefix that runs a command inside this namespace. */
  get wrapper(): string[] {
    return ['nsenter', '-t', String(this.pid), '-n', '--'];
  }

  /** Runs a shell script inside the namespace; throws with its output when it fails. */
  run(script: string): void {
    const result = spawnSync(this.wrapper[0] ?? 'nsenter', [...this.wrapper.slice(1), 'sh', '-ec', script], { encoding: 'utf8', timeout: 10_000 });
    if (result.status !== 0) throw new Error(`"${script}" failed in the namespace: ${result.stderr}`);
  }

  close(): void {
    if (this.holder.exitCode === null && this.holder.signalCode === null) this.holder.kill('SIGKILL');
  }
}

/** A host with only loopback, and (with {@link joinPhone}) a phone on the same home network. */
export async function homeNetwork(): Promise<{ host: Namespace; phone: Namespace; close(): void }> {
  const host = await Namespace.create();
  const phone = await Namespace.create().catch((error: unknown) => {
    host.close();
    throw error;
  });
  try {
    host.run(`ip link add eth0 type veth peer name eth0p netns ${phone.pid}
ip addr add ${HOST_ADDRESS}/24 dev eth0
ip link set eth0 up`);
    phone.run(`ip link set eth0p name eth0
ip addr add ${PHONE_ADDRESS}/24 dev eth0
ip link set eth0 up`);
  } catch (error) {
    host.close();
    phone.close();
    throw error;
  }
  return {
    host,
    phone,
    close: () => {
      host.close();
      phone.close();
    },
  };
}
