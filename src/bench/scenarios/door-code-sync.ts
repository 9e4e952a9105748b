import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DemoHousehold } from '../../demo/demo-household.js';
import { startBenchProcess, type BenchProcess } from '../bench-process.js';
import { keepAliveClient, repeatFor } from '../keep-alive-client.js';
import { loginDemoUser } from '../oauth-login.js';
import type { SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';
import { median, percentile, round } from '../stats.js';

/*
 * `door-code-sync` (docs/design.md §8, §4c): the time our code adds from `POST /ekey` with
 * `"door_code": true` until the key's `door_code.state` reads `set`, and from the revoke
 * (`DELETE /ekey/{id}`) until it reads `removed`, on the demo's Back Door — a zero-latency
 * simulated Nuki with a keypad, reached through the Nuki driver (challenge, security PIN,
 * encrypted Add / Request / Remove Keypad Code, every message cut into 20-byte indications). One
 * client sends the key to a signed-up demo user and polls `GET /ekey/{id}` back to back, then
 * revokes it and polls again; the next key follows.
 *
 * Inside the figures: HTTP, bearer and permission checks, the SQLite transactions of the key and
 * its code row (WAL, synchronous=FULL, data on the real disk), the sync engine's wake-up, the
 * gateway's connect and keypad session, the crypto on both ends. The lock's own write time is
 * zero here (the simulated Nuki answers at once), so it is excluded by construction. Baseline:
 * a raw `node:http` server answering one POST and one GET on the same kind of connection;
 * `p99_ms` and `remove_p99_ms` are the round trips' percentiles minus the baseline's median
 * request pair. Target: ≤ 50 ms each.
 */

const SCENARIO_NAME = 'door-code-sync';
const TARGET_P99_MS = 50;

interface DoorCodeAnswer {
  id: string;
  door_code: { state: string; failure_reason: string | null } | null;
}

async function measure(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-bench-door-codes-'));
  const started: BenchProcess[] = [];
  try {
    const service = await startBenchProcess('../cli.js', ['demo', '--port', '0', '--data', dataDir]);
    started.push(service);
    const demo = service.info as DemoHousehold & { base_url: string };
    const lockId = demo.locks.find((lock) => lock.name === 'Back Door')?.id;
    if (lockId === undefined) throw new Error('the demo has no Back Door (the simulated Nuki with a keypad)');
    const token = await loginDemoUser(demo.base_url, demo, 0);
    const baseline = await startBenchProcess('./baseline-server.js', [JSON.stringify({ id: '00000000-0000-4000-8000-000000000000', door_code: { state: 'set' } })]);
    started.push(baseline);
    const api = keepAliveClient(demo.base_url, token);
    const raw = keepAliveClient((baseline.info as { base_url: string }).base_url, undefined);

    /** Polls the key until its code reads `state`; returns the polls it took. */
    const until = async (keyId: string, state: string): Promise<number> => {
      for (let polls = 1; ; polls++) {
        const answer = await api.send('GET', `/ekey/${keyId}`);
        if (answer.status !== 200) throw new Error(`GET /ekey answered ${answer.status}: ${answer.body}`);
        const doorCode = (JSON.parse(answer.body) as DoorCodeAnswer).door_code;
        if (doorCode?.state === state) return polls;
        if (doorCode?.state === 'failed') throw new Error(`the door code failed: ${String(doorCode.failure_reason)}`);
      }
    };

    // A signed-up demo user with no live key on Back Door receives the keys (accepted at once: no invitation).
    let email: string | undefined;
    for (const user of demo.users.slice(1)) {
      const tried = await api.send('POST', '/ekey', JSON.stringify({ email: user.email, lock_id: lockId, type: 'anytime', door_code: true }));
      if (tried.status !== 201) continue;
      const keyId = (JSON.parse(tried.body) as DoorCodeAnswer).id;
      await until(keyId, 'set');
      await api.send('DELETE', `/ekey/${keyId}`);
      await until(keyId, 'removed');
      email = user.email;
      break;
    }
    if (email === undefined) throw new Error('no demo user without a key on Back Door');
    const body = JSON.stringify({ email, lock_id: lockId, type: 'anytime', door_code: true });

    const setDurations: number[] = [];
    const removeDurations: number[] = [];
    let polls = 0;
    const cycle = async (): Promise<void> => {
      let startedAt = performance.now();
      const sent = await api.send('POST', '/ekey', body);
      if (sent.status !== 201) throw new Error(`POST /ekey answered ${sent.status}: ${sent.body}`);
      const keyId = (JSON.parse(sent.body) as DoorCodeAnswer).id;
      polls += await until(keyId, 'set');
      setDurations.push(performance.now() - startedAt);
      startedAt = performance.now();
      const revoked = await api.send('DELETE', `/ekey/${keyId}`);
      if (revoked.status !== 200) throw new Error(`DELETE /ekey answered ${revoked.status}: ${revoked.body}`);
      polls += await until(keyId, 'removed');
      removeDurations.push(performance.now() - startedAt);
    };
    const baselinePair = async (): Promise<void> => {
      await raw.send('POST', '/', body);
      await raw.send('GET', '/');
    };

    options.log(`${SCENARIO_NAME}: warming up ${options.warmupS} s each`);
    await repeatFor(options.warmupS, cycle);
    await repeatFor(options.warmupS, baselinePair);
    setDurations.length = 0;
    removeDurations.length = 0;
    polls = 0;
    const baselineDurations: number[] = [];
    for (let index = 0; index < options.rounds; index++) {
      // Back to back, the order alternating (docs/design.md §8).
      const service = (): Promise<number[]> => repeatFor(options.durationS, cycle);
      const yardstick = async (): Promise<void> => {
        baselineDurations.push(...(await repeatFor(options.durationS, baselinePair)));
      };
      if (index % 2 === 0) {
        await yardstick();
        await service();
      } else {
        await service();
        await yardstick();
      }
      options.log(`${SCENARIO_NAME} round ${index + 1}: ${setDurations.length} keys set and removed so far`);
    }
    api.close();
    raw.close();

    const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);
    const set = sorted(setDurations);
    const removed = sorted(removeDurations);
    const transport = median(sorted(baselineDurations));
    const ours = (values: number[], p: number): number => Math.max(0, percentile(values, p) - transport);
    const p99 = ours(set, 99);
    const removeP99 = ours(removed, 99);
    options.log(
      `${SCENARIO_NAME}: ${set.length} keys; POST → set p99 ${round(percentile(set, 99), 2)} ms, revoke → removed p99 ${round(percentile(removed, 99), 2)} ms; ` +
        `baseline POST+GET p50 ${round(transport, 3)} ms`,
    );
    return {
      scenario: SCENARIO_NAME,
      p50_ms: round(ours(set, 50), 2),
      p99_ms: round(p99, 2),
      remove_p50_ms: round(ours(removed, 50), 2),
      remove_p99_ms: round(removeP99, 2),
      set_roundtrip_p99_ms: round(percentile(set, 99), 2),
      remove_roundtrip_p99_ms: round(percentile(removed, 99), 2),
      baseline_p50_ms: round(transport, 3),
      polls_per_key: round(polls / Math.max(1, set.length), 2),
      samples: set.length,
      data_in_ram: false,
      lock_write_ms: 0,
      target_p99_ms: TARGET_P99_MS,
      ok: p99 <= TARGET_P99_MS && removeP99 <= TARGET_P99_MS,
    };
  } finally {
    for (const child of started.reverse()) await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The scenario, for the bench registry. */
export const doorCodeSync: SelfMeasuringScenario = {
  name: SCENARIO_NAME,
  description: 'POST /ekey with a door code → set, and revoke → removed, on a zero-latency simulated Nuki with a keypad; time our code adds over a raw node:http POST+GET',
  run: measure,
};
