import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild, PROJECT_ROOT, transpileTree } from './global-setup.js';

export { ensureBuild, PROJECT_ROOT, transpileTree };

/** The built `ekey-locks` entry point (see ensureBuild). */
export const builtCli = (): string => join(ensureBuild(), 'cli.js');

/** A spawned child with line-wise access to its output. */
export interface RunningChild {
  process: ChildProcessWithoutNullStreams;
  /** Every complete stdout line so far. */
  stdoutLines: string[];
  /** All of stdout so far, as received. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching `predicate` (or any line), polling until `timeoutMs`. */
  nextLine(predicate?: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves with the first match of `pattern` in stderr, polling until `timeoutMs`. */
  stderrMatch(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or signal name) once the child has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGKILL if the child is still running. */
  kill(signal?: NodeJS.Signals): void;
}

/** Spawns `node <script> ...args` with piped stdio; output is collected as it arrives. */
export function spawnNode(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; /** A command node runs under, e.g. `['nsenter', '-t', pid, '-n', '--']`. */ wrapper?: string[] } = {},
): RunningChild {
  const [command, ...prefix]: string[] = options.wrapper ?? [process.execPath];
  const child = spawn(command ?? process.execPath, [...prefix, ...(options.wrapper ? [process.execPath] : []), script, ...args], {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdoutLines: string[] = [];
  let partial = '';
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const waiter of waiters) waiter();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    stdoutLines.push(...lines);
    wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) => {
    child.on('exit', (code, signal) => {
      resolvePromise({ code, signal });
    });
  });
  let exitedNow = false;
  void exited.then(() => {
    exitedNow = true;
    wake();
  });
  let consumed = 0;

  /**
   * Resolves with what `find` finds, checking again on every output chunk; rejects with
   * `exitedMessage` once the child has exited without it, and with `timeoutMessage` past `timeoutMs`.
   */
  const waitForOutput = <T>(find: () => T | undefined, timeoutMs: number, exitedMessage: string, timeoutMessage: string): Promise<T> =>
    new Promise((resolvePromise, reject) => {
      const check = (): void => {
        const found = find();
        if (found !== undefined) {
          finish();
          resolvePromise(found);
        } else if (exitedNow) {
          finish();
          reject(new Error(`${exitedMessage}; stderr:\n${stderr}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${timeoutMessage}; stderr:\n${stderr}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const nextLine = (predicate: (line: string) => boolean = () => true, timeoutMs = 15_000): Promise<string> =>
    waitForOutput(
      () => {
        while (consumed < stdoutLines.length) {
          const line = stdoutLines[consumed++] ?? '';
          if (predicate(line)) return line;
        }
        return undefined;
      },
      timeoutMs,
      'child exited before printing the expected line',
      `no matching stdout line within ${timeoutMs} ms`,
    );

  const stderrMatch = (pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> =>
    waitForOutput(
      () => pattern.exec(stderr) ?? undefined,
      timeoutMs,
      `child exited before stderr matched ${String(pattern)}`,
      `stderr did not match ${String(pattern)} within ${timeoutMs} ms`,
    );

  return {
    process: child,
    stderrMatch,
    stdoutLines,
    stdout: () => stdout,
    stderr: () => stderr,
    nextLine,
    exited,
    kill: (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** What the tests of the CLI share, see {@link cliTestBed}. */
export interface CliTestBed {
  /** The built `ekey-locks` entry point. */
  readonly cli: string;
  /** A data folder of the test file's own, removed after it. */
  readonly dataDir: string;
  /** Spawns the CLI with `args`; the child is killed (and awaited) after the test. */
  spawn(args: string[]): RunningChild;
}

/**
 * Registers (at the top level of a test file) the hooks the CLI tests share: the CLI built and a
 * data folder made (`mkdtemp` with `folderPrefix`) before the file, the children spawned through
 * the bed killed after each test, the folder removed after the file.
 */
export function cliTestBed(folderPrefix: string): CliTestBed {
  let cli = '';
  let dataDir = '';
  const running: RunningChild[] = [];
  beforeAll(() => {
    cli = builtCli();
    dataDir = mkdtempSync(join(tmpdir(), folderPrefix));
  });
  afterEach(async () => {
    for (const child of running.splice(0)) {
      child.kill();
      await child.exited;
    }
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    get cli() {
      return cli;
    },
    get dataDir() {
      return dataDir;
    },
    spawn: (args) => {
      const child = spawnNode(cli, args);
      running.push(child);
      return child;
    },
  };
}

/** Runs `node <script> ...args` to completion and returns its exit code and output. */
export async function runNode(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnNode(script, args, options.env ? { env: options.env } : {});
  child.process.stdin.end(options.stdin ?? '');
  const timer = setTimeout(() => {
    child.kill();
  }, options.timeoutMs ?? 20_000);
  const { code } = await child.exited;
  clearTimeout(timer);
  // 'exit' can precede the last 'data' events; wait for the streams to close.
  await Promise.all([streamClosed(child.process.stdout), streamClosed(child.process.stderr)]);
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

function streamClosed(stream: NodeJS.ReadableStream & { closed?: boolean }): Promise<void> {
  if (stream.closed === true) return Promise.resolve();
  return new Promise((resolvePromise) => {
    stream.once('close', () => {
      resolvePromise();
    });
  });
}
