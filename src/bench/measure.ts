import autocannon from 'autocannon';
import type { BenchRequest } from './scenario.js';

/** What one load run measured. */
export interface Measurement {
  opsPerS: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx plus socket errors and timeouts: must be 0 for a valid run. */
  failures: number;
  total: number;
}

export interface LoadOptions {
  baseUrl: string;
  requests: BenchRequest[];
  connections: number;
  durationS: number;
}

/** Runs autocannon against `baseUrl` and summarises the result. */
export async function measure(options: LoadOptions): Promise<Measurement> {
  const first = options.requests[0];
  if (!first) throw new Error('a scenario needs at least one request');
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
    })),
  });
  return {
    opsPerS: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    total: result.requests.total,
  };
}
