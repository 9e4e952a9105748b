/**
 * The part of autocannon 8's API the benchmark uses (the package ships no types and there is no
 * @types/autocannon here). Latencies are in milliseconds, rates in requests per second.
 */
declare module 'autocannon' {
  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before each request is built; returns the request to send. */
    setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
  }

  interface AutocannonOptions extends AutocannonRequest {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    timeout?: number;
    requests?: AutocannonRequest[];
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  interface AutocannonResult {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
  }

  interface AutocannonInstance extends PromiseLike<AutocannonResult> {
    stop(): void;
  }

  export type { AutocannonRequest };
  function autocannon(options: AutocannonOptions): AutocannonInstance;
  export default autocannon;
}
