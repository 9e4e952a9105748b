import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { DemoHousehold } from '../demo/demo-household.js';
import { startBenchProcess, type BenchProcess } from './bench-process.js';
import { measure, type Measurement } from './measure.js';
import { loginDemoUser } from './oauth-login.js';
import type { BenchScenario } from './scenario.js';
import { scenarios } from './scenarios/index.js';

/** One line of `npm run bench` output (stdout, one JSON object per scenario). */
export interface BenchLine {
  scenario: string;
  ops_per_s: number;
  baseline_ops_per_s: number;
  /** ops_per_s / baseline_ops_per_s. */
  ratio: number;
  p50_ms: number;
  p99_ms: number;
  /** Server CPU time per request, µs (Linux only): robust on a busy machine, unlike req/s. */
  cpu_us_per_op?: number;
  baseline_cpu_us_per_op?: number;
  /** baseline_cpu_us_per_op / cpu_us_per_op: the ratio the service would reach on idle cores. */
  cpu_ratio?: number;
}

interface RunOptions {
  durationS: number;
  warmupS: number;
  rounds: number;
}

const log = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

function bestOf(results: Measurement[], pick: (results: Measurement[]) => Measurement): Measurement {
  if (results.length === 0) throw new Error('no rounds were measured');
  return pick(results);
}

function assertClean(what: string, result: Measurement): void {
  if (result.failures > 0) throw new Error(`${what}: ${result.failures} of ${result.total} requests failed (non-2xx, error or timeout)`);
}

/**
 * Measures one scenario: the real service (`ekey-locks demo` in a child process, fresh data
 * folder) and the raw `node:http` baseline (another child), same connections and duration,
 * back to back in each round, alternating which goes first.
 */
async function runScenario(scenario: BenchScenario, options: RunOptions): Promise<BenchLine> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-bench-'));
  const started: BenchProcess[] = [];
  try {
    const service = await startBenchProcess('../cli.js', ['demo', '--port', '0', '--data', dataDir]);
    started.push(service);
    const demo = service.info as DemoHousehold & { base_url: string };
    const prepared = await scenario.prepare({
      baseUrl: demo.base_url,
      demo,
      login: (userIndex = 0) => loginDemoUser(demo.base_url, demo, userIndex),
    });
    const baseline = await startBenchProcess('./baseline-server.js', [prepared.baselineBody]);
    started.push(baseline);
    const baselineUrl = (baseline.info as { base_url: string }).base_url;

    const load = (baseUrl: string, durationS: number): Promise<Measurement> => {
      const isBaseline = baseUrl === baselineUrl;
      return measure({
        baseUrl,
        requests: isBaseline ? [{ method: prepared.requests[0]?.method ?? 'GET', path: '/' }] : prepared.requests,
        connections: scenario.connections,
        durationS,
        serverPid: isBaseline ? baseline.pid : service.pid,
      });
    };

    log(`${scenario.name}: warming up ${options.warmupS} s each`);
    assertClean(`${scenario.name} warm-up`, await load(demo.base_url, options.warmupS));
    await load(baselineUrl, options.warmupS);

    const service_: Measurement[] = [];
    const baseline_: Measurement[] = [];
    for (let index = 0; index < options.rounds; index++) {
      const order = index % 2 === 0 ? (['baseline', 'service'] as const) : (['service', 'baseline'] as const);
      for (const which of order) {
        const result = await load(which === 'service' ? demo.base_url : baselineUrl, options.durationS);
        assertClean(`${scenario.name} ${which}`, result);
        (which === 'service' ? service_ : baseline_).push(result);
        const cpu = result.cpuUsPerOp === undefined ? '' : `, ${Math.round(result.cpuUsPerOp)} µs CPU/req`;
        log(`${scenario.name} round ${index + 1} ${which}: ${Math.round(result.opsPerS)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${cpu}`);
      }
    }
    // Best of the rounds: on a shared machine interference only ever slows a run down, so the
    // fastest round of each is the closest to what the code itself can do (docs/performance.md).
    const best = (results: Measurement[]): Measurement =>
      results.reduce((fastest, result) => (result.opsPerS > fastest.opsPerS ? result : fastest));
    const serviceBest = bestOf(service_, best);
    const baselineBest = bestOf(baseline_, best);
    const line: BenchLine = {
      scenario: scenario.name,
      ops_per_s: Math.round(serviceBest.opsPerS),
      baseline_ops_per_s: Math.round(baselineBest.opsPerS),
      ratio: round(serviceBest.opsPerS / baselineBest.opsPerS, 3),
      p50_ms: round(serviceBest.p50Ms, 2),
      p99_ms: round(serviceBest.p99Ms, 2),
    };
    const cpu = service_.flatMap((result) => (result.cpuUsPerOp === undefined ? [] : [result.cpuUsPerOp]));
    const baselineCpu = baseline_.flatMap((result) => (result.cpuUsPerOp === undefined ? [] : [result.cpuUsPerOp]));
    if (cpu.length > 0 && baselineCpu.length > 0) {
      line.cpu_us_per_op = round(Math.min(...cpu), 1);
      line.baseline_cpu_us_per_op = round(Math.min(...baselineCpu), 1);
      line.cpu_ratio = round(Math.min(...baselineCpu) / Math.min(...cpu), 3);
    }
    return line;
  } finally {
    for (const child of started.reverse()) await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function positive(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`--${name} must be a positive number`);
  return number;
}

/** `node dist/bench/run.js [--duration S] [--warmup S] [--rounds N] [--only NAME …] [--list]` */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      only: { type: 'string', multiple: true },
      list: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.list) {
    for (const scenario of scenarios) process.stdout.write(`${scenario.name}\t${scenario.description}\n`);
    return;
  }
  const options: RunOptions = {
    durationS: positive(values.duration, 5, 'duration'),
    warmupS: positive(values.warmup, 2, 'warmup'),
    rounds: Math.round(positive(values.rounds, 3, 'rounds')),
  };
  const selected = values.only ? scenarios.filter((scenario) => values.only?.includes(scenario.name)) : scenarios;
  const unknown = (values.only ?? []).filter((name) => !scenarios.some((scenario) => scenario.name === name));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  log(`node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}; ${options.rounds} round(s) of ${options.durationS} s`);
  for (const scenario of selected) {
    // A self-measuring scenario (several phases, or no HTTP load) returns its own line.
    const line = 'run' in scenario ? await scenario.run({ ...options, log }) : await runScenario(scenario, options);
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
