import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import { until } from './polling.js';

/*
 * A real Mosquitto (Debian's `mosquitto`, installed by .ci/run) for the MQTT tests: loopback only,
 * on a free port, with a password file (anonymous clients are refused), stopped and started again
 * on the same port to play a broker that goes away and returns.
 */

export const MOSQUITTO = '/usr/sbin/mosquitto';

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
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

export interface MosquittoBroker {
  port: number;
  url: string;
  username: string;
  password: string;
  /** Stops the broker (SIGTERM) and waits until its port is closed. */
  stop(): Promise<void>;
  /** Starts it again on the same port (retained messages are not kept: no persistence). */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
  /** What the broker logged so far. */
  log(): string;
}

/** Starts a Mosquitto on a free loopback port that accepts only `username`/`password`. */
export async function startMosquitto(username = 'ekey', password = 'broker-secret-1'): Promise<MosquittoBroker> {
  const folder = mkdtempSync(join(tmpdir(), 'ekey-mosquitto-'));
  chmodSync(folder, 0o755);
  const passwords = join(folder, 'passwords');
  execFileSync('mosquitto_passwd', ['-b', '-c', passwords, username, password], { stdio: 'ignore' });
  chmodSync(passwords, 0o644);
  const port = await freePort();
  const config = join(folder, 'mosquitto.conf');
  writeFileSync(
    config,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      `password_file ${passwords}`,
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
      'log_type notice',
      // Started as root, Mosquitto would switch to the user `mosquitto`, who cannot read this folder.
      `user ${userInfo().username}`,
    ].join('\n') + '\n',
  );
  let child: ChildProcess | undefined;
  let output = '';
  const start = async (): Promise<void> => {
    const started = spawn(MOSQUITTO, ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (started.exitCode !== null || Date.now() > deadline) throw new Error(`mosquitto did not start: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
    const deadline = Date.now() + 10_000;
    while (await accepts(port)) {
      if (Date.now() > deadline) throw new Error('the broker port is still open');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await start();
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    username,
    password,
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(folder, { recursive: true, force: true });
    },
    log: () => output,
  };
}

/** One message as a subscriber received it. */
export interface ReceivedMessage {
  topic: string;
  payload: string;
  retain: boolean;
}

/** A test's own MQTT client (as Home Assistant would be): what it received, and waits on it. */
export interface WatchingClient {
  client: MqttClient;
  messages: ReceivedMessage[];
  /** Resolves with the first message (received so far or later) that `accept` takes. */
  next(accept: (message: ReceivedMessage) => boolean, what: string, timeoutMs?: number): Promise<ReceivedMessage>;
  /** The newest message on `topic`, if any. */
  last(topic: string): ReceivedMessage | undefined;
  /** Forgets what was received so far. */
  clear(): void;
  close(): Promise<void>;
}

/** Connects a client with the broker's credentials and subscribes to `filters`. */
export async function watchBroker(broker: MosquittoBroker, filters: string[], options: IClientOptions = {}): Promise<WatchingClient> {
  // MQTT 5 with "retain as published": a live message shows the retain flag it was published with.
  const client = await connectAsync(broker.url, { username: broker.username, password: broker.password, reconnectPeriod: 0, protocolVersion: 5, ...options });
  const messages: ReceivedMessage[] = [];
  client.on('message', (topic, payload, packet) => {
    messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain });
  });
  await client.subscribeAsync(filters, { qos: 1, rap: true });
  return {
    client,
    messages,
    next: async (accept, what, timeoutMs = 10_000) => {
      let found: ReceivedMessage | undefined;
      await until(
        () => (found = messages.find(accept)) !== undefined,
        () => `${what} (received: ${messages.map((message) => `${message.topic}=${message.payload.slice(0, 80)}`).join(' | ') || 'nothing'})`,
        timeoutMs,
      );
      return found as ReceivedMessage;
    },
    last: (topic) => messages.filter((message) => message.topic === topic).at(-1),
    clear: () => {
      messages.length = 0;
    },
    close: async () => {
      await client.endAsync(true);
    },
  };
}
