import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, connect as connectTcp, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { DemoHousehold } from '../../demo/demo-household.js';
import { startBenchProcess, type BenchProcess } from '../bench-process.js';
import { loginDemoUser } from '../oauth-login.js';
import type { SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';
import { percentile, round } from '../stats.js';

/*
 * `event-fanout` (docs/design.md §8, §11): how long from a lock event recorded until its `event`
 * message reaches a subscriber of a loopback Mosquitto, and until its signed webhook POST reaches a
 * receiver on loopback, while 100 events per second are recorded. The events are taps by the
 * owner's eKey on the demo's Front Door (a zero-latency simulated lock of our profile), unlock and
 * lock in turn, sent as the demo's control lines every 10 ms: lock → gateway → lock runtime →
 * recorder → SQLite (WAL, synchronous=FULL, the real disk) → lock port → the MQTT client and the
 * webhook fan-out (one transaction per batch) and sender (a POST with its HMAC). Each latency is
 * the arrival time minus the event's own time (`at` of the MQTT message, `timestamp` of the
 * webhook body: when the lock reported the move, a little before it was recorded — so the figure
 * is, if anything, too high). Targets: MQTT p99 ≤ 50 ms, webhook p99 ≤ 100 ms.
 */

const SCENARIO_NAME = 'event-fanout';
const TARGET_MQTT_P99_MS = 50;
const TARGET_WEBHOOK_P99_MS = 100;
/** 100 events per second. */
const WRITE_INTERVAL_MS = 10;
const MOSQUITTO = '/usr/sbin/mosquitto';
const BASE_TOPIC = 'bench-fanout';

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createTcpServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => {
        resolve(port);
      });
    });
  });

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });

/** A Mosquitto of its own on a free loopback port, anonymous (nothing but loopback reaches it). */
async function startMosquitto(folder: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const config = join(folder, 'mosquitto.conf');
  writeFileSync(config, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', `user ${userInfo().username}`].join('\n') + '\n');
  const child = spawn(MOSQUITTO, ['-c', config], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${MOSQUITTO} did not start (install Debian's mosquitto package)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url: `mqtt://127.0.0.1:${port}`, child };
}

/** A webhook receiver on loopback that notes each body's latency. */
async function startReceiver(onBody: (body: string) => void): Promise<{ url: string; server: Server }> {
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      onBody(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(204);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

async function measure(options: SelfMeasuringOptions): Promise<Record<string, unknown> & { scenario: string }> {
  try {
    execFileSync(MOSQUITTO, ['-h'], { stdio: 'ignore' });
  } catch (error) {
    // mosquitto -h exits 3 after printing its help; only a missing binary is a problem.
    if ((error as { code?: unknown }).code === 'ENOENT') throw new Error(`${SCENARIO_NAME} needs ${MOSQUITTO} (Debian's mosquitto package)`);
  }
  const folder = mkdtempSync(join(tmpdir(), 'ekey-bench-fanout-'));
  const started: BenchProcess[] = [];
  let broker: ChildProcess | undefined;
  let receiver: Server | undefined;
  // Per event (its own time, ms: taps are 10 ms apart), the latency of each way; only events of the measured stretch.
  const mqttLatencies = new Map<string, number>();
  const webhookLatencies = new Map<string, number>();
  let recordFrom = Number.POSITIVE_INFINITY;
  const note = (into: Map<string, number>, eventTime: string | undefined): void => {
    if (eventTime === undefined) return;
    const at = Date.parse(eventTime);
    if (at >= recordFrom) into.set(eventTime, Date.now() - at);
  };
  try {
    const mosquitto = await startMosquitto(folder);
    broker = mosquitto.child;
    const hook = await startReceiver((body) => {
      note(webhookLatencies, (JSON.parse(body) as { timestamp?: string }).timestamp);
    });
    receiver = hook.server;
    const configFile = join(folder, 'config.json');
    writeFileSync(configFile, JSON.stringify({ mqtt: { url: mosquitto.url, base_topic: BASE_TOPIC, discovery: false } }));
    const service = await startBenchProcess('../cli.js', ['demo', '--port', '0', '--data', join(folder, 'data'), '--config', configFile], { stdin: true });
    started.push(service);
    const demo = service.info as DemoHousehold & { base_url: string };
    const lockId = demo.locks.find((lock) => lock.name === 'Front Door')?.id;
    const owner = demo.users[0];
    if (lockId === undefined || owner === undefined) throw new Error('the demo has no Front Door or owner');
    const token = await loginDemoUser(demo.base_url, demo, 0);
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' };
    const added = await fetch(`${demo.base_url}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: hook.url, events: ['lock.locked', 'lock.unlocked'], lock_ids: [lockId] }) });
    if (added.status !== 201) throw new Error(`POST /webhooks answered ${added.status}: ${await added.text()}`);
    const keys = (await (await fetch(`${demo.base_url}/users/${owner.id}/ekeys`, { headers })).json()) as { id: string; lock_id: string }[] | { ekeys?: { id: string; lock_id: string }[] };
    const list = Array.isArray(keys) ? keys : (keys.ekeys ?? []);
    const ekeyId = list.find((key) => key.lock_id === lockId)?.id;
    if (ekeyId === undefined) throw new Error('the owner has no key on Front Door');

    const { connectAsync } = await import('mqtt');
    const subscriber = await connectAsync(mosquitto.url, { reconnectPeriod: 0 });
    subscriber.on('message', (_topic, payload) => {
      note(mqttLatencies, (JSON.parse(payload.toString('utf8')) as { at?: string }).at);
    });
    await subscriber.subscribeAsync(`${BASE_TOPIC}/${lockId}/event`, { qos: 1 });

    let sent = 0;
    let answered = 0;
    const failures: string[] = [];
    service.onLine((line) => {
      const answer = JSON.parse(line) as { ok?: unknown; id?: unknown };
      if (typeof answer.id !== 'string' || !answer.id.startsWith('fanout-')) return;
      answered += 1;
      if (answer.ok !== true) failures.push(line);
    });
    const tap = (): void => {
      sent += 1;
      service.send(JSON.stringify({ op: 'tap', lock_id: lockId, ekey_id: ekeyId, action: sent % 2 === 1 ? 'unlock' : 'lock', id: `fanout-${sent}` }));
    };
    const writeFor = async (seconds: number): Promise<void> => {
      const timer = setInterval(tap, WRITE_INTERVAL_MS);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      clearInterval(timer);
    };

    options.log(`${SCENARIO_NAME}: warming up ${options.warmupS} s`);
    await writeFor(options.warmupS);
    recordFrom = Date.now();
    const measuredS = options.durationS * options.rounds;
    const sentBefore = sent;
    await writeFor(measuredS);
    // The last deliveries' arrival (bounded): what is still on its way counts, both ways for every event.
    const bothWays = (): boolean => webhookLatencies.size === mqttLatencies.size && [...mqttLatencies.keys()].every((key) => webhookLatencies.has(key));
    const deadline = Date.now() + 10_000;
    while ((answered < sent || !bothWays()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await subscriber.endAsync();
    if (failures.length > 0) throw new Error(`${failures.length} taps failed, e.g. ${failures[0] ?? ''}`);
    const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);
    const mqtt = sorted([...mqttLatencies.values()]);
    const webhook = sorted([...webhookLatencies.values()]);
    const events = sent - sentBefore;
    const mqttP99 = percentile(mqtt, 99);
    const webhookP99 = percentile(webhook, 99);
    options.log(`${SCENARIO_NAME}: ${events} taps in ${measuredS} s; ${mqtt.length} MQTT messages (p99 ${round(mqttP99, 2)} ms), ${webhook.length} webhook POSTs (p99 ${round(webhookP99, 2)} ms)`);
    return {
      scenario: SCENARIO_NAME,
      mqtt_p99_ms: round(mqttP99, 2),
      webhook_p99_ms: round(webhookP99, 2),
      mqtt_p50_ms: round(percentile(mqtt, 50), 2),
      webhook_p50_ms: round(percentile(webhook, 50), 2),
      events_per_s: round(events / measuredS, 1),
      mqtt_samples: mqtt.length,
      webhook_samples: webhook.length,
      data_in_ram: false,
      target_mqtt_p99_ms: TARGET_MQTT_P99_MS,
      target_webhook_p99_ms: TARGET_WEBHOOK_P99_MS,
      ok: mqtt.length > 0 && webhook.length > 0 && mqttP99 <= TARGET_MQTT_P99_MS && webhookP99 <= TARGET_WEBHOOK_P99_MS,
    };
  } finally {
    for (const child of started.reverse()) await child.stop();
    receiver?.close();
    broker?.kill('SIGTERM');
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The scenario, for the bench registry. */
export const eventFanout: SelfMeasuringScenario = {
  name: SCENARIO_NAME,
  description: `lock event recorded → MQTT event at a loopback Mosquitto subscriber (p99 ≤ ${TARGET_MQTT_P99_MS} ms) and → signed webhook POST at a loopback receiver (p99 ≤ ${TARGET_WEBHOOK_P99_MS} ms), 100 events/s`,
  run: measure,
};
