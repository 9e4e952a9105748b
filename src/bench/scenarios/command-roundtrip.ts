import type { LockFamilyId } from '../../families/registry.js';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { systemClock } from '../../domain/clock.js';
import { SimulatedLock } from '../../families/ekey/simulator/simulated-lock.js';
import { FakeEsphomeProxy } from '../fake-esphome-proxy/fake-esphome-proxy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoHousehold } from '../../demo/demo-household.js';
import { startBenchProcess, type BenchProcess } from '../bench-process.js';
import { keepAliveClient as client, repeatFor } from '../keep-alive-client.js';
import { processCpuMs } from '../measure.js';
import { loginDemoUser } from '../oauth-login.js';
import type { SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';
import { median, percentile, round } from '../stats.js';

/*
 * `command-roundtrip`: one client sends `POST /locks/{id}/commands` to the demo's Front Door (a
 * zero-latency simulated lock behind the in-process simulator transport) and polls
 * `GET /locks/{id}/commands/{command_id}` back to back until `completed`; then the next command
 * (unlock and lock alternate). Everything the service does is inside: HTTP, bearer check, eKey
 * check, SQLite writes (WAL, synchronous=FULL), the per-lock queue, the gateway's signed Control
 * Point exchange and the simulated lock's answer, the event record.
 *
 * `command-roundtrip-nuki`: the same on the demo's Back Door, a zero-latency simulated Nuki
 * reached through the Nuki driver — challenge, encrypted Lock Action, ACCEPTED, Keyturner States,
 * COMPLETE, every message a secretbox cut into 20-byte indications and reassembled — so the
 * figure includes the crypto.
 *
 * `command-roundtrip-proxy` (docs/design.md §4e): the same on a lock of our profile reached only
 * through the ESPHome transport: `ekey-locks demo --config FILE` with one Bluetooth proxy (Noise
 * on) and one more lock of our profile, the proxy a zero-latency fake in this process speaking the
 * native API over loopback TCP with a zero-latency simulated lock behind it — so the figure adds
 * the protobuf framing, Noise in both directions and the proxy's TCP hops.
 *
 * Baseline: the raw `node:http` server answering the same two requests (one POST, one GET) over
 * the same keep-alive connection. `p50_ms`/`p99_ms` are the time our code adds: the round trip's
 * percentiles minus the baseline's median POST+GET round trip. Target: p99 ≤ 5 ms.
 *
 * docs/design.md §8: the headline fields are measured with the service's data folder on the real disk
 * (the ordinary temporary directory), where every commit of a command is fsynced (WAL,
 * synchronous=FULL); the `ram_*` fields repeat the measurement with the data folder in RAM
 * (`/dev/shm`), to separate our code from the device. Each phase runs `rounds` paired rounds
 * (service, then baseline, the order alternating); `ratio` is the median of the rounds'
 * commands/s ratios.
 */

const SCENARIO_NAME = 'command-roundtrip';
const NUKI_SCENARIO_NAME = 'command-roundtrip-nuki';
const PROXY_SCENARIO_NAME = 'command-roundtrip-proxy';
const TARGET_P99_MS = 5;

/** Which demo lock a variant drives. */
interface RoundtripVariant {
  scenario: string;
  /** The demo lock of this family with a gateway connection. */
  family: LockFamilyId;
  /** Puts a lock of its own beside the demo (the proxy variant): the demo's extra arguments and the lock's name. */
  extraLock?: (dataDir: string) => Promise<ExtraLock>;
}

/** A lock a variant adds to the demo through `--config`. */
interface ExtraLock {
  args: string[];
  name: string;
  stop(): Promise<void>;
}

/** The proxy variant's lock: our profile behind a zero-latency fake ESPHome proxy (Noise on), joined to the demo by `--config`. */
async function lockBehindProxy(dataDir: string): Promise<ExtraLock> {
  const key = randomBytes(32).toString('base64');
  const lockKey = randomBytes(32);
  const address = 'D5:BE:AC:00:00:01';
  const proxy = await FakeEsphomeProxy.start({ name: 'bench-proxy', encryptionKey: key });
  proxy.addDevice(new SimulatedLock({ address, key: lockKey, name: 'Proxied Door', clock: systemClock }), { rssi: -60 });
  const file = join(dataDir, 'proxy-config.json');
  writeFileSync(
    file,
    JSON.stringify({
      locks: [{ name: 'Proxied Door', address, key: lockKey.toString('hex'), owner_email: 'olivia@example.com' }],
      bluetooth: { proxies: [{ name: 'Bench', host: '127.0.0.1', port: proxy.port, encryption_key: key }] },
    }),
  );
  return { args: ['--config', file], name: 'Proxied Door', stop: () => proxy.stop() };
}

interface PhaseResult {
  ops: number;
  baselineOps: number;
  /** Median of the rounds' commands/s ratios (service ÷ baseline, back to back). */
  ratio: number;
  roundRatios: number[];
  p50: number;
  p99: number;
  roundtripP50: number;
  roundtripP99: number;
  transport: number;
  baselineP99: number;
  getsPerCommand: number;
  samples: number;
  /** Server CPU per command (POST + its GETs), ms; robust on a busy machine, unlike latency. */
  cpuMsPerCommand: number | undefined;
}

/** The line of either variant: headline on disk, `ram_*` in RAM (where /dev/shm exists). */
async function measureRoundtrip(options: SelfMeasuringOptions, variant: RoundtripVariant): Promise<Record<string, unknown> & { scenario: string }> {
  const disk = await measurePhase(options, variant, tmpdir(), 'disk');
  const ramRoot = existsSync('/dev/shm') ? '/dev/shm' : undefined;
  const ram = ramRoot === undefined ? undefined : await measurePhase(options, variant, ramRoot, 'RAM');
  return {
    scenario: variant.scenario,
    p50_ms: round(disk.p50, 2),
    p99_ms: round(disk.p99, 2),
    ops_per_s: Math.round(disk.ops),
    baseline_ops_per_s: Math.round(disk.baselineOps),
    ratio: round(disk.ratio, 3),
    round_ratios: disk.roundRatios.map((value) => round(value, 3)),
    roundtrip_p50_ms: round(disk.roundtripP50, 2),
    roundtrip_p99_ms: round(disk.roundtripP99, 2),
    baseline_p50_ms: round(disk.transport, 3),
    baseline_p99_ms: round(disk.baselineP99, 3),
    ...(disk.cpuMsPerCommand === undefined ? {} : { server_cpu_ms_per_command: round(disk.cpuMsPerCommand, 3) }),
    gets_per_command: round(disk.getsPerCommand, 2),
    samples: disk.samples,
    data_in_ram: false,
    ...(ram === undefined
      ? {}
      : {
          ram_p50_ms: round(ram.p50, 2),
          ram_p99_ms: round(ram.p99, 2),
          ram_ops_per_s: Math.round(ram.ops),
          ...(ram.cpuMsPerCommand === undefined ? {} : { ram_server_cpu_ms_per_command: round(ram.cpuMsPerCommand, 3) }),
        }),
    target_p99_ms: TARGET_P99_MS,
    ok: disk.p99 <= TARGET_P99_MS,
  };
}

async function measurePhase(options: SelfMeasuringOptions, variant: RoundtripVariant, root: string, label: string): Promise<PhaseResult> {
  const dataDir = mkdtempSync(join(root, 'ekey-bench-commands-'));
  const started: BenchProcess[] = [];
  const extra = await variant.extraLock?.(dataDir);
  try {
    const service = await startBenchProcess('../cli.js', ['demo', '--port', '0', '--data', dataDir, ...(extra?.args ?? [])]);
    started.push(service);
    const demo = service.info as DemoHousehold & { base_url: string };
    const token = await loginDemoUser(demo.base_url, demo, 0);
    const lockId =
      extra === undefined ? demo.locks.find((lock) => lock.gateway && lock.family === variant.family)?.id : await onlineLockNamed(demo.base_url, token, demo.users[0]?.id ?? '', extra.name);
    if (lockId === undefined) throw new Error(`the demo has no ${variant.family} lock with a gateway connection`);
    const baselineBody = JSON.stringify({
      id: '00000000-0000-4000-8000-000000000000',
      lock_id: lockId,
      type: 'unlock',
      status: 'completed',
      created_at: new Date().toISOString(),
      completed_at: new Date().toISOString(),
      failure_reason: null,
      requested_by: demo.users[0]?.id ?? '',
    });
    const baseline = await startBenchProcess('./baseline-server.js', [baselineBody]);
    started.push(baseline);
    const baselineUrl = (baseline.info as { base_url: string }).base_url;

    const api = client(demo.base_url, token);
    const raw = client(baselineUrl, undefined);
    let polls = 0;
    let commands = 0;
    const roundtrip = async (index: number): Promise<void> => {
      const type = index % 2 === 0 ? 'unlock' : 'lock';
      const created = await api.send('POST', `/locks/${lockId}/commands`, JSON.stringify({ type }));
      if (created.status !== 201) throw new Error(`POST answered ${created.status}: ${created.body}`);
      const id = (JSON.parse(created.body) as { id: string }).id;
      for (;;) {
        polls += 1;
        const answer = await api.send('GET', `/locks/${lockId}/commands/${id}`);
        if (answer.status !== 200) throw new Error(`GET answered ${answer.status}: ${answer.body}`);
        const status = (JSON.parse(answer.body) as { status: string }).status;
        if (status === 'completed') break;
        if (status === 'failed') throw new Error(`command failed: ${answer.body}`);
      }
      commands += 1;
    };
    const baselineRoundtrip = async (): Promise<void> => {
      await raw.send('POST', '/', JSON.stringify({ type: 'unlock' }));
      await raw.send('GET', '/');
    };

    options.log(`${variant.scenario} (data in ${label}): warming up ${options.warmupS} s each`);
    await repeatFor(options.warmupS, roundtrip);
    await repeatFor(options.warmupS, baselineRoundtrip);
    polls = 0;
    commands = 0;
    const serviceDurations: number[] = [];
    const baselineDurations: number[] = [];
    const roundRatios: number[] = [];
    // Server CPU over the service rounds; undefined once a reading is missing (no /proc).
    const serviceCpu: { ms: number | undefined } = { ms: 0 };
    const serviceRound = async (): Promise<number> => {
      const cpuBefore = processCpuMs(service.pid);
      const durations = await repeatFor(options.durationS, roundtrip);
      const cpuAfter = processCpuMs(service.pid);
      serviceCpu.ms = cpuBefore === undefined || cpuAfter === undefined || serviceCpu.ms === undefined ? undefined : serviceCpu.ms + cpuAfter - cpuBefore;
      serviceDurations.push(...durations);
      return durations.length;
    };
    const baselineRound = async (): Promise<number> => {
      const durations = await repeatFor(options.durationS, baselineRoundtrip);
      baselineDurations.push(...durations);
      return durations.length;
    };
    for (let index = 0; index < options.rounds; index++) {
      // Back to back, the order alternating: one ratio per pair (docs/design.md §8).
      const first = index % 2 === 0 ? await baselineRound() : await serviceRound();
      const second = index % 2 === 0 ? await serviceRound() : await baselineRound();
      const [done, baselineDone] = index % 2 === 0 ? [second, first] : [first, second];
      roundRatios.push(baselineDone === 0 ? 0 : done / baselineDone);
    }
    api.close();
    raw.close();

    const measuredS = options.durationS * options.rounds;
    serviceDurations.sort((a, b) => a - b);
    baselineDurations.sort((a, b) => a - b);
    const transport = percentile(baselineDurations, 50);
    options.log(
      `${variant.scenario} (data in ${label}): ${commands} commands, ${round(polls / Math.max(1, commands), 2)} GETs each; round trip p50 ` +
        `${round(percentile(serviceDurations, 50), 2)} ms, p99 ${round(percentile(serviceDurations, 99), 2)} ms; baseline POST+GET p50 ${round(transport, 3)} ms`,
    );
    const cpuMs = serviceCpu.ms;
    return {
      ops: serviceDurations.length / measuredS,
      baselineOps: baselineDurations.length / measuredS,
      ratio: median(roundRatios),
      roundRatios,
      p50: Math.max(0, percentile(serviceDurations, 50) - transport),
      p99: Math.max(0, percentile(serviceDurations, 99) - transport),
      roundtripP50: percentile(serviceDurations, 50),
      roundtripP99: percentile(serviceDurations, 99),
      transport,
      baselineP99: percentile(baselineDurations, 99),
      getsPerCommand: polls / Math.max(1, commands),
      samples: serviceDurations.length,
      cpuMsPerCommand: cpuMs === undefined ? undefined : cpuMs / Math.max(1, commands),
    };
  } finally {
    for (const child of started.reverse()) await child.stop();
    await extra?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The id of the owner's lock of this name once it is online (the proxy heard it and the link is up), within 30 s. */
async function onlineLockNamed(baseUrl: string, token: string, ownerId: string, name: string): Promise<string> {
  const api = client(baseUrl, token);
  try {
    const until = Date.now() + 30_000;
    for (;;) {
      const answer = await api.send('GET', `/users/${ownerId}/locks`);
      const lock = (JSON.parse(answer.body) as { locks: { id: string; name: string; online_status: string }[] }).locks.find((entry) => entry.name === name);
      if (lock?.online_status === 'online') return lock.id;
      if (Date.now() > until) throw new Error(`${name} did not come online through the proxy within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    api.close();
  }
}

/** The scenario, for the bench registry. */
export const commandRoundtrip: SelfMeasuringScenario = {
  name: SCENARIO_NAME,
  description: 'POST a command, poll GET to completed (zero-latency simulated lock); time our code adds over a raw node:http POST+GET; data on disk, ram_* in /dev/shm',
  run: (options) => measureRoundtrip(options, { scenario: SCENARIO_NAME, family: 'ekey' }),
};

/** The Nuki variant, for the bench registry. */
export const commandRoundtripNuki: SelfMeasuringScenario = {
  name: NUKI_SCENARIO_NAME,
  description: 'the same round trip on a zero-latency simulated Nuki through the Nuki driver (crypto included); data on disk, ram_* in /dev/shm',
  run: (options) => measureRoundtrip(options, { scenario: NUKI_SCENARIO_NAME, family: 'nuki' }),
};

/** The ESPHome proxy variant, for the bench registry. */
export const commandRoundtripProxy: SelfMeasuringScenario = {
  name: PROXY_SCENARIO_NAME,
  description: 'the same round trip on a zero-latency simulated lock of our profile reached through the ESPHome transport and a zero-latency fake proxy on loopback (Noise on); data on disk, ram_* in /dev/shm',
  run: (options) => measureRoundtrip(options, { scenario: PROXY_SCENARIO_NAME, family: 'ekey', extraLock: lockBehindProxy }),
};
