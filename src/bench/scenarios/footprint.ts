import { performance } from 'node:perf_hooks';
import { startHomebridge, type RunningHomebridge } from '../homebridge-run.js';
import type { SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';
import { mebibytes, round } from '../stats.js';
import { loginDemoUser } from '../oauth-login.js';
import { startFigures, type StartFigures } from '../homebridge-probe.js';

/*
 * `footprint` (docs/design.md §8): the real Homebridge (src/bench/homebridge-run.ts), started twice with a
 * fresh storage folder on the disk:
 * - with this plugin, the platform in demo mode: `rss_mb` is its resident memory 30 s after the
 *   process was started; `start_ms` is the time from Homebridge's `didFinishLaunching` to the
 *   plugin handing its accessories to Homebridge, which it does once its REST API listens and the
 *   demo's locks with a gateway connection are online (both instants taken inside Homebridge by
 *   src/bench/homebridge-probe.ts);
 * - the same storage started again (`restart_ms`: accessories restored from Homebridge's cache,
 *   household already there — what every later start of a user's bridge costs);
 * - with no plugin at all (an empty plugin folder, no platform): `baseline_rss_mb`, 30 s after start.
 * `plugin_rss_mb` = the difference: what the plugin adds (target ≤ 50 MB; `start_ms` ≤ 500).
 * `heap_total_mb` tells whether V8 had shrunk its heap yet at that instant (it grows during start-up
 * and is given back some 25–30 s later, when the process is idle); `peak_rss_mb` is VmHWM at +30 s
 * of the first start (target ≤ 150 MiB, issue #23), `first_sign_in_peak_rss_mb` VmHWM once the
 * demo's owner has then signed in for the first time (their password's one scrypt derivation).
 */

const SCENARIO_NAME = 'footprint';
const AFTER_START_S = 30;
const TARGET_PLUGIN_RSS_MB = 50;
const TARGET_START_MS = 500;
/** Issue #23: a 1 GB Raspberry Pi's first start. */
const TARGET_PEAK_RSS_MB = 150;

/** Waits until `AFTER_START_S` after the process was spawned. */
async function untilSettled(hb: RunningHomebridge): Promise<void> {
  const wait = hb.spawnedAt + AFTER_START_S * 1000 - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** Start-up of the plugin inside Homebridge, from the probe: didFinishLaunching → accessories handed over. */
const startOf = async (hb: RunningHomebridge): Promise<StartFigures> => startFigures(await hb.probe('read'), SCENARIO_NAME);

/** Resident and heap memory 30 s after start. */
async function settledMemory(hb: RunningHomebridge): Promise<{ rss: number; peak: number | undefined; heapUsed: number; heapTotal: number }> {
  await untilSettled(hb);
  const rss = await hb.rssBytes();
  const reading = await hb.probe('read');
  return { rss, peak: hb.peakRssBytes(), heapUsed: reading.heap_used_bytes, heapTotal: reading.heap_total_bytes };
}

/**
 * VmHWM after the owner's first sign-in, which stores their password's scrypt hash (one 32 MiB
 * derivation, as every sign-in costs): what the demo's start no longer does, measured where it
 * happens now (docs/performance.md "footprint"). Undefined without /proc or a demo line.
 */
async function firstSignInPeak(hb: RunningHomebridge): Promise<number | undefined> {
  if (hb.demo === undefined || hb.peakRssBytes() === undefined) return undefined;
  await loginDemoUser(hb.demo.base_url, hb.demo, 0);
  return hb.peakRssBytes();
}

async function runFootprint(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }> {
  // First start, fresh storage: what a new demo user sees (the demo household and its week of
  // history are created; its passwords are hashed at each user's first sign-in, not here).
  const withPlugin = await startHomebridge({ plugin: true });
  let first: StartFigures;
  let memory: Awaited<ReturnType<typeof settledMemory>>;
  let signInPeak: number | undefined;
  try {
    first = await startOf(withPlugin);
    memory = await settledMemory(withPlugin);
    signInPeak = await firstSignInPeak(withPlugin);
  } catch (error) {
    await withPlugin.stop();
    throw error;
  }
  await withPlugin.stop({ keepFiles: true });
  options.log(
    `footprint: with the plugin ${mebibytes(memory.rss)} MiB after ${AFTER_START_S} s (heap ${mebibytes(memory.heapUsed)} of ${mebibytes(memory.heapTotal)} MiB, ` +
      `peak ${memory.peak === undefined ? '?' : mebibytes(memory.peak)} MiB), first start ${round(first.ms, 1)} ms, ${round(first.cpuMs, 1)} ms CPU (${first.accessories} accessories)`,
  );

  // Restart on the same storage: the accessories come from Homebridge's cache, the household exists.
  const restarted = await startHomebridge({ plugin: true, reuse: withPlugin.folder });
  let restart: StartFigures;
  try {
    restart = await startOf(restarted);
  } finally {
    await restarted.stop();
  }
  options.log(`footprint: restart ${round(restart.ms, 1)} ms, ${round(restart.cpuMs, 1)} ms CPU (${restart.accessories} accessories restored)`);

  const alone = await startHomebridge({ plugin: false });
  let baseline: Awaited<ReturnType<typeof settledMemory>>;
  try {
    baseline = await settledMemory(alone);
  } finally {
    await alone.stop();
  }
  options.log(`footprint: Homebridge alone ${mebibytes(baseline.rss)} MiB after ${AFTER_START_S} s (heap ${mebibytes(baseline.heapUsed)} of ${mebibytes(baseline.heapTotal)} MiB)`);
  const added = mebibytes(memory.rss - baseline.rss);
  return {
    scenario: SCENARIO_NAME,
    rss_mb: mebibytes(memory.rss),
    baseline_rss_mb: mebibytes(baseline.rss),
    start_ms: round(first.ms, 1),
    start_cpu_ms: round(first.cpuMs, 1),
    plugin_rss_mb: added,
    restart_ms: round(restart.ms, 1),
    restart_cpu_ms: round(restart.cpuMs, 1),
    heap_used_mb: mebibytes(memory.heapUsed),
    heap_total_mb: mebibytes(memory.heapTotal),
    ...(memory.peak === undefined ? {} : { peak_rss_mb: mebibytes(memory.peak) }),
    ...(signInPeak === undefined ? {} : { first_sign_in_peak_rss_mb: mebibytes(signInPeak) }),
    baseline_heap_used_mb: mebibytes(baseline.heapUsed),
    baseline_heap_total_mb: mebibytes(baseline.heapTotal),
    ...(baseline.peak === undefined ? {} : { baseline_peak_rss_mb: mebibytes(baseline.peak) }),
    accessories: first.accessories,
    after_start_s: AFTER_START_S,
    target_plugin_rss_mb: TARGET_PLUGIN_RSS_MB,
    target_start_ms: TARGET_START_MS,
    target_peak_rss_mb: TARGET_PEAK_RSS_MB,
    ok: added <= TARGET_PLUGIN_RSS_MB && first.ms <= TARGET_START_MS && (memory.peak === undefined || mebibytes(memory.peak) <= TARGET_PEAK_RSS_MB),
  };
}

/** `footprint`: what the plugin adds to Homebridge's memory, and its start-up time. */
export const footprint: SelfMeasuringScenario = {
  name: SCENARIO_NAME,
  description: `RSS of Homebridge with the plugin in demo mode and of Homebridge alone, ${AFTER_START_S} s after start (MiB); start_ms = didFinishLaunching → accessories registered (API listening)`,
  run: runFootprint,
};
