import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../../domain/clock.js';
import { GroupCommitter, type SinkReport } from '../../events/event-recorder.js';
import { createEventServices } from '../../events/event-services.js';
import { silentLogger } from '../../logger.js';
import { openDatabase, type SqliteDatabase } from '../../store/database.js';
import type { SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';

/*
 * `event-ingest`: durable LockEvents per second through the recorder (WAL, synchronous=FULL: an
 * event counts only once its transaction is fsynced). Three ways in:
 * - group commit (`ops_per_s`): many locks report at once; reports of one event-loop turn share a
 *   transaction (GroupCommitter), each caller resolved once durable — latency is submit → durable;
 * - one transaction per call (the synchronous LockEventSink methods): bounded by fsyncs/s;
 * - backlog batches (a reconnect's read-back of 500 records in one transaction).
 * Baseline: raw better-sqlite3 inserts of a one-column row with the same batching and durability,
 * so the ratio is the recorder's own cost (rules, dedupe lookups, indexes, counters).
 * Target: ≥ 5,000 durable events/s.
 */

const PRODUCERS = 256;
const BACKLOG = 500;
const LOCK_ID = '5e0c1a2b-0000-4000-8000-00000000be01';
const OWNER_ID = '5e0c1a2b-0000-4000-8000-00000000be02';
const KEY_ID = '5e0c1a2b-0000-4000-8000-00000000be03';

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
const round = (value: number, digits: number): number => Number(value.toFixed(digits));

function seedHousehold(db: SqliteDatabase): void {
  db.prepare(
    `INSERT INTO users (id, email, email_normalized, name, password_hash, ekey_quota, can_send_ekeys, created_at)
     VALUES (?, 'bench@example.com', 'bench@example.com', 'Bench Owner', NULL, NULL, 1, 0)`,
  ).run(OWNER_ID);
  db.prepare(
    `INSERT INTO locks (id, name, ble_address, lock_key, time_zone, owner_id, has_gateway, bolt_state, battery_level,
       last_seen_at, last_activity_sequence, created_at) VALUES (?, 'Bench Door', NULL, NULL, 'UTC', ?, 1, 'unknown', NULL, NULL, 0, 0)`,
  ).run(LOCK_ID, OWNER_ID);
}

/** One fresh store with the events layer over it (eKey answers faked: the key is always usable). */
function freshRecorder(dir: string, name: string) {
  const db = openDatabase(join(dir, `${name}.sqlite`));
  seedHousehold(db);
  const key = { id: KEY_ID, lock_id: LOCK_ID, user_id: OWNER_ID };
  const events = createEventServices({
    db,
    clock: systemClock,
    logger: silentLogger,
    access: { roleOn: () => 'owner', usableKeyFor: () => key },
    ekeys: { findById: (id) => (id === KEY_ID ? key : undefined) },
    users: { findById: () => ({ name: 'Bench Owner' }), writeVersion: 0 },
  });
  return { db, events };
}

let sequence = 0;
const tapReport = (): SinkReport => ({
  kind: 'activity',
  lockId: LOCK_ID,
  sequence: ++sequence,
  action: sequence % 2 === 0 ? 'lock' : 'unlock',
  source: 'tap',
  credential: KEY_ID,
  timestamp: Date.now(),
});

/** Many producers, each submitting its next report as soon as the previous one is durable. */
async function groupCommitRun(committer: { submit(report: SinkReport): Promise<unknown> }, durationMs: number): Promise<{ rate: number; latencies: number[] }> {
  const latencies: number[] = [];
  const deadline = performance.now() + durationMs;
  const began = performance.now();
  const producer = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const start = performance.now();
      await committer.submit(tapReport());
      latencies.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: PRODUCERS }, producer));
  return { rate: latencies.length / ((performance.now() - began) / 1000), latencies };
}

/** The yardstick: the same batching and durability with a bare one-column insert. */
async function rawSqliteRun(db: SqliteDatabase, durationMs: number): Promise<number> {
  db.exec('CREATE TABLE raw_events (id TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO raw_events (id) VALUES (?)');
  const committer = {
    queue: [] as (() => void)[],
    scheduled: false,
    submit(): Promise<void> {
      return new Promise((resolve) => {
        this.queue.push(resolve);
        if (!this.scheduled) {
          this.scheduled = true;
          setImmediate(() => {
            this.scheduled = false;
            const batch = this.queue.splice(0);
            db.transaction(() => {
              for (let index = 0; index < batch.length; index += 1) insert.run(randomUUID());
            })();
            for (const resolveOne of batch) resolveOne();
          });
        }
      });
    },
  };
  return (await groupCommitRun(committer, durationMs)).rate;
}

async function runEventIngest(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ekey-bench-ingest-'));
  try {
    const durationMs = options.durationS * 1000;
    const rates: number[] = [];
    const baselineRates: number[] = [];
    let latencies: number[] = [];
    for (let round_ = 0; round_ < options.rounds; round_ += 1) {
      const { db, events } = freshRecorder(dir, `group-${round_}`);
      await groupCommitRun(new GroupCommitter(events.recorder), options.warmupS * 1000);
      const result = await groupCommitRun(new GroupCommitter(events.recorder), durationMs);
      rates.push(result.rate);
      latencies = latencies.concat(result.latencies);
      db.close();
      const raw = openDatabase(join(dir, `raw-${round_}.sqlite`));
      baselineRates.push(await rawSqliteRun(raw, durationMs));
      raw.close();
      options.log(`event-ingest round ${round_ + 1}: group commit ${Math.round(result.rate)} events/s, raw SQLite ${Math.round(baselineRates.at(-1) ?? 0)} rows/s`);
    }

    // One transaction (one fsync) per call: what the synchronous sink methods cost.
    const single = freshRecorder(dir, 'single');
    let singleCount = 0;
    const singleBegan = performance.now();
    while (performance.now() - singleBegan < Math.min(durationMs, 3000)) {
      const report = tapReport();
      if (report.kind === 'activity') single.events.recorder.recordActivity(report);
      singleCount += 1;
    }
    const singleRate = singleCount / ((performance.now() - singleBegan) / 1000);

    // A reconnect's read-back: 500 records per transaction.
    let backlogCount = 0;
    const backlogBegan = performance.now();
    while (performance.now() - backlogBegan < Math.min(durationMs, 3000)) {
      single.events.recorder.recordBatch(Array.from({ length: BACKLOG }, tapReport));
      backlogCount += BACKLOG;
    }
    const backlogRate = backlogCount / ((performance.now() - backlogBegan) / 1000);
    const stored = single.events.repository.count({ lockId: LOCK_ID, types: ['lock', 'unlock'] });
    single.db.close();
    if (stored !== singleCount + backlogCount) throw new Error(`event-ingest: stored ${stored} events, expected ${singleCount + backlogCount}`);
    options.log(`event-ingest: one transaction per call ${Math.round(singleRate)} events/s, backlog batches ${Math.round(backlogRate)} events/s`);

    const sorted = [...latencies].sort((a, b) => a - b);
    // Best of the rounds, as the harness does: interference on a shared machine only slows a run.
    const ops = Math.max(...rates);
    const baselineOps = Math.max(...baselineRates);
    return {
      scenario: 'event-ingest',
      ops_per_s: Math.round(ops),
      baseline_ops_per_s: Math.round(baselineOps),
      ratio: round(ops / baselineOps, 3),
      p50_ms: round(percentile(sorted, 50), 2),
      p99_ms: round(percentile(sorted, 99), 2),
      producers: PRODUCERS,
      per_call_transaction_events_per_s: Math.round(singleRate),
      backlog_batch_events_per_s: Math.round(backlogRate),
      backlog_batch_size: BACKLOG,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `event-ingest`: durable events per second through the recorder. */
export const eventIngest: SelfMeasuringScenario = {
  name: 'event-ingest',
  description: `durable events/s through the recorder: group commit with ${PRODUCERS} producers (ops_per_s), one transaction per call, ${BACKLOG}-record backlogs; baseline raw SQLite inserts`,
  run: runEventIngest,
};
