import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../app.js';
import type { DemoHousehold } from '../../demo/demo-household.js';
import { newEventId } from '../../events/event-id.js';
import { openDatabase } from '../../store/database.js';
import { EventRepository } from '../../store/event-repository.js';
import { startBenchProcess, type BenchProcess } from '../bench-process.js';
import { measure, type Measurement } from '../measure.js';
import { loginDemoUser } from '../oauth-login.js';
import type { BenchRequest, SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';

/*
 * `events-page`: GET /locks/{id}/events?limit=50 on a lock with 1,000,000 events, on the first
 * page and 20,000 pages deep (via an `after` cursor), against the raw node:http baseline serving a
 * body of the same size. Keyset pagination must make both cost the same: target deep ≤ 1.5× first,
 * and the HTTP ratio ≥ 0.25.
 */

const EVENTS = 1_000_000;
const PAGE = 50;
const DEPTH_PAGES = 20_000;
const CONNECTIONS = 20;
const SEED_BATCH = 50_000;

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/**
 * Seeds `count` events on one lock straight into the service's SQLite file (WAL allows a second
 * writer process), in large transactions: lock/unlock taps by the owner, a battery report every
 * tenth; the counters are rebuilt once at the end, so `count` is right afterwards.
 */
export function seedEvents(file: string, lockId: string, performerId: string, count: number, log: (message: string) => void): void {
  const db = openDatabase(file);
  try {
    const insert = db.prepare(
      `INSERT INTO lock_events (id, lock_id, type, performer_id, performer_name, occurred_at, value, source, ekey_id,
         command_id, lock_sequence, flagged, recorded_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, NULL, NULL, ?, 0, ?)`,
    );
    const start = Date.UTC(2024, 0, 1);
    const began = Date.now();
    for (let offset = 0; offset < count; offset += SEED_BATCH) {
      db.transaction(() => {
        for (let index = offset; index < Math.min(count, offset + SEED_BATCH); index += 1) {
          const at = start + index * 30_000;
          if (index % 10 === 9) insert.run(newEventId(at), lockId, 'battery', null, at, 1 - (index % 100) / 100, 'battery', null, at);
          else insert.run(newEventId(at), lockId, index % 2 === 0 ? 'unlock' : 'lock', performerId, at, null, 'tap', index + 1, at);
        }
      })();
    }
    new EventRepository(db).rebuildCounts();
    log(`events-page: seeded ${count} events in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  } finally {
    db.close();
  }
}

/** The id of the event at `position` (0 = newest) of the lock, for a deep cursor (setup only). */
function eventAt(file: string, lockId: string, position: number): string {
  const db = openDatabase(file);
  try {
    const row = db.prepare<[string, number], { id: string }>('SELECT id FROM lock_events WHERE lock_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?').get(lockId, position);
    if (!row) throw new Error(`no event at position ${position}`);
    return row.id;
  } finally {
    db.close();
  }
}

async function runEventsPage(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-bench-events-'));
  const started: BenchProcess[] = [];
  try {
    const service = await startBenchProcess('../cli.js', ['demo', '--port', '0', '--data', dataDir]);
    started.push(service);
    const demo = service.info as DemoHousehold & { base_url: string };
    const owner = demo.users[0];
    const lock = demo.locks.find((entry) => !entry.gateway) ?? demo.locks[0];
    if (!owner || !lock) throw new Error('demo household without owner or lock');
    const file = join(dataDir, DATABASE_FILE);
    seedEvents(file, lock.id, owner.id, EVENTS, options.log);
    const deepCursor = eventAt(file, lock.id, PAGE * (DEPTH_PAGES - 1) - 1);

    const token = await loginDemoUser(demo.base_url, demo, 0);
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const firstPath = `/locks/${lock.id}/events?limit=${PAGE}`;
    const deepPath = `${firstPath}&after=${deepCursor}`;
    const sample = await fetch(`${demo.base_url}${deepPath}`, { headers });
    const sampleBody = await sample.text();
    const parsed = JSON.parse(sampleBody) as { lock_events: unknown[]; metadata: { count: number } };
    if (sample.status !== 200 || parsed.lock_events.length !== PAGE || parsed.metadata.count !== EVENTS) {
      throw new Error(`events-page: unexpected deep page (HTTP ${sample.status}, ${parsed.lock_events.length} events, count ${parsed.metadata.count})`);
    }
    const baseline = await startBenchProcess('./baseline-server.js', [sampleBody]);
    started.push(baseline);
    const baselineUrl = (baseline.info as { base_url: string }).base_url;

    const run = async (url: string, requests: BenchRequest[], durationS: number): Promise<Measurement> => {
      const serverPid = url === baselineUrl ? baseline.pid : service.pid;
      const result = await measure({ baseUrl: url, requests, connections: CONNECTIONS, durationS, serverPid });
      if (result.failures > 0) throw new Error(`events-page: ${result.failures} of ${result.total} requests failed`);
      return result;
    };
    const first: BenchRequest[] = [{ method: 'GET', path: firstPath, headers }];
    const deep: BenchRequest[] = [{ method: 'GET', path: deepPath, headers }];
    const raw: BenchRequest[] = [{ method: 'GET', path: '/' }];

    options.log(`events-page: warming up ${options.warmupS} s each`);
    await run(demo.base_url, first, options.warmupS);
    await run(demo.base_url, deep, options.warmupS);
    await run(baselineUrl, raw, options.warmupS);
    const results = { first: [] as Measurement[], deep: [] as Measurement[], baseline: [] as Measurement[] };
    for (let index = 0; index < options.rounds; index += 1) {
      const order = index % 2 === 0 ? (['baseline', 'first', 'deep'] as const) : (['deep', 'first', 'baseline'] as const);
      for (const which of order) {
        const result = await run(which === 'baseline' ? baselineUrl : demo.base_url, which === 'baseline' ? raw : which === 'first' ? first : deep, options.durationS);
        results[which].push(result);
        const cpu = result.cpuUsPerOp === undefined ? '' : `, ${Math.round(result.cpuUsPerOp)} µs CPU/req`;
        options.log(`events-page round ${index + 1} ${which}: ${Math.round(result.opsPerS)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${cpu}`);
      }
    }
    // Best of the rounds, as the harness does (docs/performance.md "get-me: method"): on a shared
    // machine interference only slows a run down. CPU per request: the minimum.
    const ops = (list: Measurement[]): number => Math.max(...list.map((result) => result.opsPerS));
    const fastest = (list: Measurement[]): Measurement | undefined => [...list].sort((a, b) => b.opsPerS - a.opsPerS)[0];
    const deepOps = ops(results.deep);
    const firstOps = ops(results.first);
    const baselineOps = ops(results.baseline);
    const cpu = (list: Measurement[]): number | undefined => {
      const values = list.flatMap((result) => (result.cpuUsPerOp === undefined ? [] : [result.cpuUsPerOp]));
      return values.length === 0 ? undefined : Math.min(...values);
    };
    const deepCpu = cpu(results.deep);
    const firstCpu = cpu(results.first);
    const baselineCpu = cpu(results.baseline);
    const cpuFields =
      deepCpu === undefined || firstCpu === undefined || baselineCpu === undefined
        ? {}
        : {
            cpu_us_per_op: round(deepCpu, 1),
            baseline_cpu_us_per_op: round(baselineCpu, 1),
            // The HTTP ratio the service would reach on idle cores.
            cpu_ratio: round(baselineCpu / deepCpu, 3),
            first_page_cpu_us_per_op: round(firstCpu, 1),
            deep_vs_first_cpu: round(deepCpu / firstCpu, 3),
          };
    return {
      scenario: 'events-page',
      ops_per_s: Math.round(deepOps),
      baseline_ops_per_s: Math.round(baselineOps),
      ratio: round(deepOps / baselineOps, 3),
      p50_ms: round(fastest(results.deep)?.p50Ms ?? 0, 2),
      p99_ms: round(fastest(results.deep)?.p99Ms ?? 0, 2),
      first_page_ops_per_s: Math.round(firstOps),
      first_page_ratio: round(firstOps / baselineOps, 3),
      first_page_p50_ms: round(fastest(results.first)?.p50Ms ?? 0, 2),
      first_page_p99_ms: round(fastest(results.first)?.p99Ms ?? 0, 2),
      // Time per deep page relative to the first page (target ≤ 1.5).
      deep_vs_first: round(firstOps / deepOps, 3),
      events: EVENTS,
      page_depth: DEPTH_PAGES,
      limit: PAGE,
      ...cpuFields,
    };
  } finally {
    for (const child of started.reverse()) await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `events-page`: first page vs 20,000 pages deep of a 1,000,000-event lock, over HTTP. */
export const eventsPage: SelfMeasuringScenario = {
  name: 'events-page',
  description: `GET /locks/{id}/events?limit=${PAGE} on a lock with ${EVENTS} events: first page and ${DEPTH_PAGES} pages deep (ops_per_s = deep page)`,
  run: runEventsPage,
};
