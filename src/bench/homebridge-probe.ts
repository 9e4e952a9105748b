import { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { isMainThread } from 'node:worker_threads';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

/*
 * A preload module for the Homebridge process of the `loop-delay` and `footprint` benchmarks
 * (`node --import <this file> homebridge.js …`, with `EKEY_BENCH_PROBE=<socket path>`). It adds
 * nothing to Homebridge or the plugin; it observes:
 * - the event-loop delay, with `perf_hooks.monitorEventLoopDelay({ resolution: 1 })` (a 1 ms
 *   timer; each sample is the time between two of its turns, so an idle loop reads ≈ 1 ms);
 * - when Homebridge emits `didFinishLaunching`, and when the accessories are handed to it
 *   (`registerPlatformAccessories` / `updatePlatformAccessories` on its API object, which the
 *   plugin calls once its REST API is listening): the plugin's start-up time, and the process's
 *   CPU time (every thread) at both;
 * - the process's resident memory.
 * It answers one JSON line per request line on the Unix socket: `reset` (empties the histogram),
 * `read` ({@link ProbeReading}) and `window` (`read`, then `reset`, in one turn: the window since
 * the last reset). Without the environment variable it does nothing. Used by the benchmarks and by
 * test/e2e/homekit/homebridge-fsync.test.ts (ask it with {@link askProbe}).
 */

/** Environment variable naming the probe's Unix socket. */
export const PROBE_ENV = 'EKEY_BENCH_PROBE';

/** The answer to `read`. Times are `performance.now()` of the Homebridge process, ms. */
export interface ProbeReading {
  pid: number;
  /** Event-loop delay since the last `reset` (or start), ms. */
  delay: { p50_ms: number; p99_ms: number; max_ms: number; mean_ms: number; samples: number };
  rss_bytes: number;
  heap_used_bytes: number;
  heap_total_bytes: number;
  /** C++ objects bound to JS (Buffers included). */
  external_bytes: number;
  launch: {
    did_finish_launching_at: number | null;
    /** The last registration or update of platform accessories. */
    accessories_at: number | null;
    accessories: number;
    /** The process's CPU time (user + system, every thread: `process.cpuUsage()`) at `didFinishLaunching`, ms. */
    did_finish_launching_cpu_ms: number | null;
    /** The same at the last registration or update of platform accessories, ms. */
    accessories_cpu_ms: number | null;
  };
  now: number;
}

const ns = (value: number): number => value / 1e6;
/** The process's CPU time so far (all threads), ms. */
const cpuMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

function install(path: string): void {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const launch: ProbeReading['launch'] = { did_finish_launching_at: null, accessories_at: null, accessories: 0, did_finish_launching_cpu_ms: null, accessories_cpu_ms: null };

  // Homebridge's API object is created inside Homebridge; its first `didFinishLaunching` is caught
  // on the way through EventEmitter#emit, then the original emit is put back at once.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as is, and called with its receiver
  const originalEmit = EventEmitter.prototype.emit;
  EventEmitter.prototype.emit = function probeEmit(this: EventEmitter, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'didFinishLaunching' && launch.did_finish_launching_at === null) {
      launch.did_finish_launching_at = performance.now();
      launch.did_finish_launching_cpu_ms = cpuMs();
      EventEmitter.prototype.emit = originalEmit;
      const registered = (accessories: unknown): void => {
        launch.accessories += Array.isArray(accessories) ? accessories.length : 0;
        launch.accessories_at = performance.now();
        launch.accessories_cpu_ms = cpuMs();
      };
      this.on('registerPlatformAccessories', registered);
      this.on('updatePlatformAccessories', registered);
    }
    return originalEmit.call(this, event, ...args);
  };

  const read = (): ProbeReading => {
    const memory = process.memoryUsage();
    return {
      pid: process.pid,
      delay: {
        p50_ms: ns(histogram.percentile(50)),
        p99_ms: ns(histogram.percentile(99)),
        max_ms: ns(histogram.max),
        mean_ms: ns(histogram.mean),
        samples: histogram.count,
      },
      rss_bytes: memory.rss,
      heap_used_bytes: memory.heapUsed,
      heap_total_bytes: memory.heapTotal,
      external_bytes: memory.external,
      launch: { ...launch },
      now: performance.now(),
    };
  };

  rmSync(path, { force: true });
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    const lines = createInterface({ input: socket });
    lines.on('line', (line) => {
      const request = line.trim();
      if (request === 'reset') {
        histogram.reset();
        socket.write(`${JSON.stringify({ ok: true })}\n`);
      } else if (request === 'read') {
        socket.write(`${JSON.stringify(read())}\n`);
      } else if (request === 'window') {
        const reading = read();
        histogram.reset();
        socket.write(`${JSON.stringify(reading)}\n`);
      } else {
        socket.write(`${JSON.stringify({ ok: false, error: `unknown request ${request}` })}\n`);
      }
    });
  });
  server.listen(path);
  // Never keeps Homebridge alive on shutdown.
  server.unref();
}

/** The plugin's start from a probe reading: wall time and the process's CPU time, didFinishLaunching → accessories handed over. */
export interface StartFigures {
  ms: number;
  /** CPU time of every thread of the process in that window: at a quarter core the start takes at least four times this. */
  cpuMs: number;
  accessories: number;
}

/** {@link StartFigures} of a reading; throws when the probe saw no didFinishLaunching or no accessories. */
export function startFigures(reading: ProbeReading, scenario: string): StartFigures {
  const { launch } = reading;
  if (launch.did_finish_launching_at === null || launch.accessories_at === null || launch.did_finish_launching_cpu_ms === null || launch.accessories_cpu_ms === null) {
    throw new Error(`${scenario}: the probe saw no didFinishLaunching or no accessories`);
  }
  return { ms: launch.accessories_at - launch.did_finish_launching_at, cpuMs: launch.accessories_cpu_ms - launch.did_finish_launching_cpu_ms, accessories: launch.accessories };
}

/** Sends one request to the probe listening on `path`; resolves with its answer. */
export function askProbe(path: string, request: 'read' | 'window'): Promise<ProbeReading>;
export function askProbe(path: string, request: 'read' | 'window' | 'reset'): Promise<unknown>;
export function askProbe(path: string, request: 'read' | 'window' | 'reset'): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${request}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end >= 0) {
        socket.end();
        resolve(JSON.parse(buffer.slice(0, end)));
      }
    });
    socket.on('error', reject);
  });
}

const socketPath = process.env[PROBE_ENV];
// `--import` preloads run in worker threads too (they inherit execArgv): only Homebridge's own
// thread is measured, and only it may own the socket — the plugin's service runs on a worker.
if (isMainThread && socketPath !== undefined && socketPath !== '') install(socketPath);
