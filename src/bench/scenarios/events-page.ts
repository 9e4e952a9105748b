import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoHousehold } from '../../demo/demo-household.js';
import { startBenchProcess, type BenchProcess } from '../bench-process.js';
import { buildEventStore } from '../event-store-fixture.js';
import { measure, type Measurement } from '../measure.js';
import { loginDemoUser } from '../oauth-login.js';
import { pairedRounds, type Pair } from '../paired.js';
import type { BenchRequest, SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';
import { median, round } from '../stats.js';

/*
 * `events-page` (docs/design.md §8): `GET /locks/{id}/events` as the owner of a lock holding 1,000,000
 * events, on the real disk, against the raw node:http baseline serving bodies of the same sizes.
 * - `ratio` — the mix a home produces: 80 % of requests ask the lock's newest page (limit 20),
 *   20 % an older page at a random cursor (limit 50), while one new event is recorded every 50 ms
 *   through the production path (a tap on the demo's simulated lock, sent as a control line on
 *   the demo's stdin: lock → gateway → lock runtime → recorder → SQLite, then the page cache is
 *   emptied as for any recorded event). The baseline serves the same 80/20 mix of body sizes.
 * - `cold_ratio` — older pages at random cursors only (20,000 distinct cursors, so the service's
 *   256-page cache answers almost none): the store's own cost.
 * Each ratio is the median of paired rounds.
 */

const SCENARIO_NAME = 'events-page';
const EVENTS = 1_000_000;
const NEWEST_LIMIT = 20;
const OLDER_LIMIT = 50;
const NEWEST_SHARE = 0.8;
const CURSORS = 20_000;
const CONNECTIONS = 20;
const WRITE_INTERVAL_MS = 50;
/** Taps not yet answered; past this the writer skips a tick instead of queueing. */
const MAX_OUTSTANDING_WRITES = 4;
const TARGET_RATIO = 0.35;
const TARGET_COLD_RATIO = 0.2;

/** One event every 50 ms through the demo's control lines: taps by the owner's eKey, unlock and lock in turn. */
class TapWriter {
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private outstanding = 0;
  recorded = 0;
  skipped = 0;
  failures: string[] = [];

  constructor(
    private readonly service: BenchProcess,
    private readonly lockId: string,
    private readonly ekeyId: string,
  ) {
    service.onLine((line) => {
      let answer: { ok?: unknown; id?: unknown; error?: unknown; observed?: unknown };
      try {
        answer = JSON.parse(line) as typeof answer;
      } catch {
        return;
      }
      if (typeof answer.id !== 'string' || !answer.id.startsWith('bench-')) return;
      this.outstanding -= 1;
      if (answer.ok === true && answer.observed !== false) this.recorded += 1;
      else this.failures.push(line);
    });
  }

  start(): void {
    this.timer ??= setInterval(() => {
      if (this.outstanding >= MAX_OUTSTANDING_WRITES) {
        this.skipped += 1;
        return;
      }
      this.outstanding += 1;
      this.next += 1;
      const action = this.next % 2 === 1 ? 'unlock' : 'lock';
      this.service.send(JSON.stringify({ op: 'tap', lock_id: this.lockId, ekey_id: this.ekeyId, action, id: `bench-${this.next}` }));
    }, WRITE_INTERVAL_MS);
  }

  /** Stops sending and waits (up to 10 s) for the answers still due. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + 10_000;
    while (this.outstanding > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Phase {
  ratio: number;
  pairs: Pair<Measurement>[];
}

function phaseFields(prefix: '' | 'cold_', phase: Phase): Record<string, number | number[]> {
  const services = phase.pairs.map((pair) => pair.service);
  const fields: Record<string, number | number[]> = {
    [`${prefix}ops_per_s`]: Math.round(median(services.map((result) => result.opsPerS))),
    [`${prefix}baseline_ops_per_s`]: Math.round(median(phase.pairs.map((pair) => pair.baseline.opsPerS))),
    [`${prefix}ratio`]: round(phase.ratio, 3),
    [`${prefix}p50_ms`]: round(median(services.map((result) => result.p50Ms)), 2),
    [`${prefix}p99_ms`]: round(median(services.map((result) => result.p99Ms)), 2),
    [`${prefix}round_ratios`]: phase.pairs.map((pair) => round(pair.ratio, 3)),
  };
  const cpu = phase.pairs.flatMap((pair) =>
    pair.service.cpuUsPerOp === undefined || pair.baseline.cpuUsPerOp === undefined ? [] : [{ service: pair.service.cpuUsPerOp, baseline: pair.baseline.cpuUsPerOp }],
  );
  if (cpu.length > 0) {
    fields[`${prefix}cpu_us_per_op`] = round(median(cpu.map((entry) => entry.service)), 1);
    fields[`${prefix}baseline_cpu_us_per_op`] = round(median(cpu.map((entry) => entry.baseline)), 1);
    fields[`${prefix}cpu_ratio`] = round(median(cpu.map((entry) => entry.baseline / entry.service)), 3);
  }
  return fields;
}

async function runEventsPage(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-bench-events-'));
  const started: BenchProcess[] = [];
  try {
    const fixture = await buildEventStore(dataDir, EVENTS, CURSORS, options.log);
    const service = await startBenchProcess('../cli.js', ['demo', '--port', '0', '--data', dataDir], { stdin: true });
    started.push(service);
    const demo = service.info as DemoHousehold & { base_url: string };
    const token = await loginDemoUser(demo.base_url, demo, 0);
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const newestPath = `/locks/${fixture.lockId}/events?limit=${NEWEST_LIMIT}`;
    const olderPath = (cursor: string): string => `/locks/${fixture.lockId}/events?limit=${OLDER_LIMIT}&after=${cursor}`;
    const randomOlderPath = (): string => olderPath(fixture.cursors[Math.floor(Math.random() * fixture.cursors.length)] ?? '');

    const page = async (path: string, size: number): Promise<string> => {
      const answer = await fetch(`${demo.base_url}${path}`, { headers });
      const body = await answer.text();
      const parsed = JSON.parse(body) as { lock_events?: unknown[]; metadata?: { count?: number } };
      if (answer.status !== 200 || parsed.lock_events?.length !== size || (parsed.metadata?.count ?? 0) < EVENTS) {
        throw new Error(`events-page: unexpected page ${path} (HTTP ${answer.status}, ${parsed.lock_events?.length ?? 0} events, count ${parsed.metadata?.count ?? 0})`);
      }
      return body;
    };
    const newestBody = await page(newestPath, NEWEST_LIMIT);
    // A full older page (a cursor at least one page from the oldest end) for the baseline's body.
    const olderBody = await page(olderPath(fixture.cursors.find((_, index) => index > 0) ?? ''), OLDER_LIMIT).catch(() => page(randomOlderPath(), OLDER_LIMIT));
    const baseline = await startBenchProcess('./baseline-server.js', [olderBody, '/newest', newestBody]);
    started.push(baseline);
    const baselineUrl = (baseline.info as { base_url: string }).base_url;

    const run = async (which: 'service' | 'baseline', requests: BenchRequest[], durationS: number, label: string): Promise<Measurement> => {
      const result = await measure({
        baseUrl: which === 'service' ? demo.base_url : baselineUrl,
        requests,
        connections: CONNECTIONS,
        durationS,
        serverPid: which === 'service' ? service.pid : baseline.pid,
      });
      if (result.failures > 0) throw new Error(`events-page ${label} ${which}: ${result.failures} of ${result.total} requests failed`);
      return result;
    };
    const describe = (result: Measurement): string =>
      `${Math.round(result.opsPerS)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${result.cpuUsPerOp === undefined ? '' : `, ${Math.round(result.cpuUsPerOp)} µs CPU/req`}`;
    const phase = async (label: string, serviceRequests: BenchRequest[], baselineRequests: BenchRequest[]): Promise<Phase> => {
      options.log(`events-page ${label}: warming up ${options.warmupS} s each`);
      await run('service', serviceRequests, options.warmupS, label);
      await run('baseline', baselineRequests, options.warmupS, label);
      return pairedRounds(
        options.rounds,
        () => run('service', serviceRequests, options.durationS, label),
        () => run('baseline', baselineRequests, options.durationS, label),
        (result) => result.opsPerS,
        (pair, index) => {
          options.log(`events-page ${label} round ${index + 1}: service ${describe(pair.service)}; baseline ${describe(pair.baseline)}; ratio ${round(pair.ratio, 3)}`);
        },
      );
    };

    // The mix, with one event recorded every 50 ms throughout (baseline rounds included, so both
    // sides of a pair share the same machine load).
    // The lock's count before the writer starts: the fixture's events plus the demo's own week of history.
    const before = (JSON.parse(await page(newestPath, NEWEST_LIMIT)) as { metadata: { count: number } }).metadata.count;
    const writer = new TapWriter(service, fixture.lockId, fixture.ekeyId);
    writer.start();
    const mixBegan = Date.now();
    let mix: Phase;
    try {
      mix = await phase(
        'mix',
        [{ method: 'GET', path: newestPath, pathFor: () => (Math.random() < NEWEST_SHARE ? newestPath : randomOlderPath()), headers }],
        [{ method: 'GET', path: '/newest', pathFor: () => (Math.random() < NEWEST_SHARE ? '/newest' : '/') }],
      );
    } finally {
      await writer.stop();
    }
    const mixS = (Date.now() - mixBegan) / 1000;
    if (writer.failures.length > 0) throw new Error(`events-page: ${writer.failures.length} taps failed, e.g. ${writer.failures[0] ?? ''}`);
    options.log(`events-page mix: ${writer.recorded} events recorded during it (${round(writer.recorded / mixS, 1)}/s), ${writer.skipped} ticks skipped`);

    const cold = await phase('cold', [{ method: 'GET', path: randomOlderPath(), pathFor: randomOlderPath, headers }], [{ method: 'GET', path: '/' }]);

    // Every recorded tap is in the store and counted.
    const final = JSON.parse(await page(newestPath, NEWEST_LIMIT)) as { metadata: { count: number } };
    if (final.metadata.count !== before + writer.recorded) {
      throw new Error(`events-page: the lock counts ${final.metadata.count} events, expected ${before} + ${writer.recorded} recorded`);
    }
    const mixFields = phaseFields('', mix);
    const coldFields = phaseFields('cold_', cold);
    return {
      scenario: SCENARIO_NAME,
      ...mixFields,
      ...coldFields,
      events: EVENTS,
      newest_share: NEWEST_SHARE,
      newest_limit: NEWEST_LIMIT,
      older_limit: OLDER_LIMIT,
      cursors: fixture.cursors.length,
      connections: CONNECTIONS,
      recorded_during_mix: writer.recorded,
      recorded_per_s: round(writer.recorded / mixS, 1),
      write_ticks_skipped: writer.skipped,
      data_in_ram: false,
      target_ratio: TARGET_RATIO,
      target_cold_ratio: TARGET_COLD_RATIO,
      ok: mix.ratio >= TARGET_RATIO && cold.ratio >= TARGET_COLD_RATIO,
    };
  } finally {
    for (const child of started.reverse()) await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `events-page`: the realistic page mix under writes (`ratio`) and cold pages (`cold_ratio`) of a 1,000,000-event lock. */
export const eventsPage: SelfMeasuringScenario = {
  name: SCENARIO_NAME,
  description:
    `GET /locks/{id}/events on a lock with ${EVENTS} events (disk): ratio = ${NEWEST_SHARE * 100} % newest page (limit ${NEWEST_LIMIT}) + ` +
    `${100 - NEWEST_SHARE * 100} % older page at a random cursor (limit ${OLDER_LIMIT}) while a tap is recorded every ${WRITE_INTERVAL_MS} ms; ` +
    'cold_ratio = older pages at random cursors only; baseline raw node:http, same body sizes; medians of paired rounds',
  run: runEventsPage,
};
