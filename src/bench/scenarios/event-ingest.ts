import Database from '../../store/sqlite-driver.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DATABASE_FILE, ServiceRoot } from '../../service-root.js';
import type { PluginConfig } from '../../config/plugin-config.js';
import type { LockRuntimeChange } from '../../locks/lock-runtime.js';
import type { Logger } from '../../logger.js';
import { openDatabase } from '../../store/database.js';
import { pairedRounds } from '../paired.js';
import type { SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';
import { median, percentile, round } from '../stats.js';

/*
 * `event-ingest` (docs/design.md §8): durable events per second through the path the runtime takes when
 * gateways report activity. The service is assembled by the real composition root
 * (`ServiceRoot.open`, as Homebridge and `ekey-locks serve` do) on the real disk, with 8 locks of
 * our profile from the config; the benchmark plays their gateway: it emits each lock's activity
 * records on the runtime's `LockGateway` (the `activity` event its drivers raise), the locks in
 * turn — several locks reporting at once — yielding to the event loop after each turn of all 8,
 * as separate Bluetooth notifications would. From there everything is production:
 * `LockRuntime.onActivity` → the runtime's group commit (src/locks/group-commit.ts: the records
 * that arrived together share a transaction) → per record: recorder (dedupe, key and holder
 * lookups, insert, counters) and the lock's activity high-water mark → commit (WAL,
 * synchronous=FULL: durable when it returns) → the live-stream hub and the runtime's change
 * listeners. An event counts once the runtime has published its change, i.e. once it is durable;
 * `events_per_transaction` says how many shared a commit.
 *
 * Baseline: raw better-sqlite3, one one-column row per transaction, same durability, same disk —
 * the device's own ceiling for one commit per event. `ram_*`: the same production path with the
 * data folder in RAM (/dev/shm), i.e. without the device's fsync: the code's own ceiling.
 */

const SCENARIO_NAME = 'event-ingest';
const LOCKS = 8;
const OWNER_EMAIL = 'owner@bench.example.com';
const TARGET_OPS_PER_S = 5_000;

/** A logger that fails the run on errors (the runtime logs a failed record instead of throwing). */
function failingLogger(errors: string[]): Logger {
  return { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (message) => errors.push(message) };
}

interface IngestTarget {
  service: ServiceRoot;
  locks: { id: string; ownerKeyId: string; sequence: number }[];
  errors: string[];
  emitted: number;
}

/** The service as production assembles it, with {@link LOCKS} locks from the config (none connected). */
async function openTarget(dataDir: string): Promise<IngestTarget> {
  const config: PluginConfig = {
    // The bench is their gateway: no transport is ever used (the lock subsystem is not started).
    bluetooth: { transport: 'simulator' },
    locks: Array.from({ length: LOCKS }, (_, index) => ({
      name: `Bench Lock ${index + 1}`,
      address: `D0:E1:BE:00:00:${(index + 1).toString(16).padStart(2, '0').toUpperCase()}`,
      key: randomBytes(32).toString('hex'),
      owner_email: OWNER_EMAIL,
      gateway: true,
    })),
  };
  const errors: string[] = [];
  const service = await ServiceRoot.open({ config, dataDir, logger: failingLogger(errors), demo: false });
  const owner = service.repositories.users.findByEmail(OWNER_EMAIL);
  if (!owner) throw new Error('event-ingest: the configured owner was not created');
  const locks = service.repositories.locks.list().map((lock) => {
    const key = service.repositories.ekeys.findLive(owner.id, lock.id);
    if (!key) throw new Error(`event-ingest: lock ${lock.name} has no owner key`);
    return { id: lock.id, ownerKeyId: key.id, sequence: lock.lastActivitySequence };
  });
  if (locks.length !== LOCKS || !locks.every((lock) => service.lockSubsystem.runtime.isRegistered(lock.id))) {
    throw new Error('event-ingest: the configured locks are not all registered with the runtime');
  }
  return { service, locks, errors, emitted: 0 };
}

interface IngestRun {
  rate: number;
  latencies: number[];
  /** Process CPU time per event, µs. */
  cpuUsPerEvent: number;
  /** Events acknowledged per commit (1 for the raw baseline). */
  eventsPerTransaction: number;
}

/**
 * Emits activity records on the runtime's gateway for `durationMs`. A record counts once the
 * runtime acknowledges it — publishes its `activity` change, which it does only after the
 * transaction that stored it committed — and its latency runs from the emit to that moment.
 */
async function ingest(target: IngestTarget, durationMs: number): Promise<IngestRun> {
  const runtime = target.service.lockSubsystem.runtime;
  const gateway = runtime.gateway;
  const latencies: number[] = [];
  /** Emit times of records not acknowledged yet, by lock and sequence. */
  const unacknowledged = new Map<string, number>();
  let transactions = 0;
  let inCommit = false;
  const onChange = (change: LockRuntimeChange): void => {
    if (change.kind !== 'activity') return;
    const key = `${change.lockId}#${change.record.sequence}`;
    const emittedAt = unacknowledged.get(key);
    if (emittedAt === undefined) return;
    unacknowledged.delete(key);
    latencies.push(performance.now() - emittedAt);
    // The acknowledgements of one commit arrive in one synchronous run (no microtask between them).
    if (!inCommit) {
      inCommit = true;
      transactions += 1;
      queueMicrotask(() => {
        inCommit = false;
      });
    }
  };
  runtime.on('change', onChange);
  const cpuBefore = process.cpuUsage();
  const began = performance.now();
  const deadline = began + durationMs;
  let emitted = 0;
  try {
    while (performance.now() < deadline) {
      for (const lock of target.locks) {
        lock.sequence += 1;
        unacknowledged.set(`${lock.id}#${lock.sequence}`, performance.now());
        gateway.emit('activity', {
          lockId: lock.id,
          record: { sequence: lock.sequence, action: lock.sequence % 2 === 0 ? 'lock' : 'unlock', source: 'tap', credential: lock.ownerKeyId, timestamp: Date.now() },
          backlog: false,
        });
        emitted += 1;
      }
      await nextTurn();
    }
    // What was emitted last is still being committed: the run ends when it is acknowledged.
    for (let turns = 0; unacknowledged.size > 0 && turns < 10_000; turns += 1) await nextTurn();
  } finally {
    runtime.off('change', onChange);
  }
  const elapsedS = (performance.now() - began) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  target.emitted += emitted;
  if (target.errors.length > 0) throw new Error(`event-ingest: the runtime could not store ${target.errors.length} records, e.g. ${target.errors[0] ?? ''}`);
  if (unacknowledged.size > 0) throw new Error(`event-ingest: ${unacknowledged.size} of ${emitted} records were never acknowledged`);
  return { rate: latencies.length / elapsedS, latencies, cpuUsPerEvent: (cpu.user + cpu.system) / latencies.length, eventsPerTransaction: latencies.length / Math.max(1, transactions) };
}

/** Every emitted record is stored, as a tap event by the owner. */
function verify(target: IngestTarget, dataDir: string): void {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    const row = db.prepare<[], { n: number; attributed: number; flagged: number }>('SELECT COUNT(*) AS n, COUNT(performer_id) AS attributed, SUM(flagged) AS flagged FROM lock_events').get();
    if (row?.n !== target.emitted || row.attributed !== target.emitted || row.flagged !== 0) {
      throw new Error(`event-ingest: ${target.emitted} records emitted, ${row?.n ?? 0} events stored (${row?.attributed ?? 0} attributed, ${row?.flagged ?? 0} flagged)`);
    }
  } finally {
    db.close();
  }
}

/** The yardstick: one one-column row per transaction, same durability. */
async function rawInserts(file: string, durationMs: number): Promise<IngestRun> {
  const db = openDatabase(file, []);
  try {
    db.exec('CREATE TABLE IF NOT EXISTS raw_events (id TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO raw_events (id) VALUES (?)');
    const write = db.transaction((id: string) => insert.run(id));
    const latencies: number[] = [];
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    const deadline = began + durationMs;
    while (performance.now() < deadline) {
      for (let index = 0; index < LOCKS; index += 1) {
        const start = performance.now();
        write(randomUUID());
        latencies.push(performance.now() - start);
      }
      await nextTurn();
    }
    const cpu = process.cpuUsage(cpuBefore);
    return { rate: latencies.length / ((performance.now() - began) / 1000), latencies, cpuUsPerEvent: (cpu.user + cpu.system) / latencies.length, eventsPerTransaction: 1 };
  } finally {
    db.close();
  }
}

async function runEventIngest(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ekey-bench-ingest-'));
  const ramRoot = existsSync('/dev/shm') ? '/dev/shm' : undefined;
  const ramDir = ramRoot === undefined ? undefined : mkdtempSync(join(ramRoot, 'ekey-bench-ingest-'));
  try {
    const durationMs = options.durationS * 1000;
    const dataDir = join(dir, 'service');
    const target = await openTarget(dataDir);
    let paired;
    try {
      await ingest(target, options.warmupS * 1000);
      paired = await pairedRounds(
        options.rounds,
        () => ingest(target, durationMs),
        () => rawInserts(join(dir, 'raw.sqlite'), durationMs),
        (run) => run.rate,
        (pair, index) => {
          options.log(
            `event-ingest round ${index + 1}: runtime path ${Math.round(pair.service.rate)} events/s (${Math.round(pair.service.cpuUsPerEvent)} µs CPU each), ` +
              `raw SQLite ${Math.round(pair.baseline.rate)} commits/s; ratio ${round(pair.ratio, 3)}`,
          );
        },
      );
    } finally {
      await target.service.close();
    }
    verify(target, dataDir);

    // The same path without the device: what the code itself allows.
    let ram: IngestRun | undefined;
    if (ramDir !== undefined) {
      const ramTarget = await openTarget(ramDir);
      try {
        await ingest(ramTarget, Math.min(1000, options.warmupS * 1000));
        ram = await ingest(ramTarget, durationMs);
      } finally {
        await ramTarget.service.close();
      }
      verify(ramTarget, ramDir);
      options.log(`event-ingest (data in RAM): ${Math.round(ram.rate)} events/s, ${Math.round(ram.cpuUsPerEvent)} µs CPU each`);
    }

    const services = paired.pairs.map((pair) => pair.service);
    const ops = median(services.map((run) => run.rate));
    const sortedLatencies = (run: IngestRun): number[] => [...run.latencies].sort((a, b) => a - b);
    return {
      scenario: SCENARIO_NAME,
      ops_per_s: Math.round(ops),
      baseline_ops_per_s: Math.round(median(paired.pairs.map((pair) => pair.baseline.rate))),
      ratio: round(paired.ratio, 3),
      p50_ms: round(median(services.map((run) => percentile(sortedLatencies(run), 50))), 3),
      p99_ms: round(median(services.map((run) => percentile(sortedLatencies(run), 99))), 3),
      round_ratios: paired.pairs.map((pair) => round(pair.ratio, 3)),
      cpu_us_per_event: round(median(services.map((run) => run.cpuUsPerEvent)), 1),
      locks: LOCKS,
      events_per_transaction: round(median(services.map((run) => run.eventsPerTransaction)), 2),
      data_in_ram: false,
      ...(ram === undefined ? {} : { ram_ops_per_s: Math.round(ram.rate), ram_cpu_us_per_event: round(ram.cpuUsPerEvent, 1), ram_p99_ms: round(percentile(sortedLatencies(ram), 99), 3) }),
      target_ops_per_s: TARGET_OPS_PER_S,
      ok: ops >= TARGET_OPS_PER_S,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (ramDir !== undefined) rmSync(ramDir, { recursive: true, force: true });
  }
}

/** `event-ingest`: durable events/s through the lock runtime's activity path, several locks at once, on disk. */
export const eventIngest: SelfMeasuringScenario = {
  name: SCENARIO_NAME,
  description: `durable events/s through LockRuntime's activity path (composition root, ${LOCKS} locks reporting in turn, disk); baseline raw SQLite one commit per row; ram_* with data in /dev/shm`,
  run: runEventIngest,
};
