import { capabilitiesOf, type LockFamilyId } from '../../families/registry.js';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEMO_LINKED_AUTHORIZATION } from '../../families/nuki/nuki-module.js';
import { startHomebridge, type RunningHomebridge } from '../homebridge-run.js';
import type { ProbeReading } from '../homebridge-probe.js';
import { loginDemoUser } from '../oauth-login.js';
import type { SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';
import { round } from '../stats.js';

/*
 * `loop-delay` (docs/design.md §8): the event-loop delay of the real Homebridge process running the
 * plugin in demo mode (src/bench/homebridge-run.ts), at 1 ms resolution
 * (`monitorEventLoopDelay({ resolution: 1 })` inside Homebridge, src/bench/homebridge-probe.ts):
 * - idle (`baseline_p99_ms`): after start-up and a settling pause, nothing asked of it;
 * - during a burst (`p99_ms`): 20 event streams open (10 on each lock with a gateway connection;
 *   half of them the owner's, half a second user's with an anytime eKey on each lock, since one
 *   user may hold at most 10 open streams, docs/design.md §9),
 *   then at once: 50 remote commands (POST, then polled to their end, 25 per lock in turn),
 *   2,000 activity records (taps on the simulated locks through the demo control socket: each
 *   reaches the service as a lock would report it, 1,000 per lock) and 100 eKey writes (50 eKeys
 *   sent to the demo's other users and deleted again, each a change of the lock's allow-list).
 * Every sample of the histogram includes the 1 ms timer interval: an idle loop reads ≈ 1.0–1.1 ms.
 *
 * Where `strace` is available, the same burst runs once more under `strace -f -e fsync,fdatasync`
 * attached to Homebridge, to count the fsyncs made on Homebridge's main thread (its thread id is
 * the process id) and on other threads. That pass is slower (ptrace) and is not timed.
 */

const SCENARIO_NAME = 'loop-delay';
/** How much one burst asks of the plugin. */
export interface BurstSize {
  commands: number;
  activityRecords: number;
  /** Sends and deletes, counted separately (an even number). */
  ekeyWrites: number;
  eventStreams: number;
}

const BURST: BurstSize = { commands: 50, activityRecords: 2_000, ekeyWrites: 100, eventStreams: 20 };
const { commands: COMMANDS, activityRecords: ACTIVITY_RECORDS, ekeyWrites: EKEY_WRITES, eventStreams: EVENT_STREAMS } = BURST;
const SETTLE_S = 5;
const IDLE_S = 10;
const COMMAND_TIMEOUT_MS = 30_000;
const MAX_COMMAND_ATTEMPTS = 20;
const TARGET_P99_MS = 5;
const TARGET_MAIN_THREAD_FSYNCS = 0;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A JSON client of the plugin's REST API (fetch, keep-alive). */
function api(baseUrl: string, token: string) {
  return async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
}

/** An open Server-Sent Events stream that counts the events it receives. */
async function openStream(url: string, token: string): Promise<{ received: () => number; close: () => void }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal });
  if (response.status !== 200 || response.body === null) throw new Error(`event stream ${url}: HTTP ${response.status}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let tail = '';
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const lines = (tail + decoder.decode(value, { stream: true })).split('\n');
        tail = lines.pop() ?? '';
        received += lines.filter((line) => line.startsWith('data:')).length;
      }
    } catch {
      // Aborted at the end of the burst.
    }
  })();
  return {
    received: () => received,
    close: () => {
      controller.abort();
    },
  };
}

export interface Household {
  token: string;
  /** A second user's token (an anytime eKey on every gateway lock): the other half of the streams. */
  streamerToken: string;
  call: ReturnType<typeof api>;
  /** The demo's locks with a gateway connection, with the owner's eKey on each. */
  locks: { id: string; family: LockFamilyId; ownerKeyId: string }[];
  /** The demo's users other than the owner (eKey recipients). */
  others: { email: string }[];
}

/** Signs in the demo owner and a second streaming user (an anytime eKey on every gateway lock). */
export async function household(hb: RunningHomebridge): Promise<Household> {
  const demo = hb.demo;
  const owner = demo?.users[0];
  if (!demo || !owner) throw new Error('loop-delay: Homebridge printed no demo line');
  const token = await loginDemoUser(demo.base_url, demo, 0);
  const call = api(demo.base_url, token);
  const listed = await call('GET', `/users/${owner.id}/locks`);
  const keys = new Map(((listed.body as { locks?: { id: string; ekey_id: string }[] }).locks ?? []).map((lock) => [lock.id, lock.ekey_id]));
  const locks = demo.locks.filter((lock) => lock.gateway).map((lock) => ({ id: lock.id, family: lock.family, ownerKeyId: keys.get(lock.id) ?? '' }));
  if (locks.length === 0 || locks.some((lock) => lock.ownerKeyId === '')) throw new Error('loop-delay: the owner holds no key on a gateway lock');
  // One user may hold 10 open streams (docs/design.md §9): the last demo user streams the other half.
  const streamerIndex = demo.users.length - 1;
  const streamer = demo.users[streamerIndex];
  if (streamerIndex < 2 || !streamer) throw new Error('loop-delay: the demo has too few users');
  for (const lock of locks) {
    const sent = await call('POST', '/ekey', { email: streamer.email, lock_id: lock.id, type: 'anytime' });
    if (sent.status !== 201) throw new Error(`loop-delay: eKey for the second streamer: HTTP ${sent.status} ${JSON.stringify(sent.body)}`);
  }
  const streamerToken = await loginDemoUser(demo.base_url, demo, streamerIndex);
  return { token, streamerToken, call, locks, others: demo.users.slice(1, streamerIndex) };
}

export interface BurstResult {
  durationMs: number;
  commandsCompleted: number;
  /** Commands sent again after meeting the lock busy with a tap. */
  commandsResent: number;
  activityRecords: number;
  ekeyWrites: number;
  streamedEvents: number;
  failures: string[];
}

/** The burst: commands, activity records and eKey writes at once, with the event streams open. */
export async function burst(hb: RunningHomebridge, home: Household, size: BurstSize = BURST): Promise<BurstResult> {
  const { commands: COMMANDS, activityRecords: ACTIVITY_RECORDS, ekeyWrites: EKEY_WRITES, eventStreams: EVENT_STREAMS } = size;
  const base = hb.demo?.base_url ?? '';
  const failures: string[] = [];
  const streams = await Promise.all(
    Array.from({ length: EVENT_STREAMS }, (_, index) =>
      openStream(`${base}/locks/${home.locks[index % home.locks.length]?.id ?? ''}/events/stream`, index < EVENT_STREAMS / 2 ? home.token : home.streamerToken),
    ),
  );
  let commandsCompleted = 0;
  let commandsResent = 0;
  let activityRecords = 0;
  let ekeyWrites = 0;
  const began = performance.now();

  // A command that meets the lock busy with a tap fails at once (`delivery_failed`); like a user,
  // the lane sends it again, so the burst completes all its commands.
  const commandLane = async (lockId: string, count: number): Promise<void> => {
    for (let index = 0; index < count; index += 1) {
      for (let attempt = 0; ; attempt += 1) {
        const outcome = await command(lockId, index % 2 === 0 ? 'unlock' : 'lock');
        if (outcome === 'completed') {
          commandsCompleted += 1;
          break;
        }
        if (outcome !== 'delivery_failed' || attempt >= MAX_COMMAND_ATTEMPTS - 1) {
          failures.push(`command: ${outcome}`);
          break;
        }
        commandsResent += 1;
      }
    }
  };
  const command = async (lockId: string, type: 'lock' | 'unlock'): Promise<string> => {
    const created = await home.call('POST', `/locks/${lockId}/commands`, { type });
    const id = (created.body as { id?: string } | undefined)?.id;
    if (created.status !== 201 || id === undefined) return `POST answered HTTP ${created.status}`;
    const deadline = performance.now() + COMMAND_TIMEOUT_MS;
    for (;;) {
      await sleep(5);
      const state = await home.call('GET', `/locks/${lockId}/commands/${id}`);
      const body = state.body as { status?: string; failure_reason?: string } | undefined;
      if (body?.status === 'completed') return 'completed';
      if (body?.status === 'failed') return body.failure_reason ?? 'failed';
      if (performance.now() > deadline) return `not finished within ${COMMAND_TIMEOUT_MS} ms`;
    }
  };
  const tapLane = async (lock: Household['locks'][number], count: number): Promise<void> => {
    const control = await hb.control();
    try {
      for (let index = 0; index < count; index += 1) {
        const action = index % 2 === 0 ? 'unlock' : 'lock';
        const line = activityLine(lock, action);
        const answer = await control.send(line);
        if (answer.ok && answer.observed !== false) activityRecords += 1;
        else failures.push(`tap: ${JSON.stringify(answer)}`);
      }
    } finally {
      control.close();
    }
  };
  const ekeyLane = async (): Promise<void> => {
    for (let index = 0; index < EKEY_WRITES / 2; index += 1) {
      const user = home.others[index % home.others.length];
      const lock = home.locks[Math.floor(index / home.others.length) % home.locks.length];
      if (!user || !lock) throw new Error('loop-delay: no eKey recipient');
      const sent = await home.call('POST', '/ekey', { email: user.email, lock_id: lock.id, type: 'anytime' });
      const id = (sent.body as { id?: string } | undefined)?.id;
      if (sent.status !== 201 || id === undefined) {
        failures.push(`eKey send: HTTP ${sent.status} ${JSON.stringify(sent.body)}`);
        continue;
      }
      ekeyWrites += 1;
      const deleted = await home.call('DELETE', `/ekey/${id}?purge=true`);
      if (deleted.status === 200) ekeyWrites += 1;
      else failures.push(`eKey delete: HTTP ${deleted.status}`);
    }
  };

  const lanes: Promise<void>[] = [ekeyLane()];
  home.locks.forEach((lock, index) => {
    const share = (total: number): number => Math.floor(total / home.locks.length) + (index < total % home.locks.length ? 1 : 0);
    lanes.push(commandLane(lock.id, share(COMMANDS)), tapLane(lock, share(ACTIVITY_RECORDS)));
  });
  await Promise.all(lanes);
  const durationMs = performance.now() - began;
  // The last events reach the streams within a moment.
  await sleep(200);
  const streamedEvents = streams.reduce((sum, stream) => sum + stream.received(), 0);
  for (const stream of streams) stream.close();
  return { durationMs, commandsCompleted, commandsResent, activityRecords, ekeyWrites, streamedEvents, failures };
}

/** What the traced burst saw. */
interface TracedFsyncs {
  /** fsync/fdatasync calls on Homebridge's main thread, and on its other threads. */
  main: number;
  other: number;
  /** Time the main thread spent inside those calls (strace -T), in total and the longest one, ms. */
  mainMs: number;
  mainMaxMs: number;
  seconds: number;
}

/** fsync/fdatasync calls per thread of Homebridge during one more burst, or undefined without strace. */
async function tracedBurst(hb: RunningHomebridge, home: Household, log: (message: string) => void): Promise<TracedFsyncs | undefined> {
  if (spawnSync('strace', ['-V'], { stdio: 'ignore' }).status !== 0) {
    log('loop-delay: strace is not available; fsyncs per thread not counted');
    return undefined;
  }
  const folder = mkdtempSync(join(tmpdir(), 'ekey-bench-strace-'));
  const file = join(folder, 'fsyncs.txt');
  try {
    const tracer = spawn('strace', ['-f', '-qq', '-T', '-e', 'trace=fsync,fdatasync', '-o', file, '-p', String(hb.pid)], { stdio: 'ignore' });
    const tracerExited = new Promise<void>((resolve) => tracer.once('exit', () => {
      resolve();
    }));
    // Attaching to every thread takes a moment.
    await sleep(1000);
    const result = await burst(hb, home);
    tracer.kill('SIGINT');
    await tracerExited;
    const traced: TracedFsyncs = { main: 0, other: 0, mainMs: 0, mainMaxMs: 0, seconds: result.durationMs / 1000 };
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      // `<tid> fsync(23) = 0 <0.000512>`
      const match = /^(\d+)\s+f(?:data)?sync\(.*<([\d.]+)>$/.exec(line);
      if (!match) continue;
      if (Number(match[1]) !== hb.pid) {
        traced.other += 1;
        continue;
      }
      const ms = Number(match[2]) * 1000;
      traced.main += 1;
      traced.mainMs += ms;
      traced.mainMaxMs = Math.max(traced.mainMaxMs, ms);
    }
    log(
      `loop-delay (under strace): burst ${round(traced.seconds, 1)} s; fsyncs on Homebridge's main thread ${traced.main} ` +
        `(${round(traced.mainMs, 1)} ms inside them, longest ${round(traced.mainMaxMs, 2)} ms), on other threads ${traced.other}`,
    );
    return traced;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const delayFields = (prefix: '' | 'baseline_', reading: ProbeReading): Record<string, number> => ({
  [`${prefix}p99_ms`]: round(reading.delay.p99_ms, 2),
  [`${prefix}p50_ms`]: round(reading.delay.p50_ms, 2),
  [`${prefix}max_ms`]: round(reading.delay.max_ms, 2),
  [`${prefix}mean_ms`]: round(reading.delay.mean_ms, 3),
  [`${prefix}samples`]: reading.delay.samples,
});

async function runLoopDelay(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }> {
  const hb = await startHomebridge({ plugin: true });
  try {
    const home = await household(hb);
    await sleep(SETTLE_S * 1000);
    await hb.probe('reset');
    await sleep(IDLE_S * 1000);
    const idle = await hb.probe('read');
    options.log(`loop-delay idle ${IDLE_S} s: p50 ${round(idle.delay.p50_ms, 2)} ms, p99 ${round(idle.delay.p99_ms, 2)} ms, max ${round(idle.delay.max_ms, 2)} ms`);

    await hb.probe('reset');
    const result = await burst(hb, home);
    const busy = await hb.probe('read');
    if (result.failures.length > 0) throw new Error(`loop-delay: ${result.failures.length} burst operations failed, e.g. ${result.failures[0] ?? ''}`);
    options.log(
      `loop-delay burst ${round(result.durationMs / 1000, 1)} s (${result.commandsCompleted} commands + ${result.commandsResent} resent after meeting the lock busy, ${result.activityRecords} activity records, ` +
        `${result.ekeyWrites} eKey writes, ${result.streamedEvents} events streamed): p50 ${round(busy.delay.p50_ms, 2)} ms, p99 ${round(busy.delay.p99_ms, 2)} ms, max ${round(busy.delay.max_ms, 2)} ms`,
    );
    const fsyncs = await tracedBurst(hb, home, options.log);
    return {
      scenario: SCENARIO_NAME,
      ...delayFields('', busy),
      ...delayFields('baseline_', idle),
      burst_s: round(result.durationMs / 1000, 2),
      idle_s: IDLE_S,
      commands: result.commandsCompleted,
      commands_resent_after_busy: result.commandsResent,
      activity_records: result.activityRecords,
      ekey_writes: result.ekeyWrites,
      event_streams: EVENT_STREAMS,
      streamed_events: result.streamedEvents,
      resolution_ms: 1,
      data_in_ram: false,
      ...(fsyncs === undefined
        ? {}
        : {
            main_thread_fsyncs: fsyncs.main,
            main_thread_fsync_ms: round(fsyncs.mainMs, 1),
            main_thread_fsync_max_ms: round(fsyncs.mainMaxMs, 2),
            other_thread_fsyncs: fsyncs.other,
            traced_burst_s: round(fsyncs.seconds, 2),
          }),
      target_p99_ms: TARGET_P99_MS,
      target_main_thread_fsyncs: TARGET_MAIN_THREAD_FSYNCS,
      ok: busy.delay.p99_ms <= TARGET_P99_MS && (fsyncs === undefined || fsyncs.main <= TARGET_MAIN_THREAD_FSYNCS),
    };
  } finally {
    await hb.stop();
  }
}

/** `loop-delay`: Homebridge's event-loop delay with the plugin, during a burst and idle. */
export const loopDelay: SelfMeasuringScenario = {
  name: SCENARIO_NAME,
  description:
    `event-loop delay (1 ms resolution) of the real Homebridge process with the plugin in demo mode: during a burst of ${COMMANDS} remote commands, ` +
    `${ACTIVITY_RECORDS} activity records, ${EKEY_WRITES} eKey writes with ${EVENT_STREAMS} event streams open (p99_ms), and idle (baseline_p99_ms); fsyncs on its main thread (strace)`,
  run: runLoopDelay,
};

/**
 * One control line that makes the lock record activity, chosen by what the lock can do (never by
 * its family): an intercom's opener is rung (docs/design.md §4d); a lock with its own users is
 * tapped by the linked one (§4b); a lock with a keypad and no own users, whose eKeys have no phone
 * taps (§4f), gets a mistyped code at its keypad (a refused entry, §4c); any other lock
 * is tapped with the owner's eKey (§6).
 */
function activityLine(lock: { id: string; family: LockFamilyId; ownerKeyId: string }, action: 'lock' | 'unlock'): Record<string, unknown> {
  const capabilities = capabilitiesOf(lock.family);
  if (capabilities.opener) return { op: 'ring', lock_id: lock.id };
  if (capabilities.ownUsers) return { op: 'tap', lock_id: lock.id, action, authorization: DEMO_LINKED_AUTHORIZATION };
  if (capabilities.keypad) return { op: 'keypad', lock_id: lock.id, code: '000000', action };
  return { op: 'tap', lock_id: lock.id, action, ekey_id: lock.ownerKeyId };
}
