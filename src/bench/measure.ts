import autocannon, { type AutocannonRequest } from 'autocannon';
import { readFileSync } from 'node:fs';
import type { BenchRequest } from './scenario.js';

/** What one load run measured. */
export interface Measurement {
  opsPerS: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx plus socket errors and timeouts: must be 0 for a valid run. */
  failures: number;
  total: number;
  /**
   * CPU time (user + system) the server process spent per request, in microseconds; undefined
   * where /proc is not available. Unlike req/s it barely depends on what else the machine runs.
   */
  cpuUsPerOp: number | undefined;
}

export interface LoadOptions {
  baseUrl: string;
  requests: BenchRequest[];
  connections: number;
  durationS: number;
  /** The server's process id, to sample its CPU time (Linux). */
  serverPid?: number;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ is 100 on every Linux this runs on). */
const USER_HZ = 100;

/** CPU time (user + system) a process has used so far, in ms; undefined without /proc. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces), counted from field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}

/** An autocannon `setupRequest` that sends each request to one of `paths`, uniformly at random. */
function randomPath(paths: readonly string[]): (request: AutocannonRequest) => AutocannonRequest {
  return (request) => ({ ...request, path: paths[Math.floor(Math.random() * paths.length)] ?? request.path });
}

/** The `setupRequest` of a request: its own path picker, a uniform pick of `paths`, or none. */
function pathSetup(request: BenchRequest): { setupRequest?: (request: AutocannonRequest) => AutocannonRequest } {
  const pick = request.pathFor;
  if (pick) return { setupRequest: (outgoing) => ({ ...outgoing, path: pick() }) };
  if (request.paths && request.paths.length > 0) return { setupRequest: randomPath(request.paths) };
  return {};
}

/** Runs autocannon against `baseUrl` and summarises the result. */
export async function measure(options: LoadOptions): Promise<Measurement> {
  const first = options.requests[0];
  if (!first) throw new Error('a scenario needs at least one request');
  const cpuBefore = options.serverPid === undefined ? undefined : processCpuMs(options.serverPid);
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    duration: options.durationS,
    timeout: 10,
    requests: options.requests.map((request) => ({
      method: request.method,
      path: request.path,
      ...(request.headers ? { headers: request.headers } : {}),
      ...(request.body === undefined ? {} : { body: request.body }),
      ...pathSetup(request),
    })),
  });
  const cpuAfter = options.serverPid === undefined ? undefined : processCpuMs(options.serverPid);
  const cpuUsPerOp =
    cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
      ? undefined
      : ((cpuAfter - cpuBefore) * 1000) / result.requests.total;
  return {
    cpuUsPerOp,
    opsPerS: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    total: result.requests.total,
  };
}
