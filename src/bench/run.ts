import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { DemoHousehold } from '../demo/demo-household.js';
import { startBenchProcess, type BenchProcess } from './bench-process.js';
import { measure, type Measurement } from './measure.js';
import { pairedRounds } from './paired.js';
import { median, round } from './stats.js';
import { loginDemoUser } from './oauth-login.js';
import type { BenchScenario } from './scenario.js';
import { scenarios } from './scenarios/index.js';
import { describeError } from '../domain/errors.js';

/** One line of `npm run bench` output for an HTTP scenario (stdout, one JSON object per scenario). */
export interface BenchLine {
  scenario: string;
  /** Median of the service's rounds. */
  ops_per_s: number;
  /** Median of the baseline's rounds. */
  baseline_ops_per_s: number;
  /** docs/design.md §8: the median of the per-round ratios (service ÷ baseline measured back to back). */
  ratio: number;
  /** Medians of the service rounds' p50 and p99 latency. */
  p50_ms: number;
  p99_ms: number;
  /** Each round's ratio, in round order. */
  round_ratios: number[];
  /** Server CPU time per request, µs, median of the rounds (Linux only): robust on a busy machine, unlike req/s. */
  cpu_us_per_op?: number;
  baseline_cpu_us_per_op?: number;
  /** Median of the per-round baseline_cpu ÷ cpu: the ratio the service would reach on idle cores. */
  cpu_ratio?: number;
  connections: number;
  target_ratio?: number;
  ok?: boolean;
}

interface RunOptions {
  durationS: number;
  warmupS: number;
  rounds: number;
}

const log = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

function assertClean(what: string, result: Measurement): void {
  if (result.failures > 0) throw new Error(`${what}: ${result.failures} of ${result.total} requests failed (non-2xx, error or timeout)`);
}

const cpuOf = (result: Measurement): number[] => (result.cpuUsPerOp === undefined ? [] : [result.cpuUsPerOp]);

/**
 * Measures one scenario: the real service (`ekey-locks demo` in a child process, fresh data
 * folder on the temporary directory's disk) and the raw `node:http` baseline (another child),
 * same connections and duration, back to back in each round, alternating which goes first; the
 * ratio is the median of the rounds' ratios (docs/design.md §8).
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

    const load = async (which: 'service' | 'baseline', durationS: number): Promise<Measurement> => {
      const isBaseline = which === 'baseline';
      const result = await measure({
        baseUrl: isBaseline ? baselineUrl : demo.base_url,
        requests: isBaseline ? [{ method: prepared.requests[0]?.method ?? 'GET', path: '/' }] : prepared.requests,
        connections: scenario.connections,
        durationS,
        serverPid: isBaseline ? baseline.pid : service.pid,
      });
      assertClean(`${scenario.name} ${which}`, result);
      return result;
    };

    log(`${scenario.name}: warming up ${options.warmupS} s each`);
    await load('service', options.warmupS);
    await load('baseline', options.warmupS);

    const describe = (result: Measurement): string =>
      `${Math.round(result.opsPerS)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${result.cpuUsPerOp === undefined ? '' : `, ${Math.round(result.cpuUsPerOp)} µs CPU/req`}`;
    const { pairs, ratio } = await pairedRounds(
      options.rounds,
      () => load('service', options.durationS),
      () => load('baseline', options.durationS),
      (result) => result.opsPerS,
      (pair, index) => {
        log(`${scenario.name} round ${index + 1} service: ${describe(pair.service)}`);
        log(`${scenario.name} round ${index + 1} baseline: ${describe(pair.baseline)}; ratio ${round(pair.ratio, 3)}`);
      },
    );
    const services = pairs.map((pair) => pair.service);
    const line: BenchLine = {
      scenario: scenario.name,
      ops_per_s: Math.round(median(services.map((result) => result.opsPerS))),
      baseline_ops_per_s: Math.round(median(pairs.map((pair) => pair.baseline.opsPerS))),
      ratio: round(ratio, 3),
      p50_ms: round(median(services.map((result) => result.p50Ms)), 2),
      p99_ms: round(median(services.map((result) => result.p99Ms)), 2),
      round_ratios: pairs.map((pair) => round(pair.ratio, 3)),
      connections: scenario.connections,
    };
    const cpuPairs = pairs.flatMap((pair) => {
      const [cpu] = cpuOf(pair.service);
      const [baselineCpu] = cpuOf(pair.baseline);
      return cpu === undefined || baselineCpu === undefined ? [] : [{ cpu, baselineCpu }];
    });
    if (cpuPairs.length > 0) {
      line.cpu_us_per_op = round(median(cpuPairs.map((entry) => entry.cpu)), 1);
      line.baseline_cpu_us_per_op = round(median(cpuPairs.map((entry) => entry.baselineCpu)), 1);
      line.cpu_ratio = round(median(cpuPairs.map((entry) => entry.baselineCpu / entry.cpu)), 3);
    }
    if (scenario.targetRatio !== undefined) {
      line.target_ratio = scenario.targetRatio;
      line.ok = ratio >= scenario.targetRatio;
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
  const load = (): string => loadavg().map((value) => value.toFixed(2)).join(' ');
  log(`node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}; ${options.rounds} round(s) of ${options.durationS} s; load average ${load()}`);
  const began = Date.now();
  for (const scenario of selected) {
    const scenarioBegan = Date.now();
    // A self-measuring scenario (several phases, or no HTTP load) returns its own line.
    const line = 'run' in scenario ? await scenario.run({ ...options, log }) : await runScenario(scenario, options);
    process.stdout.write(`${JSON.stringify(line)}\n`);
    log(`${scenario.name}: ${((Date.now() - scenarioBegan) / 1000).toFixed(1)} s; load average ${load()}`);
  }
  log(`${selected.length} scenario(s) in ${((Date.now() - began) / 1000).toFixed(1)} s; load average ${load()}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] failed: ${describeError(error)}\n`);
  process.exitCode = 1;
});
