import { readFileSync } from 'node:fs';
import type { IClientOptions, IClientPublishOptions, MqttClient, connect as MqttConnect } from 'mqtt';
import { describeError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { brokerAddress, type MqttSettings } from './mqtt-settings.js';

/** Reconnect backoff: 1 s, doubling, at most 60 s (docs/design.md §11). */
const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 60_000;
/** How long a connection attempt may take (TCP, TLS, CONNACK). */
const CONNECT_TIMEOUT_MS = 10_000;

/** What the adapter hears from its connection. */
export interface MqttConnectionHandlers {
  /** Connected (again): subscribe and publish everything retained. */
  connected(): void;
  message(topic: string, payload: Buffer, retained: boolean): void;
}

/** The `mqtt` client's options for these settings: credentials, TLS, protocol, last will. */
export function clientOptions(settings: MqttSettings, will: { topic: string; payload: string } | undefined): IClientOptions {
  return {
    clientId: settings.clientId,
    protocolVersion: settings.protocolVersion,
    clean: true,
    // Reconnects are ours (backoff); the client queues nothing while the broker is away.
    reconnectPeriod: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    queueQoSZero: false,
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...(settings.caFile === undefined ? {} : { ca: readFileSync(settings.caFile) }),
    ...(will === undefined ? {} : { will: { topic: will.topic, payload: Buffer.from(will.payload), qos: 1, retain: true } }),
  };
}

/**
 * Why the broker could not be used, in a sentence for a person (the log, the settings page's test):
 * refused credentials, an unknown host, a closed port, a certificate not trusted. Never the password.
 */
export function explainMqttError(error: unknown, url: string): string {
  const where = brokerAddress(url);
  const code: unknown = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  // CONNACK return codes: MQTT 3.1.1 (4, 5) and MQTT 5 (134, 135).
  // Mosquitto answers "not authorized" (5) to a wrong password under MQTT 3.1.1.
  if (code === 4 || code === 134 || code === 5 || code === 135) return `The broker at ${where} refused the user name or password (not authorized).`;
  if (code === 1 || code === 132) return `The broker at ${where} does not speak this MQTT version; try the other protocol version.`;
  if (typeof code === 'number') return `The broker at ${where} refused the connection (${describeError(error)}).`;
  switch (code) {
    case 'ECONNREFUSED':
      return `No broker answered at ${where} (connection refused).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `The broker's host name in ${where} could not be found.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `The broker at ${where} cannot be reached from this host (${code}).`;
    case 'ECONNRESET':
      return `The broker at ${where} closed the connection (is it a TLS port? Use mqtts:// for TLS).`;
    case 'ENOENT':
    case 'EACCES':
      return `The CA file could not be read (${describeError(error)}).`;
    default:
      break;
  }
  if (typeof code === 'string' && (code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL'))) {
    return `The broker's certificate at ${where} is not trusted (${code}): give its CA file in mqtt.ca.`;
  }
  const message = describeError(error);
  if (/connack timeout|connect timeout/i.test(message)) return `The broker at ${where} did not answer within ${CONNECT_TIMEOUT_MS / 1000} s.`;
  return `Could not use the broker at ${where}: ${message}.`;
}

/**
 * One connection to the broker, kept up: reconnects with backoff (1 s doubling to 60 s) after
 * every loss, publishes only while connected (nothing is queued while the broker is away; the
 * adapter republishes everything retained when it is back), and logs a loss once, not every
 * retry. `mqtt` is loaded on first use, so a service without MQTT never loads it.
 */
export class MqttConnection {
  private client: MqttClient | undefined;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private wasConnected = false;
  private lastProblem: string | undefined;

  constructor(
    private readonly settings: MqttSettings,
    private readonly will: { topic: string; payload: string },
    private readonly handlers: MqttConnectionHandlers,
    private readonly logger: Logger,
  ) {}

  /** Whether the broker is there now. */
  get connected(): boolean {
    return this.client?.connected === true;
  }

  /** Connects (and keeps connecting). Resolves once the first attempt is under way; never rejects. */
  async start(): Promise<void> {
    let options: IClientOptions;
    try {
      options = clientOptions(this.settings, this.will);
    } catch (error) {
      this.logger.error(`MQTT is off: ${explainMqttError(error, this.settings.url)}`);
      return;
    }
    let connect: typeof MqttConnect;
    try {
      ({ connect } = await import('mqtt'));
    } catch (error) {
      this.logger.error(`MQTT is off: the mqtt client could not be loaded (${describeError(error)}).`);
      return;
    }
    if (this.stopped) return;
    const client = connect(this.settings.url, options);
    this.client = client;
    client.on('connect', () => {
      this.retryMs = FIRST_RETRY_MS;
      this.lastProblem = undefined;
      this.logger.info(`MQTT: connected to ${brokerAddress(this.settings.url)}${this.wasConnected ? ' again' : ''}.`);
      this.wasConnected = true;
      try {
        this.handlers.connected();
      } catch (error) {
        this.logger.error(`MQTT: ${describeError(error)}`);
      }
    });
    client.on('message', (topic, payload, packet) => {
      try {
        this.handlers.message(topic, payload, packet.retain);
      } catch (error) {
        this.logger.error(`MQTT: a message on ${topic} could not be handled: ${describeError(error)}`);
      }
    });
    client.on('error', (error) => {
      this.problem(explainMqttError(error, this.settings.url));
    });
    client.on('close', () => {
      this.scheduleReconnect();
    });
  }

  /**
   * Publishes when connected; false (and nothing queued) when not. Never throws: a publish that
   * fails is reported once, the connection's own handling takes it from there.
   */
  publish(topic: string, payload: string, options: IClientPublishOptions): boolean {
    const client = this.client;
    if (client === undefined || !client.connected) return false;
    client.publish(topic, payload, options, (error) => {
      // The client answers null (not undefined) when the broker took it.
      if (error) this.logger.debug(`MQTT: publishing to ${topic} failed: ${describeError(error)}`);
    });
    return true;
  }

  subscribe(filters: string[]): void {
    const client = this.client;
    if (client === undefined || !client.connected || filters.length === 0) return;
    client.subscribe(filters, { qos: 1 }, (error) => {
      if (error !== null) this.logger.warn(`MQTT: could not subscribe to ${filters.join(', ')}: ${describeError(error)}`);
    });
  }

  /**
   * Publishes the last words (`offline`, retained, as the will would) and disconnects; waits at most
   * `timeoutMs` for the broker.
   */
  async stop(lastWords: { topic: string; payload: string } | undefined, timeoutMs = 2_000): Promise<void> {
    this.stopped = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        client.end(true);
        resolve();
      }, timeoutMs);
      const end = (): void => {
        client.end(false, {}, () => {
          clearTimeout(timer);
          resolve();
        });
      };
      if (client.connected && lastWords !== undefined) client.publish(lastWords.topic, lastWords.payload, { qos: 1, retain: true }, end);
      else {
        clearTimeout(timer);
        client.end(true);
        resolve();
      }
    });
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer !== undefined) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(LONGEST_RETRY_MS, this.retryMs * 2);
    if (this.lastProblem === undefined) this.problem(`the connection to ${brokerAddress(this.settings.url)} was lost`);
    this.logger.debug(`MQTT: connecting to ${brokerAddress(this.settings.url)} again in ${delay / 1000} s.`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) this.client?.reconnect();
    }, delay);
  }

  /** Logs a problem once while it lasts (the next successful connect says so). */
  private problem(sentence: string): void {
    if (this.lastProblem === sentence) return;
    this.lastProblem = sentence;
    this.logger.warn(`MQTT: ${sentence.replace(/\.$/, '')}; HomeKit, the API and commands carry on, and the service keeps trying to reach the broker.`);
  }
}
