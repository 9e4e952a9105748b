import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { benchNodeArgs } from './profile-args.js';

/** A server child process the benchmark drives. */
export interface BenchProcess {
  /** The first stdout line, parsed. */
  readonly info: unknown;
  /** Process id, for CPU-time sampling. */
  readonly pid: number;
  /**
   * Writes one line to the child's stdin (only with `{ stdin: true }`): `ekey-locks demo` takes
   * its control lines (docs/design.md §6) there.
   */
  send(line: string): void;
  /** Calls `listener` with every later stdout line (the answers to {@link send}). */
  onLine(listener: (line: string) => void): void;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 60_000;
/** Only the tail of a child's stderr is kept, to explain a failure. */
const STDERR_TAIL = 8 * 1024;

/**
 * Starts `node <script> ...args` (relative to this folder of the build) and waits for its first
 * stdout line, which must be JSON. The child's stderr is kept (its tail) and shown if it fails.
 * With `stdin: true` the child's stdin stays open for {@link BenchProcess.send}.
 */
export async function startBenchProcess(script: string, args: string[], options: { stdin?: boolean } = {}): Promise<BenchProcess> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const child = spawn(process.execPath, [...benchNodeArgs(), path, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  if (!options.stdin) child.stdin.end();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const listeners: ((line: string) => void)[] = [];
  const firstLine = await new Promise<string>((resolve, reject) => {
    // Every line is read (so the child never blocks on a full pipe); the first is the ready line.
    const lines = createInterface({ input: child.stdout });
    let seen = false;
    const timer = setTimeout(() => {
      reject(new Error(`${script} did not start within ${STARTUP_TIMEOUT_MS} ms:\n${stderr}`));
    }, STARTUP_TIMEOUT_MS);
    lines.on('line', (line) => {
      if (seen) {
        for (const listener of listeners) listener(line);
        return;
      }
      seen = true;
      clearTimeout(timer);
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
    send: (line) => {
      if (!options.stdin) throw new Error(`${script} was started without a stdin pipe`);
      child.stdin.write(`${line}\n`);
    },
    onLine: (listener) => {
      listeners.push(listener);
    },
    stop: () => stopChild(child, exited),
  };
}

async function stopChild(child: ChildProcessWithoutNullStreams, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin.end();
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
  }, 10_000);
  await exited;
  clearTimeout(timer);
}
