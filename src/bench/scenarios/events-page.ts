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
 * `events-page`: GET /locks/{id}/events?limit=50 on a lock with 1,000,000 events, against the raw
 * node:http baseline serving a body of the same size, in two shapes:
 * - repeated: the newest page and the page 20,000 pages deep (via an `after` cursor), each asked
 *   again and again, as clients refreshing a history view do; the service's page cache answers
 *   these (docs/architecture.md "Event page cache"). `ratio` is the deep page's.
 * - spread: each request one of 5,000 distinct pages at random, near the start (pages 1–5,000) or
 *   ending 20,000 pages deep (15,001–20,000). The cache holds 256 pages, so about 95 % of these are
 *   read from the store: this is the keyset pagination's own cost, and `deep_vs_first` (target
 *   ≤ 1.5) compares the two regions here.
 */

const EVENTS = 1_000_000;
const PAGE = 50;
const DEPTH_PAGES = 20_000;
/** Distinct pages of each spread region. */
const SPREAD_PAGES = 5_000;
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

/**
 * The `after` cursor of every page from `firstPage` to `lastPage` (1 = the newest page, which has
 * none: `null`), by position in the lock's history (setup only).
 */
function pageCursors(file: string, lockId: string, firstPage: number, lastPage: number): (string | null)[] {
  const db = openDatabase(file);
  try {
    const cursorAt = db.prepare<[string, number], string>('SELECT id FROM lock_events WHERE lock_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?').pluck();
    const first = firstPage === 1 ? null : cursorAt.get(lockId, PAGE * (firstPage - 1) - 1);
    if (first === undefined) throw new Error(`no page ${firstPage}`);
    const cursors: (string | null)[] = [first];
    // Walk on from the first cursor: each next cursor is the last id of the page after the previous.
    const next = db
      .prepare<[string, string, number], string>(
        'SELECT id FROM lock_events WHERE lock_id = ? AND seq < (SELECT seq FROM lock_events WHERE id = ?) ORDER BY seq DESC LIMIT 1 OFFSET ?',
      )
      .pluck();
    const firstCursor = first ?? cursorAt.get(lockId, PAGE - 1);
    if (firstCursor === undefined) throw new Error('no second page');
    let previous: string = firstCursor;
    if (first === null) cursors.push(previous);
    while (cursors.length < lastPage - firstPage + 1) {
      const id = next.get(lockId, previous, PAGE - 1);
      if (id === undefined) throw new Error(`no page after ${cursors.length + firstPage - 1}`);
      cursors.push(id);
      previous = id;
    }
    return cursors.slice(0, lastPage - firstPage + 1);
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
    const nearStart = pageCursors(file, lock.id, 1, SPREAD_PAGES);
    const deepEnd = pageCursors(file, lock.id, DEPTH_PAGES - SPREAD_PAGES + 1, DEPTH_PAGES);
    const deepCursor = deepEnd.at(-1);
    if (!deepCursor) throw new Error('events-page: no deep cursor');

    const token = await loginDemoUser(demo.base_url, demo, 0);
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const firstPath = `/locks/${lock.id}/events?limit=${PAGE}`;
    const pathOf = (cursor: string | null): string => (cursor === null ? firstPath : `${firstPath}&after=${cursor}`);
    const deepPath = pathOf(deepCursor);
    const sample = await fetch(`${demo.base_url}${deepPath}`, { headers });
    const sampleBody = await sample.text();
    const parsed = JSON.parse(sampleBody) as { lock_events: unknown[]; metadata: { count: number; next?: string } };
    if (sample.status !== 200 || parsed.lock_events.length !== PAGE || parsed.metadata.count !== EVENTS || parsed.metadata.next !== undefined) {
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
    const spread = (cursors: (string | null)[]): BenchRequest[] => {
      const paths = cursors.map(pathOf);
      return [{ method: 'GET', path: paths[0] ?? firstPath, paths, headers }];
    };
    const shapes = {
      baseline: { url: baselineUrl, requests: [{ method: 'GET', path: '/' }] as BenchRequest[] },
      first: { url: demo.base_url, requests: [{ method: 'GET', path: firstPath, headers }] as BenchRequest[] },
      deep: { url: demo.base_url, requests: [{ method: 'GET', path: deepPath, headers }] as BenchRequest[] },
      spreadFirst: { url: demo.base_url, requests: spread(nearStart) },
      spreadDeep: { url: demo.base_url, requests: spread(deepEnd) },
    };
    type Shape = keyof typeof shapes;
    const order: Shape[] = ['baseline', 'first', 'deep', 'spreadFirst', 'spreadDeep'];

    options.log(`events-page: warming up ${options.warmupS} s each`);
    for (const which of order) await run(shapes[which].url, shapes[which].requests, options.warmupS);
    const results: Record<Shape, Measurement[]> = { baseline: [], first: [], deep: [], spreadFirst: [], spreadDeep: [] };
    for (let index = 0; index < options.rounds; index += 1) {
      for (const which of index % 2 === 0 ? order : [...order].reverse()) {
        const result = await run(shapes[which].url, shapes[which].requests, options.durationS);
        results[which].push(result);
        const cpu = result.cpuUsPerOp === undefined ? '' : `, ${Math.round(result.cpuUsPerOp)} µs CPU/req`;
        options.log(`events-page round ${index + 1} ${which}: ${Math.round(result.opsPerS)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${cpu}`);
      }
    }
    // Best of the rounds, as the harness does (docs/performance.md "get-me: method"): on a shared
    // machine interference only slows a run down. CPU per request: the minimum.
    const ops = (which: Shape): number => Math.max(...results[which].map((result) => result.opsPerS));
    const fastest = (which: Shape): Measurement | undefined => [...results[which]].sort((a, b) => b.opsPerS - a.opsPerS)[0];
    const cpu = (which: Shape): number | undefined => {
      const values = results[which].flatMap((result) => (result.cpuUsPerOp === undefined ? [] : [result.cpuUsPerOp]));
      return values.length === 0 ? undefined : Math.min(...values);
    };
    const baselineOps = ops('baseline');
    const cpus = order.map(cpu);
    const [baselineCpu, firstCpu, deepCpu, spreadFirstCpu, spreadDeepCpu] = cpus;
    const cpuFields =
      baselineCpu === undefined || firstCpu === undefined || deepCpu === undefined || spreadFirstCpu === undefined || spreadDeepCpu === undefined
        ? {}
        : {
            cpu_us_per_op: round(deepCpu, 1),
            baseline_cpu_us_per_op: round(baselineCpu, 1),
            // The HTTP ratio the service would reach on idle cores.
            cpu_ratio: round(baselineCpu / deepCpu, 3),
            first_page_cpu_us_per_op: round(firstCpu, 1),
            spread_cpu_us_per_op: round(spreadDeepCpu, 1),
            spread_cpu_ratio: round(baselineCpu / spreadDeepCpu, 3),
            spread_first_cpu_us_per_op: round(spreadFirstCpu, 1),
            deep_vs_first_cpu: round(spreadDeepCpu / spreadFirstCpu, 3),
          };
    return {
      scenario: 'events-page',
      // Repeated pages (the service's page cache answers): the deep one, then the newest one.
      ops_per_s: Math.round(ops('deep')),
      baseline_ops_per_s: Math.round(baselineOps),
      ratio: round(ops('deep') / baselineOps, 3),
      p50_ms: round(fastest('deep')?.p50Ms ?? 0, 2),
      p99_ms: round(fastest('deep')?.p99Ms ?? 0, 2),
      first_page_ops_per_s: Math.round(ops('first')),
      first_page_ratio: round(ops('first') / baselineOps, 3),
      first_page_p50_ms: round(fastest('first')?.p50Ms ?? 0, 2),
      first_page_p99_ms: round(fastest('first')?.p99Ms ?? 0, 2),
      // Spread pages (mostly read from the store): deep region, near-start region.
      spread_ops_per_s: Math.round(ops('spreadDeep')),
      spread_ratio: round(ops('spreadDeep') / baselineOps, 3),
      spread_p99_ms: round(fastest('spreadDeep')?.p99Ms ?? 0, 2),
      spread_first_ops_per_s: Math.round(ops('spreadFirst')),
      spread_first_ratio: round(ops('spreadFirst') / baselineOps, 3),
      spread_first_p99_ms: round(fastest('spreadFirst')?.p99Ms ?? 0, 2),
      // Time per deep page relative to a page near the start, both read from the store (target ≤ 1.5).
      deep_vs_first: round(ops('spreadFirst') / ops('spreadDeep'), 3),
      // The same for the repeated (cached) pages.
      repeated_deep_vs_first: round(ops('first') / ops('deep'), 3),
      events: EVENTS,
      page_depth: DEPTH_PAGES,
      spread_pages: SPREAD_PAGES,
      limit: PAGE,
      ...cpuFields,
    };
  } finally {
    for (const child of started.reverse()) await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `events-page`: newest vs 20,000-pages-deep pages of a 1,000,000-event lock, over HTTP, repeated and spread. */
export const eventsPage: SelfMeasuringScenario = {
  name: 'events-page',
  description: `GET /locks/{id}/events?limit=${PAGE} on a lock with ${EVENTS} events: newest page and ${DEPTH_PAGES} pages deep, repeated (ops_per_s = deep page) and spread over ${SPREAD_PAGES} distinct pages each`,
  run: runEventsPage,
};
