import type { DemoHousehold } from '../demo/demo-household.js';

/** One HTTP request shape the load generator repeats. */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path and query, e.g. `/me`. */
  path: string;
  /**
   * When set, every request takes one of these at random instead of `path`: a spread of distinct
   * URLs, so a response cache in the service cannot answer most of them.
   */
  paths?: readonly string[];
  /**
   * When set, every request takes the path this returns (a weighted mix of shapes, a cursor drawn
   * at random); it wins over `paths`.
   */
  pathFor?: () => string;
  headers?: Record<string, string>;
  body?: string;
}

/** A running demo service, as a scenario sees it while preparing. */
export interface BenchTarget {
  baseUrl: string;
  demo: DemoHousehold;
  /** Signs a demo user in through the real authorization-code flow; returns the access token. */
  login(userIndex?: number): Promise<string>;
}

/** What a scenario has prepared: the requests to repeat, in order, round-robin per connection. */
export interface PreparedScenario {
  requests: BenchRequest[];
  /**
   * The request the raw `node:http` baseline answers in the same run — same method, similar
   * body size — so the ratio measures the service's own cost, not the machine.
   */
  baselineBody: string;
}

/**
 * A benchmark scenario. Add one by writing `src/bench/scenarios/<name>.ts` and listing it in
 * `src/bench/scenarios/index.ts`; `npm run bench` then measures it beside the baseline.
 */
export interface BenchScenario {
  /** Kebab-case name printed as `scenario`, e.g. `get-me`. */
  name: string;
  description: string;
  /** Concurrent connections (baseline uses the same). */
  connections: number;
  /** The target for `ratio` (the line then carries `target_ratio` and `ok`). */
  targetRatio?: number;
  /** Runs once against a fresh demo service before the measurement. */
  prepare(target: BenchTarget): Promise<PreparedScenario>;
}

/** What `npm run bench` hands a self-measuring scenario. */
export interface SelfMeasuringOptions {
  durationS: number;
  warmupS: number;
  rounds: number;
  /** Progress to stderr. */
  log: (message: string) => void;
}

/**
 * A scenario that measures itself (several phases, or no HTTP load at all) and returns its JSON
 * line: at least `scenario`, usually the same fields as the HTTP scenarios plus its own.
 */
export interface SelfMeasuringScenario {
  name: string;
  description: string;
  run(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }>;
}
