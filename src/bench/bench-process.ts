import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A server child process the benchmark drives. */
export interface BenchProcess {
  /** The first stdout line, parsed. */
  readonly info: unknown;
  /** Process id, for CPU-time sampling. */
  readonly pid: number;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 60_000;
/** Only the tail of a child's stderr is kept, to explain a failure. */
const STDERR_TAIL = 8 * 1024;

/**
 * Starts `node <script> ...args` (relative to this folder of the build) and waits for its first
 * stdout line, which must be JSON. The child's stderr is kept (its tail) and shown if it fails.
 */
export async function startBenchProcess(script: string, args: string[]): Promise<BenchProcess> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const child = spawn(process.execPath, [path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      reject(new Error(`${script} did not start within ${STARTUP_TIMEOUT_MS} ms:\n${stderr}`));
    }, STARTUP_TIMEOUT_MS);
    lines.once('line', (line) => {
      clearTimeout(timer);
      // Keep draining stdout so the child never blocks on a full pipe.
      child.stdout.resume();
      resolve(line);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before it was ready:\n${stderr}`));
    });
  });
  return {
    info: JSON.parse(firstLine) as unknown,
    pid: child.pid ?? 0,
    stop: () => stopChild(child, exited),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
  }, 10_000);
  await exited;
  clearTimeout(timer);
}
